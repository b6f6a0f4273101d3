"""When each instance was on or off (power_reports), as its agent, the cloud's scans, people and the bot said.

A machine's sighting (a heartbeat, a scan) that repeats the latest report of its source extends it (`last_at`)
instead of adding a row, so an instance has a few rows a day, not one a heartbeat. A person's report is
checked: not in the future, and not inside a stretch a machine saw otherwise (error.power.*). A report already
kept (same time, state and source: a retried post, a replayed buffer) is kept once; reports out of order are
read in time order (rules/power.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, or_, select, union_all, update
from sqlalchemy.exc import IntegrityError

from bot.state.conflicts import insert_for
from bot.state.money_days import forget_from
from bot.state.rentals import Instance, RentalError, Rentals
from bot.state.schema import power_reports, rental_instances
from bot.state.store import Store
from rules.digest import Rented
from rules.metering import FORECAST_DAYS
from rules.policy import Metering
from rules.power import HELD, Power, PowerReport, Stretch, timeline

BATCH = 500  # writes a transaction: the write lock is given back between batches


def silence(rules: Metering) -> dict[str, timedelta]:
    return {"agent": timedelta(minutes=rules.agent_silent_minutes), "scan": timedelta(hours=rules.scan_silent_hours)}


@dataclass(frozen=True)
class Sighting:
    instance_id: int
    state: Power
    at: datetime
    source: str
    charging: bool | None = None


def _said(moment: datetime, zone: tzinfo | None) -> str:
    """A time as an error says it, in the reader's zone where the caller knows it, else UTC, named either way."""
    return f"{moment.astimezone(zone or UTC):%Y-%m-%d %H:%M} {getattr(zone, 'key', None) or 'UTC'}"


_POWER = {p.value: p for p in Power}  # a dict lookup, not the enum's call: a month's report reads many thousands


def _report(row: Any) -> PowerReport:
    return PowerReport(_POWER[row[0]], row[1], row[2], row[3], row[4])


def _one_since() -> Any:
    """One instance's reports from `since` on, with the last one before it: made once, with its values bound at
    each call (a heartbeat reads this for its one instance; building the statement cost more than running it)."""
    c, prior = power_reports.c, power_reports.alias("prior")
    latest = (
        select(func.max(prior.c.at))
        .where(prior.c.instance_id == bindparam("b_id"), prior.c.at < bindparam("b_since"))
        .scalar_subquery()
    )
    return (
        select(c.state, c.at, c.last_at, c.source, c.charging)
        .where(c.instance_id == bindparam("b_id"), or_(c.at >= bindparam("b_since"), c.at == latest))
        .order_by(c.at, c.id)
    )


ONE_SINCE = _one_since()


def _many(ids: list[int], before: datetime | None, since: datetime | None) -> Any:
    """Their reports before `before`; from `since` on, with each one's last before it: the reports from `since`
    and those last ones, read apart and put together (a condition "from `since`, or the last before it" made the
    database look up the last one again for every report of the instances' whole history)."""
    c = power_reports.c
    columns = (c.instance_id, c.state, c.at, c.last_at, c.source, c.charging, c.id)
    early = [c.at < before] if before is not None else []
    if since is None:
        return select(*columns).where(c.instance_id.in_(ids), *early).order_by(c.instance_id, c.at, c.id)
    prior = power_reports.alias("prior")
    last_before = (
        select(prior.c.instance_id, func.max(prior.c.at).label("at"))
        .where(prior.c.instance_id.in_(ids), prior.c.at < since)
        .group_by(prior.c.instance_id)
        .subquery()
    )
    lasts = (
        select(*columns)
        .join(last_before, and_(c.instance_id == last_before.c.instance_id, c.at == last_before.c.at))
        .where(*early)
    )
    after = select(*columns).where(c.instance_id.in_(ids), c.at >= since, *early)
    both = union_all(lasts, after).subquery()
    return select(both).order_by(both.c.instance_id, both.c.at, both.c.id)


def month_since(now: datetime) -> datetime:
    """From when this month's figures read the power timelines: the month's first day (in any zone) less the week
    before it that forecasts and savings look back on."""
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0) - timedelta(days=FORECAST_DAYS + 1)


