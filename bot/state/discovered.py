"""Keeping what discovery found (bot/discover/): one item per cloud id, per team. A re-run updates,
never duplicates; an instance gone or terminated is released by the cloud (with the time), a deleted volume
is deleted. Only regions that answered change anything: a failed region leaves what is known as it was.

An agent-enrolled box whose `provider_id` is the same cloud id is the same item: discovery updates it (the
cloud's owner and channel win where its tags have them) instead of adding a second."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.sql.selectable import ScalarSelect

from bot.state.power import PowerLog, Sighting
from bot.state.rentals import NAME, Rentals, latest_first, price_change, token_hash
from bot.state.schema import discovery_runs, price_history, rental_instances, rental_storage
from bot.state.store import Store
from rules.power import Power
from rules.sources import FOUND_SOURCES, wallet_of

log = logging.getLogger(__name__)
# a Slack channel id (public C…, private G…) or a Feishu group chat id (oc_…): what a channel tag may name
CHANNEL_ID = re.compile(r"[CG][A-Z0-9]{1,20}|oc_[0-9A-Za-z]{1,64}")
BATCH = 500  # items a transaction: the write lock is given back between batches
GONE = ("terminated", "shutting-down", "released")
RUNNING = ("running", "pending", "starting")
POWER = {"running": Power.ON, "stopping": Power.OFF, "stopped": Power.OFF}  # pending: not billed yet, not said


@dataclass(slots=True)  # not frozen: a frozen init costs 2 µs an item of every scan (5,000 items: 10 ms)
class Found:
    """One thing a cloud has: an instance with GPUs, or a disk. Its source is its key's prefix."""

    key: str  # aws:i-0abc..., aws:vol-0abc..., aliyun:i-bp1..., aliyun:d-bp1...
    kind: str  # instance or storage
    region: str
    name: str  # the Name tag (the cloud's instance name), else the cloud's id
    state: str  # running, stopped, terminated, ...; available or in-use for volumes
    tags: dict[str, str] = field(default_factory=dict)
    instance_type: str | None = None
    gpu: str | None = None
    cards: int = 0
    per_hour: float | None = None  # a bundled reference price of the instance type, in `currency`
    spot: bool = False
    launched_at: datetime | None = None
    size_gb: float = 0.0
    per_gb_month: float = 0.0  # a disk's reference price, in `currency`
    created_at: datetime | None = None
    attached_to: str | None = None  # aws:i-... a volume is attached to
    charging: bool | None = None  # stopped, as the cloud says: its meter keeps running (True) or stopped (False)
    stop_billing: str | None = None  # keeps or stops: what the cloud says of a stop before any (None: it does not say)
    share: float | None = None  # a vGPU type's slice of its one card (Alibaba Cloud's vgn6i-m4: a quarter of a T4)
    currency: str = "USD"
    billing: str = "hourly"  # how the cloud bills it: hourly (pay as you go, spot), month (prepaid)
    per_month: float | None = None  # a prepaid instance's price a month as its cloud quotes it, in `currency`

    @property
    def source(self) -> str:
        return self.key.split(":", 1)[0]


@dataclass
class Scan:
    """One discovery run: what was found in the regions that answered, and each failed region's problem."""

    found: list[Found] = field(default_factory=list)
    regions_ok: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # region -> one line
    source: str = "aws"  # the cloud scanned: only its items are updated, released or deleted by this scan


LEGACY_CHANNEL_TAG = "SlackChannel"


@dataclass(frozen=True)
class Filing:
    """Where found items go: the team, the channel without a channel tag, who an owner tag names, the
    price of an instance (price, unit, currency; price None when not known)."""

    team: str
    channel: str
    owner_of: Callable[[str], str | None]  # an owner tag's value -> a user id of the team's chat
    channel_tag: str
    owner_tag: str
    price_of: Callable[[Found], tuple[float | None, str, str]]


