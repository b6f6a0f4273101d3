"""Send each channel its digest, once a local day, across restarts and processes.

A row in digest_sends (bot/state/digest_sends.py) is claimed before posting:
a second sender finds it and posts nothing. A claim whose post never finished (the process died)
may be taken over after CLAIM_TIMEOUT, after looking in the channel's history for the post (once.py).
A failed post gives the claim back so a later run can try again (one whose outcome is unknown, a
timeout or a 5xx, leaves it to be taken over the same way); a channel that fails for good (archived,
bot removed) is reported and the others go on.
Posts are paced; 429 and 5xx are retried by each chat's client. What is posted and how is the outlet's
(bot/digest/outlet.py): this room knows no chat.
"""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.actions.warn import Warner
from bot.digest.outlet import Outlet, Undelivered
from bot.state.balances import Balances
from bot.state.budgets import Budgets
from bot.state.digest_sends import Sends
from bot.state.power import PowerLog
from bot.state.rentals import Instance, Rentals, Storage
from bot.state.windows import gpu_windows
from bot.text import Lang
from rules.budget import WHOLE_TEAM, standings
from rules.digest import Digest, Spend, compose, spending
from rules.idle import GpuWindow
from rules.metering import Timelines
from rules.policy import Idle, Metering
from rules.runway import runway
from rules.worth import RAW, Worth

SAMPLE_HORIZON = timedelta(days=1)  # how far back the quiet stretch of an idle instance is traced
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Seen:
    """What the samples say of running instances now, as the database adds it up: each GPU's summary of the idle
    window, and when each trailing quiet stretch began."""

    windows: dict[int, list[GpuWindow]]
    quiet: dict[int, datetime]


def seen(rentals: Rentals, running: list[int], now: datetime, rules: Idle) -> Seen:
    """The samples' word on `running` at `now`."""
    return Seen(
        gpu_windows(rentals.store, running, now - timedelta(minutes=rules.window_minutes), now),
        rentals.quiet_since(running, now - SAMPLE_HORIZON),
    )


@dataclass(frozen=True)
class Outcome:
    channel: str
    status: str  # sent, nothing, already, failed
    items: int = 0
    error: str | None = None


