"""`gpu-advise power`, `billing` and `balance`: when an instance ran, how it is billed, and a provider's prepaid
balance with how long it lasts (rules/metering.py, rules/runway.py)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import typer

from bot.cli.common import LangOpt, fail, load_settings, more_than_taken, say
from bot.cli.rentals import (
    OWNER_HELP,
    JsonOpt,
    TeamOpt,
    _fields,
    _run,
    checked_owner,
    chosen_team,
    open_rentals,
    past_moment,
)
from bot.fields.metering import (
    PROVIDER_CURRENCY,
    balance_said,
    billing_of,
    power_of,
    provider_first,
    provider_of,
    stop_billing_of,
    top_up_amount,
    top_up_said,
)
from bot.fields.rentals import price_currency, price_typed
from bot.text import Lang, t
from bot.text.problem import said
from bot.text.quote import instance_rate
from bot.text.runway import billing_said, period_from_rate, when_said, whose_said

if TYPE_CHECKING:
    from bot.settings import Settings
    from bot.state.rentals import Rentals

AT_HELP = "When: 23:30 (the last 23:30), 'yesterday 23:30', '2h ago' or ISO 8601; default now; no zone: the team's."
# click reads "-5" as an option; for `balance autodl -5` it is an amount, refused as a negative balance
CONTEXT = {"balance": {"ignore_unknown_options": True}}


def power(
    name: Annotated[str, typer.Argument(help="The instance.")],
    words: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[on|off] [at=TIME]",
            help="on or off: say it went on or off (else list its stretches); then when, as chat says it: at=23:30, "
            "昨晚11点, 2h ago (--at).",
            show_default=False,
        ),
    ] = None,
    at: Annotated[str | None, typer.Option("--at", help=AT_HELP)] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say an instance went on or off (its hourly meter follows), or list when it was on, off and unknown."""
    from bot.state.power import PowerLog

    settings = load_settings(lang=lang)
    state, at = _power_words(words or [], at, settings.files.lang)  # `off at=23:30`, as chat's power takes it
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    inst = rentals.instance(team, name)
    if inst is None:
        raise fail(t("error.rental.no_instance", settings.files.lang, name=name))
    log = PowerLog(rentals.store, _metering(settings))
    now = datetime.now(UTC)
    if state is not None:
        if inst.released_at is not None:
            raise fail(t("error.rental.already_released", settings.files.lang, name=name))
        said = _fields(lambda: power_of(state, settings.files.lang))
        moment = past_moment(at, settings, now, "--at")
        zone = ZoneInfo(settings.digest.remind_tz)
        kept = _run(settings, lambda: log.say(inst.id, said, moment, now, source="person", by="terminal", zone=zone))
        key = "cli.power_said" if kept else "cli.power_repeated"
        state_word = t(f"word.power.{said.value}", settings.files.lang)
        sys.stdout.write(t(key, settings.files.lang, name=name, state=state_word, at=when_said(moment, zone)) + "\n")
        return
    [stretches] = log.timelines([inst], now).values()
    rows = [
        {"from": s.start.isoformat(), "to": s.end.isoformat(), "state": s.state.value, "source": s.source or None}
        for s in stretches
    ]
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    _print_stretches(stretches, settings)


def _print_stretches(stretches: list[Any], settings: Settings) -> None:
    """In a terminal, a table in the reader's words (`开机`, `登记时`); through a pipe, a stretch a line between tabs,
    as scripts have read it (`on`, `track`)."""
    from bot.cli.common import text_console
    from bot.cli.tables import folded_table, print_table
    from bot.text.power_said import source_said

    zone, lang, console = ZoneInfo(settings.digest.remind_tz), settings.files.lang, text_console()
    at = "%Y-%m-%d %H:%M"
    rows = [
        (f"{s.start.astimezone(zone):{at}}", f"{s.end.astimezone(zone):{at}}", f"{s.hours:.2f} h", s) for s in stretches
    ]
    if not console.is_terminal:
        for start, end, hours, s in rows:
            sys.stdout.write(f"{start}\t{end}\t{s.state.value}\t{hours}\t{s.source or '-'}\n")
        return
    table = folded_table(t("cli.power_columns", lang, zone=zone.key))
    for start, end, hours, s in rows:
        table.add_row(start, end, t(f"word.power.{s.state.value}", lang), hours, source_said(s.source, lang))
    print_table(table, console)