@dataclass
class Applied:
    new: list[str] = field(default_factory=list)
    updated: int = 0
    released: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    back: list[str] = field(default_factory=list)  # released here, then found running again
    # priced again by this scan (its source's price moved): name, the price before, the price now, unit, currency
    repriced: list[tuple[str, float | None, float, str, str]] = field(default_factory=list)


class Discovered:
    def __init__(self, store: Store) -> None:
        self.store = store

    def apply(self, scan: Scan, filing: Filing, now: datetime) -> Applied:
        out = Applied()
        instances = self._known(rental_instances, filing.team, scan.source)
        volumes = self._known(rental_storage, filing.team, scan.source)
        names = self._names(rental_instances, filing.team), self._names(rental_storage, filing.team)
        writes: list[tuple[str, Any, dict[str, Any]] | None] = []
        seen: set[str] = set()
        found = _first_of_each_key(scan.found)
        for item in found:
            seen.add(item.key)
            if item.kind == "instance":
                writes += self._instance(item, instances.get(item.key), filing, now, names[0], out)
            else:
                writes += self._volume(item, volumes.get(item.key), filing, names[1], out)
        ok = set(scan.regions_ok)
        for key, row in instances.items():
            if key not in seen and row.released_at is None and row.provider_region in ok:
                writes.append(
                    _set(rental_instances, row, released_at=now, released_by="cloud", cloud_state="terminated")
                )
                out.released.append(row.name)
        for key, row in volumes.items():
            if key not in seen and row.deleted_at is None and row.provider_region in ok:
                writes.append(_set(rental_storage, row, deleted_at=now, cloud_state="deleted"))
                out.deleted.append(row.name)
        self._write([w for w in writes if w is not None])
        self._sight(scan, found, filing.team, now, {key: row.id for key, row in instances.items()}, bool(out.new))
        return out

    def _sight(
        self, scan: Scan, found: list[Found], team: str, now: datetime, ids: dict[str, int], added: bool
    ) -> None:
        """Each instance's state as this scan saw it: running is on, stopped off (a change placed at this scan).
        `ids`: the known instances' ids (read again only when this scan added some)."""
        if added:
            ids = {key: row.id for key, row in self._known(rental_instances, team, scan.source).items()}
        seen = [
            Sighting(ids[item.key], POWER[item.state], now, item.key.split(":", 1)[0], item.charging)
            for item in found
            if item.kind == "instance" and item.key in ids and item.state in POWER
        ]
        PowerLog(self.store).sight(seen)

    def _write(self, writes: list[tuple[str, Any, dict[str, Any]]]) -> None:
        """Inserts and updates, alike ones together (executemany), in batches that give the write lock back."""
        groups: dict[tuple[str, str, tuple[str, ...]], list[dict[str, Any]]] = {}
        tables: dict[str, Any] = {}
        for kind, table, row in writes:
            tables[table.name] = table
            groups.setdefault((kind, table.name, tuple(sorted(row))), []).append(row)
        for (kind, name, keys), rows in groups.items():
            table = tables[name]
            if kind == "insert":
                statement: Any = insert(table)
            else:
                statement = (
                    update(table)
                    .where(table.c.id == bindparam("b_id"))
                    .values({k: bindparam(f"b_{k}") for k in keys if k != "b_id"})
                )
                rows = [{k if k == "b_id" else f"b_{k}": v for k, v in r.items()} for r in rows]
            for start in range(0, len(rows), BATCH):
                with self.store.writing() as conn:
                    conn.execute(statement, rows[start : start + BATCH])

    def _known(self, table: Any, team: str, source: str) -> dict[str, Any]:
        query = select(table).where(table.c.team == team, table.c.provider_id.like(f"{source}:%"))
        with self.store.reading() as conn:
            return {r.provider_id: r for r in conn.execute(query)}

    def _names(self, table: Any, team: str) -> set[str]:
        with self.store.reading() as conn:
            return {r[0] for r in conn.execute(select(table.c.name).where(table.c.team == team))}

    def _instance(
        self, item: Found, row: Any, filing: Filing, now: datetime, names: set[str], out: Applied
    ) -> list[Any]:
        gone = item.state in GONE
        who = _who(item, filing)
        if row is not None:
            values: dict[str, Any] = {
                "cloud_state": item.state,
                "provider_region": item.region,
                "spot": item.spot,
                "launched_at": item.launched_at,
                "idle_rule_minutes": _idle_rule(item),
                "idle_rule_threshold_pct": _idle_threshold(item),
                **({"stop_billing": item.stop_billing} if item.stop_billing else {}),
                **who,
            }
            if gone and row.released_at is None:
                values |= {"released_at": now, "released_by": "cloud"}
                out.released.append(row.name)
            elif item.state in RUNNING and row.released_at is not None:  # released here, started again there:
                values |= {"released_at": None, "released_by": None}  # it bills again, so it is an item again
                holder = Rentals(self.store).instance(filing.team, row.name)  # the running one of its name, if any
                if holder is not None and holder.released_at is None:  # a box tracked since under it: that one's
                    values["name"] = _free_name(item, names)  # this one comes back under its cloud id
                log.info("%s runs again in the cloud after its release: tracked again", values.get("name", row.name))
                out.back.append(values.get("name", row.name))
            else:
                out.updated += 1
            return [_set(rental_instances, row, **values), *self._repriced(item, row, filing, now, out)]
        if gone:
            return []  # terminated before it was ever seen: nothing to remind anyone of
        price, unit, currency = filing.price_of(item)
        name = _free_name(item, names)
        out.new.append(name)
        return [
            (
                "insert",
                rental_instances,
                dict(
                    team=filing.team,
                    name=name,
                    channel=who.get("channel", filing.channel),
                    owner=who.get("owner", ""),
                    project=who.get("project"),
                    gpu=item.gpu or "unknown",
                    cards=max(item.cards, 1),
                    share=item.share,
                    unit=unit,
                    price=price,
                    currency=currency,
                    token_hash=token_hash(secrets.token_urlsafe(32)),  # no agent: a token nobody has
                    started_at=item.launched_at or now,
                    source=item.source,
                    provider=wallet_of(item.source),  # the account it bills to: a DSW notebook, Alibaba Cloud's
                    billing=item.billing,  # AWS on-demand and spot: by the second while running
                    provider_id=item.key,
                    cloud_state=item.state,
                    provider_region=item.region,
                    launched_at=item.launched_at,
                    spot=item.spot,
                    idle_rule_minutes=_idle_rule(item),
                    idle_rule_threshold_pct=_idle_threshold(item),
                    stop_billing=item.stop_billing,
                ),
            )
        ]

    def _repriced(self, item: Found, row: Any, filing: Filing, now: datetime, out: Applied) -> list[Any]:
        """A kept item priced again from its source's record of today: the price before billed until now. A price
        set by hand (`billing NAME --price`), an item released, or a price the source no longer gives: left."""
        if row.price_by is not None or row.released_at is not None or item.state in GONE:
            return []
        price, unit, currency = filing.price_of(item)
        if price is None or (round(price, 6), unit, currency) == (round(row.price or -1, 6), row.unit, row.currency):
            return []
        out.repriced.append((row.name, row.price, price, unit, currency))
        earlier, now_priced = price_change(row, price, unit, currency, now)
        return [("insert", price_history, earlier), _set(rental_instances, row, **now_priced)]

    def _volume(self, item: Found, row: Any, filing: Filing, names: set[str], out: Applied) -> list[Any]:
        who = _who(item, filing)
        if row is not None:
            out.updated += 1
            return [
                _set(
                    rental_storage,
                    row,
                    cloud_state=item.state,
                    size_gb=item.size_gb,
                    provider_region=item.region,
                    **who,
                )
            ]
        if item.state != "available":
            return []  # attached to an instance: part of what that instance costs, not an item of its own
        name = _free_name(item, names)
        out.new.append(name)
        return [
            (
                "insert",
                rental_storage,
                dict(
                    team=filing.team,
                    name=name,
                    channel=who.get("channel", filing.channel),
                    owner=who.get("owner", ""),
                    project=who.get("project"),
                    size_gb=item.size_gb,
                    price_gb_month=item.per_gb_month,
                    currency=item.currency,
                    created_at=item.created_at,
                    source=item.source,
                    provider=wallet_of(item.source),
                    billing="hourly",  # a disk bills by the hour it exists
                    provider_id=item.key,
                    cloud_state=item.state,
                    provider_region=item.region,
                ),
            )
        ]

    def record_run(self, source: str, now: datetime, found: int, error: str | None) -> None:
        """Keep this run's outcome for /healthz and `discover` (last success kept through failures)."""
        with self.store.writing() as conn:
            known = conn.execute(select(discovery_runs.c.source).where(discovery_runs.c.source == source)).first()
            values: dict[str, Any] = {"last_run_at": now, "found": found, "error": error}
            if error is None:
                values["last_ok_at"] = now
            if known is None:
                conn.execute(insert(discovery_runs).values(source=source, **values))
            else:
                conn.execute(update(discovery_runs).where(discovery_runs.c.source == source).values(**values))

    def claim(self, team: str, kind: str, name: str, user: str) -> str | None:
        """Make `user` the owner of a found item nobody owns (kind "i" or "s"). None when done, else who owns
        it already ("" when there is no such item, or it was hidden)."""
        table = rental_instances if kind == "i" else rental_storage
        c = table.c
        with self.store.writing() as conn:
            row = conn.execute(select(c.id, c.owner, c.hidden_by).where(c.id == _named(table, team, name))).first()
            if row is None or row.hidden_by:
                return ""
            if row.owner:
                return str(row.owner)
            conn.execute(update(table).where(c.id == row.id, c.owner == "").values(owner=user))
        return None

    def hide(self, team: str, kind: str, name: str, user: str) -> bool:
        """ "Not ours": out of digests and lists (still in `list --all`). False when there is no such item."""
        table = rental_instances if kind == "i" else rental_storage
        with self.store.writing() as conn:
            changed = conn.execute(
                update(table).where(table.c.id == _named(table, team, name)).values(hidden_by=user)
            ).rowcount
        return bool(changed)

    def add_pod(
        self,
        team: str,
        key: str,
        name: str,
        gpu: str,
        cards: int,
        channel: str,
        price: tuple[float | None, str, str],
        now: datetime,
    ) -> Any:
        """A Kubernetes pod's item (source k8s), nobody's yet; its name made free in the team if taken."""
        taken = self._names(rental_instances, team)
        if name in taken:
            name = f"{name[:55]}-{secrets.token_hex(4)}"
        amount, unit, currency = price
        with self.store.writing() as conn:
            conn.execute(
                insert(rental_instances).values(
                    team=team,
                    name=name,
                    channel=channel,
                    owner="",
                    project=None,
                    gpu=gpu,
                    cards=cards,
                    unit=unit,
                    price=amount,
                    currency=currency,
                    token_hash=token_hash(secrets.token_urlsafe(32)),
                    started_at=now,
                    source="k8s",
                    provider_id=key,
                    cloud_state="running",
                )
            )
        made = Rentals(self.store).instance(team, name)
        if made is not None:  # a pod runs while it exists
            PowerLog(self.store).sight([Sighting(made.id, Power.ON, now, "k8s")])
        return made

    def counts(self) -> dict[str, int]:
        """Items found by discovery still rented (instances not released, volumes not deleted), by source."""
        i, v = rental_instances.c, rental_storage.c
        out: dict[str, int] = {}
        with self.store.reading() as conn:
            for table, alive in ((rental_instances, i.released_at.is_(None)), (rental_storage, v.deleted_at.is_(None))):
                query = (
                    select(table.c.source, func.count())
                    .where(alive, table.c.source.in_(FOUND_SOURCES))
                    .group_by(table.c.source)
                )
                for source, count in conn.execute(query):
                    out[source] = out.get(source, 0) + int(count)
        return out

    def runs(self) -> dict[str, Any]:
        with self.store.reading() as conn:
            return {r.source: r for r in conn.execute(select(discovery_runs))}


