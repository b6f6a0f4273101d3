"""POST /feishu/events: Feishu's callbacks (events and card actions) in HTTP mode.

Checked first (bot/feishu/callback.py: signature, encryption, token; 401/400 and nothing done), then kept in the
inbox under the event's id before it is answered, so Feishu's redelivery of an event it thinks unanswered is
done once, and a crash after the answer loses nothing: `replay` does the work at the next start. A card action is
answered at once with a toast saying it is being done (Feishu wants an answer within 3 s, and the presser waits
for it); its work, like a message's, is done after the answer, by serve's work process where there is one, else
on the gateway's threads (issue 50: a press answered as a message is, after one durable write). What it did
follows as Slack's does: the card sent again with the answer, a form, or a refusal only the presser sees."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.chat.port import FEISHU_PREFIX
from bot.deps import Deps
from bot.state import StoreBusy, StoreUnavailable
from bot.text import Lang
from bot.web.answer import DoorRefused, Route
from bot.web.bodies import BodyTimeout, PendingBodies, TooManyPending, read_body, too_large

if TYPE_CHECKING:
    from bot.feishu.digest_outlet import FeishuOutlet
    from bot.feishu.long_connection import LongConnection
    from bot.feishu.teller import FeishuTeller

PATH = "/feishu/events"
KIND = "feishu"  # a message event: done by serve's work process when there is one
CARD_KIND = "feishu_card"  # a card action: the same, after its toast
REPLAY_WINDOW = timedelta(hours=1)
CARD_AGAIN_KIND = "feishu_card_again"  # a pressed digest card kept to be sent again (bot/app/card_again.py)
_KINDS = (KIND, CARD_KIND, CARD_AGAIN_KIND)
log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]


def _answer(start_response: StartResponse, status: int, body: dict[str, Any] | str) -> list[bytes]:
    data = (json.dumps(body, ensure_ascii=False) if isinstance(body, dict) else body).encode()
    kind = "application/json" if isinstance(body, dict) else "text/plain"
    start_response(
        f"{status} {'OK' if status == 200 else 'Refused'}", [("Content-Type", kind), ("Content-Length", str(len(data)))]
    )
    return [data]


class FeishuGateway:
    """Feishu's side of serve: the chat (its Open API client) and the callback endpoint."""

    def __init__(self, deps: Deps, *, clock: Callable[[], float] = time.time) -> None:
        from bot.feishu.chat import FeishuChat
        from bot.feishu.sdk import FeishuError, OpenApi

        settings = deps.settings
        secret = settings.feishu.app_secret.get_secret_value() if settings.feishu.app_secret else ""
        metrics = deps.metrics
        self.last_failure: str | None = None
        self.pending = PendingBodies(settings.serve.max_pending_bodies)  # bodies in before their signature is checked

        def failed(what: str, error: FeishuError) -> None:
            metrics.chat_errors.labels("feishu", str(error.code)).inc()
            self.last_failure = f"{what}: code {error.code} {error.msg}"[:200]
            log.error("Feishu %s failed for good: code %s %s", what, error.code, error.msg)

        self.api = OpenApi(
            settings.feishu.app_id or "",
            secret,
            settings.feishu.base_url(),
            on_retry=lambda reason: metrics.chat_retries.labels("feishu", reason).inc(),
            on_failure=failed,
        )
        self.chat = FeishuChat(self.api, settings.files.lang)
        self.deps, self.clock = deps, clock
        self.encrypt_key = settings.feishu.encrypt_key.get_secret_value() if settings.feishu.encrypt_key else ""
        token = settings.feishu.verification_token
        self.token = token.get_secret_value() if token else ""
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="feishu")
        self.connection: LongConnection | None = None

    def state(self) -> str:
        """For /healthz: http (callbacks come to /feishu/events), or the long connection's state."""
        return self.connection.state() if self.connection is not None else "http"

    def health(self) -> dict[str, Any]:
        found: dict[str, Any] = {"mode": self.deps.settings.feishu.mode, "state": self.state()}
        if self.last_failure:
            found["last_failure"] = self.last_failure
        found["tenants"] = self.tenants()
        return found

    def tenants(self) -> list[str]:
        """The Feishu tenants the state knows, as the terminal's --team takes them (feishu:<tenant key>); none when
        the state cannot be read (/healthz says that apart)."""
        from bot.state import StoreUnavailable
        from bot.state.teams import known_teams

        try:
            return [tenant for tenant in known_teams(self.deps.store) if tenant.startswith(FEISHU_PREFIX)]
        except StoreUnavailable:
            return []

    def connect(self) -> None:
        """ws mode: open the SDK's long connection; events and card actions come over it."""
        from bot.feishu.long_connection import LongConnection

        settings = self.deps.settings
        secret = settings.feishu.app_secret.get_secret_value() if settings.feishu.app_secret else ""
        self.connection = LongConnection(settings.feishu.app_id or "", secret, settings.feishu.base_url(), self.receive)
        self.connection.start()

    def receive(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """An event from the long connection (authenticated by the connection): kept, answered and done as in
        HTTP mode; a card action's answer (its toast) goes back in the frame's response."""
        return self.accept(payload) or None

    def accept(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        """An authenticated callback kept and its work started (keep): the answer's body, a card action's with
        its toast. None without header.event_id. StoreBusy or StoreUnavailable when it could not be kept:
        nothing is done."""
        from bot.feishu.events import CARD_ACTION, event_type

        event_id = str((payload.get("header") or {}).get("event_id") or "")
        if not event_id:
            return None
        kind = event_type(payload)
        self.deps.metrics.chat_requests.labels("feishu", kind).inc()
        self.keep(f"feishu:{event_id}", CARD_KIND if kind == CARD_ACTION else KIND, payload)
        return {"toast": _working()} if kind == CARD_ACTION else {}

    def keep(self, key: str, kind: str, payload: dict[str, Any]) -> None:
        """Keep a callback before it is answered, then start its work: in serve's work process when there is one
        (kept in the front door's spool on SQLite), else on this gateway's threads. One kept before (Feishu
        redelivered it) is not done again."""
        deps, budget = self.deps, self.deps.settings.serve.ack_db_budget_s
        if deps.work is not None:
            deps.keep_for_work(key, kind, payload, budget)
        elif deps.inbox.enqueue(key, kind, payload, budget):
            self.pool.submit(self.work, key, payload, kind)

    def teller(self) -> FeishuTeller:
        """What the clock's work (budget alerts, weekly reports, warn-then-act) says through, in Feishu."""
        from bot.feishu.teller import FeishuTeller

        return FeishuTeller(self.chat, self.deps.settings.files.lang)

    def outlet(self) -> FeishuOutlet:
        """Where a Feishu tenant's digests go (bot/feishu/digest_outlet.py)."""
        from bot.feishu.digest_outlet import FeishuOutlet

        return FeishuOutlet(self.chat)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        from bot.feishu.callback import Refused, claims_signature, open_callback

        deps = self.deps
        if too_large(environ, deps.settings.serve.max_body_bytes):
            return _answer(start_response, 413, "too large")
        try:
            with self.pending.slot(signed=claims_signature(environ, self.clock())):
                body = read_body(environ, deps.settings.serve.read_timeout_s)
        except TooManyPending:
            deps.metrics.refused.labels("503").inc()
            return _answer(start_response, 503, "too many requests being received at once: try again")
        except BodyTimeout as exc:
            return _answer(start_response, 408, str(exc))
        headers = {k[5:].replace("_", "-").lower(): str(v) for k, v in environ.items() if k.startswith("HTTP_")}
        opened = open_callback(
            body, headers, encrypt_key=self.encrypt_key, verification_token=self.token, now=self.clock()
        )
        if isinstance(opened, Refused):
            deps.metrics.refused.labels(str(opened.status)).inc()
            log.info("refused a request to %s: %s (%s)", PATH, opened.status, opened.reason)
            return _answer(start_response, opened.status, opened.reason)
        if opened.challenge is not None:
            return _answer(start_response, 200, {"challenge": opened.challenge})
        try:
            answer = self.accept(opened.payload)
        except StoreBusy:
            return _answer(start_response, 503, "busy: try again")
        except StoreUnavailable as exc:
            return _answer(start_response, 503, f"the state database is unavailable ({exc.reason})")
        if answer is None:
            return _answer(start_response, 400, "a callback without header.event_id (schema 2.0 is expected)")
        return _answer(start_response, 200, answer)

    def work(self, key: str, payload: dict[str, Any], kind: str = KIND) -> None:
        """The request's work, then the item done; an error is logged with the key and left to be redone. A
        callback's, or a pressed digest card sent again (bot/app/card_again.py)."""
        from bot.app import card_again
        from bot.feishu.events import handle

        try:
            if kind == CARD_AGAIN_KIND:
                card_again.send(self.deps, self.chat, payload)
            else:
                handle(self.deps, self.chat, payload, key)
        except Exception:
            log.exception("the work of %s failed; it stays pending and is redone", key)
            return
        self.deps.inbox.done(key)

    def replay(self, received_before: datetime | None = None, first: Callable[[str], bool] | None = None) -> int:
        """At start-up: the work of Feishu callbacks acknowledged before a stop (`received_before`: only those
        kept before then; `first`: whether this process has not started it yet). A work process redoes them,
        the front door only when it has none."""
        if received_before is None and self.deps.work is not None:
            return 0
        redone = 0
        for spooled in self.deps.inbox.spooled(REPLAY_WINDOW, received_before):
            if spooled.kind in _KINDS and (first is None or first(spooled.key)):
                self.work(spooled.key, spooled.body, spooled.kind)
                redone += 1
        return redone

    def redo_stalled(self) -> int:
        """Redo the work of callbacks left pending this long (GPU_ADVISOR_REDO_AFTER_S): Feishu could not be
        reached, or the replica that took them stopped. Run by serve's redo job beside Slack's, so a reply that
        failed is sent within a minute, not at the next start. Each is claimed first: one replica redoes it."""
        stalled = timedelta(seconds=self.deps.settings.serve.redo_after_s)
        redone = 0
        for key, kind, body in self.deps.inbox.pending(REPLAY_WINDOW, stalled):
            if kind not in _KINDS or not self.deps.inbox.claim(key, stalled):
                continue
            log.info("redoing %s: acknowledged, its work not done (a stop, or Feishu unreachable)", key)
            self.work(key, body, kind)
            redone += 1
        return redone

    # --- as one of serve's front doors (bot/server/doors.py) ---

    name = "feishu"

    def routes(self) -> list[Route]:
        """POST /feishu/events in HTTP mode; none in ws mode (events come over the long connection)."""
        return [Route(PATH, frozenset({"POST"}), self)] if self.deps.settings.feishu.mode == "http" else []

    def wing(self) -> Any:
        from bot.feishu.wing import FeishuWing

        return FeishuWing(self.chat, self.deps.settings.files.lang)

    def take(self, key: str, kind: str, body: Any, workers: Any) -> bool:
        """In the work process: a message or a card press the front door kept, done on this gateway's pool."""
        if kind not in (KIND, CARD_KIND):
            return False
        self.pool.submit(self.work, key, body, kind)
        return True

    def default_team(self) -> str | None:
        """The one Feishu tenant the state knows, when there is exactly one."""
        known = self.tenants()
        return known[0] if len(known) == 1 else None

    def check(self, lang: Lang) -> None:
        """A tenant access token is asked for: DoorRefused naming the URL and Feishu's answer when refused."""
        from bot.feishu.sdk import FeishuError
        from bot.text import t

        try:
            self.api.check()
        except FeishuError as exc:
            url = self.deps.settings.feishu.base_url()
            raise DoorRefused(t("feishu.unreachable", lang, url=url, reason=f"{exc.code}: {exc.msg}")) from None

    def opened(self, raw: bytes, content_type: str | None) -> tuple[str, dict[str, Any]]:
        """Feishu's callbacks reach the work process read (Deps.work.run), never as they came."""
        raise LookupError("Feishu hands the work process read callbacks only")

    def start(self) -> None:
        """ws mode: the long connection, on its own thread."""
        if self.deps.settings.feishu.mode == "ws":
            self.connect()

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.stop()
        self.pool.shutdown(wait=True, cancel_futures=False)


def _working() -> dict[str, Any]:
    """The toast a press is answered with: it is being done (what it did follows in the chat)."""
    from bot.text import Lang, t

    zh, en = (t("feishu.toast_working", each) for each in (Lang.ZH, Lang.EN))
    return {"type": "info", "content": zh, "i18n": {"zh_cn": zh, "en_us": en}}
