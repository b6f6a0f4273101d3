"""`/gpu-advise list`, `/gpu-advise release NAME` and `/gpu-advise remind [at HH:MM [zone] [days] | off]`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import overload

from bot.deps import Deps
from bot.fields.rentals import budget_amount
from bot.slack.listeners.digest import is_admin
from bot.slack.replies import zone_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.slack.ui.digest import item_blocks
from bot.state.budgets import Budgets
from bot.state.rentals import RentalError, Rentals, check_name
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.errors import error_text
from bot.text.format import escape, money, rate, show
from rules.errors import ParseError
from rules.remind_schedule import RemindSchedule, next_send, parse_at, parse_days, parse_zone


class RentalCommandError(Exception):
    """Bad input to a rentals sub-command (track, list, release, remind, budget): the sentence, in the
    user's language."""


def _say(request: SlackRequest, text: str) -> None:
    request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))


def on_list(deps: Deps, request: SlackRequest, lang: Lang) -> None:
    rentals = Rentals(deps.store)
    lines = []
    for i in rentals.instances(request.team):
        if i.hidden_by:  # "Not ours"
            continue
        state = "released" if i.released_at else "running"
        lines.append(
            t(
                "digest.list_instance",
                lang,
                name=i.name,
                gpu=f"{i.gpu} × {show(i.share or i.cards)}",
                price=rate(i.price, i.currency, i.unit, t("digest.no_price", lang)),
                owner=f"<@{i.owner}>",
                state=t(f"digest.state.{state}", lang),
            )
        )
    for s in rentals.storage(request.team):
        if s.hidden_by:
            continue
        state = "deleted" if s.deleted_at else "kept"
        lines.append(
            t(
                "digest.list_storage",
                lang,
                name=s.name,
                size=show(s.size_gb),
                per_month=money(s.size_gb * s.price_gb_month, s.currency),
                owner=f"<@{s.owner}>",
                state=t(f"digest.state.{state}", lang),
            )
        )
    _say(request, "\n".join([t("digest.list_title", lang), *lines]) if lines else t("digest.list_empty", lang))


def _owner_or_admin(request: SlackRequest, owner: str, name: str, lang: Lang) -> None:
    """Releasing or deleting an item is for its owner or an admin of this workspace; anyone else is told who."""
    user = request.user or ""
    if user != owner and not is_admin(request.client, user, request.team):
        raise RentalCommandError(t("digest.not_yours", lang, owner=f"<@{owner}>", name=name))


def on_release(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    if len(args) != 1:
        raise RentalCommandError(t("digest.release_usage", lang))
    rentals, name, user = Rentals(deps.store), args[0], request.user or ""
    found = rentals.instance(request.team, name)
    if found is None:
        raise RentalCommandError(tw("error.rental.no_instance", lang, "slack", name=escape(name)))
    _owner_or_admin(request, found.owner, name, lang)
    try:
        released = rentals.release(request.team, name, deps.now(), request.user)
    except RentalError as exc:
        raise RentalCommandError(tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)) from None
    note = t("digest.done.released", lang, name=name, user=f"<@{user}>")
    out = blocks.text(note)
    for left in rentals.storage(request.team, instance_id=released.id, kept_only=True):
        question = t(
            "digest.storage_question",
            lang,
            name=name,
            storage=left.name,
            size=show(left.size_gb),
            per_month=money(left.size_gb * left.price_gb_month, left.currency),
        )
        out += item_blocks("s", left.name, question, lang)
    request.client.chat_postMessage(channel=request.channel or user, text=note, blocks=out)


def on_delete_storage(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    """`delete-storage NAME`: the storage was deleted (its owner or an admin of this workspace); it stops costing."""
    if len(args) != 1:
        raise RentalCommandError(t("digest.delete_storage_usage", lang))
    rentals, name, user = Rentals(deps.store), args[0], request.user or ""
    found = rentals.storage_named(request.team, name)
    if found is None:
        raise RentalCommandError(tw("error.rental.no_storage", lang, "slack", name=escape(name)))
    _owner_or_admin(request, found.owner, name, lang)
    try:
        rentals.delete_storage(request.team, name, deps.now())
    except RentalError as exc:
        raise RentalCommandError(tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)) from None
    note = t("digest.done.deleted", lang, name=name, user=f"<@{user}>")
    request.client.chat_postMessage(channel=request.channel or user, text=note, blocks=blocks.text(note))


