"""A channel's digest paused for a while (`remind pause 明天`, `remind pause until 周一`, and in words `明天不要提醒`,
`这周别提醒了`, `周五之前不要提醒`, `pause the reminders until monday`, `skip tomorrow's digest`): no digest until the
day it resumes, then on by itself at its time and days, which are kept. The bot kept no pause before: the answer
said to turn it off and remember to turn it on. A day alone is the last one without it (`明天`: tomorrow's is
skipped); `until` a day is the first with it. At most UNTIL_AT_MOST ahead: longer is `remind off`."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from bot.app.invocation import CommandError, Invocation
from bot.chat.message import plain
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.format import who
from rules.days import day_named
from rules.remind_schedule import RemindSchedule

UNTIL_AT_MOST = timedelta(days=31)  # a pause said further off is refused: a month is `remind off`'s
_UNTIL = frozenset(("until", "till", "到", "直到", "暂停到"))
_BEFORE = re.compile(r"^(?P<day>.+?)(?:之前|以前|前)$")
_WEEKS = {"这周": 0, "本周": 0, "this week": 0, "下周": 1, "next week": 1}


def resume_day(words: list[str], today: date) -> date | None:
    """The first day the digest comes again, from `remind pause`'s words; None where they name no day."""
    said = " ".join(words).strip().lower()
    if said in _WEEKS:  # this week's (or next week's) digests skipped: back on the Monday after
        return today - timedelta(days=today.weekday()) + timedelta(days=7 * (_WEEKS[said] + 1))
    if words and words[0].lower() in _UNTIL:  # until monday: the first day with it
        return _ahead(" ".join(words[1:]), today)
    if (before := _BEFORE.match(said)) is not None:  # 周五之前: until Friday
        return _ahead(before["day"], today)
    last = day_named(said, today) if said else None  # 明天: the last day without it
    return last + timedelta(days=1) if last is not None else None


def _ahead(said: str, today: date) -> date | None:
    """The day `until` names; a weekday that is today (`until monday`, said on a Monday): next week's."""
    day = day_named(said, today)
    return day + timedelta(days=7) if day == today and said.strip().lower() not in ("今天", "today") else day


def pause(inv: Invocation, schedules: Schedules, current: RemindSchedule, words: list[str]) -> None:
    """`remind pause …`: the channel's digest off until the day its words name (its setter's or an admin's)."""
    lang, team, channel = inv.lang, inv.team, inv.channel
    if not current.enabled:  # off already: nothing comes to pause (`remind on` turns it back on)
        inv.answer(plain(t("digest.schedule_off", lang), lang))
        return
    today = inv.deps.now().astimezone(ZoneInfo(current.zone)).date()
    resume = resume_day(words, today)
    if resume is None:
        raise CommandError(t("digest.remind_pause_usage", lang))
    if resume <= today or resume - today > UNTIL_AT_MOST:
        raise CommandError(t("digest.remind_pause_range", lang, days=UNTIL_AT_MOST.days))
    check_setter(inv, schedules)
    schedules.put(team, channel, replace(current, resume_on=resume), inv.user, inv.deps.now())
    inv.answer(plain(t("digest.remind_paused", lang, **day_said(resume, lang)), lang))


def check_setter(inv: Invocation, schedules: Schedules) -> None:
    """CommandError unless the channel's schedule is the person's to change: whoever set it, or an admin."""
    setter = schedules.set_by(inv.team, inv.channel)
    if setter not in (None, inv.user) and not inv.is_admin():
        raise CommandError(t("digest.remind_not_yours", inv.lang, setter=who(setter, inv.lang)))


def day_said(day: date, lang: Lang) -> dict[str, str]:
    """A day as the answers say it: 12-10 and its weekday."""
    return {"day": f"{day:%m-%d}", "weekday": t(f"word.weekday.{day.weekday()}", lang)}