def _metering(settings: Settings) -> Any:
    from bot.cli.common import load_effective_policy

    return load_effective_policy(settings).metering


def billing(
    name: Annotated[str, typer.Argument(help="The instance.")],
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="How it bills: hourly (billed while running), day or month (each period started), stops or keeps; "
            "chat's keys too: provider=autodl, price=每月2万, project=llm.",
            show_default=False,
        ),
    ] = None,
    price: Annotated[
        str | None,
        typer.Option(help="Its price from now on, e.g. 1.88/h, 400/day: kept, never changed by a discovery scan."),
    ] = None,
    stop_billing: Annotated[
        str | None, typer.Option("--stop-billing", help="stops (stopping stops the meter) or keeps.")
    ] = None,
    provider: Annotated[str | None, typer.Option(help="The provider account it bills to: autodl, aliyun...")] = None,
    project: Annotated[
        str | None, typer.Option(help="The project its spend counts for, this month's included (none: no project).")
    ] = None,
    owner: Annotated[str | None, typer.Option(help="Its owner from now on. " + OWNER_HELP)] = None,
    gpu: Annotated[
        str | None, typer.Option(help="Its GPU, where it was tracked with the wrong one: H800, 910B...")
    ] = None,
    cards: Annotated[
        str | None, typer.Option(help="Its count of cards, where it was tracked with the wrong one.")
    ] = None,
    started: Annotated[
        str | None,
        typer.Option(help="When it began, where it was tracked later: 'yesterday 9:00', 昨天9点; its bill from then."),
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
) -> None:
    """Set how an instance bills, its price, whose it is, its card or when it began; alone, say how."""
    settings = load_settings(lang=lang)
    flags = {"price": price, "stop_billing": stop_billing, "provider": provider, "project": project, "owner": owner}
    flags |= {"gpu": gpu, "cards": cards, "started": started}
    basis = _billing_words(words or [], settings.files.lang, flags)  # `包月 provider=autodl`: as chat says them
    price, stop_billing, provider, project, owner = (
        flags[k] for k in ("price", "stop_billing", "provider", "project", "owner")
    )
    gpu, cards, started = flags["gpu"], flags["cards"], flags["started"]
    if basis is None and price is None and stop_billing:
        raise fail(t("cli.billing_needs", settings.files.lang))
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    if started is not None:
        _started(settings, rentals, team, name, started)
        if (gpu, cards, project, owner, basis, price, provider) == (None,) * 7:
            return
    if gpu is not None or cards is not None:
        _machine(settings, rentals, team, name, gpu, cards, priced=price is not None)
    if project is not None or owner is not None:
        _whose(settings, rentals, team, name, project, owner)
    if (gpu, cards, project, owner) != (None,) * 4 and basis is None and price is None and provider is None:
        return
    if basis is None and price is None and provider:  # the balance it bills to, alone
        _provider_set(settings, rentals, team, name, provider)
    elif basis is None and price is None:  # `billing NAME` alone: how it bills now
        _billing_shown(settings, rentals, team, name)
    if basis is None and price is None:
        return
    if price is not None:
        _price_set(settings, rentals, team, name, price)
    if basis is not None:  # refused above when neither was given
        _basis_set(settings, rentals, team, name, basis, stop_billing, provider)


def _provider_set(settings: Settings, rentals: Rentals, team: str, name: str, provider: str) -> None:
    said_in = settings.files.lang
    account = _fields(lambda: provider_of(provider, said_in))
    changed = _run(settings, lambda: rentals.set_billing(team, name, provider=account))
    sys.stdout.write(t("meter.provider_set", said_in, name=changed.name, provider=account) + "\n")


def _billing_shown(settings: Settings, rentals: Rentals, team: str, name: str) -> None:
    from bot.text.runway import billing_shown

    found = rentals.instance(team, name)
    if found is None:
        raise fail(t("error.rental.no_instance", settings.files.lang, name=name))
    change = t("cli.billing_change", settings.files.lang, name=name)
    sys.stdout.write(billing_shown(found, settings.files.lang, change) + "\n")


