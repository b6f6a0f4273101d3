"""When an instance ran: its power reports made into a timeline of on, off and unknown stretches.

Pure: the reports, the window and how long each source's word holds come in. A report says the instance was
on or off from `at`, seen again up to `last_at` (an agent's heartbeats and a cloud's scans each extend the
report they repeat). Its word holds until the next report, but no longer than its source's silence limit
after `last_at` (an agent that stops posting, a scan that stopped seeing: the meter may be running, nobody
knows); a person's, the bot's and the tracking's word holds until told otherwise. A stretch nobody
reported on is unknown: billed as running (rules/metering.py), never counted as idle or saved.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from itertools import pairwise


class Power(StrEnum):
    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"


# where a report came from: a person (terminal, chat, a button), the bot's own stop, the tracking (on from
# its start), the agent, a cloud's scan (aws, k8s, and the Chinese clouds' names)
HELD = ("person", "bot", "track")


@dataclass(frozen=True)
class PowerReport:
    state: Power  # ON or OFF
    at: datetime
    last_at: datetime  # seen so until then (>= at)
    source: str
    charging: bool | None = None  # off, as the cloud said: True its meter keeps running, False it stopped


@dataclass(frozen=True)
class Stretch:
    state: Power
    start: datetime
    end: datetime
    source: str = ""  # "" for an unknown stretch
    charging: bool | None = None

    @property
    def hours(self) -> float:
        return _hours(self.start, self.end)


def _hours(start: datetime, end: datetime) -> float:
    """Elapsed hours, in UTC: two times of one zone subtract as wall clocks (a DST change would be lost), so those
    are taken to UTC first; times of two zones, or of UTC, subtract as instants already (the report asks this of
    every item-day's stretches: converting them all was a tenth of its time)."""
    if start.tzinfo is end.tzinfo and start.tzinfo is not UTC:
        start, end = start.astimezone(UTC), end.astimezone(UTC)
    return max((end - start).total_seconds(), 0.0) / 3600


def holds(report: PowerReport, silence: Mapping[str, timedelta]) -> timedelta | None:
    """How long past its last sighting a report's word holds; None: until the next report (a person's, the
    bot's, the tracking's, and an agent's last word that its box is going off: it cannot post while off)."""
    if report.source in HELD or (report.source == "agent" and report.state is Power.OFF):
        return None
    return silence.get(report.source, silence.get("scan", timedelta(hours=3)))


def timeline(
    reports: Iterable[PowerReport], start: datetime, end: datetime, silence: Mapping[str, timedelta]
) -> list[Stretch]:
    """Stretches covering [start, end) one after another, in time order; `silence`: source -> how long its word
    holds past its last sighting ("agent", "scan" for every cloud, or a source by name)."""
    if end <= start:
        return []
    ordered = sorted(reports, key=lambda r: r.at)  # stable: of two at one time, the later said wins
    out: list[Stretch] = []
    cursor = start

    def add(state: Power, begin: datetime, stop: datetime, source: str = "", charging: bool | None = None) -> None:
        begin, stop = max(begin, start), min(stop, end)
        if stop <= begin:
            return
        last = out[-1] if out else None
        if last and last.state is state and last.source == source and last.charging == charging and last.end == begin:
            out[-1] = Stretch(state, last.start, stop, source, charging)
        else:
            out.append(Stretch(state, begin, stop, source, charging))

    for index, report in enumerate(ordered):
        following = ordered[index + 1].at if index + 1 < len(ordered) else end
        if following <= start or report.at >= end:
            continue
        if report.at > cursor:
            add(Power.UNKNOWN, cursor, report.at)
        limit = holds(report, silence)
        until = following if limit is None else min(following, report.last_at + limit)
        add(report.state, max(report.at, cursor), until, report.source, report.charging)
        cursor = max(cursor, until)
        if until < following:
            add(Power.UNKNOWN, until, following)
            cursor = max(cursor, following)
    if cursor < end:
        add(Power.UNKNOWN, cursor, end)
    return out


def restarted_at(stretches: Sequence[Stretch]) -> datetime | None:
    """When the instance was last started again after being off (an off stretch followed by an on one); None when
    its stretches show no such start. Idle is judged from then: a box someone started after a stop gets a whole
    window before it can be called idle, its stopped stretch never counted as idle time."""
    starts = [b.start for a, b in pairwise(stretches) if a.state is Power.OFF and b.state is Power.ON]
    return starts[-1] if starts else None


def state_at(stretches: Sequence[Stretch], moment: datetime) -> Power:
    """The state at `moment` (the last stretch's at its end). Stretches follow one another in time order (a
    timeline's): the one holding `moment` is found by halving, not read through (a month of them, for 2,000 items)."""
    at = bisect_right(stretches, moment, key=lambda s: s.start) - 1
    if at >= 0 and moment < stretches[at].end:
        return stretches[at].state
    return stretches[-1].state if stretches and moment >= stretches[-1].end else Power.UNKNOWN


@dataclass(frozen=True)
class Hours:
    on: float = 0.0
    off: float = 0.0  # the meter stopped
    off_billed: float = 0.0  # off with the meter running (a keep-charging stop)
    unknown: float = 0.0

    @property
    def billed(self) -> float:
        """Hours an hourly meter ran: on, unknown (it may have), and off in keep-charging mode."""
        return self.on + self.unknown + self.off_billed

    @property
    def total(self) -> float:
        return self.on + self.off + self.off_billed + self.unknown


def hours_in(stretches: Iterable[Stretch], start: datetime, end: datetime, keeps: bool) -> Hours:
    """The hours of each state inside [start, end); `keeps`: the instance's meter runs while it is off, unless a
    cloud said otherwise for that stop."""
    on = off = off_billed = unknown = 0.0
    for s in stretches:
        lo, hi = max(s.start, start), min(s.end, end)
        if hi <= lo:
            continue
        h = _hours(lo, hi)
        if s.state is Power.ON:
            on += h
        elif s.state is Power.UNKNOWN:
            unknown += h
        elif keeps if s.charging is None else s.charging:
            off_billed += h
        else:
            off += h
    return Hours(on, off, off_billed, unknown)
