"""What the whole process is given (settings, policy, state, prices, clock, metrics, the acknowledgement gate,
the OAuth installs' clients, serve's work process), built once at start-up by build_deps() and passed to each call:
no module globals. Deps is complete when build_deps() returns: what a wing adds (the OAuth installs of the
Slack wing, serve's work process and spool) is handed to build_deps as a factory and made before it returns."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any, Protocol

from bot.logs import keep_secret
from bot.metrics import Metrics
from bot.price_book import PriceBook, http_client
from bot.settings import Settings
from bot.state import Conversations, Inbox, Store, StoreUnavailable, Users
from bot.state.write_lock import AckGate
from pricing.errors import CacheUnavailable
from rules.policy import Policy, load_policy

log = logging.getLogger(__name__)
SLOW_WORKERS = 2


class Handoff(Protocol):
    """Where the work of a request kept in the inbox goes when it is not done in this process: serve's work
    process (bot/server/work_process.py)."""

    def kept(self, chat: str, key: str, raw: bytes, headers: dict[str, str]) -> None:
        """A request `chat`'s front door kept and acknowledged as it came (bot/slack/fast_ack.py): all its work is
        to do, its body read by that chat's door (FrontDoor.opened)."""

    def run(self, key: str, kind: str, body: dict[str, Any]) -> None:
        """A request bolt acknowledged here: only its route's handler is still to run."""

    def state(self) -> str:
        """For /healthz: running, starting or restarting."""

    def metrics(self) -> bytes | None:
        """Its metrics exposition, added to this process's at /metrics; None when it does not answer."""

    def start(self, holding: Sequence[Store] = ()) -> None:
        """Start taking work (serve calls it once the front door is built); `holding`: the stores this process
        has open."""

    def stop(self) -> None:
        """Stop, with serve."""


class Installs(Protocol):
    """Installs through OAuth (bot/slack/installs.py): each team's own client, for work that starts outside
    a request, and forgetting a team that uninstalled the app."""

    def client_for(self, team: str) -> Any:
        """The team's client (the Slack wing's WebClient); LookupError when it has no installation any more."""

    def forget(self, team: str) -> None:
        """Drop the team's tokens."""


