"""What a team rents, in the state database: instances (with their agents' samples) and storage.

Everything is scoped by team (`team`): nothing of one team is read in another. Heartbeat
tokens are shown once and kept as a SHA-256 hash (they are random, so a plain hash is enough).
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, bindparam, case, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from bot.logs import keep_secret
from bot.state.conflicts import insert_for
from bot.state.schema import (
    as_seconds,
    disk_reports,
    gpu_samples,
    power_reports,
    price_history,
    rental_instances,
    rental_storage,
    seconds_of,
)
from bot.state.store import Store
from rules import metering
from rules.policy import Idle
from rules.samples import Sample

DEFAULT_IDLE = Idle()


class RentalError(ValueError):
    """A rental operation that cannot be done: `code` and `params` say why (error.rental.<code>)."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(f"{code}: {params}")
        self.code, self.params = code, params


@dataclass(frozen=True)
class Instance:
    id: int
    team: str
    name: str
    channel: str
    owner: str
    project: str | None
    gpu: str
    cards: int
    share: float | None
    unit: str
    price: float | None  # None: not known (an enrolled card the price cache does not know)
    currency: str
    started_at: datetime
    released_at: datetime | None
    snoozed_until: datetime | None = None
    last_busy_at: datetime | None = None
    source: str = "track"  # track (typed), agent (enrolled), aws or k8s (discovered)
    provider_id: str | None = None  # the cloud's id: aws:i-0abc...
    machine_id: str | None = None
    cloud_state: str | None = None  # what the cloud says: running, stopped, terminated
    provider_region: str | None = None
    launched_at: datetime | None = None
    spot: bool = False
    released_by: str | None = None  # a Slack user, "cloud" or "bot"
    hidden_by: str | None = None  # "Not ours"
    billing: str | None = None  # hourly, day, month; None: from `unit` (rules/metering.py)
    stop_billing: str | None = None  # stops, keeps; None: stops
    provider: str | None = None  # the provider account it bills to: aws, autodl, aliyun, ...
    idle_rule_minutes: int | None = None  # the platform stops it by itself after this long idle (a DSW notebook)
    idle_rule_threshold_pct: float | None = None  # the GPU % under which that rule counts it idle, where it has one
    price_by: str | None = None  # who set its price by hand (None: its source's, priced again at each scan)
    price_since: datetime | None = None  # when its price began (None: from its start)
    earlier_prices: tuple[EarlierPrice, ...] = ()  # its prices before, oldest first (rules/metering.py bills by them)


@dataclass(frozen=True)
class EarlierPrice:
    """A price an instance had until `until` (from the previous one's end, or its start)."""

    until: datetime
    price: float | None
    unit: str
    currency: str
    billing: str | None = None  # hourly, day, month as it was billed then; None: as the instance is billed now


@dataclass(frozen=True)
class Storage:
    id: int
    team: str
    name: str
    channel: str
    owner: str
    project: str | None
    size_gb: float
    price_gb_month: float
    currency: str
    instance_id: int | None
    created_at: datetime
    deleted_at: datetime | None
    kept_until: datetime | None = None
    source: str = "track"  # track (typed) or aws (discovered)
    provider_id: str | None = None  # aws:vol-0abc...
    cloud_state: str | None = None  # available, in-use
    provider_region: str | None = None
    hidden_by: str | None = None  # "Not ours"


NAME = re.compile(r"[^\W_][\w.\-]{0,63}")


# What a stored number may be, whichever front end it came from (terminal, Slack, /api/heartbeat): finite,
# and within what a real rental or GPU can be. One bad figure would otherwise stop every digest of its
# team (Infinity in a sum, an overflow in a date) or every `list`.
BOUNDS: dict[str, tuple[float, float]] = {
    "price": (0.0, 10_000_000.0),  # per hour, day or month
    "cards": (1, 1024),
    "share": (0.0, 1.0),
    "size_gb": (0.0, 10_000_000.0),  # 10 PB
    "price_gb_month": (0.0, 1000.0),
    "utilization_pct": (0.0, 100.0),
    "memory_mib": (0.0, 4_194_304.0),  # 4 TiB of GPU memory
    "power_w": (0.0, 10_000.0),
}
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)


