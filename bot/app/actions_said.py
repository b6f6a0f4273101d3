"""`actions`: what was warned, stopped, called off or refused in this team, newest first (the terminal's
`gpu-advise actions`, whose rows and outcomes it reads): chat had no way to see a stop once its message scrolled
away, nor the board. Times on the channel's clock; each line with the item's owner."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.actions.asked import asker_said
from bot.actions.outcome import outcome
from bot.app.invocation import CommandError, Invocation
from bot.chat.message import plain
from bot.fields.rentals import as_spelt
from bot.state.actions import Actions, Warning
from bot.state.rentals import Instance, Rentals
from bot.text import Lang, t
from bot.text.catalogue import has, tw
from bot.text.format import literal, mention, money

SHOWN = 10  # the latest; the terminal's `gpu-advise actions` lists them all


def actions(inv: Invocation, args: list[str]) -> None:
    """`actions [NAME]`: the team's latest, or one instance's (`停机记录 训练机` listed the whole team's)."""
    lang, zone, rentals = inv.lang, inv.channel_zone(), Rentals(inv.deps.store)
    name = _instance_named(inv, rentals, args)
    rows = Actions(inv.deps.store).history(inv.team, limit=SHOWN, name=name)
    if not rows:
        none = t("actions.none_for", lang, name=literal(name)) if name else t("actions.none", lang)
        inv.answer(plain(none, lang))
        return
    title = t("actions.title_for", lang, shown=len(rows), name=literal(name)) if name else None
    lines = [title or t("actions.title", lang, shown=len(rows))]
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


def _instance_named(inv: Invocation, rentals: Rentals, args: list[str]) -> str | None:
    """The one instance `actions` is asked about, released or not; CommandError for more words or a name the team
    has no instance of (with the name it has in other capitals)."""
    if not args:
        return None
    if len(args) > 1:
        raise CommandError(t("actions.usage", inv.lang))
    if rentals.instance(inv.team, args[0]) is None:
        said = tw("error.rental.no_instance", inv.lang, "chat", name=literal(args[0]))
        near = as_spelt(args[0], [i.name for i in rentals.instances(inv.team)])
        raise CommandError(said + (t("error.rental.did_you_mean", inv.lang, name=literal(near)) if near else ""))
    return args[0]


def _what(warning: Warning, inst: Instance | None, lang: Lang, zone: ZoneInfo) -> str:
    """What became of the warning: its verified outcome where the stop was made or refused (outcome())."""
    found = outcome(warning, inst, lang)
    if found is not None:
        if found["outcome"] == "stopped_still_billed":
            return t("actions.stopped_still_billed", lang, per_hour=money(found["per_hour"], found["currency"]))
        return t(f"actions.{found['outcome']}", lang, reason=_why(found.get("reason"), lang))
    if warning.status == "cancelled":
        return t("actions.cancelled", lang, reason=_why(warning.detail, lang))
    if warning.status == "reminded":  # asked for at a time, and not the bot's to stop: its owner was told
        return t("actions.reminded", lang, asker=asker_said(warning.asked_by, lang))
    if warning.status == "warned" and warning.asked_by:
        deadline = f"{warning.deadline.astimezone(zone):%m-%d %H:%M}"
        return t("actions.asked", lang, deadline=deadline, asker=asker_said(warning.asked_by, lang))
    if warning.status == "warned":
        return t("actions.warned", lang, deadline=f"{warning.deadline.astimezone(zone):%m-%d %H:%M}")
    return t("actions.under_way", lang)  # requested, or the agent has answered and the bot not yet said it


def _why(detail: str | None, lang: Lang) -> str:
    if not detail:
        return "-"
    return t(f"action.why.{detail}", lang) if has(f"action.why.{detail}") else detail[:200]
