"""WeCom's side of serve: its chat and its long connection (connection.py). Each frame is kept in the inbox under
its msgid before its work starts, so a frame delivered again is done once, and work cut short by a stop is redone
at the next start or by the redo job. A click is answered at once on the frame's thread, so its card is updated
within WeCom's 5 s; a message's work runs on the gateway's pool."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from bot.deps import Deps
from bot.state import StoreBusy, StoreUnavailable
from bot.text import Lang
from bot.web.answer import DoorRefused
from bot.web.own_connection import OwnConnectionDoor
from bot.wecom import PREFIX, events
from bot.wecom.chat import WeComChat
from bot.wecom.settings import WeCom
from bot.wecom.words import line

if TYPE_CHECKING:
    from bot.state.inbox import Inbox
    from bot.wecom.connection import WeComConnection
    from bot.wecom.wing import WeComWing

KIND, CLICK_KIND = "wecom", "wecom_click"
CHECK_WAIT_S = 10.0  # how long serve's start waits for WeCom to answer the robot's subscription
log = logging.getLogger(__name__)


def area_of(deps: Deps) -> WeCom:
    found: WeCom = getattr(deps.settings, "wecom")  # noqa: B009 (an area of a registered chat)
    return found


def make_chat(settings: Any, receive: Callable[[dict[str, Any]], None]) -> tuple[WeComChat, WeComConnection]:
    from bot.wecom.connection import WeComConnection

    area: WeCom = getattr(settings, "wecom")  # noqa: B009
    connection = WeComConnection(area.bot_id or "", area.secret(), area.ws_url, receive)
    link = settings.serve.public_url or "https://work.weixin.qq.com/"
    return WeComChat(connection, settings.files.lang, link), connection


def contacts_of(area: WeCom) -> Any:
    if not area.looks_up_addresses():
        return None
    from bot.wecom.corp_api import CorpApi

    secret = area.corp_secret.get_secret_value() if area.corp_secret else ""
    return CorpApi(area.corp_id or "", secret, area.api_url)


def key_and_kind(frame: dict[str, Any]) -> tuple[str, str] | None:
    """A frame's inbox key (its msgid) and kind (a click or a message); None without an id."""
    body = frame.get("body") or {}
    msgid = str(body.get("msgid") or "")
    return (f"wecom:{msgid}", CLICK_KIND if body.get("msgtype") == "event" else KIND) if msgid else None


def keep_for_serve(inbox: Inbox, frame: dict[str, Any]) -> None:
    if (found := key_and_kind(frame)) is not None:
        inbox.enqueue(found[0], found[1], frame)


class WeComGateway(OwnConnectionDoor):
    kinds, prefix, chat_name = (KIND, CLICK_KIND), PREFIX, "WeCom"
    name = "wecom"

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.chat, self.connection = make_chat(deps.settings, self.receive)
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="wecom")

    def receive(self, frame: dict[str, Any]) -> None:
        """A frame from the long connection (authenticated by it): kept, then done."""
        found = key_and_kind(frame)
        if found is None:
            return
        key, kind = found
        self.deps.metrics.chat_requests.labels("wecom", kind).inc()
        try:  # no acknowledgement waits on the write (WeCom's frames have none): as long as the store takes
            if not self.deps.inbox.enqueue(key, kind, frame):
                return  # delivered before: done once
        except (StoreUnavailable, StoreBusy) as exc:  # answered all the same: WeCom does not deliver a frame again
            why = exc.reason if isinstance(exc, StoreUnavailable) else "the state database stayed locked"
            log.error("WeCom frame %s not kept (%s): answered now, not redone after a stop", key, why)
        if kind == CLICK_KIND:
            self.work(key, kind, frame)  # now, on this thread: the card's update must be within 5 s
        else:
            self.pool.submit(self.work, key, kind, frame)

    def work(self, key: str, kind: str, frame: dict[str, Any]) -> None:
        try:
            if kind == CLICK_KIND:
                events.on_click(self.deps, self.chat, frame, key)
            else:
                events.on_message(self.deps, self.chat, frame, key)
        except Exception:
            log.exception("the work of %s failed; it stays pending and is redone", key)
            return
        self.deps.inbox.done(key)

    # --- as one of serve's front doors (bot/server/doors.py) ---

    def health(self) -> dict[str, Any]:
        return {"mode": "long connection", "state": self.connection.state(), "robots": self.tenants()}

    def wing(self) -> WeComWing:
        from bot.wecom.wing import WeComWing

        return WeComWing(self.chat, self.deps.settings.files.lang, contacts_of(area_of(self.deps)))

    def check(self, lang: Lang) -> None:
        """The robot's subscription, asked once at start: DoorRefused naming what to check when WeCom refuses it
        or cannot be reached (the connection is then closed)."""
        area = area_of(self.deps)
        if not area.configured():
            raise DoorRefused(line("half_set", lang))
        if not self.connection.subscribed(CHECK_WAIT_S):
            reason = self.connection.failed or "no answer"
            self.connection.stop()
            raise DoorRefused(line("refused", lang).format(url=area.ws_url, reason=reason))

    def start(self) -> None:
        self.connection.start()

    def stop(self) -> None:
        self.connection.stop()
        self.pool.shutdown(wait=True, cancel_futures=False)