def _price_set(settings: Settings, rentals: Rentals, team: str, name: str, price: str) -> None:
    amount, unit = _fields(lambda: price_typed(price, settings.files.lang))
    now = datetime.now(UTC)
    money = price_currency(price)  # --price '$8/h': in dollars, whatever the instance's was
    priced = _run(settings, lambda: rentals.set_price(team, name, amount, unit, "terminal", now, money))
    said_in = settings.files.lang
    sys.stdout.write(t("cli.price_set", said_in, name=priced.name, rate=instance_rate(priced, said_in, "")) + "\n")


def _power_words(words: list[str], at: str | None, lang: Lang) -> tuple[str | None, str | None]:
    """`power NAME`'s on or off, and its time: --at, or chat's `at=23:30` among the words (with the words after it
    that make the time: `at=昨天 23:30`), or the words after on or off (`off 昨晚11点`, `off at 23:30`); exit 2 for a
    time given twice."""
    keyed = next((i for i, w in enumerate(words) if w.lower().startswith("at=")), None)
    said: str | None = None
    if keyed is not None:
        said, words = " ".join([words[keyed][3:], *words[keyed + 1 :]]).strip(), words[:keyed]
    elif len(words) > 1:  # `off 昨晚11点`, `off at 23:30`, `off 2h ago`: the time after it, as chat takes it
        rest = words[2:] if words[1].lower() in ("at", "since", "从", "于", "在") else words[1:]
        said, words = (" ".join(rest), words[:1]) if rest else (None, words)
    if len(words) > 1:  # `on foo at=23:30`, `off at`: a word it does not take
        raise more_than_taken(words[1:], lang, "power")
    if said is not None and at is not None:
        raise fail(t("cli.words_twice", lang, command="power", flag="--at"))
    return (words[0] if words else None), (said if said is not None else at)


def _billing_words(words: list[str], lang: Lang, flags: dict[str, str | None]) -> str | None:
    from bot.cli.billing_words import billing_flags

    return billing_flags(words, lang, flags)


def _started(settings: Settings, rentals: Rentals, team: str, name: str, said: str) -> None:
    """--started: the instance began then (tracked later), its bill from then; exit 2 as chat refuses it."""
    from bot.state.power import PowerLog

    now = datetime.now(UTC)
    moment = past_moment(said, settings, now, "--started")
    zone = ZoneInfo(settings.digest.remind_tz)
    _run(settings, lambda: PowerLog(rentals.store, _metering(settings)).move_start(team, name, moment, zone))
    sys.stdout.write(t("meter.started_set", settings.files.lang, name=name, at=when_said(moment, zone)) + "\n")


def _basis_set(
    settings: Settings,
    rentals: Rentals,
    team: str,
    name: str,
    basis: str,
    stop_billing: str | None,
    provider: str | None,
) -> None:
    values = {
        "billing": _fields(lambda: billing_of(basis, settings.files.lang)),
        "stop_billing": _fields(lambda: stop_billing_of(stop_billing, settings.files.lang)) if stop_billing else None,
        "provider": _fields(lambda: provider_of(provider, settings.files.lang)) if provider else None,
    }
    changed = _run(settings, lambda: rentals.set_billing(team, name, **values))
    sys.stdout.write(
        t(
            "cli.billing_set",
            settings.files.lang,
            name=changed.name,
            **billing_said(changed.billing, changed.stop_billing, settings.files.lang),
        )
        + "\n"
    )
    if (rated := period_from_rate(changed, settings.files.lang)) is not None:  # a month at an hourly price: said
        sys.stdout.write(rated + "\n")


def _machine(
    settings: Settings, rentals: Rentals, team: str, name: str, gpu: str | None, cards: str | None, *, priced: bool
) -> None:
    """--gpu, --cards: its card or count corrected (its price, the whole machine's, as it was unless --price)."""
    from bot.fields.rentals import cards_typed, gpu_typed

    said_in = settings.files.lang
    model = _fields(lambda: gpu_typed(gpu, said_in)) if gpu is not None else None
    count = _fields(lambda: cards_typed(cards, said_in)) if cards is not None else None
    fixed = _run(settings, lambda: rentals.set_machine(team, name, gpu=model, cards=count))
    key = "meter.machine_set_priced" if priced else "meter.machine_set_terminal"
    rate = instance_rate(fixed, said_in, "")
    sys.stdout.write(t(key, said_in, name=fixed.name, gpu=fixed.gpu, cards=fixed.cards, rate=rate) + "\n")


