"""The sub-commands about what a team rents, the same on every chat: `list`, `release NAME`,
`delete-storage NAME`, `remind [at HH:MM [zone] [days] [lang=en|zh] | lang en|zh | off]` (`budget …`: budget.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import datetime, tzinfo
from typing import Any, Protocol, overload
from zoneinfo import ZoneInfo

from bot.app import remind_pause
from bot.app.dearest_over import dearest_over
from bot.app.invocation import CommandError, Invocation
from bot.chat.digest_answers import storage_left, storage_questions
from bot.chat.message import Message, Section, plain
from bot.fields.rentals import as_spelt
from bot.state.actions import Actions, Warning
from bot.state.power import PowerLog
from bot.state.rentals import RentalError, Rentals
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.chinese_names import SWITCH_WORDS
from bot.text.errors import error_text
from bot.text.format import literal, mention, money, show
from bot.text.quote import instance_rate
from bot.text.runway import when_said, whose_said
from rules.clock import clock_of
from rules.days import DAY_WORDS
from rules.digest import spent_this_month, stored_this_month
from rules.errors import ParseError
from rules.patterns import lazy
from rules.power import state_at
from rules.remind_schedule import RemindSchedule, next_send, parse_at, parse_days, parse_zone, zone_said

MINE = frozenset(("mine", "my", "我的", "我自己的", "自己的"))
EVERY = frozenset(("all", "全部", "所有", "everything"))
DEAREST = frozenset(("dearest", "costliest", "最贵", "最花钱"))


def _gone_on(state: str, gone: datetime | None, zone: tzinfo, lang: Lang) -> str:
    """An item's state in its list line, with the day it was released or deleted on its channel's clock (released
    12-08): a box rented again under its name has a line of its own beside it."""
    said = t(f"digest.state.{state}", lang)
    return said if gone is None else t("digest.gone_on", lang, state=said, day=f"{gone.astimezone(zone):%m-%d}")


def list_items(inv: Invocation, args: list[str] | None = None) -> None:
    """`list [mine | all | PROJECT]`: what the team rents and keeps, with owner, state and this month's money (mine:
    the asker's; all: "Not ours" too, as the terminal's --all; a project's alone). Each item's month begins at
    midnight in its own channel's digest zone, as the digest, its budget, App Home and the terminal's `list` count
    it (not the zone of the channel `list` was typed in)."""
    rentals, lang, deps = Rentals(inv.deps.store), inv.lang, inv.deps
    lines: list[tuple[tuple[float, str], str]] = []  # this month's spend and its currency, and the line
    words = [a.lower() for a in args or []]
    dearest = any(word in DEAREST for word in words)  # `list dearest`, 哪台机器最贵: most spent this month first
    rest = [w for w in words if w not in DEAREST]
    if dearest and rest and dearest_over(inv, " ".join(rest)):  # `list dearest last-week`, 上周哪台机器最贵
        return
    instances, storage, (scope, project) = _listed(inv, rentals, rest)
    now = deps.now()
    zones = Schedules(deps.store, deps.settings.digest.default_schedule()).zones(
        inv.team, {i.channel for i in instances} | {s.channel for s in storage}
    )
    timelines = PowerLog(deps.store, deps.policy.metering).this_month(instances, now)
    stops = Actions(deps.store).asked_for([i.id for i in instances if i.released_at is None])  # `stop NAME at=…`
    for i in instances:
        power = "released" if i.released_at else state_at(timelines.get(i.id, []), now).value  # on, off, unknown
        spent = spent_this_month(i, now.astimezone(zones[i.channel]), timelines)
        lines.append(
            (
                (spent, i.currency),
                t(
                    "digest.list_instance",
                    lang,
                    name=i.name,
                    gpu=f"{i.gpu} × {show(i.share or i.cards)}",
                    price=instance_rate(i, lang),
                    owner=mention(i.owner) if i.owner else t("cli.no_owner", lang),
                    state=_gone_on(power, i.released_at, zones[i.channel], lang)
                    + _not_ours(i.hidden_by, lang)
                    + _stop_asked(stops.get(i.id), zones[i.channel], lang),
                    spent=money(spent, i.currency),
                ),
            )
        )
    boxes = rentals.box_names(inv.team, storage)
    for s in storage:
        state = "deleted" if s.deleted_at else "kept"
        kept = stored_this_month(s, now.astimezone(zones[s.channel]))
        lines.append(
            (
                (kept, s.currency),
                t(
                    "digest.list_storage",
                    lang,
                    name=s.name,
                    size=show(s.size_gb),
                    on=_mounted_on(boxes.get(s.instance_id), lang),  # 数据盘 挂在哪台机器上: the list names the box
                    per_month=money(s.size_gb * s.price_gb_month, s.currency),
                    owner=mention(s.owner),
                    state=_gone_on(state, s.deleted_at, zones[s.channel], lang) + _not_ours(s.hidden_by, lang),
                    spent=money(kept, s.currency),
                ),
            )
        )
    title = t(f"digest.list_title{scope}", lang, project=project)  # whose: `list mine` said the whole team's
    if dearest:  # dollars and yuan on the team's currency, only for the order (as the report's rankings)
        worth = deps.prices.worth()
        lines.sort(key=lambda line: -worth.one(*line[0]))
        colon = title[-1] if title.endswith((":", "：")) else ""
        title = title.removesuffix(colon) + t("digest.list_dearest", lang) + colon
    empty = t("digest.list_empty.mine" if scope == ".mine" else "digest.list_empty", lang)
    inv.answer(plain("\n".join([title, *(text for _, text in lines)]) if lines else empty, lang))


def _stop_asked(asked: Warning | None, zone: ZoneInfo, lang: Lang) -> str:
    """What the list says of a stop asked for at a time (`stop NAME at=…`) that has not come yet."""
    if asked is None:
        return ""
    if asked.once_idle:
        return " · " + t("digest.list_stop_once_idle", lang)
    return " · " + t("digest.list_stop_asked", lang, at=when_said(asked.deadline, zone))  # in its named zone


def _not_ours(hidden_by: str | None, lang: Lang) -> str:
    """What `list all` says of an item an admin marked Not ours (every other list leaves it out)."""
    return " · " + t("digest.button.not_ours", lang) if hidden_by else ""


Listed = tuple[list[Any], list[Any], tuple[str, str]]


def _listed(inv: Invocation, rentals: Rentals, words: list[str]) -> Listed:
    """The instances and storage `list`'s words ask for, and whose they are (its title's key: "", ".all", ".mine",
    ".project", with the project); a word naming none of them is refused saying what is."""
    every = bool(words) and words[0] in EVERY
    instances = [i for i in rentals.instances(inv.team) if every or not i.hidden_by]  # "Not ours" left out
    storage = [s for s in rentals.storage(inv.team) if every or not s.hidden_by]
    if not words or every:
        return instances, storage, (".all" if every else "", "")
    if len(words) == 1 and words[0] in MINE:
        mine = [i for i in instances if i.owner == inv.user], [s for s in storage if s.owner == inv.user]
        return *mine, (".mine", "")
    projects = rentals.projects(inv.team)
    wanted = as_spelt(" ".join(words), projects)
    named = " ".join(words).lower()  # `list 训练机`, `who owns box1`: that item alone, with its owner and month
    one = [i for i in instances if i.name.lower() == named], [s for s in storage if s.name.lower() == named]
    if wanted is None and (one[0] or one[1]):
        return *one, (".item", (one[0] or one[1])[0].name)
    if wanted is None:
        said, known = " ".join(words)[:40], ", ".join(projects) or "—"
        raise CommandError(t("digest.list_usage", inv.lang, said=said, projects=known))
    of_project = [i for i in instances if i.project == wanted], [s for s in storage if s.project == wanted]
    return *of_project, (".project", wanted)


class _Owned(Protocol):
    """An instance or a storage item: what `release` and `delete-storage` check before changing it."""

    @property
    def owner(self) -> str: ...


def owner_or_admin(inv: Invocation, owner: str, name: str) -> None:
    """Releasing or deleting an item (or changing whose it is, or snoozing it) is for its owner or an admin of this
    team; anyone else is told who."""
    if inv.user != owner and not inv.is_admin():
        raise CommandError(t("digest.not_yours", inv.lang, owner=mention(owner), name=name))


def _named(inv: Invocation, args: list[str], usage: str, missing: str, lookup: Callable[[str], _Owned | None]) -> str:
    """The one NAME a `release` or `delete-storage` takes, once it is known and its owner or an admin asks."""
    if len(args) != 1 or not args[0]:
        raise CommandError(t(usage, inv.lang))
    name = args[0]
    found = lookup(name)
    if found is None:
        said = tw(missing, inv.lang, "chat", name=literal(name))
        near = _named_alike(inv, name)  # `release A1` for a1: names are case-sensitive, so the one meant is asked
        raise CommandError(said + (t("error.rental.did_you_mean", inv.lang, name=literal(near)) if near else ""))
    owner_or_admin(inv, found.owner, name)
    return name


def _named_alike(inv: Invocation, name: str) -> str | None:
    """An item of the team whose name differs from `name` only in case."""
    rentals = Rentals(inv.deps.store)
    names = [i.name for i in rentals.instances(inv.team)] + [s.name for s in rentals.storage(inv.team)]
    return as_spelt(name, [n for n in names if n != name])


@contextmanager
def _said(lang: Lang) -> Iterator[None]:
    """A rental the store refuses to change (released already, deleted already) is said in the asker's language."""
    try:
        yield
    except RentalError as exc:
        raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None