class PowerLog:
    def __init__(self, store: Store, rules: Metering | None = None) -> None:
        self.store, self.rules = store, rules or Metering()

    def move_start(self, team: str, name: str, at: datetime, zone: tzinfo | None = None) -> Instance:
        """When a running instance began, corrected (tracked after it was rented, or with the wrong `started=`): its
        bill begins at `at` (every figure follows: the month's money is signed by its start, bot/state/money_days).
        RentalError started_after_power where a word of its power came before `at` (it was there by then), its
        times said in `zone`; no_instance, already_released as any change of a running instance."""
        rentals = Rentals(self.store)
        found = rentals.instance(team, name)
        first = self.reports([found.id]).get(found.id) if found is not None else None
        if first and at > first[0].at:
            raise RentalError("started_after_power", name=name, at=_said(at, zone), first=_said(first[0].at, zone))
        return rentals.set_started(team, name, at)

    def reports(
        self, instance_ids: Iterable[int], before: datetime | None = None, since: datetime | None = None
    ) -> dict[int, list[PowerReport]]:
        """Each instance's reports, in time order: those before `before`; from `since` on, with the last one
        before it (its word may still hold at `since`)."""
        ids = sorted(set(instance_ids))
        out: dict[int, list[PowerReport]] = defaultdict(list)
        if len(ids) == 1 and before is None and since is not None:  # a heartbeat's
            with self.store.reading() as conn:
                out[ids[0]] = [_report(row) for row in conn.execute(ONE_SINCE, {"b_id": ids[0], "b_since": since})]
            return out
        for start in range(0, len(ids), 900):
            query = _many(ids[start : start + 900], before, since)
            with self.store.reading() as conn:
                for row in conn.execute(query).all():  # fetched at once
                    out[row[0]].append(_report(row[1:-1]))
        return out

    def with_agents(self, instance_ids: Iterable[int]) -> set[int]:
        """The instances an agent reports for (a tracked box its agent posts heartbeats about, as well as enrolled
        ones): the bot can stop them through that agent."""
        ids, c = sorted(set(instance_ids)), power_reports.c
        found: set[int] = set()
        for start in range(0, len(ids), 900):
            query = select(c.instance_id).where(c.instance_id.in_(ids[start : start + 900]), c.source == "agent")
            with self.store.reading() as conn:
                found |= {int(row[0]) for row in conn.execute(query.distinct())}
        return found

    def timelines(
        self, things: Iterable[Rented], now: datetime, since: datetime | None = None
    ) -> dict[int, list[Stretch]]:
        """Each instance's stretches from its start (or `since`, when later) to its release (or `now`)."""
        items = list(things)
        found = self.reports([i.id for i in items], before=now, since=since)
        gaps = silence(self.rules)
        out = {}
        for item in items:
            begin = max(item.started_at, since) if since is not None else item.started_at
            end = min(item.released_at, now) if item.released_at is not None else now
            out[item.id] = timeline(found.get(item.id, []), begin, end, gaps)
        return out

    def this_month(
        self, things: Iterable[Rented], now: datetime, also: Iterable[datetime] = ()
    ) -> dict[int, list[Stretch]]:
        """The timelines this month's figures read: the month (in any zone) and the week before it (forecasts and
        savings look back a week), and from each time in `also` (a prepaid balance's)."""
        return self.timelines(things, now, since=min([month_since(now), *also]))

    def sight(self, sightings: Sequence[Sighting]) -> int:
        """Keep machine sightings: each extends its source's latest report when it repeats it within the
        source's silence limit, else starts a new one. Returns how many new reports were kept."""
        if not sightings:
            return 0
        # the reports they may extend: from the earliest sighting on, with the one before it
        latest = self.reports({s.instance_id for s in sightings}, since=min(s.at for s in sightings))
        gaps = silence(self.rules)
        extended: dict[tuple[int, datetime, str, str], datetime] = {}  # a kept report's key -> its new last_at
        added: dict[tuple[int, datetime, str, str], dict[str, Any]] = {}  # new reports, by the same key
        changed: list[tuple[int, datetime]] = []  # each instance's timeline changes from then on (kept days: forgotten)
        for s in sorted(sightings, key=lambda s: s.at):
            mine = latest.setdefault(s.instance_id, [])
            prior = [r for r in mine if r.at <= s.at]
            last = prior[-1] if prior else None
            if (
                last is not None
                and (last.source, last.state, last.charging) == (s.source, s.state, s.charging)
                and s.at - last.last_at <= gaps.get(s.source, gaps["scan"])
            ):
                if s.at > last.last_at:  # the same word again: it holds until now
                    changed.append((s.instance_id, last.last_at))
                    key = (s.instance_id, last.at, last.state.value, last.source)
                    if key in added:
                        added[key]["last_at"] = s.at
                    else:
                        extended[key] = s.at
                    mine[mine.index(last)] = PowerReport(last.state, last.at, s.at, last.source, last.charging)
                continue
            if any((r.at, r.state, r.source) == (s.at, s.state, s.source) for r in mine):
                continue  # kept already (a replayed buffer)
            added[(s.instance_id, s.at, s.state.value, s.source)] = dict(
                instance_id=s.instance_id,
                state=s.state.value,
                at=s.at,
                last_at=s.at,
                source=s.source,
                charging=s.charging,
            )
            changed.append((s.instance_id, s.at))
            mine.append(PowerReport(s.state, s.at, s.at, s.source, s.charging))
            mine.sort(key=lambda r: r.at)
        self._keep(extended, list(added.values()), changed)
        return len(added)

    def _keep(
        self,
        extended: dict[tuple[int, datetime, str, str], datetime],
        added: list[dict[str, Any]],
        changed: list[tuple[int, datetime]],
    ) -> None:
        """The sightings' writes, alike ones together (executemany), in batches that give the write lock back; each
        batch forgets the kept days of money they change (bot/state/money_days.py)."""
        c = power_reports.c
        stretch = (
            update(power_reports)
            .where(
                c.instance_id == bindparam("b_id"),
                c.at == bindparam("b_at"),
                c.state == bindparam("b_state"),
                c.source == bindparam("b_source"),
            )
            .values(last_at=bindparam("b_last"))
        )
        rows = [
            {"b_id": i, "b_at": at, "b_state": state, "b_source": source, "b_last": last}
            for (i, at, state, source), last in extended.items()
        ]
        for begin in range(0, max(len(rows), len(added)), BATCH):
            with self.store.writing() as conn:
                forget_from(conn, changed, self.store.now())
                if rows[begin : begin + BATCH]:
                    conn.execute(stretch, rows[begin : begin + BATCH])
                if added[begin : begin + BATCH]:
                    # another replica may keep the same agent's word at the same moment: it is kept once
                    conn.execute(insert_for(conn, power_reports).on_conflict_do_nothing(), added[begin : begin + BATCH])

    def stopped(self, instance_id: int, at: datetime, now: datetime) -> datetime:
        """The bot's stop, as the cloud (or the box going quiet) confirmed it at `at`: off from then, or from the
        last moment a machine saw it on (an agent reporting during a 12-second StopInstances; discovery sighting it
        in the same minute), since it was on until then. Never refused: a stop that happened is kept and told.
        The time it is kept at."""
        moment = at
        for r in self.reports([instance_id]).get(instance_id, []):
            if r.source not in HELD and r.state is not Power.OFF and r.at <= moment < r.last_at:
                moment = r.last_at
        moment = min(moment, now + timedelta(minutes=1))  # a machine's clock ahead of ours is not followed further
        try:
            with self.store.writing() as conn:
                forget_from(conn, [(instance_id, moment)], self.store.now())
                conn.execute(
                    insert(power_reports).values(
                        instance_id=instance_id,
                        state=Power.OFF.value,
                        at=moment,
                        last_at=moment,
                        source="bot",
                        by="bot",
                    )
                )
        except IntegrityError:
            pass  # kept already (a redo of the same stop)
        return moment

    def say(
        self,
        instance_id: int,
        state: Power,
        at: datetime,
        now: datetime,
        *,
        source: str,
        by: str | None,
        zone: tzinfo | None = None,
    ) -> bool:
        """A person's (or the bot's) word that the instance went on or off at `at`. False: already kept.
        RentalError power_future (after `now`), power_before_start (before the instance started, where its bill
        begins) or power_overlaps (a machine saw it otherwise then), its times said in `zone` (the reader's clock;
        None: UTC)."""
        if at > now + timedelta(minutes=1):
            raise RentalError("power_future", at=_said(at, zone))
        with self.store.reading() as conn:
            started = conn.execute(
                select(rental_instances.c.started_at).where(rental_instances.c.id == instance_id)
            ).scalar()
        if started is not None and at < started:  # its bill begins there: a word before it would change nothing
            raise RentalError("power_before_start", at=_said(at, zone), start=_said(started, zone))
        for r in self.reports([instance_id]).get(instance_id, []):
            if r.at == at and r.state is state and r.source == source:
                return False
            if r.source not in HELD and r.state is not state and r.at < at < r.last_at:
                raise RentalError(
                    "power_overlaps",
                    at=_said(at, zone),
                    source=r.source,
                    start=_said(r.at, zone),
                    end=_said(r.last_at, zone),
                )
        try:
            with self.store.writing() as conn:
                forget_from(conn, [(instance_id, at)], self.store.now())
                conn.execute(
                    insert(power_reports).values(
                        instance_id=instance_id, state=state.value, at=at, last_at=at, source=source, by=by
                    )
                )
        except IntegrityError:
            return False
        return True
