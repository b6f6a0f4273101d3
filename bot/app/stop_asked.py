"""`stop NAME [at=TIME]` (`停机 训练机 明天9点`, and in words `训练机 明天早上9点关`): a box stopped now or at a time
a person asks for. The bot stopped boxes only when its idle policy said so (`act stop`), so a team that knew its job
ends at nine had it run, billed, until someone woke up. Kept as a warning due then (bot/state/actions.py `ask`), which
`actions:due` carries out as it does the idle policy's, without judging idleness: through its agent or its cloud
(bot/actions/due.py); a box the bot cannot stop (tracked by hand, with no agent) has its owner told here then.
`stop NAME cancel` calls it off; `stop` lists the ones waiting. The owner's or an admin's, as `power` is."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from bot.actions.asked import NotAsked, ask_stop, asker_said
from bot.app.invocation import CommandError, Invocation
from bot.app.metering import owned_instance, split_at
from bot.chat.message import plain
from bot.fields.coming import coming_moment
from bot.fields.moments import NOW_WORDS
from bot.fields.rentals import FieldError
from bot.state.actions import Actions, Warning
from bot.state.rentals import Instance, Rentals
from bot.text import Lang, t
from bot.text.format import literal, mention
from bot.text.runway import when_said
from rules import metering
from rules.patterns import lazy

CANCEL_WORDS = frozenset({"cancel", "off", "取消", "不用了", "不关了"})
# a stop once the box is idle, said after its name (`stop box1 once idle`, `停机 训练机 闲下来`, `stop box1 when=idle`)
_ONCE_IDLE = lazy(
    r"(?:once|when|after)[\s=-]*(?:it'?s\s+|it\s+is\s+)?(?:idle|done|finished)|once-idle|when=idle|idle"
    r"|(?:闲置|空闲|闲下来|跑完|用完)(?:了|后|时|以后|之后)?(?:就停|再停)?",
    re.IGNORECASE,
)
REMIND_WORDS = frozenset({"remind", "提醒", "只提醒"})  # `stop 训练机 at=9:00 remind`: its owner told, nothing stopped


def stop(inv: Invocation, args: list[str]) -> None:
    """`stop NAME [[at=]TIME] [remind]`, `stop NAME cancel`, `stop` (the stops waiting)."""
    remind = any(a.lower() in REMIND_WORDS for a in args)
    args, at = split_at([a for a in args if a.lower() not in REMIND_WORDS])
    if not args and at is None:
        _waiting(inv)
        return
    if not args or at == "":
        raise CommandError(t("stop.usage", inv.lang))
    name, rest = args[0], args[1:]
    if len(rest) == 1 and rest[0].lower() in CANCEL_WORDS and at is None:
        _call_off(inv, owned_instance(inv, name))
        return
    if rest and at is None and not remind and _ONCE_IDLE.fullmatch(" ".join(rest)):  # as soon as it is idle
        asked(inv, owned_instance(inv, name), None, once_idle=True)
        return
    # the day before `at` (`stop box1 tomorrow at 9am`), or the time bare (`stop box1 明天9点`)
    when = " ".join([*rest, *([at] if at is not None else [])]) or None
    if when is not None and when.strip().lower() in NOW_WORDS:  # `stop box1 now`, `停机 训练机 现在`: now
        when = None
    asked(inv, owned_instance(inv, name), when, remind=remind)


def asked(inv: Invocation, found: Instance, at: str | None, *, remind: bool = False, once_idle: bool = False) -> None:
    """A stop of `found` asked for at `at` (words of a time to come; None: now), kept and said; `remind`: its owner
    is told then, and nothing is stopped; `once_idle`: from now, as soon as the idle rule calls it idle."""
    lang, now, zone = inv.lang, inv.deps.now(), inv.clock_zone()
    try:
        when = None if at is None else coming_moment(at, lang, now, zone)
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None
    item = {"name": literal(found.name), "item": found.name}
    try:
        kept = ask_stop(
            inv.deps.store, found, inv.channel, now, when, inv.user, lang, remind=remind, once_idle=once_idle
        )
    except NotAsked as refused:  # a reminder needs its time; now or once idle, one the bot cannot stop; under way
        key = {"needs_time": "stop.usage", "cannot": "stop.cannot", "under_way": "stop.under_way"}[refused.code]
        raise CommandError(t(key, lang, **item)) from None
    said = t("stop.now", lang) if when is None else t("stop.at", lang, at=when_said(when, zone))
    if once_idle:  # the idle rule's window: how long it must be quiet first
        said = t("stop.once_idle", lang, minutes=inv.deps.policy.idle.window_minutes)
    again = f"{kept.new.deadline.astimezone(zone):%m-%d %H:%M}"  # the same time, as `stop NAME at=` takes it
    lines = [t(f"stop.asked_{kept.kind}", lang, when=said, owner=mention(found.owner), again=again, **item)]
    if kept.kind in ("agent", "cloud") and metering.keeps(found):  # billed while stopped: said before the stop
        lines.append(t("stop.saves_nothing", lang))
    if kept.before is not None:
        lines.append(t("stop.replaces", lang, at=when_said(kept.before.deadline, zone)))
    lines.append(t("stop.call_off", lang, item=found.name))
    inv.answer(plain("\n".join(lines), lang))


def when(inv: Invocation, found: Instance) -> None:
    """When the stop asked for `found` comes (`训练机 什么时候停`), or that none is asked, with how to ask one."""
    waiting = Actions(inv.deps.store).asked_for([found.id]).get(found.id)
    if waiting is None:  # asked, not refused: an answer, not an error
        inv.answer(plain(t("stop.none_for", inv.lang, name=literal(found.name), item=found.name), inv.lang))
        return
    inv.answer(plain(_line(found, waiting, inv.clock_zone(), inv.lang).removeprefix("• "), inv.lang))


def _call_off(inv: Invocation, found: Instance) -> None:
    gone = Actions(inv.deps.store).call_off(found.id, inv.deps.now(), inv.user)
    if gone is None:
        raise CommandError(t("stop.none_for", inv.lang, name=literal(found.name), item=found.name))
    at = when_said(gone.deadline, inv.clock_zone())
    inv.answer(plain(t("stop.called_off", inv.lang, name=literal(found.name), at=at), inv.lang))


def _waiting(inv: Invocation) -> None:
    """The team's stops asked for and not come yet, soonest first."""
    rentals = Rentals(inv.deps.store)
    named = {i.id: i for i in rentals.instances(inv.team, active_only=True)}
    waiting = sorted(Actions(inv.deps.store).asked_for(list(named)).values(), key=lambda w: w.deadline)
    if not waiting:
        inv.answer(plain(t("stop.none", inv.lang), inv.lang))
        return
    zone = inv.clock_zone()
    lines = [t("stop.title", inv.lang)]
    lines += [_line(named[w.instance_id], w, zone, inv.lang) for w in waiting]
    inv.answer(plain("\n".join(lines), inv.lang))


def _line(inst: Instance, asked: Warning, zone: ZoneInfo, lang: Lang) -> str:
    at = t("stop.once_idle_short", lang) if asked.once_idle else when_said(asked.deadline, zone)
    return t("stop.line", lang, name=literal(inst.name), at=at, asker=asker_said(asked.asked_by, lang))
