"""Each channel's digest schedule; a channel without one uses the defaults from settings."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import delete, insert, select

from bot.state.schema import digest_schedules
from bot.state.store import Store
from rules.remind_schedule import RemindSchedule, days_text, parse_at, parse_days


def _plan(row: Any) -> RemindSchedule:
    days = parse_days(row.days)
    return RemindSchedule(parse_at(row.at_time), row.zone, days, bool(row.enabled), row.lang, row.resume_on)


class Schedules:
    def __init__(self, store: Store, default: RemindSchedule) -> None:
        self.store, self.default = store, default

    def of(self, team: str, channel: str) -> RemindSchedule:
        c = digest_schedules.c
        with self.store.reading() as conn:
            row = conn.execute(select(digest_schedules).where(c.team == team, c.channel == channel)).first()
        return self.default if row is None else _plan(row)

    def plans(self, team: str, channels: Iterable[str]) -> dict[str, RemindSchedule]:
        """Each channel's schedule, in one read of the team's (a team's digests and boards ask of hundreds)."""
        c = digest_schedules.c
        with self.store.reading() as conn:
            found = {row.channel: _plan(row) for row in conn.execute(select(digest_schedules).where(c.team == team))}
        return {channel: found.get(channel, self.default) for channel in channels}

    def zones(self, team: str, channels: Iterable[str]) -> dict[str, ZoneInfo]:
        """Each channel's digest zone: where its items' months and days begin, in every surface."""
        return {channel: ZoneInfo(plan.zone) for channel, plan in self.plans(team, set(channels)).items()}

    def set_by(self, team: str, channel: str) -> str | None:
        """Who set the channel's schedule, if anyone did."""
        c = digest_schedules.c
        with self.store.reading() as conn:
            return conn.execute(select(c.set_by).where(c.team == team, c.channel == channel)).scalar()

    def put(self, team: str, channel: str, schedule: RemindSchedule, user: str, now: datetime) -> None:
        c = digest_schedules.c
        with self.store.writing() as conn:
            conn.execute(delete(digest_schedules).where(c.team == team, c.channel == channel))
            conn.execute(
                insert(digest_schedules).values(
                    team=team,
                    channel=channel,
                    at_time=schedule.at.strftime("%H:%M"),
                    zone=schedule.zone,
                    days=days_text(schedule.days),
                    enabled=schedule.enabled,
                    set_by=user,
                    updated_at=now,
                    lang=schedule.lang,
                    resume_on=schedule.resume_on,
                )
            )
