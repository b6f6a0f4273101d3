"""A fake WeCom robot long connection on 127.0.0.1 that speaks the frames the official AI-bot SDK speaks: the
subscribe frame (aibot_subscribe with bot_id and secret, answered errcode 0 or 40001 and closed), the heartbeat
(ping), pushed messages (aibot_msg_callback) and template-card clicks (aibot_event_callback with
template_card_event), and what the robot sends back (aibot_send_msg, answered with a receipt; aibot_respond_update_msg
in answer to a click, refused after WeCom's 5 s). Past 30 messages a minute to one chat, WeCom drops what is sent
without a word: the fake does the same, and counts what it dropped."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from tests.support.servers import running, running_websocket

BOT_ID, BOT_SECRET = "aibRk2xYpQ8mN4vL7tZc", "Wc-secret-of-the-robot-9fK3mPq7sT2vX6yB1"
UPDATE_WINDOW_S = 5.0
# a markdown message's content: "最长不超过4096个字节，必须是utf8编码"; WeCom answers 40058 past it
MARKDOWN_LIMIT = 4096


@dataclass
class Sent:
    chat: str
    body: dict[str, Any]
    at: float
    updates: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)  # (card, userids) after clicks

    @property
    def card(self) -> dict[str, Any]:
        latest = next((card for card, users in reversed(self.updates) if not users), None)
        return latest or self.body.get("template_card") or {}

    @property
    def text(self) -> str:
        card = self.card
        if card:
            return f"{card.get('main_title', {}).get('title', '')}\n{card.get('sub_title_text', '')}"
        return str((self.body.get("markdown") or {}).get("content") or "")

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return list(self.card.get("button_list") or [])

    def button(self, starts: str) -> dict[str, Any]:
        return next(b for b in self.buttons if b["text"].startswith(starts))


@dataclass
class FakeWeCom:
    url: str = ""
    sent: list[Sent] = field(default_factory=list)
    dropped: int = 0
    subscribed: int = 0
    connections: list[Any] = field(default_factory=list)
    pushed: dict[str, float] = field(default_factory=dict)  # a pushed frame's req_id -> when
    pushed_bodies: dict[str, dict[str, Any]] = field(default_factory=dict)  # a pushed frame's req_id -> its body
    replies: int = 0  # messages sent as replies (aibot_respond_msg)
    updated: dict[str, float] = field(default_factory=dict)  # a pushed click's req_id -> when its card was updated
    refused_updates: int = 0
    last_click: str = ""  # the req_id of the last click pushed
    files_url: str = ""  # where WeCom's file server (encrypted files) listens
    files: dict[str, bytes] = field(default_factory=dict)  # a file's path there -> its encrypted bytes
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> Any:
        with self._changed:
            if not self._changed.wait_for(predicate, timeout):
                raise AssertionError("the fake WeCom never saw what was waited for")
            return predicate()

    def to(self, chat: str) -> list[Sent]:
        return [s for s in self.sent if s.chat == chat]

    def by_task(self, task_id: str) -> Sent:
        return next(s for s in self.sent if (s.body.get("template_card") or {}).get("task_id") == task_id)

    def _push(self, cmd: str, body: dict[str, Any], to: int = -1) -> str:
        req_id = f"{cmd}_{next(self._ids)}"
        with self._changed:
            self.pushed[req_id] = time.monotonic()
            self.pushed_bodies[req_id] = body
        self.connections[to].send(json.dumps({"cmd": cmd, "headers": {"req_id": req_id}, "body": body}))
        return req_id

    def message(
        self,
        text: str,
        user: str,
        *,
        group: str | None = None,
        msgid: str | None = None,
        kind: dict[str, Any] | None = None,
    ) -> str:
        """A message to the robot (in `group`, @mentioning it; else the person's chat with it): its msgid."""
        body: dict[str, Any] = {
            "msgid": msgid or f"msg{next(self._ids)}",
            "aibotid": BOT_ID,
            "chattype": "group" if group else "single",
            "from": {"userid": user},
            "response_url": "https://qyapi.weixin.qq.com/cgi-bin/aibot/response?response_code=x",
            "msgtype": "text",
            "text": {"content": f"@GPU助手 {text}" if group else text},  # the robot @mentioned by its name
        }
        if group:
            body["chatid"] = group
        if kind:  # another kind of message (voice, a picture): its msgtype and content instead of the text
            body = {k: v for k, v in body.items() if k != "text"} | kind
        self._push("aibot_msg_callback", body)
        return str(body["msgid"])

    def file_message(self, name: str, data: bytes, user: str, *, group: str | None = None) -> str:
        """A file sent to the robot, as WeCom sends one: encrypted with a key of its own (AES-256-CBC, the IV the
        key's first 16 bytes, PKCS#7 to 32 bytes) at an address the message carries with the key: its msgid."""
        key = os.urandom(32)
        padding = 32 - len(data) % 32
        padded = data + bytes([padding]) * padding
        encryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).encryptor()
        path = f"/cgi-bin/file/{next(self._ids)}?sign=s{os.urandom(8).hex()}&expires=1800"  # a signed address
        self.files[path] = encryptor.update(padded) + encryptor.finalize()
        body: dict[str, Any] = {
            "msgid": f"file{next(self._ids)}",
            "aibotid": BOT_ID,
            "chattype": "group" if group else "single",
            "from": {"userid": user},
            "msgtype": "file",
            "file": {"url": self.files_url + path, "aeskey": base64.b64encode(key).decode()},
        }
        if group:
            body["chatid"] = group
        self._push("aibot_msg_callback", body)
        return str(body["msgid"])

    def click(self, sent: Sent, button: dict[str, Any], user: str, msgid: str | None = None, to: int = -1) -> str:
        """A click on a button of a card (pushed to the latest connection, or the `to`-th): its msgid."""
        card = sent.card
        body: dict[str, Any] = {
            "msgid": msgid or f"evt{next(self._ids)}",
            "create_time": int(time.time()),
            "aibotid": BOT_ID,
            "chattype": "single" if sent.chat == user else "group",
            "from": {"userid": user},
            "msgtype": "event",
            "event": {
                "eventtype": "template_card_event",
                "template_card_event": {
                    "card_type": card.get("card_type"),
                    "event_key": button["key"],
                    "task_id": card.get("task_id"),
                },
            },
        }
        if body["chattype"] == "group":
            body["chatid"] = sent.chat
        self.last_click = self._push("aibot_event_callback", body, to)
        return str(body["msgid"])

    def answer(self, frame: dict[str, Any]) -> dict[str, Any] | None:
        cmd, req_id = frame.get("cmd"), str((frame.get("headers") or {}).get("req_id") or "")
        body = frame.get("body") or {}
        receipt = {"headers": {"req_id": req_id}, "errcode": 0, "errmsg": "ok"}
        if cmd == "ping":
            return receipt
        markdown = str((body.get("markdown") or {}).get("content") or "")
        if cmd in ("aibot_send_msg", "aibot_respond_msg") and len(markdown.encode()) > MARKDOWN_LIMIT:
            return receipt | {"errcode": 40058, "errmsg": f"markdown.content exceed max length {MARKDOWN_LIMIT}"}
        if cmd == "aibot_send_msg":
            chat, now = str(body.get("chatid") or ""), time.monotonic()
            recent = [s for s in self.sent if s.chat == chat and s.at > now - 60]
            if len(recent) >= 30:
                self.dropped += 1  # over WeCom's limit: answered, and never shown
            else:
                self.sent.append(Sent(chat, {k: v for k, v in body.items() if k != "chatid"}, now))
            return receipt
        if cmd == "aibot_respond_msg":  # a reply to a pushed message: shown in that message's chat
            asked = self.pushed_bodies.get(req_id)
            if asked is None or asked.get("msgtype") == "event":
                return receipt | {"errcode": 40008, "errmsg": "invalid req_id for a reply"}
            chat = str(asked.get("chatid") or (asked.get("from") or {}).get("userid") or "")
            self.sent.append(Sent(chat, dict(body), time.monotonic()))
            self.replies += 1
            return receipt
        if cmd == "aibot_respond_update_msg":
            pushed = self.pushed.get(req_id)
            if pushed is None or time.monotonic() - pushed > UPDATE_WINDOW_S:
                self.refused_updates += 1
                return receipt | {"errcode": 600039, "errmsg": "reply after 5s or invalid req_id"}
            card = body.get("template_card") or {}
            target = self.by_task(str(card.get("task_id") or ""))
            target.updates.append((card, list(body.get("userids") or [])))
            self.updated[req_id] = time.monotonic()
            return receipt
        return receipt | {"errcode": 40008, "errmsg": f"invalid cmd {cmd}"}


