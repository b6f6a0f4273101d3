"""What discovery, activity and warn-then-stop need of a cloud, whichever it is (AWS, Alibaba Cloud, ...).

Each cloud's module reads its own API with its official SDK and answers in these terms; `clouds(settings)`
gives the clouds a deployment has turned on, by name. Nothing here imports an SDK: a cloud's module is
imported only when that cloud is on (the Alibaba Cloud SDK alone takes half a second to import)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any, Protocol

from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.gpus import canonical_gpu
from rules.samples import Sample

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stopped:
    """What the cloud says after a stop: its state, and whether the stopped instance's meter keeps running
    (True), stopped (False) or was not said (None)."""

    state: str
    charging: bool | None = None
    how: str = "stop"  # the call that stopped it, for the audit: stop_instances, StopInstances(StopCharging)


def free_once_stopped(state: str) -> bool | None:
    """Whether the meter runs, for a product whose stop ends it: not once stopped (False); while it is still
    stopping, or running, nothing is said (None)."""
    return False if state == "stopped" else None


@contextmanager
def refusal_said(key: str, cloud: str, instance: str) -> Iterator[None]:
    """A stop the cloud refused for good (CloudError.final) said as `key` (cloud.no_free_stop, cloud.stop_refused)
    naming the cloud (a catalogue key, cloud.name_…) and the instance; any other failure passes as it is."""
    try:
        yield
    except CloudError as exc:
        if not exc.final:
            raise
        raise CloudError(Problem(key, cloud=Problem(cloud), instance=instance, why=exc.problem), final=True) from None


STOP_SETTLE_S = 180.0  # how long a stop is watched for its end: GPU instances stop within seconds to a minute or two


def settled(
    read: Callable[[], Any],
    stopping: Callable[[Any], bool],
    *,
    within_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Any:
    """What `read` gives once the stop is over (`stopping` says it is not), read again after 0.5 s, then twice as
    long each time up to 10 s, for at most `within_s` (else STOP_SETTLE_S); the last read when it was still stopping
    then. A cloud that says whether a stopped instance keeps billing only once it has stopped (Alibaba Cloud's
    StoppedMode, Tencent Cloud's StopChargingMode) is read so, never judged while it is still stopping."""
    ends, wait = clock() + (STOP_SETTLE_S if within_s is None else within_s), 0.5
    found = read()
    while stopping(found) and clock() < ends:
        sleep(min(wait, max(0.0, ends - clock())))
        wait = min(wait * 2, 10.0)
        found = read()
    return found


class Pacer:
    """Each API's calls no closer together than its published limit allows (calls a second, per account), across
    the threads that read regions at once: each call takes the next free moment of its API under a lock and waits
    for it outside the lock. An API without a limit here is not paced (throttling is still retried with back-off)."""

    def __init__(
        self,
        per_second: dict[str, float],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.per_second, self.clock, self.sleep = per_second, clock, sleep
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, api: str) -> None:
        rate = self.per_second.get(api)
        if not rate:
            return
        with self._lock:
            now = self.clock()
            at = max(now, self._next.get(api, now))
            self._next[api] = at + 1 / rate
        if at > now:
            self.sleep(at - now)


class CloudError(Exception):
    """A call to a cloud that failed, said in one line (no credentials, denied, throttled, unreachable, ...).
    `final`: trying again cannot help (the cloud refuses this for this instance): left to people at once."""

    def __init__(self, message: str, final: bool = False) -> None:
        super().__init__(message)
        self.final = final
        self.problem = message  # a Problem where one was given: said in the reader's language where shown


@functools.lru_cache(maxsize=256)
def gpu_named(spec: str) -> str | None:
    """The catalogue's name of the GPU a cloud names ("NVIDIA A10" -> A10-24GB); one it does not know, as named."""
    if not spec:
        return None
    try:
        return canonical_gpu(spec)
    except ValueError:
        return spec


def utc_time(text: Any, zone: tzinfo = UTC) -> datetime | None:
    """A cloud's ISO 8601 time (2026-11-30T08:00Z, 2026-11-30T08:00:00Z, 2026-11-30 08:00:00) as UTC; one without
    an offset is in `zone` (UTC unless the cloud says its own, as CBS gives Beijing time). None when there is none."""
    if not text:
        return None
    try:
        found = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return (found if found.tzinfo else found.replace(tzinfo=zone)).astimezone(UTC)


class Cloud(Protocol):
    name: str  # the items' source and key prefix: aws, aliyun, ...
    metrics: str  # the cloud's metrics service, as its problems are named: cloudwatch, cloudmonitor
    regions: tuple[str, ...]

    def scan(self) -> Scan:
        """Every region's GPU instances and unattached disks; a region that fails is said and skipped."""
        ...

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """The cloud's own GPU metrics per instance id (CloudError when they cannot be read)."""
        ...

    def stop(self, region: str, instance_id: str) -> Stopped:
        """Stop an instance without releasing it, asking for its meter to stop where the cloud can; then read
        its state again (CloudError when the stop or the read failed)."""
        ...


MAX_PAGES = 10_000  # a million instances at a hundred a page: past this no listing is believed to end


class Paging:
    """A paged listing that could go on for ever (a cloud answering the same NextToken, or a TotalCount of 10^9
    with the same rows each time) is stopped with one problem line; what its pages gave before is kept
    (scan_regions). `token` for the listings that page by token, `rows` for those that page by offset or number."""

    def __init__(self, cloud: str, listing: str) -> None:
        self.cloud, self.listing = cloud, listing
        self.tokens: set[str] = set()
        self.seen: set[str] = set()
        self.pages = 0

    def _stop(self, why: str) -> CloudError:
        log.warning("%s %s: %s; stopped after %d pages", self.cloud, self.listing, why, self.pages)
        return CloudError(Problem("cloud.endless_pages", cloud=self.cloud, listing=self.listing, why=why))

    def token(self, token: str | None) -> str | None:
        """The next page's token, once: the same one again is a listing that never ends."""
        self.pages += 1
        if token is not None and token in self.tokens:
            raise self._stop("the same NextToken came back")
        if self.pages > MAX_PAGES:
            raise self._stop(f"more than {MAX_PAGES} pages")
        if token is not None:
            self.tokens.add(token)
        return token

    def rows(self, rows: Sequence[Any]) -> None:
        """A page's rows: the same rows again (an offset the cloud ignores) is a listing that never ends."""
        self.pages += 1
        if not rows:
            return
        seen = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()
        if seen in self.seen:
            raise self._stop("the same rows came back for the next page")
        if self.pages > MAX_PAGES:
            raise self._stop(f"more than {MAX_PAGES} pages")
        self.seen.add(seen)


def scan_regions(
    source: str, regions: tuple[str, ...], read: Callable[[str], Iterable[Found]], *, workers: int = 1
) -> Scan:
    """Each region read with `read` (pages as they come); one that fails (CloudError) is said in one line. What its
    pages gave before the failure is kept (new items added, known ones updated), but the region is not complete:
    nothing in it is released or marked deleted for not being seen, and the next run reads it again.

    `workers` > 1 reads that many regions at once, each in its own thread (a cloud's regions answer apart, and
    most of a page's time is the cloud's): for clouds whose `read` keeps one client per region. The items come
    in the regions' order either way."""

    def one(region: str) -> tuple[list[Found], CloudError | None]:
        got: list[Found] = []
        try:
            for item in read(region):
                got.append(item)
        except CloudError as exc:
            return got, exc
        return got, None

    if workers > 1 and len(regions) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(workers, len(regions)), thread_name_prefix=f"scan-{source}") as pool:
            results = list(pool.map(one, regions))
    else:
        results = [one(region) for region in regions]
    out = Scan(source=source)
    for region, (got, exc) in zip(regions, results, strict=True):
        out.found += got
        if exc is not None:
            out.problems[region] = (
                Problem("cloud.kept_before", problem=exc.problem, count=len(got)) if got else exc.problem
            )
            log.warning("%s discovery in %s failed after %d items: %s", source, region, len(got), exc)
            continue
        out.regions_ok.append(region)
    return out


# regions an Alibaba Cloud or Tencent Cloud scan reads at once (one SDK client per region and product)
REGIONS_AT_ONCE = 8
