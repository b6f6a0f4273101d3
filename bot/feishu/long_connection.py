"""Feishu's long connection (GPU_ADVISOR_FEISHU_MODE=ws, the default): the SDK's own WebSocket client
(lark_oapi.ws.Client) asks the Open API for a connection URL with the app's credentials and receives events and
card actions as frames; no public URL or HTTPS proxy is needed. Each event's payload (the same schema-2.0 envelope
HTTP mode gets, already authenticated by the connection) goes to `receive`, whose answer (a card action's toast)
goes back in the frame's response.

The SDK's ws module imports its EventDispatcherHandler only to name a type, and that module loads every API's
event models (3.5 s of CPU here); this app hands the client its own receiver, so a placeholder stands in for it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from bot.feishu.sdk import load

log = logging.getLogger(__name__)


class _Receiver:
    """What lark_oapi.ws.Client calls with each event frame's payload (its _do_without_validation)."""

    def __init__(self, receive: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        self.receive = receive

    def _do_without_validation(self, payload: bytes) -> dict[str, Any] | None:
        return self.receive(json.loads(payload))


def _ws_client_module() -> Any:
    load()  # the SDK's core, entered without its package __init__
    name = "lark_oapi.event.dispatcher_handler"
    if name not in sys.modules:
        placeholder = types.ModuleType(name)
        placeholder.EventDispatcherHandler = object  # type: ignore[attr-defined]
        sys.modules[name] = placeholder
    import lark_oapi.ws.client as ws_client

    return ws_client


class LongConnection:
    """The SDK's client on a thread of its own, with an event loop of its own."""

    def __init__(
        self, app_id: str, app_secret: str, base_url: str, receive: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> None:
        self.ws = _ws_client_module()
        self.loop = asyncio.new_event_loop()
        self.ws.loop = self.loop  # the SDK's client runs on its module's loop: this connection's own
        self.client = self.ws.Client(app_id, app_secret, event_handler=_Receiver(receive), domain=base_url)
        self.thread = threading.Thread(target=self._run, name="feishu-ws", daemon=True)
        self.failed: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.client.start()
        except RuntimeError:
            pass  # stop(): the loop was stopped under it
        except Exception as exc:  # credentials refused, no endpoint: said by state() and the log
            self.failed = exc
            log.error("Feishu's long connection failed: %s", exc)
        finally:
            self.loop.close()

    def start(self) -> None:
        self.thread.start()

    def connected(self) -> bool:
        return getattr(self.client, "_conn", None) is not None

    def state(self) -> str:
        if self.failed is not None:
            return f"failed: {self.failed}"
        return "connected" if self.connected() else "connecting"

    def stop(self, timeout: float = 5.0) -> None:
        if not self.thread.is_alive():
            return

        async def close() -> None:
            conn = getattr(self.client, "_conn", None)
            self.client._auto_reconnect = False
            if conn is not None:
                await conn.close()
            own = ("_ping_loop", "_receive_message_loop", "_handle_message")
            others = [t for t in asyncio.all_tasks(self.loop) if getattr(t.get_coro(), "__name__", "") in own]
            for task in others:  # the client's ping loop and receiving loop (its start() waits on another)
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        with contextlib.suppress(Exception):  # closing what is already closed, or a loop that will not answer
            asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)