def digests(
    rentals: Rentals,
    team: str,
    channels: list[str],
    now: datetime,
    rules: Idle,
    metering: Metering | None = None,
    zone: ZoneInfo | Callable[[str], ZoneInfo] | None = None,
    *,
    items_only: bool = False,
    timelines: Timelines | None = None,
    sensed: Seen | None = None,
    worth: Worth = RAW,
) -> dict[str, Digest]:
    """Compose the digests of `channels` in a few queries: the rented things, each GPU's summary of the window's
    samples and when each quiet stretch began (both added up by the database), and disk reports. Month figures
    (spend, budgets, what an item billed this month) are the team's, over every item of the channels' projects and
    providers, and count the month from 00:00 in each channel's digest zone (`zone`; None: UTC), as budgets do.
    `items_only`: the items' news alone, without the team's spend and runways. `timelines`: read already from this
    month's first day less FORECAST_DAYS + 1 (the board reads them once for its report and idle list); `sensed`:
    `seen` of the channels' running items, likewise. `worth`: the team's currencies on one scale, for the items'
    order."""
    wanted = set(channels)
    # an item with a figure no digest can show is left out (said in the log), never stopping the others' digest
    everything = [i for i in rentals.instances(team) if _shown(i, i.price or 0.0)]
    all_storage = [s for s in rentals.storage(team) if _shown(s, s.size_gb * s.price_gb_month)]
    instances = [i for i in everything if i.channel in wanted]
    storage = [s for s in all_storage if s.channel in wanted]
    budgets = Budgets(rentals.store).of(team)
    everything, all_storage = _counted(everything, all_storage, instances, storage, budgets)
    running = [i.id for i in instances if i.released_at is None]
    sensed = sensed or seen(rentals, running, now, rules)
    touched = _touched(rentals, storage)
    by_channel: dict[str, list[Instance]] = defaultdict(list)
    stored: dict[str, list[Storage]] = defaultdict(list)
    for inst in instances:
        by_channel[inst.channel].append(inst)
    for disk in storage:
        stored[disk.channel].append(disk)
    # Spend and budgets are the team's: a project's month counts every channel's things.
    recorded = Balances(rentals.store).latest(team)
    if timelines is None:  # the board's idle list (items_only): only the channels' items' timelines
        read = instances if items_only else everything
        timelines = PowerLog(rentals.store, metering).this_month(read, now, also=[b.at for b in recorded])
    months: dict[str, list[Spend]] = {}

    def spend_in(local: datetime) -> list[Spend]:
        """The team's spend and budget forecasts, the month counted in `local`'s zone (once per zone)."""
        key = str(local.tzinfo)
        if key not in months:
            spent = spending(everything, all_storage, local, budgets, timelines)
            found = standings(everything, all_storage, budgets, local, timelines=timelines)
            ahead = {(s.project, s.currency): s for s in found}
            months[key] = [replace(s, forecast=ahead.get((s.project, s.currency))) for s in spent]
        return months[key]

    runways = [] if items_only else [runway(b, everything, timelines, now) for b in recorded]
    out = {}
    for channel in channels:
        mine, kept = by_channel[channel], stored[channel]
        local_zone = zone(channel) if callable(zone) else zone
        local = now.astimezone(local_zone) if local_zone is not None else now
        spend = [] if items_only else spend_in(local)
        made = compose(  # the board's idle list (items_only) says the items alone, not the month's spend
            mine, kept, {}, now=local, rules=rules, last_touched=touched, windows=sensed.windows,
            snoozes={i.id: i.snoozed_until for i in mine if i.snoozed_until},
            kept={s.name: s.kept_until for s in kept if s.kept_until},
            quiet_since=sensed.quiet, timelines=timelines, spend=not items_only, worth=worth,
        )  # fmt: skip
        projects = {(i.project or "", i.currency) for i in mine} | {(d.project or "", d.currency) for d in kept}
        projects |= {(WHOLE_TEAM, currency) for _, currency in projects}  # and the whole team's, where it has one
        providers = {i.provider for i in mine if i.provider and i.released_at is None}
        out[channel] = replace(
            made,
            spend=[s for s in spend if (s.project, s.currency) in projects],
            runways=[r for r in runways if r.provider in providers],
        )
    return out


def _counted(
    everything: list[Instance],
    all_storage: list[Storage],
    instances: list[Instance],
    storage: list[Storage],
    budgets: dict[tuple[str, str], float],
) -> tuple[list[Instance], list[Storage]]:
    """The team's items these channels' month figures count. Spend and forecasts are said per project, runways per
    provider, and only these channels' own: only the items of their projects and providers (one channel's card,
    sent again after a press, read the whole team's); every item where the whole team has a budget, which counts
    them all."""
    if any(project == WHOLE_TEAM for project, _ in budgets):
        return everything, all_storage
    theirs = {i.project or "" for i in instances} | {s.project or "" for s in storage}
    paying = {i.provider for i in instances if i.provider}
    return [i for i in everything if (i.project or "") in theirs or i.provider in paying], [
        s for s in all_storage if (s.project or "") in theirs
    ]


def _touched(rentals: Rentals, storage: list[Storage]) -> dict[str, datetime]:
    """When each disk's files last changed, as its instance's agent reported them."""
    reports = rentals.disks_of(sorted({s.instance_id for s in storage if s.instance_id is not None}))
    touched: dict[str, datetime] = {}
    for disk in storage:
        times = [d.newest_mtime for d in reports.get(disk.instance_id or -1, []) if d.newest_mtime]
        if times:
            touched[disk.name] = max(times)
    return touched


def _shown(item: Instance | Storage, *figures: float) -> bool:
    if all(math.isfinite(f) for f in figures):
        return True
    log.error("%s %s has a figure that is not finite: left out of the digest", type(item).__name__, item.name)
    return False


