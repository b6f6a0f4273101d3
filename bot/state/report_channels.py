"""`/gpu-advise report off|on`: which channels take the weekly report (a channel without a row does)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select

from bot.state.schema import report_channels
from bot.state.store import Store


class ReportChannels:
    def __init__(self, store: Store) -> None:
        self.store = store

    def set(self, team: str, channel: str, enabled: bool, by: str, now: datetime) -> None:
        c = report_channels.c
        with self.store.writing() as conn:
            conn.execute(delete(report_channels).where(c.team == team, c.channel == channel))
            conn.execute(insert(report_channels).values(team=team, channel=channel, enabled=enabled, set_by=by,
                                                        updated_at=now))

    def enabled(self, team: str, channel: str) -> bool:
        c = report_channels.c
        with self.store.reading() as conn:
            found = conn.execute(select(c.enabled).where(c.team == team, c.channel == channel)).scalar()
        return True if found is None else bool(found)
