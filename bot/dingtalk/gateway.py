"""DingTalk's side of serve: its chat (the OpenAPI) and its Stream connection (stream.py). Each frame is kept in
the inbox under its id before it is acknowledged (a robot message under its msgId, a card press under the frame's
messageId), so a frame DingTalk delivers again is done once, after a crash too (the SDK keeps no such record), and
a crash after the acknowledgement loses nothing: the work is redone at the next start, or by the redo job within a
minute. A press is answered in its acknowledgement within DingTalk's time: the presser's refusal (privateData) or
the card as it now is for everyone (cardData), when known within PRESS_WAIT_S; the rest follows by PUT."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from typing import TYPE_CHECKING, Any

from bot.app import card_again
from bot.chat.port import Place
from bot.deps import Deps
from bot.dingtalk import PREFIX, events
from bot.dingtalk.chat import DingTalkChat
from bot.dingtalk.openapi import DingTalkError, OpenApi
from bot.dingtalk.settings import DingTalk
from bot.dingtalk.words import line
from bot.text import Lang
from bot.web.answer import DoorRefused
from bot.web.own_connection import OwnConnectionDoor

if TYPE_CHECKING:
    from bot.dingtalk.stream import StreamConnection
    from bot.dingtalk.wing import DingTalkWing

KIND, CARD_KIND = "dingtalk", "dingtalk_card"
PRESS_WAIT_S = 0.8  # a press's acknowledgement carries its answer when known by then (within 1 s)
log = logging.getLogger(__name__)


def area_of(deps: Deps) -> DingTalk:
    found: DingTalk = getattr(deps.settings, "dingtalk")  # noqa: B009 (an area of a registered chat)
    return found


def press_answer(pressed: events.Pressed | None, user: str) -> dict[str, Any]:
    """A press's acknowledgement: the card for everyone when it changed, the refusal for the presser alone."""
    answer: dict[str, Any] = {}
    if pressed is not None and pressed.card:
        answer["cardData"] = {"cardParamMap": pressed.card}
    if pressed is not None and pressed.refusal:
        answer["privateData"] = {user: {"cardParamMap": {"tips": pressed.refusal}}}
    if answer:
        answer["cardUpdateOptions"] = {"updateCardDataByKey": True, "updatePrivateDataByKey": True}
    return answer


class DingTalkGateway(OwnConnectionDoor):
    kinds, prefix, chat_name = (KIND, CARD_KIND, events.CARD_AGAIN_KIND), PREFIX, "DingTalk"
    name = "dingtalk"

    def __init__(self, deps: Deps) -> None:
        area = area_of(deps)
        metrics = deps.metrics
        self.last_failure: str | None = None

        def failed(what: str, error: DingTalkError) -> None:
            metrics.chat_errors.labels("dingtalk", error.code).inc()
            self.last_failure = f"{what}: {error}"[:200]
            log.error("DingTalk %s failed for good: %s", what, error)

        self.api = OpenApi(
            area.client_id or "",
            area.secret(),
            area.api_url,
            area.robot(),
            on_retry=lambda reason: metrics.chat_retries.labels("dingtalk", reason).inc(),
            on_failure=failed,
        )
        self.chat = DingTalkChat(self.api, deps.settings.files.lang)
        self.deps = deps
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dingtalk")
        self.connection: StreamConnection | None = None
        # a press's answer goes in its acknowledgement when known within PRESS_WAIT_S; past it (or redone after a
        # stop), a refusal is told to the presser in their chat with the robot instead: it was lost
        self._press_lock = threading.Lock()
        self._awaited: set[str] = set()  # presses whose acknowledgement still waits for their answer

    def receive(self, topic: str, frame_id: str, data: dict[str, Any]) -> dict[str, Any] | None:
        """A frame from the Stream connection (authenticated by it): kept, then done on the pool; a press waits a
        moment for its answer. StoreBusy or StoreUnavailable when it could not be kept: nothing is acknowledged,
        so DingTalk delivers it again."""
        if topic == events.MESSAGE_TOPIC:
            key, kind = f"dingtalk:{data.get('msgId') or frame_id}", KIND
        elif topic == events.CARD_TOPIC:
            key, kind = f"dingtalk-card:{frame_id}", CARD_KIND
        else:
            return None
        self.deps.metrics.chat_requests.labels("dingtalk", kind).inc()
        if not self.deps.inbox.enqueue(key, kind, data, self.deps.settings.serve.ack_db_budget_s):
            return {}  # delivered before: done once
        if kind == CARD_KIND:
            with self._press_lock:
                self._awaited.add(key)
        future = self.pool.submit(self.work, key, kind, data)
        if kind != CARD_KIND:
            return {}
        try:
            pressed = future.result(PRESS_WAIT_S)
        except WaitedTooLong:
            with self._press_lock:
                if key in self._awaited:  # still working: the card by PUT, a refusal by direct message
                    self._awaited.discard(key)
                    return {}
            pressed = future.result()  # decided a moment ago: in the acknowledgement after all
        with self._press_lock:
            self._awaited.discard(key)  # a press that failed before it was decided
        return press_answer(pressed, str(data.get("userId") or ""))

    def work(self, key: str, kind: str, data: dict[str, Any]) -> events.Pressed | None:
        """A frame's work, or a pressed digest card's update kept to be made again (bot/app/card_again.py), then its
        item done; an error is logged with the key and left to be redone."""
        pressed: events.Pressed | None = None
        try:
            if kind == CARD_KIND:
                pressed = self._press(key, data)
            elif kind == events.CARD_AGAIN_KIND:
                card_again.send(self.deps, self.chat, data)
            else:
                events.on_message(self.deps, self.chat, data, key)
        except Exception:
            log.exception("the work of %s failed; it stays pending and is redone", key)
            return None
        self.deps.inbox.done(key)
        return pressed

    def _press(self, key: str, data: dict[str, Any]) -> events.Pressed:
        """A press's work; its refusal told by direct message where the acknowledgement went without it."""
        pressed = events.on_press(self.deps, self.chat, data, key)
        with self._press_lock:
            in_ack = key in self._awaited
            self._awaited.discard(key)
        user, corp = str(data.get("userId") or ""), str(data.get("corpId") or "")
        if not in_ack and pressed.refusal and user and corp:
            self.chat.tell(Place(self.chat.platform, events.team_of(corp), ""), user, pressed.refusal)
        return pressed

    # --- as one of serve's front doors (bot/server/doors.py) ---

    def health(self) -> dict[str, Any]:
        state = self.connection.state() if self.connection is not None else "not started"
        found: dict[str, Any] = {"mode": "stream", "state": state}
        if self.last_failure:
            found["last_failure"] = self.last_failure
        found["organisations"] = self.tenants()
        return found

    def wing(self) -> DingTalkWing:
        from bot.dingtalk.wing import DingTalkWing

        return DingTalkWing(self.chat, self.deps.settings.files.lang)

    def check(self, lang: Lang) -> None:
        """An access token is asked for: DoorRefused naming the URL and DingTalk's answer when refused."""
        try:
            self.api.check()
        except DingTalkError as exc:
            url = area_of(self.deps).api_url
            raise DoorRefused(line("unreachable", lang).format(url=url, reason=str(exc))) from None

    def start(self) -> None:
        from bot.dingtalk.stream import StreamConnection

        area = area_of(self.deps)
        topics = [events.MESSAGE_TOPIC, events.CARD_TOPIC]
        self.connection = StreamConnection(area.client_id or "", area.secret(), area.api_url, topics, self.receive)
        self.connection.start()

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.stop()
        self.pool.shutdown(wait=True, cancel_futures=False)
