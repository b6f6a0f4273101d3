"""`gpu-advise stop`: an instance stopped now or at a time asked for, called off, or the ones waiting listed (chat's
`stop NAME [at=TIME]`, bot/app/stop_asked.py). The terminal keeps the request in the state; `serve`'s
`actions:due` job carries it out, through the instance's agent or its cloud, and tells its channel."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import typer

from bot.cli.common import LangOpt, fail, load_settings
from bot.cli.rentals import JsonOpt, TeamOpt, chosen_team, open_rentals
from bot.text import Lang, t
from bot.text.runway import when_said

AT_HELP = "When, a time to come: 21:00 (the next 21:00), 'tomorrow 9am', 'in 2h', '12-08 09:00'; default now."
BY = "terminal"  # who asked, as the state keeps it: the terminal is the operator's


def stop(
    name: Annotated[str | None, typer.Argument(help="The instance; none: the stops asked for.")] = None,
    at: Annotated[str | None, typer.Option("--at", help=AT_HELP)] = None,
    cancel: Annotated[bool, typer.Option("--cancel", help="Call off the stop asked for.")] = False,
    remind: Annotated[bool, typer.Option("--remind", help="Only tell its owner in its channel then.")] = False,
    once_idle: Annotated[
        bool, typer.Option("--once-idle", help="As soon as the idle rule calls it idle (its job done), 3 days at most.")
    ] = False,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Have an instance stopped now, at a time or once idle (by serve, through its agent or cloud), or call it off."""
    from bot.actions.asked import NotAsked, ask_stop
    from bot.fields.coming import coming_moment
    from bot.fields.rentals import FieldError
    from bot.state.actions import Actions

    settings = load_settings(lang=lang)
    said_in, zone, now = settings.files.lang, ZoneInfo(settings.digest.remind_tz), datetime.now(UTC)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    actions = Actions(rentals.store)
    if name is None:
        _waiting(actions, rentals, team, zone, said_in, as_json)
        return
    inst = rentals.instance(team, name)
    if inst is None or inst.released_at is not None:
        raise fail(
            t("error.rental.no_instance" if inst is None else "error.rental.already_released", said_in, name=name)
        )
    if cancel:
        gone = actions.call_off(inst.id, now, BY)
        if gone is None:
            raise fail(t("cli.stop_none_for", said_in, name=name))
        _out(
            {"item": name, "called_off": gone.deadline.isoformat()},
            as_json,
            [t("cli.stop_called_off", said_in, name=name, at=when_said(gone.deadline, zone))],
        )
        return
    if once_idle and (at is not None or remind):
        raise fail(t("cli.stop_once_idle_alone", said_in))
    try:
        when = None if at is None else coming_moment(at, said_in, now, zone)
    except FieldError as exc:
        raise fail(f"--at: {exc.message}") from None
    try:
        kept = ask_stop(rentals.store, inst, inst.channel, now, when, BY, said_in, remind=remind, once_idle=once_idle)
    except NotAsked as refused:  # --remind without --at, or one the bot cannot stop: its owner reminded at a time
        key = "cli.stop_under_way" if refused.code == "under_way" else "cli.stop_cannot"
        raise fail(t(key, said_in, name=name)) from None
    at_said = t("cli.stop_once_idle", said_in) if once_idle else when_said(kept.new.deadline, zone)
    line = t(f"cli.stop_asked_{kept.kind}", said_in, name=name, at=at_said)
    replaced = kept.before.deadline.isoformat() if kept.before is not None else None
    said = {
        "item": name,
        "at": kept.new.deadline.isoformat(),
        "how": kept.kind,
        "once_idle": once_idle,
        "replaced": replaced,
    }
    _out(said, as_json, [line])


def _waiting(actions: Any, rentals: Any, team: str, zone: ZoneInfo, said_in: Lang, as_json: bool) -> None:
    """The team's stops asked for and not come yet, soonest first (chat's `stop` alone)."""
    named = {i.id: i.name for i in rentals.instances(team, active_only=True)}
    waiting = sorted(actions.asked_for(list(named)).values(), key=lambda w: w.deadline)
    rows = [
        {"item": named[w.instance_id], "at": w.deadline.isoformat(), "once_idle": w.once_idle, "asked_by": w.asked_by}
        for w in waiting
    ]
    idle = t("cli.stop_once_idle", said_in)
    lines = [
        f"{r['item']}\t{idle if r['once_idle'] else when_said(w.deadline, zone)}\t{r['asked_by']}"
        for r, w in zip(rows, waiting, strict=True)
    ]
    _out(rows, as_json, lines or [t("cli.stop_none", said_in)])


def _out(data: object, as_json: bool, lines: list[str]) -> None:
    sys.stdout.write((json.dumps(data, ensure_ascii=False, indent=2) if as_json else "\n".join(lines)) + "\n")
