"""The sub-commands about the bill, the same on every chat: `power NAME on|off [at=TIME]` (its owner or an admin:
its hourly meter follows from then), `billing NAME hourly|day|month [stops|keeps]` or `billing NAME price=1.88/h`, and
`balance [PROVIDER AMOUNT [CNY|USD]]` (a provider's prepaid balance; without one, the list with each runway)."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.app.balance_floor import floor_asked, floors_line, set_floor
from bot.app.invocation import CommandError, Invocation, channel_zone
from bot.app.item_started import started_words
from bot.chat.message import plain
from bot.fields.metering import (
    PROVIDER_CURRENCY,
    balance_said,
    billing_words,
    machine_words,
    power_of,
    provider_first,
    provider_of,
    top_up_amount,
    top_up_said,
    whose_words,
)
from bot.fields.rentals import FieldError
from bot.report.balance_kept import forget, forget_asked, likely_meant
from bot.report.money import runways
from bot.report.top_up import TopUp, top_up
from bot.state.balance_floors import Floors
from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Instance, RentalError, Rentals
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.format import literal, mention
from bot.text.power_said import source_said
from bot.text.quote import instance_rate
from bot.text.runway import (
    balance_kept,
    billing_said,
    billing_shown,
    period_from_rate,
    runway_line,
    when_said,
    whose_said,
)
from rules.digest import month_start
from rules.metering import basis as metering_basis
from rules.patterns import lazy
from rules.power import state_at


def owned_instance(inv: Invocation, name: str) -> Instance:
    """The team's instance NAME, not released, if the person owns it or is an admin; CommandError saying which not."""
    found = Rentals(inv.deps.store).instance(inv.team, name)
    if found is None:
        raise CommandError(tw("error.rental.no_instance", inv.lang, "chat", name=literal(name)))
    if found.released_at is not None:
        raise CommandError(t("error.rental.already_released", inv.lang, name=literal(name)))
    if inv.user != found.owner and not inv.is_admin():
        raise CommandError(t("digest.not_yours", inv.lang, owner=mention(found.owner), name=literal(name)))
    return found


AT_WORDS = ("at", "时间", "于")


def split_at(args: list[str]) -> tuple[list[str], str | None]:
    """The words before `at=23:30` (or `at 23:30`, `at=yesterday 23:30`), and the time's words: None where none is
    given, "" where `at` has no time after it."""
    start = next((i for i, a in enumerate(args) if a.lower().partition("=")[0] in AT_WORDS), len(args))
    if start == len(args):
        return args, None
    value = " ".join([args[start].partition("=")[2], *args[start + 1 :]]).strip()
    return args[:start], value


def power(inv: Invocation, args: list[str]) -> None:
    """`power NAME on|off [[at=]TIME]`: it went on or off now, or at TIME (bot/fields/moments.py); `power NAME`: when
    it was on and off this month (the terminal's `power NAME`)."""
    lang = inv.lang
    args, at = split_at(args)
    if at is None and len(args) > 2:  # `power box1 off 昨晚11点`, `power box1 off 2h ago`: the time without at=
        args, at = args[:2], " ".join(args[2:])
    if len(args) == 1 and at is None:
        _stretches(inv, owned_instance(inv, args[0]))
        return
    if len(args) != 2 or at == "":
        raise CommandError(t("meter.power_usage", lang))
    found = owned_instance(inv, args[0])
    try:
        state = power_of(args[1], lang)
        now = inv.deps.now()
        moment, zone = inv.past(at, now)
        kept = PowerLog(inv.deps.store, inv.deps.policy.metering).say(
            found.id, state, moment, now, source="person", by=inv.user, zone=zone or inv.channel_zone()
        )
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None
    except RentalError as exc:
        raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None
    if not kept:
        said = t("meter.repeated", lang)
    elif zone is None:
        said = t(f"meter.power_{state.value}", lang, name=literal(found.name), user=mention(inv.user))
    else:
        when = when_said(moment, zone)
        said = t(f"meter.power_{state.value}_at", lang, name=literal(found.name), user=mention(inv.user), at=when)
    inv.answer(plain(said, lang))


SHOWN_STRETCHES = 12  # a month of a box switched daily is sixty: the latest, and how many came before


