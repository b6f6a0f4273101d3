"""`act off|notify|stop [grace] [project]`: what a channel (or one project in it) does about idle instances,
read the same from Slack and the terminal. `notify` is the default (the digest says it); `stop` also stops
what stays idle for the grace after the digest's warning; `off` leaves idle instances out of the digest."""

from __future__ import annotations

from datetime import timedelta

from bot.fields.spans import SpanError, parse_span
from bot.state.actions import MODES, Policy
from bot.text import Lang, t
from bot.text.chinese_names import ACT_MODES
from bot.text.format import literal, show

GRACE_MIN, GRACE_MAX = timedelta(minutes=1), timedelta(days=7)


class PolicyError(ValueError):
    """A bad `act` input, already in the user's language."""


def read_mode(text: str, lang: Lang) -> str:
    mode = text.strip().lower()
    mode = ACT_MODES.get(mode, mode)  # 停机, 提醒, 关闭
    if mode not in MODES:
        raise PolicyError(t("action.bad_mode", lang, text=text[:40]))
    return mode


def read_grace(text: str | None, lang: Lang) -> timedelta:
    if text is None:
        return timedelta(hours=4)
    try:
        return parse_span(text, GRACE_MIN, GRACE_MAX)
    except SpanError as exc:
        raise PolicyError(f"grace: {t(f'error.span.{exc.code}', lang, **exc.params)}") from None


def grace_text(grace: timedelta) -> str:
    minutes = grace.total_seconds() / 60
    if minutes >= 1440 and minutes % 1440 == 0:
        return f"{show(minutes / 1440)}d"
    return f"{show(minutes / 60)}h" if minutes >= 60 and minutes % 60 == 0 else f"{show(minutes)}m"


def said(policy: Policy, where: str, lang: Lang) -> str:
    """What will happen now, and to what."""
    scope = t("action.scope_project", lang, project=literal(policy.project), where=where) if policy.project else where
    return t(f"action.now_{policy.mode}", lang, where=scope, grace=grace_text(policy.grace))
