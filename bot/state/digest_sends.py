"""The digest_sends rows: a channel's digest of a local day is claimed before posting (unique on team,
channel, kind and local date), then marked sent or given back. A claim whose post never finished (the
process died) may be taken over after CLAIM_TIMEOUT."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from bot.state.schema import digest_sends
from bot.state.store import Store

CLAIM_TIMEOUT = timedelta(minutes=10)


class Sends:
    """The digest_sends rows: claim before posting, then mark sent or give the claim back."""

    def __init__(self, store: Store, kind: str = "digest") -> None:
        self.store, self.kind = store, kind  # "digest" (a local day), "weekly" (the report of a week)

    def _key(self, team: str, channel: str, day: date) -> ColumnElement[bool]:
        c = digest_sends.c
        return and_(c.team == team, c.channel == channel, c.kind == self.kind, c.local_date == day)

    def claim(
        self, team: str, channel: str, day: date, now: datetime, *, force: bool = False, retake_empty: bool = False
    ) -> str | None:
        """Claim the channel's digest of `day`: "new", or "taken" when an earlier claim was taken over (its
        sender died, or its post's outcome is unknown: the channel's history then says whether it went
        out), or None. With `retake_empty`, a day checked with nothing to say may be taken too; `force`: any."""
        try:
            with self.store.writing() as conn:
                conn.execute(
                    insert(digest_sends).values(
                        team=team, channel=channel, kind=self.kind, local_date=day, claimed_at=now
                    )
                )
            return "new"
        except IntegrityError:
            pass  # the day is claimed already: take it over below only if its claim is stale (or forced)
        where = self._key(team, channel, day)
        c = digest_sends.c
        if not force:
            dead = and_(c.sent_at.is_(None), c.claimed_at < now - CLAIM_TIMEOUT)
            where = and_(where, or_(dead, and_(c.sent_at.is_not(None), c.ts.is_(None))) if retake_empty else dead)
        with self.store.writing() as conn:
            taken = conn.execute(update(digest_sends).where(where).values(claimed_at=now, sent_at=None, ts=None))
        return "taken" if taken.rowcount else None

    def due(self, team: str, channel: str, day: date, now: datetime) -> bool:
        """Not sent, not checked, and not claimed by a live sender: no row, or a claim past CLAIM_TIMEOUT."""
        c = digest_sends.c
        with self.store.reading() as conn:
            row = conn.execute(select(c.sent_at, c.claimed_at).where(self._key(team, channel, day))).first()
        return row is None or (row.sent_at is None and row.claimed_at < now - CLAIM_TIMEOUT)

    def unknown(self, team: str, channel: str, day: date, now: datetime) -> None:
        """The post's outcome is unknown (a timeout, a 5xx: Slack may have it): leave the claim, already
        stale, so the next run takes it over and looks in the channel's history before posting again."""
        with self.store.writing() as conn:
            conn.execute(
                update(digest_sends)
                .where(self._key(team, channel, day))
                .values(claimed_at=now - CLAIM_TIMEOUT - timedelta(seconds=1))
            )

    def sent(self, team: str, channel: str, day: date, now: datetime, ts: str | None, items: int) -> None:
        with self.store.writing() as conn:
            conn.execute(
                update(digest_sends).where(self._key(team, channel, day)).values(sent_at=now, ts=ts, items=items)
            )

    def give_back(self, team: str, channel: str, day: date) -> None:
        with self.store.writing() as conn:
            conn.execute(delete(digest_sends).where(self._key(team, channel, day)))

    def sent_row(self, team: str, channel: str, day: date) -> tuple[datetime | None, str | None] | None:
        with self.store.reading() as conn:
            row = conn.execute(
                select(digest_sends.c.sent_at, digest_sends.c.ts).where(self._key(team, channel, day))
            ).first()
        return (row.sent_at, row.ts) if row else None