@contextmanager
def fake_wecom() -> Iterator[FakeWeCom]:
    from websockets.exceptions import ConnectionClosed

    fake = FakeWeCom()

    def handler(connection: Any) -> None:
        first = json.loads(connection.recv(timeout=10))
        req_id = (first.get("headers") or {}).get("req_id")
        body = first.get("body") or {}
        if first.get("cmd") != "aibot_subscribe" or (body.get("bot_id"), body.get("secret")) != (BOT_ID, BOT_SECRET):
            connection.send(json.dumps({"headers": {"req_id": req_id}, "errcode": 40001, "errmsg": "invalid secret"}))
            connection.close()
            return
        with fake._changed:  # known before the client hears it is subscribed (it may be pushed to at once)
            fake.subscribed += 1
            fake.connections.append(connection)
            fake._changed.notify_all()
        connection.send(json.dumps({"headers": {"req_id": req_id}, "errcode": 0, "errmsg": "ok"}))
        with contextlib.suppress(ConnectionClosed):  # a client killed without a close frame
            for raw in connection:
                with fake._changed:
                    answer = fake.answer(json.loads(raw))
                    fake._changed.notify_all()
                if answer is not None:
                    connection.send(json.dumps(answer))

    class Files(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = fake.files.get(self.path)
            self.send_response(200 if found is not None else 404)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Disposition", 'attachment; filename="capture.csv"')
            self.send_header("Content-Length", str(len(found or b"")))
            self.end_headers()
            self.wfile.write(found or b"")

        def log_message(self, *args: object) -> None:
            return

    with running_websocket(handler) as ws_url, running(Files) as files_url:
        fake.url, fake.files_url = ws_url, files_url
        yield fake
