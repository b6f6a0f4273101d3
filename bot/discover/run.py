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

from botocore.exceptions import BotoCoreError, ClientError

from bot.discover.aws import Aws, aws_problem
from bot.fields.rentals import price_from_cache
from bot.settings import Settings
from bot.state.discovered import Applied, Discovered, Filing, Found, Scan
from bot.state.rentals import Instance, Rentals, Storage
from bot.state.store import Store

log = logging.getLogger(__name__)
USER_ID = re.compile(r"[UW][A-Z0-9]{2,}|ou_[0-9a-f]{20,}")  # a Slack user id, a Feishu open_id
ACTIVITY_WINDOW = timedelta(minutes=70)  # the idle window (60 min) and a margin for CloudWatch's delay


@dataclass
class Report:
    scan: Scan
    applied: Applied
    items: list[Instance | Storage] = field(default_factory=list)
    activity_problem: str | None = None

    @property
    def problems(self) -> dict[str, str]:
        out = dict(self.scan.problems)
        if self.activity_problem:
            out["cloudwatch"] = self.activity_problem
        return out


def owner_lookup(
    client: Any | None, find_owner: Callable[[str], str | None] | None = None
) -> Callable[[str], str | None]:
    """An owner tag's value -> a user id: an id as it is, an email looked up in the team's chat (cached): with
    `find_owner` (Feishu's contact lookup), else Slack's users.lookupByEmail with `client`."""
    known: dict[str, str | None] = {}

    def owner_of(value: str) -> str | None:
        if USER_ID.fullmatch(value):
            return value
        if "@" not in value or (client is None and find_owner is None):
            return None
        if value not in known and find_owner is not None:
            known[value] = find_owner(value)
        if value not in known and client is not None:
            try:
                known[value] = str(client.users_lookupByEmail(email=value)["user"]["id"])
            except Exception as exc:  # users_not_found, missing_scope, Slack down: the item stays unowned
                log.info("owner tag %s not found in Slack: %s", value, getattr(exc, "response", {}).get("error", exc))
                known[value] = None
        return known[value]

    return owner_of


def pricer(offers: Callable[[str], list[Any]]) -> Callable[[Found], tuple[float | None, str, str]]:
    """An instance's price: the price cache's for its GPUs as AWS sells them (a team's rate card or a feed
    quoting AWS, or this very instance type), else the bundled table's On-Demand reference. Another
    provider's price for the same GPU is not what this instance costs, so it is not used."""

    def price_of(item: Found) -> tuple[float | None, str, str]:
        aws = [
            o
            for o in (offers(item.gpu) if item.gpu else [])
            if o.record.provider.lower() == "aws" or o.record.instance_type == item.instance_type
        ]
        cached = price_from_cache(aws, item.cards, None)
        if cached is not None:
            return cached.amount, cached.unit, cached.currency
        return item.usd_per_hour, "hour", "USD"

    return price_of


def discover(
    settings: Settings,
    store: Store,
    team: str,
    now: datetime,
    *,
    offers: Callable[[str], list[Any]],
    client: Any | None = None,
    aws: Aws | None = None,
    find_owner: Callable[[str], str | None] | None = None,
) -> Report:
    aws = aws or Aws(settings.aws_region_list(), settings.aws_endpoint_url)
    scan = aws.scan()
    filing = Filing(
        team,
        settings.discover_channel or "",
        owner_lookup(client, find_owner),
        settings.channel_tag,
        settings.owner_tag,
        pricer(offers),
    )
    known = Discovered(store)
    applied = known.apply(scan, filing, now)
    report = Report(scan, applied)
    rentals = Rentals(store)
    report.activity_problem = _activity(aws, rentals, team, scan, now)
    keys = {f.key for f in scan.found}
    report.items = [i for i in rentals.instances(team) if i.provider_id in keys] + [
        s for s in rentals.storage(team) if s.provider_id in keys
    ]
    found = len(report.items)
    known.record_run("aws", now, found, "; ".join(f"{k}: {v}" for k, v in report.problems.items()) or None)
    return report


def _activity(aws: Aws, rentals: Rentals, team: str, scan: Scan, now: datetime) -> str | None:
    """CloudWatch's NVIDIA metrics as samples, for running discovered instances no agent reports for."""
    by_region: dict[str, list[Instance]] = defaultdict(list)
    for inst in rentals.instances(team, active_only=True):
        if inst.source == "aws" and inst.cloud_state == "running" and inst.provider_region in scan.regions_ok:
            by_region[inst.provider_region or ""].append(inst)
    for region, instances in by_region.items():
        ids = {i.provider_id.split(":", 1)[1]: i for i in instances if i.provider_id}
        try:
            found = aws.gpu_samples(region, list(ids), now - ACTIVITY_WINDOW, now)
        except (ClientError, BotoCoreError) as exc:
            problem = aws_problem(exc)
            log.warning("CloudWatch in %s not read: %s", region, problem)
            return problem
        for instance_id, samples in found.items():
            rentals.add_samples(ids[instance_id].id, samples, [None] * len(samples))
    return None