def _whose(settings: Settings, rentals: Rentals, team: str, name: str, project: str | None, owner: str | None) -> None:
    """--project and --owner: set, and said as chat says them."""
    from bot.fields.metering import whose_words

    lang = settings.files.lang
    given = [f"project={project}"] if project is not None else []
    given += [f"owner={checked_owner(settings, team, owner)}"] if owner is not None else []
    whose = _fields(lambda: whose_words(given, lang)[1])
    changed = _run(
        settings, lambda: rentals.set_whose(team, name, project=whose.get("project"), owner=whose.get("owner"))
    )
    shown = changed.owner if owner is not None else None
    sys.stdout.write("".join(line + "\n" for line in whose_said(changed.name, whose, changed.project, shown, lang)))


def _top_up(
    settings: Settings,
    rentals: Any,
    team: str,
    name: str,
    paid: list[str],
    currency: str | None,
    at: str | None,
    now: datetime,
    as_json: bool,
) -> None:
    """`balance PROVIDER +AMOUNT`: added to what is left of its balance now (bot/report/top_up.py)."""
    from bot.report.top_up import top_up

    lang = settings.files.lang
    if at is not None:
        raise fail(t("meter.top_up_at", lang, provider=name))
    amount, given = _fields(lambda: top_up_amount(paid, currency, lang))
    done = _fields(lambda: top_up(rentals, team, name, amount, given, now, _metering(settings), "terminal", lang))
    if not as_json:
        sys.stdout.write(done.said(lang) + "\n")


def _floor(
    settings: Settings, rentals: Rentals, team: str, provider: str | None, said: list[str], as_json: bool
) -> None:
    """--alert: the amount PROVIDER's balance (every provider's without one) is told below, or `off`."""
    from bot.app.balance_floor import floor_of, keep_floor
    from bot.state.balance_floors import Floors

    lang, asked = settings.files.lang, floor_of(provider, said)
    line = _fields(lambda: keep_floor(Floors(rentals.store), team, asked, (None, "terminal"), datetime.now(UTC), lang))
    if not as_json:
        sys.stdout.write(line + "\n")


def _forget(
    settings: Settings, rentals: Rentals, team: str, provider: str | None, more: list[str] | None, as_json: bool
) -> None:
    """--forget: PROVIDER's balances taken back (the terminal is the operator's: no one else's to refuse)."""
    from bot.report.balance_kept import forget
    from bot.state.balances import Balances

    lang = settings.files.lang
    if provider is None or more:
        raise fail(t("cli.balance_forget_usage", lang))
    name = _fields(lambda: provider_of(provider, lang))
    said = _fields(lambda: forget(Balances(rentals.store), team, name, lang, by="terminal", admin=True))
    if not as_json:
        sys.stdout.write(said + "\n")


def _record(
    settings: Settings,
    rentals: Rentals,
    team: str,
    given: list[str],
    currency: str | None,
    at: str | None,
    now: datetime,
    as_json: bool,
) -> None:
    """A balance (or a top-up) said as PROVIDER AMOUNT, or AMOUNT PROVIDER, kept; said what was kept where it was
    read earlier, and which provider was likely meant where the name looks mistyped."""
    from bot.report.balance_kept import likely_meant
    from bot.state.balances import Balances

    lang, balances = settings.files.lang, Balances(rentals.store)
    provider, *words = provider_first(given)
    amount = words or None  # `3200 元`, `还剩 三千二`: the amount in words of its own
    name = _fields(lambda: provider_of(provider, lang))  # a word that is no provider: said first
    if amount is None:
        raise fail(t("cli.balance_needs_amount", lang, provider=name))
    paid = top_up_said(amount)
    if paid is not None:  # `+2000`: added to what is left now
        _top_up(settings, rentals, team, name, paid, currency, at, now, as_json)
        return
    default = PROVIDER_CURRENCY.get(name, settings.files.currency)  # runpod 500: dollars, as chat's
    value, money = _fields(lambda: balance_said(amount, currency, default, lang))
    moment = past_moment(at, settings, now, "--at")
    meant = likely_meant(rentals, balances, team, name, lang, terminal=True)  # autdl: autodl?
    balances.record(team, name, value, money, moment, now, by="terminal")
    if as_json:
        return
    if at is not None:  # read earlier: the balance then, below what is left
        from bot.text.runway import balance_kept

        zone = ZoneInfo(settings.digest.remind_tz)
        sys.stdout.write(balance_kept(name, value, money, moment, zone, lang) + "\n")
    if meant is not None:
        sys.stdout.write(meant + "\n")