@dataclass
class Deps:
    settings: Settings
    policy: Policy
    store: Store
    prices: PriceBook
    now: Callable[[], datetime]
    # the process's acknowledgement gate (bot/state/write_lock.py): background work gives way through it
    acks: AckGate = field(default_factory=AckGate)
    metrics: Metrics = field(default_factory=Metrics)
    installs: Installs | None = None  # OAuth installs (None: one bot token)
    # serve's work process (bot/server/work_process.py): the work after each acknowledgement goes there
    work: Handoff | None = None
    # with a work process on SQLite: the front door's own inbox file, where requests are kept (bot/server/spool.py)
    spool: Inbox | None = None

    @cached_property
    def inbox(self) -> Inbox:
        return Inbox(self.store)

    @property
    def keeper(self) -> Inbox:
        """Where this process keeps a request before answering it: the front door's spool (with a work process,
        on SQLite), else the inbox."""
        return self.spool if self.spool is not None else self.inbox

    def keep_for_work(self, key: str, kind: str, body: dict[str, Any], budget_s: float | None = None) -> None:
        """Keep a request (bounded by `budget_s`: StoreBusy past it), then hand it to serve's work process; one kept
        before (a redelivery) is not handed over again."""
        assert self.work is not None
        if self.keeper.enqueue(key, kind, body, budget_s):
            self.work.run(key, kind, body)

    @cached_property
    def conversations(self) -> Conversations:
        return Conversations(self.store)

    @cached_property
    def users(self) -> Users:
        return Users(self.store)

    def client_of(self, team: str, default: Any) -> Any:
        """The client to reach `team` with: its own installation's, else `default`.
        LookupError when the team has no installation any more."""
        return self.installs.client_for(team) if self.installs is not None else default

    def gpu_offers(self, gpu: str) -> list[Any]:
        """The price cache's offers of a GPU; none (logged) when the cache cannot be read, so an item found or
        enrolled is kept without a price rather than refused."""
        try:
            return self.prices.offers(gpu=gpu)
        except CacheUnavailable as exc:
            log.warning("no price from the price cache for %s: %s", gpu, exc)
            return []

    def refresh_gauges(self) -> None:
        """Set the gauges read at scrape time. A store or cache that cannot be read leaves its gauges as they
        were (logged): the scrape still answers, and /healthz says what is down."""
        try:
            for state in self.prices.status():
                if state.age_days is not None:
                    self.metrics.price_age.labels(state.source).set(state.age_days * 86400)
        except CacheUnavailable as exc:
            log.warning("price ages not refreshed: %s", exc)
        try:
            backlog = len(self.inbox.pending(timedelta(days=1)))
            if self.spool is not None:  # kept by the front door, not yet taken by the work process
                spooled = [key for key, _ in self.spool.waiting(timedelta(days=1), 100_000)]
                backlog += len(spooled) - len(self.inbox.known(spooled))
            self.metrics.inbox_backlog.set(backlog)
            from bot.state.discovered import Discovered

            for source, count in Discovered(self.store).counts().items():
                self.metrics.discovered.labels(source).set(count)
        except StoreUnavailable as exc:
            log.warning("inbox backlog and discovered items not refreshed: %s", exc)

    @cached_property
    def slow_work(self) -> ThreadPoolExecutor:
        """Threads for work that may take long (captures: a download, then a chart), apart from the ones
        that answer people, so a few slow uploads cannot hold the questions back."""
        return ThreadPoolExecutor(max_workers=SLOW_WORKERS, thread_name_prefix="slow")

    def shutdown(self) -> None:
        """Stop taking slow work; what is under way is left to end (or to be redone from the inbox)."""
        if "slow_work" in self.__dict__:  # only when something started it
            self.slow_work.shutdown(wait=False, cancel_futures=True)

    @property
    def conversation_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.slack.conversation_ttl_hours)


def build_deps(
    settings: Settings,
    *,
    now: Callable[[], datetime] | None = None,
    acks: AckGate | None = None,
    installs: Callable[[Deps], Installs] | None = None,
    work: Callable[[Deps], tuple[Handoff, Inbox | None]] | None = None,
) -> Deps:
    """What the handlers need. Local problems are found here, before Slack is contacted: PolicyError
    for a bad policy, StoreUnavailable or CacheUnavailable for an unusable database.

    `acks`: the process's acknowledgement gate (a new one unless given: the work process's follows the front
    door's count). `installs` makes the OAuth installs' clients, `work` serve's work process and the spool
    it takes from; each is given the Deps being built and called before it is returned."""
    keep_secret(
        *(
            s.get_secret_value()
            for s in (
                settings.slack.bot_token,
                settings.slack.app_token,
                settings.slack.signing_secret,
                settings.slack.client_secret,
                settings.slack.encryption_key,
                settings.feishu.app_secret,
                settings.feishu.encrypt_key,
                settings.feishu.verification_token,
                settings.discovery.autodl_token,
            )
            if s is not None
        )
    )
    if settings.slack.encryption_key:  # each key of a rotation too
        keep_secret(*settings.slack.encryption_key.get_secret_value().split(","))
    policy = load_policy(settings.files.policy)
    clock = now or (lambda: datetime.now(UTC))
    gate = acks or AckGate()
    store = Store(settings.files.state_url(), now=clock, replica=settings.serve.replica_id or None, acks=gate)
    prices = PriceBook.open(settings, policy, http_client(settings), now=clock)
    deps = Deps(settings=settings, policy=policy, store=store, prices=prices, now=clock, acks=gate)
    if installs is not None:
        deps.installs = installs(deps)
    if work is not None:
        deps.work, deps.spool = work(deps)
    return deps