_AND = frozenset(("and", "&", "和", "与", "跟", "还有", ""))


def release(inv: Invocation, args: list[str]) -> None:
    """`release NAME [NAME…]`: each instance was released (its owner's or an admin's); storage each leaves is asked
    about. Every name is checked before any is released: one unknown or not the asker's releases none."""
    rentals = Rentals(inv.deps.store)
    args = [a for a in args if a.lower().strip(",，、") not in _AND] or args  # release box1 and box2, 释放 a1 和 a2
    later = _later(args)  # `release box1 tomorrow`: a release is now; said then, it was "no instance named tomorrow"
    if later is not None and rentals.instance(inv.team, later[0]) is not None:
        name, when = later
        day = when.removeprefix("on ").removeprefix("at ")  # `box1 用到 friday` takes the day alone
        key = "digest.release_later" if _DAY.fullmatch(day) else "digest.release_later_vague"
        raise CommandError(t(key, inv.lang, name=name, when=when, day=day))
    names = [
        _named(inv, [a.strip(",，、")], "digest.release_usage", "error.rental.no_instance",
               lambda n: rentals.instance(inv.team, n))
        for a in (args or [""])
    ]  # fmt: skip
    twice = [n for n in names if names.count(n) > 1]
    if twice:
        raise CommandError(t("error.inline.twice", inv.lang, key=twice[0]))
    for name in names:
        _release_one(inv, rentals, name)