def on_remind(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    """`remind at 09:30 [zone] [days] [lang=en|zh]`, `remind lang en|zh`, `remind off`, `remind`. The
    channel's language: one set here wins; else the language of whoever set the schedule."""
    schedules = Schedules(deps.store, deps.settings.default_schedule())
    team, channel, user = request.team, request.channel or "", request.user or ""
    current = schedules.of(team, channel)
    given = [a for a in args if a.lower().startswith("lang=")]
    args = [a for a in args if a not in given]
    chosen = _language(given[-1].split("=", 1)[1] if given else None, lang)
    words = [a.lower() for a in args]
    if words == ["off"]:
        setter = schedules.set_by(team, channel)
        if setter not in (None, user) and not is_admin(request.client, user, team):
            raise RentalCommandError(t("digest.remind_not_yours", lang, setter=f"<@{setter}>"))
        schedules.put(team, channel, replace(current, enabled=False), user, deps.now())
        _say(request, t("digest.schedule_off", lang))
        return
    if len(words) == 2 and words[0] == "lang":
        current = replace(current, lang=_language(words[1], lang).value)
        schedules.put(team, channel, current, user, deps.now())
    elif words and words[0] == "at" and 2 <= len(args) <= 4:
        try:
            current = _schedule(args[1:], current, zone_for(request.client, deps, user) or current.zone)
        except ParseError as exc:
            raise RentalCommandError(error_text(exc, lang, where="slack")) from None
        # the language set here, else the one it had, else the language of whoever sets it
        current = replace(current, lang=(chosen or (Lang(current.lang) if current.lang else lang)).value)
        schedules.put(team, channel, current, user, deps.now())
    elif args or given:
        raise RentalCommandError(t("digest.remind_usage", lang))
    if not current.enabled:
        _say(request, t("digest.schedule_off", lang))
        return
    _say(request, schedule_text(current, deps.now(), lang, Lang(current.lang or deps.settings.lang)))


@overload
def _language(value: str, lang: Lang) -> Lang: ...
@overload
def _language(value: None, lang: Lang) -> None: ...
def _language(value: str | None, lang: Lang) -> Lang | None:
    """A language named in the command (`lang=en`, `lang zh`); RentalCommandError for anything else."""
    if value is None:
        return None
    if value.lower() not in {code.value for code in Lang}:
        raise RentalCommandError(t("digest.remind_lang_usage", lang, text=value))
    return Lang(value.lower())


def schedule_text(schedule: RemindSchedule, now: datetime, lang: Lang, channel_lang: Lang) -> str:
    """The schedule as a person reads it: its local time and zone, days, language and the next send."""
    upcoming = next_send(schedule, now)
    nxt = (
        f"{upcoming:%Y-%m-%d %H:%M} {t(f'word.weekday.{upcoming.weekday()}', lang)} {schedule.zone}"
        if upcoming
        else "-"
    )
    return t(
        "digest.schedule",
        lang,
        at=schedule.at.strftime("%H:%M"),
        zone=schedule.zone,
        days=schedule.days_text,
        next=nxt,
        language=t(f"word.lang.{channel_lang.value}", lang),
    )


def _schedule(args: list[str], current: RemindSchedule, zone: str) -> RemindSchedule:
    """`09:30 [zone] [days]`: a zone has a '/' or is UTC; anything else after the time is the days. Without
    a zone, `zone` (the caller's Slack time zone)."""
    at, days = parse_at(args[0]), current.days
    for arg in args[1:]:
        if "/" in arg or arg.upper() in ("UTC", "GMT"):
            zone = parse_zone(arg if "/" in arg else arg.upper())
        else:
            days = parse_days(arg)
    return RemindSchedule(at, zone, days, True, current.lang)


def on_budget(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    """`budget PROJECT AMOUNT [CNY|USD]`, `budget PROJECT off`, or `budget` (the list)."""
    budgets, team = Budgets(deps.store), request.team
    if not args:
        found = budgets.of(team)
        lines = " · ".join(f"{project} {money(amount, currency)}" for (project, currency), amount in found.items())
        _say(request, t("digest.budget_list", lang, lines=lines) if found else t("digest.budget_none", lang))
        return
    project = args[0]
    try:
        check_name(project)
    except RentalError as exc:
        raise RentalCommandError(tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)) from None
    setter = budgets.set_by(team, project)
    if setter not in (None, request.user) and not is_admin(request.client, request.user or "", team):
        raise RentalCommandError(t("digest.budget_not_yours", lang, project=project, setter=f"<@{setter}>"))
    if len(args) == 2 and args[1].lower() == "off":
        budgets.remove(team, project)
        _say(request, t("digest.budget_removed", lang, project=project))
        return
    amount = budget_amount(args[1]) if 2 <= len(args) <= 3 else None
    currency = (args[2] if len(args) == 3 else deps.settings.currency).upper()
    if amount is None or currency not in ("CNY", "USD"):
        raise RentalCommandError(t("digest.budget_usage", lang, text=" ".join(args[1:])))
    budgets.put(team, project, amount, currency, request.user or "", deps.now())
    _say(request, t("digest.budget_set", lang, project=project, amount=money(amount, currency)))
