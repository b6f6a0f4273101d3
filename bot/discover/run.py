"""One discovery run, as `gpu-advise discover` and serve's job do it: read the cloud, keep what was found,
read activity from CloudWatch for instances without an agent, and record the run for /healthz.

Owners come from the owner tag: a Slack user id as it is, an email through `users.lookupByEmail` (once per
address a run); the channel from the channel tag, else GPU_ADVISOR_DISCOVER_CHANNEL; the price from the
price cache for the instance type's GPUs, else the bundled table's On-Demand reference."""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.discover.cloud import Cloud, CloudError
from bot.fields.rentals import BILLING_ORDER, price_from_cache
from bot.settings import Settings
from bot.state.balances import Balances
from bot.state.discovered import Applied, Discovered, Filing, Found, Scan
from bot.state.rentals import Instance, Rentals, Storage
from bot.state.store import Store
from rules.sources import wallet_of

log = logging.getLogger(__name__)
USER_ID = re.compile(r"[UW][A-Z0-9]{2,}|ou_[0-9a-f]{20,}")  # a Slack user id, a Feishu open_id
ACTIVITY_WINDOW = timedelta(minutes=70)  # the idle window (60 min) and a margin for CloudWatch's delay


@dataclass
class Report:
    scan: Scan
    applied: Applied
    items: list[Instance | Storage] = field(default_factory=list)
    activity_problem: str | None = None
    balance_problem: str | None = None
    source: str = "aws"  # the cloud scanned
    metrics: str = "metrics"  # where the activity was read (cloudwatch, cloudmonitor): how its problem is named

    @property
    def problems(self) -> dict[str, str]:
        out = dict(self.scan.problems)
        if self.activity_problem:
            out[self.metrics] = self.activity_problem
        if self.balance_problem:
            out["balance"] = self.balance_problem
        return out


def owner_lookup(find_owner: Callable[[str], str | None] | None = None) -> Callable[[str], str | None]:
    """An owner tag's value -> a user id: an id as it is, an email looked up in the team's chat (`find_owner`: its
    wing's person(); cached for the run)."""
    known: dict[str, str | None] = {}

    def owner_of(value: str) -> str | None:
        if USER_ID.fullmatch(value):
            return value
        if "@" not in value or find_owner is None:
            return None
        if value not in known:
            known[value] = find_owner(value)
        return known[value]

    return owner_of


def pricer(offers: Callable[[str], list[Any]]) -> Callable[[Found], tuple[float | None, str, str]]:
    """An instance's price: the price cache's for this very instance type, else for its GPUs as its cloud sells
    them (a team's rate card or a feed quoting that cloud), else the bundled table's reference. Another
    provider's price for the same GPU is not what this instance costs, so it is not used. It is the price of how
    the instance is billed: a spot instance's spot price, a prepaid one's monthly price (the cache's, else its
    cloud's own quote, before any hourly price), where they are known;
    a vGPU slice (a share of a card) priced from a whole card of another type pays its share. A bundled reference
    price of the cloud's (Alibaba Cloud's A10) is for an item its cloud quoted nothing for: the cloud's own quote of
    this very type is nearer what it costs."""

    read: dict[str, list[Any]] = {}  # each GPU's offers read once a run, not once an item

    def price_of(item: Found) -> tuple[float | None, str, str]:
        if item.gpu and item.gpu not in read:
            read[item.gpu] = offers(item.gpu)
        quoted = read.get(item.gpu or "", [])
        exact = [o for o in quoted if o.record.instance_type == item.instance_type and o.record.region == item.region]
        same = [o for o in quoted if o.record.instance_type == item.instance_type]
        ours = [
            o
            for o in quoted
            if o.record.provider.lower() == item.source and not (o.reference and item.per_hour is not None)
        ]
        tiers = ((exact, None), (same, None), (ours, item.share))  # a type's own price: its slice's
        billed_as = ("spot",) if item.spot else ("monthly",) if item.billing == "month" else ()
        for models in (billed_as, BILLING_ORDER) if billed_as else (BILLING_ORDER,):
            for offers_of, share in tiers:
                cached = price_from_cache(offers_of, item.cards, share, models)
                if cached is not None:
                    return cached.amount, cached.unit, cached.currency
            if models == billed_as and item.billing == "month" and item.per_month is not None:
                return item.per_month, "month", item.currency  # the cloud's own monthly price, before an hourly one
        return item.per_hour, "hour", item.currency

    return price_of


