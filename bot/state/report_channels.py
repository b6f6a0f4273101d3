"""`/gpu-advise report off|on`: which channels take the weekly report (a channel without a row does); and each
channel's last report chart, for App Home."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import delete, insert, select

from bot.state.schema import report_channels, report_charts
from bot.state.store import Store


class ReportChannels:
    def __init__(self, store: Store) -> None:
        self.store = store

    def set(self, team: str, channel: str, enabled: bool, by: str, now: datetime) -> None:
        c = report_channels.c
        with self.store.writing() as conn:
            conn.execute(delete(report_channels).where(c.team == team, c.channel == channel))
            conn.execute(
                insert(report_channels).values(team=team, channel=channel, enabled=enabled, set_by=by, updated_at=now)
            )

    def set_by(self, team: str, channel: str) -> str | None:
        """Who last turned the channel's weekly report off or on (None: nobody has)."""
        c = report_channels.c
        with self.store.reading() as conn:
            found = conn.execute(select(c.set_by).where(c.team == team, c.channel == channel)).scalar()
        return str(found) if found else None

    def enabled(self, team: str, channel: str) -> bool:
        c = report_channels.c
        with self.store.reading() as conn:
            found = conn.execute(select(c.enabled).where(c.team == team, c.channel == channel)).scalar()
        return True if found is None else bool(found)


@dataclass(frozen=True)
class Chart:
    channel: str
    file_id: str
    start: date
    end: date
    posted_at: datetime


class ReportCharts:
    def __init__(self, store: Store) -> None:
        self.store = store

    def keep(self, team: str, channel: str, file_id: str, start: date, end: date, now: datetime) -> None:
        """The channel's newest chart replaces the one before."""
        c = report_charts.c
        with self.store.writing() as conn:
            conn.execute(delete(report_charts).where(c.team == team, c.channel == channel))
            conn.execute(
                insert(report_charts).values(
                    team=team, channel=channel, file_id=file_id, period_start=start, period_end=end, posted_at=now
                )
            )

    def last(self, team: str, channels: list[str]) -> Chart | None:
        """The newest chart of any of `channels`."""
        if not channels:
            return None
        c = report_charts.c
        query = (
            select(report_charts)
            .where(c.team == team, c.channel.in_(channels))
            .order_by(c.posted_at.desc(), c.channel)
            .limit(1)
        )
        with self.store.reading() as conn:
            row = conn.execute(query).first()
        return None if row is None else Chart(row.channel, row.file_id, row.period_start, row.period_end, row.posted_at)