def _stretches(inv: Invocation, found: Instance) -> None:
    """When the instance was on, off or unknown this month, on its channel's clock (where its month begins, as its
    money counts it), each stretch with its hours and who said so; the latest SHOWN_STRETCHES."""
    lang, now = inv.lang, inv.deps.now()
    zone = channel_zone(inv.deps, inv.team, found.channel)
    month = month_start(now.astimezone(zone))
    log = PowerLog(inv.deps.store, inv.deps.policy.metering)
    whole = log.timelines([found], now, since=month)[found.id]
    stretches = [s for s in whole if s.end > month and s.end > s.start]
    state = "released" if found.released_at else state_at(whole, now).value
    said_now = t(f"digest.state.{state}", lang)
    key = "meter.power_list_title_unknown" if state == "unknown" else "meter.power_list_title"  # "is on or off unknown"
    lines = [t(key, lang, name=literal(found.name), zone=str(zone), state=said_now)]
    if not stretches:  # tracked (or started) this very moment: a list under the title would be empty
        lines.append(t("meter.power_list_none", lang))
    lines += _stop_waiting(inv, found)
    if len(stretches) > SHOWN_STRETCHES:
        lines.append(t("meter.power_list_earlier", lang, count=len(stretches) - SHOWN_STRETCHES))
    for s in stretches[-SHOWN_STRETCHES:]:
        start = max(s.start, month)
        end = t("meter.now", lang) if s.end >= now else f"{s.end.astimezone(zone):%m-%d %H:%M}"
        by = source_said(s.source, lang)
        lines.append(
            t(
                "meter.power_stretch",
                lang,
                start=f"{start.astimezone(zone):%m-%d %H:%M}",
                end=end,
                state=t(f"word.power.{s.state.value}", lang),
                hours=f"{(s.end - start).total_seconds() / 3600:.1f}",
                source=by,
            )
        )
    inv.answer(plain("\n".join(lines), lang))


def _stop_waiting(inv: Invocation, found: Instance) -> list[str]:
    """The stop asked for it at a time (`stop NAME at=…`), if one waits: when, who asked, how to call it off."""
    from bot.actions.asked import asker_said
    from bot.state.actions import Actions

    waiting = Actions(inv.deps.store).asked_for([found.id]).get(found.id)
    if waiting is None:
        return []
    at, asker = when_said(waiting.deadline, inv.clock_zone()), asker_said(waiting.asked_by, inv.lang)
    key = "meter.stop_waiting_idle" if waiting.once_idle else "meter.stop_waiting"
    return [t(key, inv.lang, at=at, asker=asker, item=found.name)]


def billing(inv: Invocation, args: list[str]) -> None:
    """`billing NAME hourly|day|month [stops|keeps]`, or `billing NAME price=1.88/h` (a price set by hand, kept);
    `billing NAME`: how it bills now, and how to change it."""
    lang = inv.lang
    if len(args) == 1:
        found = owned_instance(inv, args[0])
        change = t("meter.billing_change", lang, name=found.name)
        inv.answer(plain(billing_shown(found, lang, change, literal(found.name)), lang))
        return
    if not args:
        raise CommandError(t("meter.billing_usage", lang))
    try:
        words, started = started_words(inv, args[1:])  # `started=昨天9:00`: it began before it was tracked
        words, whose = whose_words(words, lang)  # `项目=llm`, `owner=@someone`: whose money it is
        words, machine = machine_words(words, lang)  # `cards=4`, `gpu=H800`: tracked with the wrong ones
        # `包月 一万二`, `hourly stops`, `平台=autodl`
        told = whose or machine or started
        basis, stop, price, provider = billing_words(words, lang) if words or not told else (None, None, None, None)
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None
    found = owned_instance(inv, args[0])
    rentals = Rentals(inv.deps.store)
    try:
        lines, given = _whose_set(inv, rentals, found, whose) if whose else ([], None)
        if started is not None:  # its bill from then: the month's money, reports, budgets and balances follow
            at, clock = started[0], started[1] or inv.clock_zone()
            PowerLog(inv.deps.store).move_start(inv.team, found.name, at, clock)
            lines.append(t("meter.started_set", lang, name=literal(found.name), at=when_said(at, clock)))
        if machine:  # before a price given with it, which then says the cards it is for
            fixed = rentals.set_machine(inv.team, found.name, gpu=machine.get("gpu"), cards=machine.get("cards"))
            rate = instance_rate(fixed, lang, unknown="")
            key = "meter.machine_set" if price is None else "meter.machine_set_priced"
            lines.append(t(key, lang, name=fixed.name, gpu=fixed.gpu, cards=fixed.cards, rate=rate))
        if price is not None:
            amount, unit, priced_in = price  # `billing box $8/h`: in dollars (the sign was dropped: ¥8)
            unit = unit or found.unit  # a bare amount (`price=50`): per what it is priced by now
            priced = rentals.set_price(inv.team, found.name, amount, unit, inv.user, inv.deps.now(), priced_in)
            said = instance_rate(priced, lang, unknown="")
            lines.append(t("cli.price_set", lang, name=priced.name, rate=said))
        if basis is not None or stop is not None:  # `计费 box 关机也计费`: the stop mode alone, its basis kept
            changed = rentals.set_billing(inv.team, found.name, billing=basis, stop_billing=stop)
            now_basis = metering_basis(changed).value
            lines.append(
                t("cli.billing_set", lang, name=changed.name, **billing_said(now_basis, changed.stop_billing, lang))
            )
            lines += [said for said in [period_from_rate(changed, lang, literal(changed.name))] if said]
        if provider is not None:  # the balance it bills to, which `balance` then counts down
            changed = rentals.set_billing(inv.team, found.name, provider=provider)
            lines.append(t("meter.provider_set", lang, name=changed.name, provider=provider))
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None
    except RentalError as exc:
        raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None
    inv.answer(plain("\n".join(lines), lang))
    if given is not None:  # the new owner, told once the answer is given
        from bot.app.track import tell_owner

        tell_owner(inv, given, found.name, given=True)