_DAY = lazy(DAY_WORDS, re.IGNORECASE)
_LATER = lazy(rf"^(?:{DAY_WORDS}|later|soon|after\s+\S+|稍后|晚点|等会儿?|一会儿|跑完(?:再|后)?)$", re.IGNORECASE)


def _later(args: list[str]) -> tuple[str, str] | None:
    """A name and the time after it (`box1 tomorrow`, `训练机 明天`, `box1 on friday`), where a release is asked for
    later; None otherwise."""
    if len(args) < 2:
        return None
    when = " ".join(args[1:])
    said = when.removeprefix("on ").removeprefix("at ")
    return (args[0], when) if _LATER.match(said) else None


def _release_one(inv: Invocation, rentals: Rentals, name: str) -> None:
    lang, user = inv.lang, inv.user
    with _said(lang):
        released = rentals.release(inv.team, name, inv.deps.now(), user)
    note = t("digest.done.released", lang, name=name, user=mention(user))
    out = [Section(note), *storage_questions(storage_left(rentals, inv.team, released.id, name), lang)]
    inv.post(Message(text=note, lang=lang, sections=tuple(out)))


def delete_storage(inv: Invocation, args: list[str]) -> None:
    """`delete-storage NAME`: the storage was deleted (its owner or an admin of this team); it stops costing."""
    lang, rentals, user = inv.lang, Rentals(inv.deps.store), inv.user
    name = _named(
        inv,
        args,
        "digest.delete_storage_usage",
        "error.rental.no_storage",
        lambda n: rentals.storage_named(inv.team, n),
    )
    with _said(lang):
        rentals.delete_storage(inv.team, name, inv.deps.now())
    note = t("digest.done.deleted", lang, name=name, user=mention(user))
    inv.post(plain(note, lang))