def check_numbers(fields: dict[str, Any]) -> None:
    """RentalError("out_of_range") naming the first field that is not a finite number within BOUNDS, or a
    time outside 1970-2200 (what a person can mean)."""
    for key, value in fields.items():
        if key in BOUNDS and value is not None:
            low, high = BOUNDS[key]
            if not (isinstance(value, int | float) and math.isfinite(value) and low <= value <= high):
                raise RentalError("out_of_range", field=key, value=str(value), low=f"{low:g}", high=f"{high:g}")
        elif isinstance(value, datetime) and not in_range(value):
            raise RentalError("time_out_of_range", field=key, value=value.isoformat())


def in_range(moment: datetime) -> bool:
    try:
        return EARLIEST <= moment.astimezone(UTC) <= LATEST
    except (OverflowError, ValueError):  # 0001-01-01+14:00 or 9999-12-31-14:00 cannot be put in UTC
        return False


def _insert_new(conn: Any) -> Any:
    """INSERT of samples that skips one whose (instance, GPU, time) is already kept, returning the id of
    each that was new (SQLite and PostgreSQL both have ON CONFLICT DO NOTHING; batched executemany)."""
    return insert_for(conn, gpu_samples).on_conflict_do_nothing().returning(gpu_samples.c.id)


def quiet_query(dialect: str, instance_ids: list[int], since: datetime) -> Any:
    """Per instance (id, quiet): its first sample since `since` after its last busy time."""
    c, i = gpu_samples.c, rental_instances.c
    busy = seconds_of(dialect, i.last_busy_at)
    first = (
        select(func.min(c.at))
        .where(c.instance_id == i.id, c.at >= since, or_(i.last_busy_at.is_(None), as_seconds(c.at) > busy))
        .scalar_subquery()
    )
    return select(i.id, first.label("quiet")).where(i.id.in_(instance_ids))


def check_name(name: str) -> None:
    """Names are 1-64 letters (any script), digits, '.', '-' or '_', starting with a letter or digit."""
    if not NAME.fullmatch(name):
        raise RentalError("bad_name", name=name)


def _whose_values(project: str | None, owner: str | None) -> dict[str, Any]:
    """The columns a change of whose money an item is sets: its project ("" for none) and owner, where given."""
    values: dict[str, Any] = {} if project is None else {"project": project or None}
    return values | ({} if owner is None else {"owner": owner})


@dataclass(frozen=True)
class DiskReport:
    path: str
    size_gb: float
    newest_mtime: datetime | None


def new_token() -> str:
    token = secrets.token_urlsafe(32)
    keep_secret(token)  # shown once to the person, never in a log line (slack_sdk logs reply bodies)
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# An instance's columns in its dataclass's order, so a row becomes one by position (a digest reads thousands)
INSTANCE_COLUMNS = [rental_instances.c[f.name] for f in fields(Instance) if f.name in rental_instances.c]


def _instance(row: Any) -> Instance:
    return Instance(*row)


def _with_history(conn: Any, found: list[Instance]) -> list[Instance]:
    """`found` with the earlier prices of those whose price changed (one query; none for most)."""
    changed = {i.id for i in found if i.price_since is not None}
    if not changed:
        return found
    h = price_history.c
    query = select(h.instance_id, h.until, h.price, h.unit, h.currency, h.billing).where(h.instance_id.in_(changed))
    earlier: dict[int, list[EarlierPrice]] = {}
    for row in conn.execute(query.order_by(h.until)):
        earlier.setdefault(row.instance_id, []).append(EarlierPrice(*row[1:]))
    return [replace(i, earlier_prices=tuple(earlier.get(i.id, ()))) if i.id in earlier else i for i in found]


