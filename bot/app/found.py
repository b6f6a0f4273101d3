"""The digest's "Found, not tracked" buttons, the same on every chat: **Claim** (anyone of the team: the presser
becomes the owner; in a channel that stops idle instances, one idle now is warned at once) and **Not ours** (an
admin: hidden from digests and lists). The wing says `done` where the item was, or `refused` to the presser."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.actions.warn import STOPPABLE
from bot.chat.digest_messages import when
from bot.chat.ids import Action
from bot.deps import Deps
from bot.state.actions import Actions
from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.format import mention
from rules.idle import Activity, judge


@dataclass(frozen=True)
class Pressed:
    """A press of Claim or Not ours on a digest: the item (kind "i" or "s", its name), who, where, and the digest
    message it is on (its id and the language it was posted in)."""

    action: Action
    team: str
    channel: str
    kind: str
    name: str
    user: str
    message_id: str | None
    posted_in: Lang


@dataclass(frozen=True)
class Outcome:
    done: str | None = None  # the line that takes the item's place, in the digest's language
    refused: str | None = None  # why not, to the presser alone, in theirs
    gone: bool = False  # refused because the item is no longer there


def _warn_if_idle(deps: Deps, press: Pressed) -> datetime | None:
    """A claimed instance idle now, in a channel that stops idle instances, is warned at once (deadline: the press
    plus the grace); the deadline, or None."""
    rentals = Rentals(deps.store)
    inst = rentals.instance(press.team, press.name)
    if inst is None or inst.source not in STOPPABLE:
        return None
    actions = Actions(deps.store)
    policy = actions.policy(press.team, inst.channel, inst.project)
    now = deps.now()
    samples = rentals.recent([inst.id], now - timedelta(minutes=deps.policy.idle.window_minutes))[inst.id]
    idle = judge(samples, started=inst.launched_at or inst.started_at, now=now, rules=deps.policy.idle)
    if policy.mode != "stop" or idle is not Activity.IDLE:
        return None
    made = actions.warn(
        press.team, inst.id, inst.channel, now, now + policy.grace, press.message_id, press.posted_in.value
    )
    return made.deadline if made else None


def answer(deps: Deps, press: Pressed, lang: Lang, *, member: bool, is_admin: Callable[[], bool]) -> Outcome:
    """Claim or Not ours, by `press.user` (whose language is `lang`; `member`: of the team)."""
    found, team, name, said_in = Discovered(deps.store), press.team, press.name, press.posted_in
    if press.action is Action.CLAIM:
        if not member:
            return Outcome(refused=t("digest.found_not_member", lang))
        owner = found.claim(team, press.kind, name, press.user)
        if owner:
            return Outcome(refused=t("digest.found_already", lang, name=name, owner=mention(owner)))
        if owner == "":
            return Outcome(refused=t("digest.gone", lang, name=name), gone=True)
        said = t("digest.done.claimed", said_in, name=name, user=mention(press.user))
        warned = _warn_if_idle(deps, press) if press.kind == "i" else None
        if warned is not None:
            zone = ZoneInfo(Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, press.channel).zone)
            said += " " + t("digest.stop_warning", said_in, at=when(warned, zone))
        return Outcome(done=said)
    if not is_admin():
        return Outcome(refused=t("digest.found_admins_only", lang, name=name))
    if not found.hide(team, press.kind, name, press.user):
        return Outcome(refused=t("digest.gone", lang, name=name), gone=True)
    return Outcome(done=t("digest.done.not_ours", said_in, name=name, user=mention(press.user)))