def storage_attached(inv: Invocation, name: str, box: str) -> None:
    """`数据盘挂到训练机上` (`-`: taken off, `数据盘 卸载了`): the tracked box kept storage is on, its owner's or an
    admin's to change, as whose it is; the box named as it is tracked (any case)."""
    lang, rentals = inv.lang, Rentals(inv.deps.store)
    found = rentals.storage_named(inv.team, name)
    if found is None:
        raise CommandError(tw("error.rental.no_storage", lang, "chat", name=literal(name)))
    owner_or_admin(inv, found.owner, name)
    boxes = {i.name.lower(): i.name for i in rentals.instances(inv.team, active_only=True)}
    named = None if box == "-" else boxes.get(box.lower(), box)
    with _said(lang):
        rentals.set_storage_instance(inv.team, name, named)
    key = "item.storage_attached" if named is not None else "item.storage_detached"
    inv.answer(plain(t(key, lang, name=literal(name), box=literal(named or "")), lang))


def _mounted_on(box: str | None, lang: Lang) -> str:
    return t("digest.list_storage_on", lang, instance=literal(box)) if box is not None else ""


def storage_whose(inv: Invocation, name: str, said: str) -> None:
    """`数据盘 项目改成 cv`, `ckpt owner=@li` (`project=…` or `owner=…`): whose money a kept storage item is, its
    owner's or an admin's to change, as an instance's is (`billing NAME project=…`); a new owner is told."""
    from bot.app.track import owner_of, tell_owner
    from bot.fields.metering import whose_words
    from bot.fields.rentals import FieldError

    lang, rentals = inv.lang, Rentals(inv.deps.store)
    found = rentals.storage_named(inv.team, name)
    if found is None:
        raise CommandError(tw("error.rental.no_storage", lang, "chat", name=literal(name)))
    owner_or_admin(inv, found.owner, name)
    try:
        whose = whose_words([said], lang)[1]
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None
    owner = owner_of(whose["owner"], inv.user, lang, inv.chat.platform) if "owner" in whose else None
    with _said(lang):
        changed = rentals.set_storage_whose(inv.team, name, project=whose.get("project"), owner=owner)
    project, shown = (literal(changed.project) if changed.project else None), (mention(owner) if owner else None)
    inv.answer(plain("\n".join(whose_said(literal(name), whose, project, shown, lang)), lang))
    if owner is not None and owner != found.owner:
        tell_owner(inv, owner, name, given=True)