def _first_of_each_key(found: list[Found]) -> list[Found]:
    """One item a cloud key: a key another region's call lists again (a DSW notebook) is its first listing."""
    keys: set[str] = set()
    out = []
    for item in found:
        if item.key not in keys:
            keys.add(item.key)
            out.append(item)
    return out


def _set(table: Any, row: Any, **values: Any) -> tuple[str, Any, dict[str, Any]] | None:
    """An update of `row` to `values`, with only what differs; None when nothing does (a re-run writes only
    what changed)."""
    changed = {k: v for k, v in values.items() if getattr(row, k) != v}
    return ("update", table, {"b_id": row.id, **changed}) if changed else None


# the tags a platform's own idle rule is kept under at discovery (a PAI-DSW notebook's idle shutdown, a Volcengine ML
# Platform queue's, a ModelArts notebook's IDLE lease): its minutes, and its GPU utilisation threshold (%) where it has
IDLE_TAG = "DSWIdleShutdownMinutes"
IDLE_THRESHOLD_TAG = "IdleShutdownGpuPercent"


def _idle_rule(item: Found) -> int | None:
    """The platform's own idle-shutdown rule in minutes (0: the platform has one and it is off), None without one."""
    rule = item.tags.get(IDLE_TAG, "")
    return int(rule) if rule.isdigit() else None