def price_change(
    found: Any, price: float | None, unit: str, currency: str, at: datetime, by: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a new price of `found` (an instance or its row) from `at` writes: the price before, kept until `at` with
    how it was billed (a price_history row), and the instance's new price columns."""
    earlier = {
        "instance_id": found.id,
        "until": at,
        "price": found.price,
        "unit": found.unit,
        "currency": found.currency,
        "billing": metering.basis(found).value,
    }
    return earlier, {"price": price, "unit": unit, "currency": currency, "price_since": at, "price_by": by}


def reprice(
    conn: Any, found: Any, price: float | None, unit: str, currency: str, at: datetime, by: str | None = None
) -> None:
    """Give `found` a new price from `at`: the one before kept until `at`."""
    earlier, values = price_change(found, price, unit, currency, at, by)
    conn.execute(insert(price_history).values(**earlier))
    conn.execute(update(rental_instances).where(rental_instances.c.id == found.id).values(**values))


SAMPLE_BATCH = 500  # samples a transaction: a few milliseconds of the write lock


# a heartbeat's statements, made once with their values bound at each call (building them cost more than running)
KNOWN_SAMPLES = select(gpu_samples.c.gpu, gpu_samples.c.at).where(
    gpu_samples.c.instance_id == bindparam("b_id"),
    gpu_samples.c.at >= bindparam("b_first"),
    gpu_samples.c.at <= bindparam("b_last"),
)
BY_TOKEN = select(*INSTANCE_COLUMNS).where(
    rental_instances.c.token_hash == bindparam("b_hash"),
    or_(rental_instances.c.released_at.is_(None), rental_instances.c.released_by == "bot"),
)
LATER_BUSY = (
    update(rental_instances)
    .where(
        rental_instances.c.id == bindparam("b_id"),
        or_(rental_instances.c.last_busy_at.is_(None), rental_instances.c.last_busy_at < bindparam("b_busy")),
    )
    .values(last_busy_at=bindparam("b_busy"))
)


def latest_first(table: Table) -> tuple[Any, ...]:
    """The order of one name's rows (a name is free once its item is gone): the one not released (or deleted) first,
    then the one gone last."""
    gone = table.c.released_at if table is rental_instances else table.c.deleted_at
    return case((gone.is_(None), 0), else_=1), gone.desc(), table.c.id.desc()


class Rentals:
    def __init__(self, store: Store) -> None:
        self.store = store

    def track_instance(
        self, team: str, name: str, fields: dict[str, Any], *, request_key: str | None = None
    ) -> tuple[Instance, str]:
        """Keep a rented instance; returns it and its heartbeat token (shown once, kept hashed).
        `request_key`: the Slack request tracking it; see `reissue_for`."""
        check_name(name)
        check_numbers(fields)
        token = new_token()
        row = {"team": team, "name": name, **fields, "token_hash": token_hash(token), "request_key": request_key}
        try:
            with self.store.writing() as conn:
                made = conn.execute(insert(rental_instances).values(**row)).inserted_primary_key
                assert made is not None
                if row.get("source", "track") == "track":  # typed: on from its start, until told otherwise
                    at = row["started_at"]
                    conn.execute(
                        insert(power_reports).values(instance_id=made[0], state="on", at=at, last_at=at, source="track")
                    )
        except IntegrityError:
            raise RentalError("instance_exists", name=name) from None
        found = self.instance(team, name)
        assert found is not None
        return found, token

    def reissue_for(self, team: str, name: str, request_key: str) -> tuple[Instance, str] | None:
        """The instance `request_key` tracked, with a new token in place of its first (whose reply was not
        delivered: the request is being redone); None when that request did not track `name`."""
        c = rental_instances.c
        token = new_token()
        with self.store.writing() as conn:
            changed = conn.execute(
                update(rental_instances)
                .where(c.team == team, c.name == name, c.request_key == request_key, c.released_at.is_(None))
                .values(token_hash=token_hash(token))
            ).rowcount
        found = self.instance(team, name) if changed else None
        return (found, token) if found is not None else None

    def instance(self, team: str, name: str) -> Instance | None:
        """The instance of that name not released, else the one released last (a name is free once released)."""
        c = rental_instances.c
        query = (
            select(*INSTANCE_COLUMNS).where(c.team == team, c.name == name).order_by(*latest_first(rental_instances))
        )
        with self.store.reading() as conn:
            row = conn.execute(query).first()
            return _with_history(conn, [_instance(row)])[0] if row else None

    def by_id(self, instance_id: int) -> Instance | None:
        with self.store.reading() as conn:
            row = conn.execute(select(*INSTANCE_COLUMNS).where(rental_instances.c.id == instance_id)).first()
            return _with_history(conn, [_instance(row)])[0] if row else None

    def release_by(self, instance_id: int, at: datetime, by: str) -> bool:
        """Release an instance not released yet, saying who (a person, "bot", "cloud"); False if it was."""
        c = rental_instances.c
        with self.store.writing() as conn:
            return bool(
                conn.execute(
                    update(rental_instances)
                    .where(c.id == instance_id, c.released_at.is_(None))
                    .values(released_at=at, released_by=by)
                ).rowcount
            )

    def unrelease(self, instance_id: int) -> bool:
        """A box the bot stopped reports again: it is an item again (its owner, channel and price unchanged)."""
        c = rental_instances.c
        with self.store.writing() as conn:
            again = rental_instances.alias("again")  # its name taken since by a box tracked anew: it stays released
            taken = select(again.c.id).where(
                again.c.team == c.team, again.c.name == c.name, again.c.released_at.is_(None), again.c.id != c.id
            )
            done = conn.execute(
                update(rental_instances)
                .where(c.id == instance_id, c.released_by == "bot", ~taken.exists())
                .values(released_at=None, released_by=None)
            )
            return bool(done.rowcount)

    def by_token(self, token: str) -> Instance | None:
        """The instance a heartbeat token belongs to, unless a person (or the cloud) released it: its token is then
        revoked. One the bot stopped keeps its token: started again, the box reports and is an item again."""
        with self.store.reading() as conn:
            row = conn.execute(BY_TOKEN, {"b_hash": token_hash(token)}).first()
        return _instance(row) if row else None

    def projects(self, team: str) -> list[str]:
        """The projects the team's instances and storage are billed to, sorted."""
        found: set[str] = set()
        with self.store.reading() as conn:
            for table in (rental_instances, rental_storage):
                found |= {r[0] for r in conn.execute(select(table.c.project).where(table.c.team == team).distinct())}
        return sorted(p for p in found if p)

    def teams(self) -> list[str]:
        """Installs with something running or kept."""
        with self.store.reading() as conn:
            found = {
                r[0]
                for r in conn.execute(
                    select(rental_instances.c.team).where(rental_instances.c.released_at.is_(None)).distinct()
                )
            }
            found |= {
                r[0]
                for r in conn.execute(
                    select(rental_storage.c.team).where(rental_storage.c.deleted_at.is_(None)).distinct()
                )
            }
        return sorted(found)

    def instances(self, team: str, *, active_only: bool = False, channel: str | None = None) -> list[Instance]:
        query = select(*INSTANCE_COLUMNS).where(rental_instances.c.team == team)
        if channel is not None:
            query = query.where(rental_instances.c.channel == channel)
        if active_only:
            query = query.where(rental_instances.c.released_at.is_(None))
        with self.store.reading() as conn:
            return _with_history(conn, [_instance(r) for r in conn.execute(query.order_by(rental_instances.c.name))])

    def cards_seen(self, instance: Instance, cards: int, at: datetime) -> bool:
        """Its agent reports more cards than it was tracked with (`track --gpu K100` without `--cards` on a 2-card
        box): it has that many from `at` on, and a price from the price cache (per card, not typed) follows them, the
        hours before staying at the price they had. False when there is nothing to correct."""
        if instance.source != "track" or instance.share is not None or cards <= instance.cards or instance.released_at:
            return False  # an enrolled box's count is its agent's own; a found one's, its cloud's
        with self.store.writing() as conn:
            if instance.price is not None and instance.price_by is None:
                per_card = instance.price / instance.cards
                reprice(conn, instance, round(per_card * cards, 4), instance.unit, instance.currency, at)
            conn.execute(update(rental_instances).where(rental_instances.c.id == instance.id).values(cards=cards))
        return True

    def set_price(
        self, team: str, name: str, price: float, unit: str, by: str, at: datetime, currency: str | None = None
    ) -> Instance:
        """A price set by hand from `at` on (`billing NAME --price`): kept, the price before billed until then, and
        never changed by a scan after. A price in another currency than the instance's ($8/h for an item billed in
        CNY) is refused: its month would add yuan and dollars as one (¥120 billed, then shown as $120)."""
        found = self._running(team, name)
        if currency is not None and currency != found.currency:
            raise RentalError("price_other_currency", name=name, currency=found.currency, said=currency)
        with self.store.writing() as conn:
            reprice(conn, found, price, unit, found.currency, at, by=by)
        return self.instance(team, name) or found

    def _running(self, team: str, name: str) -> Instance:
        """The instance not released yet; RentalError when there is none."""
        found = self.instance(team, name)
        if found is None:
            raise RentalError("no_instance", name=name)
        if found.released_at is not None:
            raise RentalError("already_released", name=name)
        return found

    def _change_running(self, team: str, name: str, **values: Any) -> Instance:
        """Set `values` on an instance not released yet; RentalError when there is none. Checked and changed in one
        write transaction: a release by another process in between cannot be written over."""
        c = rental_instances.c
        with self.store.writing() as conn:
            query = (
                select(c.id, c.released_at)
                .where(c.team == team, c.name == name)
                .order_by(*latest_first(rental_instances))
            )
            query = query.limit(1).with_for_update()
            row = conn.execute(query).first()  # the row locked on PostgreSQL; SQLite's write lock is held already
            if row is None:
                raise RentalError("no_instance", name=name)
            if row.released_at is not None:
                raise RentalError("already_released", name=name)
            conn.execute(update(rental_instances).where(c.id == row.id).values(**values))
        changed = self.instance(team, name)
        if changed is None:  # deleted since, by another process
            raise RentalError("no_instance", name=name)
        return changed

    def release(self, team: str, name: str, at: datetime, by: str | None = None) -> Instance:
        """Release a running instance; `by`: who (a Slack user, "terminal"), kept for the reports."""
        return self._change_running(team, name, released_at=at, released_by=by)

    def set_billing(self, team: str, name: str, **values: str | None) -> Instance:
        """Set how a running instance is billed: `billing` (hourly, day, month), `stop_billing`, `provider`."""
        return self._change_running(team, name, **{k: v for k, v in values.items() if v is not None})

    def set_whose(self, team: str, name: str, *, project: str | None = None, owner: str | None = None) -> Instance:
        """Whose money a running instance is: its `project` ("" for none) and its `owner`, where given."""
        return self._change_running(team, name, **_whose_values(project, owner))

    def set_machine(self, team: str, name: str, *, gpu: str | None = None, cards: int | None = None) -> Instance:
        """A running instance's card and its count corrected (tracked as 8 cards, it has 4), where given; its price,
        the whole machine's, is as it was."""
        values = {k: v for k, v in (("gpu", gpu), ("cards", cards)) if v is not None}
        return self._change_running(team, name, **values)

    def set_started(self, team: str, name: str, at: datetime) -> Instance:
        """A running instance's start moved to `at` (PowerLog.move_start checks it against its power first)."""
        return self._change_running(team, name, started_at=at)

    def snooze(self, team: str, name: str, until: datetime) -> Instance:
        """ "Still needed": the instance is not news until `until`."""
        return self._change_running(team, name, snoozed_until=until)

    def storage_named(self, team: str, name: str) -> Storage | None:
        """The storage of that name not deleted, else the one deleted last (a name is free once deleted)."""
        c = rental_storage.c
        query = select(rental_storage).where(c.team == team, c.name == name)
        query = query.order_by(*latest_first(rental_storage))
        with self.store.reading() as conn:
            row = conn.execute(query).first()
        return Storage(**dict(row._mapping)) if row else None

    def _change_kept(self, team: str, name: str, **values: Any) -> Storage:
        """Set `values` on storage not deleted yet; RentalError when there is none."""
        found = self.storage_named(team, name)
        if found is None:
            raise RentalError("no_storage", name=name)
        if found.deleted_at is not None:
            raise RentalError("already_deleted", name=name)
        with self.store.writing() as conn:
            conn.execute(update(rental_storage).where(rental_storage.c.id == found.id).values(**values))
        return self.storage_named(team, name) or found

    def set_storage_whose(
        self, team: str, name: str, *, project: str | None = None, owner: str | None = None
    ) -> Storage:
        """Whose money kept storage is: its `project` ("" for none) and its `owner`, where given."""
        return self._change_kept(team, name, **_whose_values(project, owner))

    def box_names(self, team: str, storage: list[Storage]) -> dict[int, str]:
        """The name of each box the `storage` is on, by its id: one read of the team's boxes, where any disk is on
        one (none otherwise)."""
        if not any(s.instance_id is not None for s in storage):
            return {}
        return {i.id: i.name for i in self.instances(team)}

    def named(self, team: str, name: str) -> Instance | Storage | None:
        """The running instance called `name`, else the kept storage; None where neither runs or is kept."""
        box = self.instance(team, name)
        if box is not None and box.released_at is None:
            return box
        disk = self.storage_named(team, name)
        return disk if disk is not None and disk.deleted_at is None else None

    def rename(self, team: str, name: str, new: str) -> Instance | Storage:
        """The running instance (else the kept storage) called `name` is called `new` from now on; its spend, power
        and token are its own still. RentalError: `new` is no name, or a running instance's or kept storage's here;
        `name` is none of them (or was released, or deleted)."""
        check_name(new)
        row = self.named(team, name)
        if row is None:
            gone = "already_deleted" if self.storage_named(team, name) is not None else "no_item"
            raise RentalError("already_released" if self.instance(team, name) is not None else gone, name=name)
        if new != name and self.named(team, new) is not None:
            raise RentalError("name_taken", name=new)
        table = rental_instances if isinstance(row, Instance) else rental_storage
        try:
            with self.store.writing() as conn:
                conn.execute(update(table).where(table.c.id == row.id).values(name=new))
        except IntegrityError:  # taken between the look and the write
            raise RentalError("name_taken", name=new) from None
        renamed = self.named(team, new)
        assert renamed is not None
        return renamed

    def set_storage_instance(self, team: str, name: str, instance: str | None) -> Storage:
        """The tracked instance (not released) kept storage is attached to, by its name; None: to none."""
        box = self.instance(team, instance) if instance is not None else None
        if instance is not None and (box is None or box.released_at is not None):
            raise RentalError("no_instance", name=instance)
        return self._change_kept(team, name, instance_id=box.id if box is not None else None)

    def keep_storage(self, team: str, name: str, until: datetime) -> Storage:
        """ "Keep": the storage is not news until `until`."""
        return self._change_kept(team, name, kept_until=until)

    def track_storage(self, team: str, name: str, fields: dict[str, Any], instance: str | None) -> Storage:
        """Keep rented storage; `instance` names a tracked instance of the same team, if any."""
        check_name(name)
        check_numbers(fields)
        row = {"team": team, "name": name, **fields}
        if instance is not None:
            owner = self.instance(team, instance)
            if owner is None:
                raise RentalError("no_instance", name=instance)
            row["instance_id"] = owner.id
        try:
            with self.store.writing() as conn:
                conn.execute(insert(rental_storage).values(**row))
        except IntegrityError:
            raise RentalError("storage_exists", name=name) from None
        stored = self.storage_named(team, name)
        assert stored is not None
        return stored

    def storage(
        self, team: str, *, instance_id: int | None = None, kept_only: bool = False, channel: str | None = None
    ) -> list[Storage]:
        query = select(rental_storage).where(rental_storage.c.team == team)
        if channel is not None:
            query = query.where(rental_storage.c.channel == channel)
        if instance_id is not None:
            query = query.where(rental_storage.c.instance_id == instance_id)
        if kept_only:
            query = query.where(rental_storage.c.deleted_at.is_(None))
        with self.store.reading() as conn:
            return [Storage(**dict(r._mapping)) for r in conn.execute(query.order_by(rental_storage.c.name))]

    def delete_storage(self, team: str, name: str, at: datetime) -> Storage:
        return self._change_kept(team, name, deleted_at=at)

    def add_samples(
        self,
        instance_id: int,
        samples: list[Sample],
        power: list[float | None],
        *,
        busy_above_pct: float = DEFAULT_IDLE.utilisation_max_pct,
    ) -> int:
        """Keep an agent's samples; a sample already kept (same GPU and time: an agent's retry) is skipped.
        The instance's last busy time moves to its latest sample above `busy_above_pct` (the policy's
        idle threshold). Returns how many were new. Written in batches of SAMPLE_BATCH, each its own
        transaction, so a day of samples from many agents never holds the write lock for long (an
        acknowledgement waiting goes between two batches); an agent's retry after a failure part-way
        resends them all and the ones kept already are skipped."""
        new = 0
        for start in range(0, len(samples), SAMPLE_BATCH):
            end = start + SAMPLE_BATCH
            new += self._add_batch(instance_id, samples[start:end], power[start:end], busy_above_pct)
        return new

    def _add_batch(
        self, instance_id: int, samples: list[Sample], power: list[float | None], busy_above_pct: float
    ) -> int:
        first, last = min(s.at for s in samples), max(s.at for s in samples)
        with self.store.writing() as conn:
            seen = {
                (r.gpu, r.at)
                for r in conn.execute(KNOWN_SAMPLES, {"b_id": instance_id, "b_first": first, "b_last": last})
            }
            rows = []
            for s, w in zip(samples, power, strict=True):
                if (s.gpu, s.at) in seen:
                    continue
                seen.add((s.gpu, s.at))
                rows.append(
                    {
                        "instance_id": instance_id,
                        "at": s.at,
                        "gpu": s.gpu,
                        "utilization_pct": s.utilization_pct,
                        "memory_used_mib": s.memory_used_mib,
                        "memory_total_mib": s.memory_total_mib,
                        "power_w": w,
                    }
                )
            new = 0
            if rows:  # another replica may be keeping the same body right now: the unique index decides
                new = len(conn.execute(_insert_new(conn), rows).all())  # one id for each row that was new
            busy = max((s.at for s in samples if s.utilization_pct > busy_above_pct), default=None)
            if busy is not None:
                conn.execute(LATER_BUSY, {"b_id": instance_id, "b_busy": busy})
        return new

    def report_disks(self, instance_id: int, disks: list[DiskReport], at: datetime) -> None:
        """Keep the latest size and newest file time of each path an agent watches."""
        with self.store.writing() as conn:  # another replica may report the same path now: the newer one stays
            for disk in disks:
                said = {"size_gb": disk.size_gb, "newest_mtime": disk.newest_mtime, "reported_at": at}
                statement = insert_for(conn, disk_reports).values(instance_id=instance_id, path=disk.path, **said)
                conn.execute(
                    statement.on_conflict_do_update(
                        index_elements=[disk_reports.c.instance_id, disk_reports.c.path], set_=said
                    )
                )

    def disks_of(self, instance_ids: list[int]) -> dict[int, list[DiskReport]]:
        found: dict[int, list[DiskReport]] = {i: [] for i in instance_ids}
        if not instance_ids:
            return found
        query = select(disk_reports).where(disk_reports.c.instance_id.in_(instance_ids))
        with self.store.reading() as conn:
            for r in conn.execute(query):
                found[r.instance_id].append(DiskReport(r.path, r.size_gb, r.newest_mtime))
        return found

    def disks(self, instance_id: int) -> list[DiskReport]:
        query = select(disk_reports).where(disk_reports.c.instance_id == instance_id).order_by(disk_reports.c.path)
        with self.store.reading() as conn:
            return [DiskReport(r.path, r.size_gb, r.newest_mtime) for r in conn.execute(query)]

    def recent(self, instance_ids: list[int], since: datetime) -> dict[int, list[Sample]]:
        """The samples of several instances since `since`, in one query, in time order."""
        found: dict[int, list[Sample]] = {i: [] for i in instance_ids}
        if not instance_ids:
            return found
        c = gpu_samples.c
        query = select(gpu_samples).where(c.instance_id.in_(instance_ids), c.at >= since).order_by(c.at)
        with self.store.reading() as conn:
            for r in conn.execute(query):
                found[r.instance_id].append(
                    Sample(r.at, r.gpu, r.utilization_pct, r.memory_used_mib, r.memory_total_mib)
                )
        return found

    def quiet_since(self, instance_ids: list[int], since: datetime) -> dict[int, datetime]:
        """Per instance, its first sample since `since` and after its last busy one: when its trailing
        quiet stretch began. One index seek per instance (min/max on (instance_id, at))."""
        if not instance_ids:
            return {}
        with self.store.reading() as conn:
            query = quiet_query(conn.dialect.name, instance_ids, since)
            return {r.id: r.quiet for r in conn.execute(query) if r.quiet is not None}

    def samples(self, instance_id: int, since: datetime) -> list[Sample]:
        query = (
            select(gpu_samples)
            .where(gpu_samples.c.instance_id == instance_id, gpu_samples.c.at >= since)
            .order_by(gpu_samples.c.at)
        )
        with self.store.reading() as conn:
            return [
                Sample(r.at, r.gpu, r.utilization_pct, r.memory_used_mib, r.memory_total_mib)
                for r in conn.execute(query)
            ]