def discover(
    settings: Settings,
    store: Store,
    team: str,
    now: datetime,
    *,
    offers: Callable[[str], list[Any]],
    cloud: Cloud | None = None,
    find_owner: Callable[[str], str | None] | None = None,
) -> Report:
    """Scan `cloud` (default: AWS as `settings` has it), keep what it has, read its GPU metrics."""
    if cloud is None:
        from bot.discover.aws import Aws

        cloud = Aws(settings.discovery.aws_region_list(), settings.discovery.aws_endpoint_url)
    scan = cloud.scan()
    filing = Filing(
        team,
        settings.discovery.discover_channel or "",
        owner_lookup(find_owner),
        settings.discovery.channel_tag,
        settings.discovery.owner_tag,
        pricer(offers),
    )
    known = Discovered(store)
    applied = known.apply(scan, filing, now)
    report = Report(scan, applied, source=cloud.name, metrics=cloud.metrics)
    rentals = Rentals(store)
    report.activity_problem = _activity(cloud, rentals, team, scan, now)
    report.balance_problem = _balance(cloud, store, team, now)
    keys = {f.key for f in scan.found}
    report.items = [i for i in rentals.instances(team) if i.provider_id in keys] + [
        s for s in rentals.storage(team) if s.provider_id in keys
    ]
    found = len(report.items)
    problems = "; ".join(f"{k}: {v}" for k, v in report.problems.items()) or None
    known.record_run(cloud.name, now, found, problems)
    return report


def _balance(cloud: Cloud, store: Store, team: str, now: datetime) -> str | None:
    """The account's prepaid balance as its API says, kept for the runway (a cloud with no balance API: none)."""
    read = getattr(cloud, "balance", None)
    if read is None:
        return None
    try:
        amount, currency = read()
    except CloudError as exc:
        log.warning("%s balance not read: %s", cloud.name, exc)
        return str(exc)
    wallet = wallet_of(cloud.name)  # DSW reads the same Alibaba Cloud wallet ECS does: one balance
    Balances(store).record(team, wallet, amount, currency, now, now, source=f"{wallet}-api")
    return None


def _activity(cloud: Cloud, rentals: Rentals, team: str, scan: Scan, now: datetime) -> str | None:
    """The cloud's GPU metrics as samples, for its running discovered instances no agent reports for."""
    return read_activity(cloud, rentals, team, now, set(scan.regions_ok))


def read_activity(
    cloud: Cloud,
    rentals: Rentals,
    team: str,
    now: datetime,
    regions: set[str] | None = None,
    window: timedelta = ACTIVITY_WINDOW,
) -> str | None:
    """The cloud's GPU metrics over `window` as samples, for its running instances kept in `team` (in `regions`;
    None: every region they are in). Discovery reads it after each scan; serve's `activity:<cloud>` job reads it
    between scans, as often as the idle rule needs a fresh sample, without scanning again."""
    by_region: dict[str, list[Instance]] = defaultdict(list)
    for inst in rentals.instances(team, active_only=True):
        in_region = regions is None or inst.provider_region in regions
        if inst.source == cloud.name and inst.cloud_state == "running" and in_region:
            by_region[inst.provider_region or ""].append(inst)
    for region, instances in by_region.items():
        ids = {i.provider_id.split(":", 1)[1]: i for i in instances if i.provider_id}
        try:
            found = cloud.gpu_samples(region, list(ids), now - window, now)
        except CloudError as exc:
            log.warning("%s metrics in %s not read: %s", cloud.name, region, exc)
            return str(exc)
        for instance_id, samples in found.items():
            rentals.add_samples(ids[instance_id].id, samples, [None] * len(samples))
    return None