def _whose_set(
    inv: Invocation, rentals: Rentals, found: Instance, whose: dict[str, str]
) -> tuple[list[str], str | None]:
    """`billing NAME project=… owner=…` (the owner's or an admin's, as `_instance` checked): the lines saying it,
    and the new owner to tell in a direct message (None: the owner is as it was)."""
    from bot.app.track import owner_of

    lang = inv.lang
    owner = owner_of(whose["owner"], inv.user, lang, inv.chat.platform) if "owner" in whose else None
    changed = rentals.set_whose(inv.team, found.name, project=whose.get("project"), owner=owner)
    project = literal(changed.project) if changed.project else None  # a span is never empty: none said as none
    shown = mention(owner) if owner is not None else None
    lines = whose_said(literal(changed.name), whose, project, shown, lang)
    return lines, owner if owner is not None and owner != found.owner else None


def _time_after(inv: Invocation, args: list[str], now: datetime) -> tuple[list[str], str | None]:
    """The words after a balance's amount that read as a past time, taken as its at= (the longest such run); the
    person's clock asked for once."""
    from bot.fields.moments import moment_of

    if len(args) <= 2:
        return args, None
    zone = inv.clock_zone()
    for start in range(2, len(args)):
        said = " ".join(args[start:])
        try:
            moment_of(said, inv.lang, now, zone, field="at")
        except FieldError:
            continue
        return args[:start], said
    return args, None


def balance(inv: Invocation, args: list[str]) -> None:
    """`balance PROVIDER AMOUNT [CNY|USD] [at=TIME]` records (as read at TIME, the terminal's --at); `balance` lists
    with each runway."""
    lang, deps = inv.lang, inv.deps
    balances, now, kept = Balances(deps.store), deps.now(), []
    if args and (floor := floor_asked(args)) is not None:  # `余额低于500提醒我`, `balance autodl alert 500`
        kept.append(set_floor(inv, floor))
        args = []
    if args and _ALERTS_ASKED.search(" ".join(args)):  # `余额不足会提醒吗`: when balances are told, then the list
        hours = ("、" if lang is Lang.ZH else ", ").join(f"{h:g}" for h in deps.policy.metering.runway_alert_hours)
        kept.append(t("meter.runway_alerts", lang, hours=hours))
        args = []
    if args and _HOW_LONG.fullmatch(" ".join(args)):  # `余额 还能用多久`, `balance left?`: the list says it
        args = []
    one = _provider_alone(args, lang)  # `balance autodl`, `autodl 还能用多久`: that one's (a usage error before)
    if one is not None:
        args = []
    if (named := forget_asked(args)) is not None:  # `balance autdl forget`: one typed under a wrong name, taken back
        kept.append(_forgotten(inv, named))
        args = []
    if args:
        args, at = split_at(provider_first(args))  # `余额 +1000 autodl`: the provider named last
        paid = top_up_said(args[1:])  # `+2000`, `充值2000`: added to what is left now
        if at is None and paid is None:  # `余额 autodl 3200 昨晚9点`: the time without at=
            args, at = _time_after(inv, args, now)
        if len(args) < 2 or at == "":
            raise CommandError(t("meter.balance_usage", lang))
        try:
            provider = provider_of(args[0], lang)  # then `320`, `还剩 三千二 元`, `$500`, `5000 USD`
            if paid is not None:
                kept.append(_topped_up(inv, provider, paid, at).said(lang))
            else:
                default = PROVIDER_CURRENCY.get(provider, deps.settings.files.currency)  # runpod 500: dollars
                amount, currency = balance_said(args[1:], None, default, lang)
                moment, clock = inv.past(at, now)
                meant = likely_meant(Rentals(deps.store), balances, inv.team, provider, lang)  # autdl: autodl?
                balances.record(inv.team, provider, amount, currency, moment, now, by=inv.user)
                if clock is not None:  # read earlier: the balance then, and below what is left of it now
                    kept.append(balance_kept(provider, amount, currency, moment, clock, lang))
                kept += [meant] if meant else []
        except FieldError as exc:
            raise _refused(exc) from None
    zone = ZoneInfo(deps.settings.digest.remind_tz)
    found = runways(Rentals(deps.store), inv.team, now, deps.policy.metering, {one} if one is not None else None)
    lines = kept + [runway_line(r, lang, zone) for r in found]
    lines += [line] if (line := floors_line(Floors(deps.store).of(inv.team), lang)) else []
    if one is not None and not found:  # that provider has none: said of it, with how to record one
        lines = [t("meter.balance_none_of", lang, provider=one)]
    inv.answer(plain("\n".join(lines) if lines else t("meter.balance_none", lang), lang))