def remind(inv: Invocation, args: list[str]) -> None:
    """`remind at 09:30 [zone] [days] [lang=en|zh]`, `remind lang en|zh`, `remind off`, `remind`. The
    channel's language: one set here wins; else the language of whoever set the schedule."""
    deps, lang = inv.deps, inv.lang
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    team, channel, user = inv.team, inv.channel, inv.user
    current = schedules.of(team, channel)
    given = [a.split("=", 1)[1] for a in args if a.lower().startswith("lang=")]
    if [a.lower() for a in args[:1]] != ["lang"]:  # `提醒 9点 英文`, `in English` (`remind lang 英文` apart)
        given += [a for a in args if Lang.named(a) and a.lower() not in ("en", "zh")]
    args = [a for a in args if not a.lower().startswith("lang=") and a not in given]
    args = _clock_words(args)  # `every weekday at 8`, `9:30 pm`, `at nine thirty`
    if args and _WHEN_IS_IT.fullmatch(" ".join(args)):  # `提醒 什么时候发`, `remind when?`: when it comes, said
        args = []
    chosen = _language(given[-1] if given else None, lang)
    words = [SWITCH_WORDS.get(a.lower(), a.lower()) for a in args]  # `remind 关闭`
    if words[:1] in (["pause"], ["暂停"]):  # 明天不要提醒, remind pause until monday: off till then
        remind_pause.pause(inv, schedules, current, args[1:])
        return
    if words == ["on"]:  # `remind on`, `提醒 恢复`: on again at the time and days it had, a pause ended
        remind_pause.check_setter(inv, schedules)  # as `remind off`: whoever set it, or an admin
        current = replace(current, enabled=True, resume_on=None)
        schedules.put(team, channel, current, user, deps.now())
        words = args = []
    if words == ["off"]:
        remind_pause.check_setter(inv, schedules)
        schedules.put(team, channel, replace(current, enabled=False), user, deps.now())
        inv.answer(plain(t("digest.schedule_off", lang), lang))
        return
    if len(words) == 2 and words[0] == "lang":
        current = replace(current, lang=_language(words[1], lang).value)
        schedules.put(team, channel, current, user, deps.now())
    elif (words and words[0] == "at" and len(args) >= 2) or (args and _a_time(args)):
        if words[0] != "at":  # `remind 每天早上9点`, `remind 9:30 工作日`: the time without its `at`
            args = ["at", *_time_first(args)]
        try:
            current = _schedule(args[1:], current, inv.zone() or current.zone)
        except ParseError as exc:
            raise CommandError(error_text(exc, lang, where="chat")) from None
        # the language set here, else the one it had, else the language of whoever sets it
        current = replace(current, lang=(chosen or (Lang(current.lang) if current.lang else lang)).value)
        schedules.put(team, channel, current, user, deps.now())
    elif args and (days := _days_alone(args)) is not None:  # `提醒 工作日`, `remind no weekends`: the time kept
        current = replace(current, days=days, enabled=True, lang=(chosen or Lang(current.lang or lang)).value)
        schedules.put(team, channel, current, user, deps.now())
    elif args or given:
        raise CommandError(t("digest.remind_usage", lang))
    if not current.enabled:
        inv.answer(plain(t("digest.schedule_off", lang), lang))
        return
    inv.answer(plain(schedule_text(current, deps.now(), lang, Lang(current.lang or deps.settings.files.lang)), lang))


_MOVED_TO = re.compile(r"^(?:的?时间)?(?:改到|改成|改为|换到|换成|调到|调成|挪到|定在|设在|设为|设成)")


def _clock_words(args: list[str]) -> list[str]:
    """`remind`'s words with its time one word, right after `at`: `at` wherever it was (`every weekday at 8`), a bare
    hour after it (`at 8`), am/pm typed apart (`at 9:30 pm`), a clock in English words (`at nine thirty`)."""
    # `in English`: its language is read apart; `remind me at 6pm`: who is reminded is the channel
    words = [w for w in args if w.lower() not in ("in", "me", "us", "我", "我们")]
    words = [w for w in (_MOVED_TO.sub("", w) for w in words) if w]  # 提醒改到晚上8点: the time it moves to
    at = next((i for i, w in enumerate(words) if w.lower() in ("at", "在")), None)
    if at is None:  # `remind 9:30 pm`: am/pm typed apart from the time
        for i in range(len(words) - 1):
            if words[i + 1].lower() in ("am", "pm", "a.m.", "p.m.") and clock_of(" ".join(words[i : i + 2])):
                return [*words[:i], " ".join(words[i : i + 2]), *words[i + 2 :]]
        return words
    rest = words[:at] + words[at + 1 :]
    if at < len(rest) and rest[at].isdigit() and int(rest[at]) <= 23:
        rest[at] += ":00"  # at 8: a bare hour after `at` is that hour
    for size in (4, 3, 2):  # "half past nine", "nine thirty", "9:30 pm": the longest run that reads as a clock
        if at + size <= len(rest) and clock_of(" ".join(rest[at : at + size])) is not None:
            rest[at : at + size] = [" ".join(rest[at : at + size])]
            break
    return ["at", *rest[at : at + 1], *rest[:at], *rest[at + 1 :]]


