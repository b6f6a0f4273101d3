"""`actions`: what was warned, stopped, called off or refused in this team, newest first (the terminal's
`gpu-advise actions`, whose rows and outcomes it reads): chat had no way to see a stop once its message scrolled
away, nor the board. Times on the channel's clock; each line with the item's owner."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.actions.outcome import outcome
from bot.app.invocation import Invocation
from bot.chat.message import plain
from bot.state.actions import Actions, Warning
from bot.state.rentals import Instance, Rentals
from bot.text import Lang, t
from bot.text.catalogue import has
from bot.text.format import literal, mention, money

SHOWN = 10  # the latest; the terminal's `gpu-advise actions` lists them all


def actions(inv: Invocation, _args: list[str]) -> None:
    lang, zone, rentals = inv.lang, inv.channel_zone(), Rentals(inv.deps.store)
    rows = Actions(inv.deps.store).history(inv.team, limit=SHOWN)
    if not rows:
        inv.answer(plain(t("actions.none", lang), lang))
        return
    lines = [t("actions.title", lang, shown=len(rows))]
    for warning, name in rows:
        inst = rentals.by_id(warning.instance_id)
        at = (warning.decided_at or warning.requested_at or warning.warned_at).astimezone(zone)
        lines.append(
            t(
                "actions.line",
                lang,
                at=f"{at:%m-%d %H:%M}",
                name=literal(name),
                owner=mention(inst.owner) if inst is not None and inst.owner else "-",
                what=_what(warning, inst, lang, zone),
            )
        )
    inv.answer(plain("\n".join(lines), lang))


def _what(warning: Warning, inst: Instance | None, lang: Lang, zone: ZoneInfo) -> str:
    """What became of the warning: its verified outcome where the stop was made or refused (outcome())."""
    found = outcome(warning, inst, lang)
    if found is not None:
        if found["outcome"] == "stopped_still_billed":
            return t("actions.stopped_still_billed", lang, per_hour=money(found["per_hour"], found["currency"]))
        return t(f"actions.{found['outcome']}", lang, reason=_why(found.get("reason"), lang))
    if warning.status == "cancelled":
        return t("actions.cancelled", lang, reason=_why(warning.detail, lang))
    if warning.status == "warned":
        return t("actions.warned", lang, deadline=f"{warning.deadline.astimezone(zone):%m-%d %H:%M}")
    return t("actions.under_way", lang)  # requested, or the agent has answered and the bot not yet said it


def _why(detail: str | None, lang: Lang) -> str:
    if not detail:
        return "-"
    return t(f"action.why.{detail}", lang) if has(f"action.why.{detail}") else detail[:200]
