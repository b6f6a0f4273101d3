"""DingTalk's Stream mode: the official SDK's client (dingtalk_stream.DingTalkStreamClient) asks the gateway
(POST /v1.0/gateway/connections/open on GPU_ADVISOR_DINGTALK_API_URL) for an endpoint and a ticket with the app's
credentials, then receives robot messages and card presses as frames over a WebSocket; no public address is
needed. Each frame's topic, messageId and data go to `receive`, on a thread of the process (the SDK's loop keeps
reading), and its answer goes back in the SDK's acknowledgement.

The SDK reads its endpoint from a class attribute set at import: it is set here, before the client is made. The
ticket the gateway hands out is kept secret (bot/logs.py) before the SDK logs the endpoint it came with."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from bot.logs import keep_secret

log = logging.getLogger(__name__)
OPEN_PATH = "/v1.0/gateway/connections/open"

SDK_LOG = logging.getLogger("bot.dingtalk.sdk")  # what the SDK says (its INFO names the endpoint: kept quiet)
SDK_LOG.setLevel(logging.WARNING)

Receive = Callable[[str, str, dict[str, Any]], dict[str, Any] | None]


def _client(client_id: str, client_secret: str, api_url: str, topics: list[str], receive: Receive) -> Any:
    import dingtalk_stream
    from dingtalk_stream.frames import AckMessage

    dingtalk_stream.DingTalkStreamClient.OPEN_CONNECTION_API = api_url + OPEN_PATH  # the SDK reads it from here

    class Handler(dingtalk_stream.CallbackHandler):  # type: ignore[misc]
        async def process(self, message: Any) -> tuple[int, Any]:
            headers = message.headers
            answer = await asyncio.get_running_loop().run_in_executor(
                None, receive, str(headers.topic or ""), str(headers.message_id or ""), dict(message.data or {})
            )
            return AckMessage.STATUS_OK, answer if answer is not None else {}

    class Client(dingtalk_stream.DingTalkStreamClient):  # type: ignore[misc]
        def open_connection(self) -> Any:
            found = super().open_connection()
            if isinstance(found, dict) and found.get("ticket"):
                keep_secret(str(found["ticket"]))  # the endpoint's ticket is a credential: never logged
            return found

    client = Client(dingtalk_stream.Credential(client_id, client_secret), logger=SDK_LOG)
    for topic in topics:
        client.register_callback_handler(topic, Handler())
    return client


class StreamConnection:
    """The SDK's client on a thread of its own, with an event loop of its own."""

    def __init__(self, client_id: str, client_secret: str, api_url: str, topics: list[str], receive: Receive) -> None:
        keep_secret(client_secret)
        self.client = _client(client_id, client_secret, api_url, topics, receive)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="dingtalk-stream", daemon=True)
        self.task: asyncio.Task[Any] | None = None
        self.failed: BaseException | None = None
        self.stopping = False
        SDK_LOG.addFilter(self._quiet)

    def _quiet(self, _record: logging.LogRecord) -> bool:
        return not self.stopping

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.task = self.loop.create_task(self.client.start())
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass  # stop()
        except Exception as exc:  # said by state() and the log
            self.failed = exc
            log.error("DingTalk's Stream connection failed: %s", type(exc).__name__)
        finally:
            left = asyncio.all_tasks(self.loop)  # the SDK's keepalive and frames still being answered
            for task in left:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            self.loop.close()

    def start(self) -> None:
        self.thread.start()

    def connected(self) -> bool:
        socket = getattr(self.client, "websocket", None)
        return socket is not None and getattr(socket, "close_code", 1) is None

    def state(self) -> str:
        if self.failed is not None:
            return f"failed: {type(self.failed).__name__}"
        return "connected" if self.connected() else "connecting"

    def stop(self, timeout: float = 5.0) -> None:
        """The SDK's loop takes a cancel while connected as a network error and waits 10 s to reconnect: its task
        is cancelled until it ends (the WebSocket closed as its `async with` is left)."""
        self.stopping = True  # the SDK logs the cancel as a network error: not one
        deadline = time.monotonic() + timeout
        while self.thread.is_alive() and time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                self.loop.call_soon_threadsafe(self._cancel)
            self.thread.join(0.05)
        SDK_LOG.removeFilter(self._quiet)

    def _cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