def balance(
    provider: Annotated[str | None, typer.Argument(help="The provider account: autodl, aliyun, tencent...")] = None,
    amount_said: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[amount]",
            help="Its prepaid balance now (or --at), e.g. 320, 3200元, 还剩三千二, '$500'; or a top-up added to "
            "what is left now: +2000, 充值2000.",
            show_default=False,
        ),
    ] = None,
    currency: Annotated[
        str | None,
        typer.Option(
            help="CNY or USD (default: a sign before the amount, else the provider's: USD on runpod, lambda, vastai, "
            "aws, gcp, azure; else the team's currency)."
        ),
    ] = None,
    at: Annotated[str | None, typer.Option("--at", help=AT_HELP)] = None,
    read: Annotated[
        bool, typer.Option("--read", help="Read the balances the providers' APIs give (Alibaba Cloud, AutoDL) first.")
    ] = False,
    forget: Annotated[
        bool,
        typer.Option("--forget", help="Take back every balance kept of PROVIDER (one typed under a wrong name)."),
    ] = False,
    alert: Annotated[
        str | None,
        typer.Option(
            "--alert",
            help="Tell the chats of PROVIDER's items when its balance falls below this amount (every provider's "
            "without PROVIDER): 500, ¥500, '$50' (no sign: each balance's own currency); off to stop.",
        ),
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record a provider account's prepaid balance, or list each with how long it lasts at the current rate."""
    settings = load_settings(lang=lang)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    now, lang_of = datetime.now(UTC), settings.files.lang
    if forget:
        _forget(settings, rentals, team, provider, amount_said, as_json)
    elif alert is not None:
        _floor(settings, rentals, team, provider, [alert, *(amount_said or [])], as_json)
    elif provider is not None and not amount_said and at is None and currency is None and not read:
        # `balance autodl`: that provider's alone, as chat's `balance PROVIDER` (it was "give the balance too")
        _list_balances(settings, rentals, team, now, as_json, only=_fields(lambda: provider_of(provider, lang_of)))
        return
    elif provider is not None:  # `balance 3200 aliyun`: the provider named last, as chat reads it
        _record(settings, rentals, team, [provider, *(amount_said or [])], currency, at, now, as_json)
    problems: dict[str, str] = {}
    if read:
        from bot.discover.registry import balance_readers, read_balances

        if not balance_readers(settings):
            raise fail(t("cli.balance_read_off", settings.files.lang))
        problems = read_balances(settings, rentals.store, team, now)
        for where, problem in problems.items():
            say(t("cli.discover_problem", settings.files.lang, where=where, problem=said(problem, settings.files.lang)))
    _list_balances(settings, rentals, team, now, as_json)
    if problems:
        raise typer.Exit(1)


def _list_balances(
    settings: Settings, rentals: Rentals, team: str, now: datetime, as_json: bool, only: str | None = None
) -> None:
    """Each balance with its runway and the amount it is told below (`--alert`), as chat's `balance` lists them;
    `only`: that provider's (said to have none where it has none)."""
    from bot.report.money import balance_rows, runways
    from bot.state.balance_floors import Floors, floor_for

    chosen = {only} if only is not None else None
    found, floors = runways(rentals, team, now, _metering(settings), chosen), Floors(rentals.store).of(team)
    if only is not None and not found and not as_json:
        sys.stdout.write(t("meter.balance_none_of.terminal", settings.files.lang, provider=only) + "\n")
        return
    rows = balance_rows(found)
    for row in rows:
        floor = floor_for(floors, team, row["provider"], row["currency"])
        row["alert_below"] = floor.amount if floor is not None else None
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    from bot.app.balance_floor import floors_line
    from bot.text.runway import runway_line

    if not found:
        sys.stdout.write(t("cli.balance_empty", settings.files.lang) + "\n")
    for r in found:
        sys.stdout.write(runway_line(r, settings.files.lang, ZoneInfo(settings.digest.remind_tz), "terminal") + "\n")
    if line := floors_line(floors, settings.files.lang):
        sys.stdout.write(line + "\n")