def channels_of(rentals: Rentals, team: str) -> list[str]:
    """Channels with something running or kept."""
    found = {i.channel for i in rentals.instances(team, active_only=True)}
    found |= {s.channel for s in rentals.storage(team, kept_only=True)}
    return sorted(found)


def send_digests(
    rentals: Rentals,
    sends: Sends,
    outlet: Outlet,
    *,
    team: str,
    channels: list[str] | None,
    now: Callable[[], datetime],
    rules: Idle,
    lang: Lang | Callable[[str], Lang],
    zone: ZoneInfo | Callable[[str], ZoneInfo],
    force: bool = False,
    all_clear: bool = False,
    pace_s: float = 1.0,
    scheduled: bool = False,
    sleep: Callable[[float], None] = time.sleep,
    metering: Metering | None = None,
    board: Callable[[str], str | None] | None = None,
    worth: Worth = RAW,
) -> list[Outcome]:
    """Each channel's digest (`channels`, else every channel with something running or kept), in the
    channel's zone (`zone`, or a function of the channel). `scheduled`: a day with nothing to say is
    recorded, so the scheduler does not compose it again every minute; run by hand, it is not. `board`: the link
    to a channel's board each digest carries (None: no link)."""
    outcomes: list[Outcome] = []
    last_post: float | None = None
    pace_s = own if (own := getattr(outlet, "pace_s", None)) is not None else pace_s  # the chat's own, else the setting
    wanted = channels if channels is not None else channels_of(rentals, team)
    # at the start (a long paced send reads no more), each channel's month in its digest zone
    composed = digests(rentals, team, wanted, now(), rules, metering, zone, worth=worth)
    warner = Warner(rentals)
    for channel in wanted:
        moment = now()
        composed[channel] = warner.annotate(team, channel, composed[channel], moment)
        local_zone = zone if isinstance(zone, ZoneInfo) else zone(channel)
        channel_lang = lang if isinstance(lang, Lang) else lang(channel)
        day = moment.astimezone(local_zone).date()
        claim = sends.claim(team, channel, day, moment, force=force, retake_empty=not scheduled)
        digest = composed[channel]
        posted = outlet.posted_before(channel, day, local_zone) if claim == "taken" and not force else None
        if claim is None or posted is not None:
            if posted is not None:  # a sender killed after the chat had its post: record it, post no second
                sends.sent(team, channel, day, now(), posted, digest.count)
            outcomes.append(Outcome(channel, "already"))
            continue
        if not digest.news and not all_clear:
            if scheduled:
                sends.sent(team, channel, day, moment, None, 0)
            else:  # nothing posted is not a digest: a later run may still send one
                sends.give_back(team, channel, day)
            outcomes.append(Outcome(channel, "nothing"))
            continue
        if board is not None and digest.news:
            digest = replace(digest, board_url=board(channel))
        try:
            shown = outlet.compose(digest if digest.news else None, channel_lang, local_zone)
        except (ArithmeticError, ValueError) as exc:  # a figure no digest can show: the others still go out
            sends.give_back(team, channel, day)
            log.error("digest for %s cannot be composed (%s); its claim is given back", channel, exc)
            outcomes.append(Outcome(channel, "failed", error="cannot_compose"))
            continue
        if last_post is not None:
            sleep(max(0.0, pace_s - (time.monotonic() - last_post)))
        try:
            message_id = outlet.post(channel, shown, day)
        except Undelivered as exc:
            if exc.unknown:
                sends.unknown(team, channel, day, now())  # the chat may have it: the next run looks first
            else:
                sends.give_back(team, channel, day)
            log.warning("digest for %s not sent: %s", channel, exc.error)
            outcomes.append(Outcome(channel, "failed", error=exc.error))
            continue
        finally:
            last_post = time.monotonic()
        items = digest.count  # what the message's header says
        sends.sent(team, channel, day, now(), message_id, items)
        warner.record(team, channel, digest, message_id or None, moment, channel_lang.value)
        outcomes.append(Outcome(channel, "sent", items))
    return outcomes