@overload
def _language(value: str, lang: Lang) -> Lang: ...
@overload
def _language(value: None, lang: Lang) -> None: ...
def _language(value: str | None, lang: Lang) -> Lang | None:
    """A language named in the command (`lang=en`, `lang zh`, `lang 中文`); CommandError for anything else."""
    if value is None:
        return None
    named = Lang.named(value)
    if named is None:
        raise CommandError(t("digest.remind_lang_usage", lang, text=value))
    return named


def days_said(schedule: RemindSchedule, lang: Lang) -> str:
    """A schedule's days as the reader says them: `mon-fri` in English (as typed), 周一至周五 or 周一、周三、周五
    in Chinese, 每天 for every day."""
    if lang is not Lang.ZH:
        return schedule.days_text
    ordered = sorted(schedule.days)
    if len(ordered) == 7:
        return "每天"
    name = [t(f"word.weekday.{d}", lang) for d in range(7)]
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{name[ordered[0]]}至{name[ordered[-1]]}"
    return "、".join(name[d] for d in ordered)


def schedule_text(schedule: RemindSchedule, now: datetime, lang: Lang, channel_lang: Lang) -> str:
    """The schedule as a person reads it: its local time and zone, days, language and the next send."""
    upcoming = next_send(schedule, now)
    nxt = (
        f"{upcoming:%Y-%m-%d %H:%M} {t(f'word.weekday.{upcoming.weekday()}', lang)} {schedule.zone}"
        if upcoming
        else "-"
    )
    said = t(
        "digest.schedule",
        lang,
        at=schedule.at.strftime("%H:%M"),
        zone=schedule.zone,
        days=days_said(schedule, lang),
        next=nxt,
        language=t(f"word.lang.{channel_lang.value}", lang),
    )
    resume = schedule.resume_on
    if resume is not None and now.astimezone(ZoneInfo(schedule.zone)).date() < resume:  # paused: when it comes again
        said += "\n" + t("digest.schedule_paused", lang, **remind_pause.day_said(resume, lang))
    return said


def _a_time(args: list[str]) -> bool:
    """Whether `args` say a digest's time without `at`: one of them reads as a time of day (`9:30`, `早上9点`,
    `每天早上9点`: the days said before the time, in one word)."""
    return any(_clock_in(a) is not None for a in args)


def _clock_in(word: str) -> tuple[str, str] | None:
    """(days, time) of a word that is a time of day, or days then a time run together (`每天早上9点`, `工作日9:30`)."""
    for cut in range(len(word)):
        with suppress(ParseError):
            parse_at(word[cut:])
            return word[:cut], word[cut:]
    return None


def _time_first(args: list[str]) -> list[str]:
    """The words in the order `remind at` takes them, the time first; a word that runs days and a time together
    (`每天早上9点`) is both: `早上9点 每天`."""
    i = next(i for i, a in enumerate(args) if _clock_in(a) is not None)
    days, clock = _clock_in(args[i]) or ("", args[i])
    return [clock, *args[:i], *([days] if days else []), *args[i + 1 :]]


def _days_alone(args: list[str]) -> frozenset[int] | None:
    """The days `remind`'s words say with no time (`工作日`, `周末不要`, `mondays and thursdays`), if that is all."""
    try:
        return parse_days(" ".join(args))
    except ParseError:
        return None


def _schedule(args: list[str], current: RemindSchedule, zone: str) -> RemindSchedule:
    """`09:30 [zone] [days]`: a zone has a '/' or is UTC; anything else after the time is the days. Without
    a zone, `zone` (the caller's Slack time zone)."""
    at, days = parse_at(args[0]), current.days
    for arg in args[1:]:
        if zone_said(arg):
            zone = parse_zone(arg)
    said = " ".join(arg for arg in args[1:] if not zone_said(arg))  # `every weekday`, `mondays and thursdays`
    if said:
        days = parse_days(said)
    return RemindSchedule(at, zone, days, True, current.lang, current.resume_on)  # a pause kept


_WHEN_IS_IT = lazy(  # a question of when the digest comes, after `remind`'s word
    r"(?:什么时候|几点|哪天|时间)(?:发|到|来|发送|提醒)?(?:呢|吗|啊)?[?？]?"
    r"|(?:when|what time)(?: is it| does it come)?\??",
    re.IGNORECASE,
)
