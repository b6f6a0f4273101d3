"""WeCom's long connection through the official AI-bot SDK (aibot.WSClient): it subscribes with the robot's Bot ID
and Secret, keeps its heartbeat, reconnects, and hands each message (aibot_msg_callback) and event
(aibot_event_callback: a template card's click) to `receive`, on a thread of the process so the SDK's loop keeps
reading. Sends (`aibot_send_msg`) and card updates (`aibot_respond_update_msg`, in answer to a click's frame) are
the SDK's own calls, run on its loop from the bot's threads; each waits for WeCom's receipt.

The SDK opens every address with its certifi context; here it is the bot's (bot/tls.py: SSL_CERT_FILE where set),
and a ws:// address on the loopback (a local fake) goes without TLS. Its logger is the bot's (bot.wecom.sdk), and
the secret is kept from every log line (bot/logs.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

from bot.logs import keep_secret
from bot.tls import shared_context

log = logging.getLogger(__name__)
SDK_LOG = logging.getLogger("bot.wecom.sdk")
CALL_TIMEOUT_S = 8.0  # the SDK waits 5 s for a receipt; a little more for the loop to hand it back


class WeComRefused(Exception):
    """WeCom refused a send or an update, or gave no receipt: `code` is its errcode (or "timeout", "closed")."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


# a file message's key and address, in the frames the SDK logs at DEBUG: together they open the person's file
_FILE_FIELDS = re.compile(r'("(?:aeskey|url)"\s*:\s*")[^"]*(")')


class _Logger:
    """The SDK's logger protocol (debug, info, warn, error) on the bot's logging; a file's key and address are
    left out of the frames it logs."""

    def debug(self, message: str, *args: object) -> None:
        SDK_LOG.debug("%s", _FILE_FIELDS.sub(r"\1[redacted]\2", message))

    def info(self, message: str, *args: object) -> None:
        SDK_LOG.info("%s", message)

    def warn(self, message: str, *args: object) -> None:
        SDK_LOG.warning("%s", message)

    def error(self, message: str, *args: object) -> None:
        SDK_LOG.error("%s", message)


class WeComConnection:
    def __init__(self, bot_id: str, secret: str, ws_url: str, receive: Callable[[dict[str, Any]], None]) -> None:
        import aibot
        import aibot.ws

        keep_secret(secret)
        aibot.ws._SSL_CONTEXT = None if ws_url.startswith("ws://") else shared_context()
        options = aibot.WSClientOptions(
            bot_id=bot_id, secret=secret, ws_url=ws_url, logger=_Logger(), max_reconnect_attempts=-1
        )
        self.loop = asyncio.new_event_loop()
        self.client = aibot.WSClient(options)
        self.receive = receive
        self.authenticated = threading.Event()
        self.answered = threading.Event()  # the subscription was answered, either way (or the connection failed)
        self.failed: str | None = None
        self.client.on("authenticated", self._authenticated)
        self.client.on("message", self._frame)
        self.client.on("event", self._frame)
        self.client.on("error", self._error)
        self.thread = threading.Thread(target=self._run, name="wecom-ws", daemon=True)

    def _authenticated(self) -> None:
        self.failed = None
        self.authenticated.set()
        self.answered.set()

    def _error(self, error: Exception) -> None:
        self.failed = str(error)[:200]
        self.answered.set()

    def _frame(self, frame: dict[str, Any]) -> None:
        self.loop.run_in_executor(None, self.receive, frame)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.create_task(self.client.connect())
        try:
            self.loop.run_forever()
        finally:
            left = asyncio.all_tasks(self.loop)
            for task in left:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            self.loop.close()

    def start(self) -> None:
        if self.thread.ident is None:  # once: serve's check may have started it
            self.thread.start()

    def subscribed(self, timeout: float) -> bool:
        """Started if it was not, then whether WeCom took the subscription within `timeout` (`failed` says why
        not)."""
        self.start()
        self.answered.wait(timeout)
        return self.authenticated.is_set()

    def state(self) -> str:
        if self.client.is_connected and self.authenticated.is_set():
            return "connected"
        return f"failed: {self.failed}" if self.failed else "connecting"

    def _call(self, coroutine: Coroutine[Any, Any, Any]) -> dict[str, Any]:
        self.start()  # the terminal's wing: connected at its first send
        if not self.authenticated.wait(CALL_TIMEOUT_S):
            coroutine.close()
            raise WeComRefused("not_connected", self.failed or "the long connection is not subscribed")
        try:
            done = asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(CALL_TIMEOUT_S)
        except TimeoutError as exc:
            raise WeComRefused("timeout", "no receipt from WeCom") from exc
        except RuntimeError as exc:  # the SDK's "Reply ack error: errcode=…", or the connection closed
            text = str(exc)
            code = text.split("errcode=", 1)[1].split(",", 1)[0] if "errcode=" in text else "closed"
            raise WeComRefused(code, text) from exc
        return done if isinstance(done, dict) else {}

    def send(self, chat_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """A message to a group chat or a person (their userid), unasked (aibot_send_msg): its receipt."""
        return self._call(self.client.send_message(chat_id, body))

    def reply(self, frame: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """An answer to the message `frame` carried (aibot_respond_msg, the SDK's reply): its receipt."""
        return self._call(self.client.reply(frame, body))

    def update_card(self, frame: dict[str, Any], card: dict[str, Any], userids: list[str] | None = None) -> None:
        """A template card changed in answer to the click that `frame` carried (within WeCom's 5 s): for everyone,
        or for `userids` alone."""
        self._call(self.client.update_template_card(frame, card, userids))

    def stop(self, timeout: float = 5.0) -> None:
        if not self.thread.is_alive():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self.loop.call_soon_threadsafe(self.client.disconnect)
            self.loop.call_soon_threadsafe(self.loop.call_later, 0.1, self.loop.stop)
        deadline = time.monotonic() + timeout
        while self.thread.is_alive() and time.monotonic() < deadline:
            self.thread.join(0.05)