def _idle_threshold(item: Found) -> float | None:
    """The GPU utilisation (%) under which the platform's own idle rule counts the item idle, where it says one."""
    try:
        value = float(item.tags.get(IDLE_THRESHOLD_TAG, ""))
    except ValueError:
        return None
    return value if 0 <= value <= 100 else None


def _who(item: Found, filing: Filing) -> dict[str, Any]:
    """Owner, channel and project from the item's tags, where it has them (these win over what is kept)."""
    out: dict[str, Any] = {}
    owner_tag = item.tags.get(filing.owner_tag, "").strip()
    owner = filing.owner_of(owner_tag) if owner_tag else None
    if owner:
        out["owner"] = owner
    # the channel tag (ChatChannel), else the name it had before chats other than Slack (SlackChannel); a value
    # may name its platform (feishu:oc_…), which the team already says
    named = next((item.tags[tag] for tag in (filing.channel_tag, LEGACY_CHANNEL_TAG) if item.tags.get(tag)), "")
    channel = named.strip().removeprefix("feishu:").removeprefix("slack:").lstrip("#")
    if channel and CHANNEL_ID.fullmatch(channel):
        out["channel"] = channel
    elif channel:  # a mention (<!channel>), a user id, a formula: tags are data, not where to post
        log.warning(
            "%s: its channel tag %r is not a channel id; it goes to the default channel", item.key, channel[:40]
        )
    project = item.tags.get("Project", "").strip()
    if project and NAME.fullmatch(project):
        out["project"] = project[:80]
    return out


def _free_name(item: Found, names: set[str]) -> str:
    """The Name tag when it is a usable name not taken in the team, else the cloud's id (with -2, -3 … where that is
    taken too: a box tracked by hand under it)."""
    wanted = item.name if NAME.fullmatch(item.name) and item.name not in names else item.key.split(":", 1)[1]
    base, n = wanted, 1
    while wanted in names:
        n += 1
        wanted = f"{base}-{n}"
    names.add(wanted)
    return wanted


def _named(table: Table, team: str, name: str) -> ScalarSelect[Any]:
    """The id of the team's item of that name: the one not released (or deleted), else the one gone last (a name is
    free again once its item is gone)."""
    ranked = select(table.c.id).where(table.c.team == team, table.c.name == name)
    return ranked.order_by(*latest_first(table)).limit(1).scalar_subquery()