def _forgotten(inv: Invocation, named: str) -> str:
    """`balance PROVIDER forget`: its balances taken back (by whoever recorded its latest, or an admin)."""
    try:
        provider = provider_of(named, inv.lang)
        return forget(Balances(inv.deps.store), inv.team, provider, inv.lang, by=inv.user, admin=inv.is_admin())
    except FieldError as exc:
        raise _refused(exc) from None


def _refused(exc: FieldError) -> CommandError:
    """A balance's word refused: `at=` named, as the key typed; the provider and the amount are typed bare (or in
    words, `autodl充值了1000`), so their field's name said before the message was only noise (`amount: …`)."""
    return CommandError(exc.message if exc.field in ("amount", "provider") else f"{exc.field}: {exc.message}")


def _provider_alone(args: list[str], lang: Lang) -> str | None:
    """The provider `balance`'s words name and nothing else but how long it lasts (`autodl`, `autodl 还能用多久`); None
    otherwise."""
    if not args or (len(args) > 1 and not _HOW_LONG.fullmatch(" ".join(args[1:]))):
        return None
    try:
        return provider_of(args[0], lang)
    except FieldError:
        return None


def _topped_up(inv: Invocation, provider: str, paid: list[str], at: str | None) -> TopUp:
    """`paid` (an amount's words) added to what is left of `provider`'s balance now; a time is refused (what was
    left then is not known the way a balance read then is)."""
    if at is not None:
        raise FieldError("at", t("meter.top_up_at", inv.lang, provider=provider))
    amount, said_in = top_up_amount(paid, None, inv.lang)
    deps = inv.deps
    return top_up(Rentals(deps.store), inv.team, provider, amount, said_in, deps.now(), deps.policy.metering,
                  inv.user, inv.lang, inv.request_key)  # fmt: skip


# when the balances are told, asked after `balance`'s word (余额低于500提醒我, 余额多少的时候提醒, 余额不足会提醒吗,
# alert me when the balance is low): the runway alerts' rule, which is the policy's (hours left, not an amount)
_ALERTS_ASKED = lazy(
    r"(?:低于|少于|不足|小于|不到|快用完|用完前|多少的?时候|什么时候)\S*提醒|提醒\S*(?:低于|不足|快用完)"
    r"|(?:alert|remind|tell|warn)\S* (?:me|us)? ?(?:when|if|before)|(?:low|runs? out)\S* alert",
    re.IGNORECASE,
)
_HOW_LONG = lazy(  # a question of how long the balances last, after `balance`'s word
    r"(?:还)?(?:能|可以|够)?(?:用|撑)?(?:多久|几天|多长时间)(?:呢|啊|吗)?[?？]?|(?:还剩|还有|剩|有)多少(?:钱)?(?:呢|啊)?[?？]?"
    r"|(?:是不是|是否)?(?:快用完了?|快没了|不足了?|不够了?|够不够|够用吗|还够吗)(?:吗|呢|怎么办)?[?？]?"
    r"|怎么样[?？]?|(?:情况|是多少)(?:呢)?[?？]?"
    r"|(?:how long(?: will it| does it)? last|left|how much (?:is )?left|status)\??",
    re.IGNORECASE,
)
