"""A fake Feishu/Lark Open API on 127.0.0.1 that records every call (the paths, bodies and answers of the real one:
tenant_access_token/internal, im/v1/messages create, reply and patch, ephemeral/v1/send, contact batch_get_id),
and a sender of callbacks to /feishu/events encrypted and signed as Feishu does (AES-256-CBC under SHA-256 of the
encrypt key, X-Lark-Signature = SHA-256 of timestamp + nonce + encrypt key + body)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from bot.tls import shared_context
from tests.support.servers import running

TOKEN = "t-g1044ghJRUIJJ5ELPFZ5ZUOHFR6QUCMYPQEFLEUD"  # the shape of a tenant access token
# a card's request body: "卡片及富文本消息请求体最大不能超过30KB" (im/v1/messages create and reply), 230025 past it
CARD_LIMIT = 30 * 1024


@dataclass
class Call:
    method: str  # e.g. messages.create, messages.reply, messages.patch
    path: str
    query: dict[str, str]
    body: dict[str, Any]
    auth: str
    status: int = 0  # how the fake answered it
    size: int = 0  # the request body's bytes
    at: float = field(default_factory=time.monotonic)  # when it came (the clock of pace and rate limits)

    @property
    def card(self) -> dict[str, Any]:
        return json.loads(self.body.get("content") or "{}")


@dataclass
class FakeFeishu:
    base_url: str = ""
    calls: list[Call] = field(default_factory=list)
    not_member: set[str] = field(default_factory=set)  # chats where a send answers 230002 (bot not in the chat)
    rate_limit_once: set[str] = field(default_factory=set)  # methods answered 99991400 (HTTP 429) the first time
    down: set[str] = field(default_factory=set)  # methods answered HTTP 503 until taken out (Feishu down for them)
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)  # (message_id, file_key) -> a sent file's bytes
    token: str = TOKEN  # the tenant access token Feishu takes now; revoke() makes it another
    lose_answer_once: set[str] = field(default_factory=set)  # methods done the first time, but answered 502
    connections: int = 0  # TCP connections accepted (Feishu's servers keep a connection open between calls)

    def revoke(self) -> None:
        """The tenant's token revoked (an admin reset the app's secret, the app re-installed): the one handed out
        so far is refused with 99991663 until a new one is asked for."""
        self.token = TOKEN + "-renewed"

    app_secret: str = "s3cr3t-app-secret-value"
    users: dict[str, dict[str, Any]] = field(default_factory=dict)  # open_id -> contact user fields
    chats: dict[str, dict[str, Any]] = field(default_factory=dict)  # chat_id -> owner_id, user_manager_id_list
    delays: dict[str, float] = field(default_factory=dict)  # method -> seconds before it is answered
    topic_groups: set[str] = field(default_factory=set)  # chats that are topic groups (no ephemeral card there)
    held: list[str] = field(default_factory=list)  # methods of the calls a delay held, from when they arrived
    ws_url: str = ""  # the long connection's server (ws_server()), handed out by /callback/ws/endpoint
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _by_uuid: dict[str, dict[str, Any]] = field(default_factory=dict)  # a send's uuid -> the message it made
    _answered: threading.Condition = field(default_factory=threading.Condition)

    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        with self._answered:
            while not (found := predicate()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"not seen in {timeout} s; calls: {[c.method for c in self.calls]}")
                self._answered.wait(min(left, 0.5))
        return found

    def answer(self, call: Call) -> tuple[int, dict[str, Any]]:
        if call.method == "ws.endpoint":
            if call.body.get("AppSecret") != self.app_secret:
                return 200, {"code": 514, "msg": "auth failed"}
            url = f"{self.ws_url}/ws?device_id=d-1&service_id=7"
            config = {"ReconnectCount": 3, "ReconnectInterval": 1, "ReconnectNonce": 1, "PingInterval": 120}
            return 200, {"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": config}}
        if call.method == "auth.tenant_token":
            if call.body.get("app_secret") != self.app_secret:
                return 200, {"code": 10014, "msg": "app secret invalid"}
            return 200, {"code": 0, "msg": "ok", "tenant_access_token": self.token, "expire": 7200}
        if call.auth != f"Bearer {self.token}":
            return 401, {"code": 99991663, "msg": "Invalid access token for authorization"}
        if call.method in self.down:
            return 503, {"code": 99991672, "msg": "service unavailable"}
        if call.method in self.rate_limit_once:
            self.rate_limit_once.discard(call.method)
            return 429, {"code": 99991400, "msg": "request trigger frequency limit"}
        if call.method == "messages.create" and call.body.get("receive_id") in self.not_member:
            return 400, {"code": 230002, "msg": "Bot/User can NOT be out of the chat."}
        if call.method in ("messages.create", "messages.reply", "messages.patch") and call.size > CARD_LIMIT:
            return 400, {"code": 230025, "msg": "The length of the message content reaches its limit"}
        if call.method in ("messages.create", "messages.reply"):
            uuid = str(call.body.get("uuid") or "")
            if uuid and uuid in self._by_uuid:  # one message for every send of one uuid (within the hour)
                call.body["_repeat"] = True
                return 200, {"code": 0, "msg": "success", "data": self._by_uuid[uuid]}
            message_id = f"om_{next(self._ids):032x}"  # Feishu's ids: om_/oc_/ou_ and 32 hex digits
            data = {"message_id": message_id, "msg_type": "interactive"}
            if call.method == "messages.create":  # the chat it went into: a person's direct chat with the bot
                to = str(call.body.get("receive_id", ""))
                data["chat_id"] = self.direct_chat(to) if call.query.get("receive_id_type") == "open_id" else to
            if uuid:
                self._by_uuid[uuid] = data
            return 200, {"code": 0, "msg": "success", "data": data}
        if call.method == "messages.patch":
            return 200, {"code": 0, "msg": "success", "data": {}}
        if call.method == "ephemeral.send":  # a card one member of a group sees: groups only, the card an object
            body, chat = call.body, str(call.body.get("chat_id") or "")
            if body.get("msg_type") != "interactive" or not isinstance(body.get("card"), dict):
                return 400, {"code": 9499, "msg": "invalid param: msg_type interactive and a card object"}
            if chat == self.direct_chat(str(body.get("open_id") or "")) or chat in self.topic_groups:
                # Feishu sends no ephemeral card in a direct chat or a topic group (the bot falls back on any
                # refusal, so the exact code is not relied on)
                return 400, {"code": 11247, "msg": "chat type not supported"}
            return 200, {"code": 0, "msg": "success", "data": {"message_id": f"om_{next(self._ids):032x}"}}
        if call.method == "files.create":
            return 200, {"code": 0, "msg": "success", "data": {"file_key": f"file_v3_{next(self._ids):08x}"}}
        if call.method == "images.create":
            return 200, {"code": 0, "msg": "success", "data": {"image_key": f"img_v3_{next(self._ids):08x}"}}
        if call.method == "messages.resources.get":
            message_id, _, key = call.path.removeprefix("/open-apis/im/v1/messages/").partition("/resources/")
            if (message_id, key) not in self.files or call.query.get("type") != "file":
                return 400, {"code": 234003, "msg": "File not in msg."}
            return 200, {"_bytes": self.files[(message_id, key)]}
        if call.method == "contact.users.batch_get_id":
            found = [
                {"user_id": user_id, "email": email}
                for email in call.body.get("emails") or []
                for user_id, user in self.users.items()
                if user.get("email") == email
            ]
            return 200, {"code": 0, "msg": "success", "data": {"user_list": found}}
        if call.method == "contact.users.get":
            user = self.users.get(call.path.rsplit("/", 1)[1])
            if user is None:
                return 400, {"code": 41050, "msg": "no user authority error"}
            return 200, {"code": 0, "msg": "success", "data": {"user": user}}
        if call.method == "chats.get":
            chat = self.chats.get(call.path.rsplit("/", 1)[1])
            if chat is None:
                return 400, {"code": 232011, "msg": "operator can NOT be out of the chat."}
            return 200, {"code": 0, "msg": "success", "data": {"owner_id_type": "open_id", **chat}}
        return 404, {"code": 404, "msg": f"not faked: {call.method}"}

    @staticmethod
    def direct_chat(open_id: str) -> str:
        """The direct chat between a person and the bot (Feishu makes one the first time either writes)."""
        return "oc_" + hashlib.sha256(open_id.encode()).hexdigest()[:32]

    def sent(self) -> list[Call]:
        """The sends that made a message: answered, and not repeating a uuid (answered with the first one's)."""
        return [
            c
            for c in self.calls
            if c.method in ("messages.create", "messages.reply")
            and (c.status == 200 or c.body.get("_made"))
            and not c.body.get("_repeat")
        ]


def _method(verb: str, path: str) -> str:
    if path == "/callback/ws/endpoint":
        return "ws.endpoint"
    if path == "/open-apis/auth/v3/tenant_access_token/internal":
        return "auth.tenant_token"
    if path == "/open-apis/im/v1/messages" and verb == "POST":
        return "messages.create"
    if path == "/open-apis/ephemeral/v1/send" and verb == "POST":
        return "ephemeral.send"
    if path.startswith("/open-apis/im/v1/messages/") and path.endswith("/reply"):
        return "messages.reply"
    if path.startswith("/open-apis/im/v1/messages/") and verb == "PATCH":
        return "messages.patch"
    if path == "/open-apis/contact/v3/users/batch_get_id":
        return "contact.users.batch_get_id"
    if path.startswith("/open-apis/contact/v3/users/") and verb == "GET":
        return "contact.users.get"
    if path.startswith("/open-apis/im/v1/chats/") and verb == "GET":
        return "chats.get"
    if path == "/open-apis/im/v1/images" and verb == "POST":
        return "images.create"
    if path == "/open-apis/im/v1/files" and verb == "POST":
        return "files.create"
    if path.startswith("/open-apis/im/v1/messages/") and "/resources/" in path and verb == "GET":
        return "messages.resources.get"
    return f"{verb} {path}"


@contextmanager
def fake_feishu(port: int = 0) -> Iterator[FakeFeishu]:
    fake = FakeFeishu()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Feishu's servers answer: a client may reuse its connection
        disable_nagle_algorithm = True  # headers and body are two writes: on a kept connection Nagle held the second

        def setup(self) -> None:
            super().setup()
            with fake._answered:
                fake.connections += 1

        def _serve(self, verb: str) -> None:
            parts = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:  # an upload (multipart): its size is enough to look at
                body = {"_size": len(raw)}
            call = Call(
                _method(verb, parts.path),
                parts.path,
                dict(parse_qsl(parts.query)),
                body,
                self.headers.get("Authorization", ""),
                size=len(raw),
            )
            if fake.delays.get(call.method):
                fake.held.append(call.method)
                time.sleep(fake.delays[call.method])
            status, body = fake.answer(call)
            if status == 200 and call.method in fake.lose_answer_once:  # done, and the answer lost on its way back
                fake.lose_answer_once.discard(call.method)
                call.body["_made"] = True
                status, body = 502, {"code": 502, "msg": "bad gateway"}
            call.status = status
            if status == 200 and (body.get("data") or {}).get("message_id"):
                call.body["_message_id"] = body["data"]["message_id"]
            fake.calls.append(call)
            kind = "application/json; charset=utf-8"
            if "_bytes" in body:  # a file's bytes, as the message-resource API streams them
                payload, kind = body["_bytes"], "application/octet-stream"
            else:
                payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            with fake._answered:
                fake._answered.notify_all()

        def do_POST(self) -> None:
            self._serve("POST")

        def do_GET(self) -> None:
            self._serve("GET")

        def do_PATCH(self) -> None:
            self._serve("PATCH")

        def log_message(self, *args: object) -> None:
            return

    with running(Handler, port) as base_url:
        fake.base_url = base_url
        yield fake


def encrypt(plaintext: bytes, key: str) -> str:
    """Feishu's encryption of a callback body: base64(IV + AES-256-CBC(PKCS#7(plaintext))), key = SHA-256(key)."""
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    data = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(hashlib.sha256(key.encode()).digest()), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + encryptor.update(data) + encryptor.finalize()).decode()


@dataclass
class FeishuSender:
    """Sends callbacks to serve's /feishu/events as Feishu does."""

    url: str
    encrypt_key: str
    verification_token: str
    tenant: str = "2ed263bf32cf1651"
    ws: WsServer | None = None  # set: callbacks go over the long connection instead of HTTP
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _http: httpx.Client = field(
        default_factory=lambda: httpx.Client(timeout=10, verify=shared_context())
    )  # one, kept alive

    def post(
        self, payload: dict[str, Any], *, signature: str | None = None, timestamp: int | None = None
    ) -> httpx.Response:
        if self.ws is not None:  # the long connection: the frame's response, as an HTTP answer would carry it
            answer = self.ws.push(payload)
            return httpx.Response(answer.get("code", 500), json=answer.get("answer") or {})
        body = json.dumps({"encrypt": encrypt(json.dumps(payload).encode(), self.encrypt_key)}).encode()
        stamp, nonce = str(timestamp if timestamp is not None else int(time.time())), "nonce-" + str(next(self._ids))
        signed = hashlib.sha256((stamp + nonce + self.encrypt_key).encode() + body).hexdigest()
        headers = {
            "Content-Type": "application/json",
            "X-Lark-Request-Timestamp": stamp,
            "X-Lark-Request-Nonce": nonce,
            "X-Lark-Signature": signed if signature is None else signature,
        }
        return self._http.post(self.url, content=body, headers=headers)

    def header(self, event_type: str, event_id: str | None = None, tenant: str | None = None) -> dict[str, Any]:
        return {
            "event_id": event_id or f"ev_{next(self._ids):06d}",
            "event_type": event_type,
            "create_time": str(int(time.time() * 1000)),
            "token": self.verification_token,
            "app_id": "cli_a1b2c3d4e5f6",
            "tenant_key": tenant or self.tenant,
        }

    def message(
        self,
        text: str,
        *,
        user: str = "ou_starter",
        chat: str = "oc_dm1",
        chat_type: str = "p2p",
        root: str | None = None,
        event_id: str | None = None,
        tenant: str | None = None,
        mentions: list[dict[str, Any]] | None = None,
    ) -> httpx.Response:
        message: dict[str, Any] = {
            "message_id": f"om_user_{next(self._ids)}",
            "chat_id": chat,
            "chat_type": chat_type,
            "message_type": "text",
            "content": json.dumps({"text": text}),
        }
        if root:
            message |= {"root_id": root, "parent_id": root}
        if mentions:
            message["mentions"] = mentions
        event = {
            "sender": {"sender_id": {"open_id": user}, "sender_type": "user", "tenant_key": tenant or self.tenant},
            "message": message,
        }
        payload = {"schema": "2.0", "header": self.header("im.message.receive_v1", event_id, tenant), "event": event}
        return self.post(payload)

    def file(
        self, key: str, name: str, *, root: str, user: str = "ou_starter", chat: str = "oc_dm1", message_id: str
    ) -> httpx.Response:
        """A file sent as a reply in the thread under `root` (message_type file: its key and name, no bytes)."""
        message = {
            "message_id": message_id,
            "root_id": root,
            "parent_id": root,
            "chat_id": chat,
            "chat_type": "p2p" if chat == "oc_dm1" else "group",
            "message_type": "file",
            "content": json.dumps({"file_key": key, "file_name": name}),
        }
        event = {"sender": {"sender_id": {"open_id": user}, "sender_type": "user"}, "message": message}
        payload = {"schema": "2.0", "header": self.header("im.message.receive_v1"), "event": event}
        return self.post(payload)

    def press(
        self,
        button: dict[str, Any],
        *,
        user: str = "ou_starter",
        chat: str = "oc_dm1",
        message_id: str = "",
        tenant: str | None = None,
    ) -> httpx.Response:
        """A press of a card's button (its callback behaviour's value, as the card carries it)."""
        value = next(b["value"] for b in button["behaviors"] if b["type"] == "callback")
        return self._card_action({"value": value, "tag": "button"}, user, chat, message_id, tenant)

    def _card_action(
        self, action: dict[str, Any], user: str, chat: str, message_id: str, tenant: str | None
    ) -> httpx.Response:
        """A card.action.trigger callback for `action`, pressed by `user` on message `message_id` in `chat`."""
        event = {
            "operator": {"tenant_key": tenant or self.tenant, "open_id": user},
            "token": "c-0123456789abcdef",
            "action": action,
            "host": "im_message",
            "context": {"open_message_id": message_id, "open_chat_id": chat},
        }
        payload = {"schema": "2.0", "header": self.header("card.action.trigger", None, tenant), "event": event}
        return self.post(payload)

    def submit(
        self,
        card: dict[str, Any],
        values: dict[str, str],
        *,
        user: str = "ou_starter",
        chat: str = "oc_dm1",
        message_id: str = "",
        tenant: str | None = None,
    ) -> httpx.Response:
        """A form card submitted: its submit button's name, and the form's inputs as typed (blank ones as "")."""
        [form] = [e for e in card["body"]["elements"] if e.get("tag") == "form"]
        [submit] = [e for e in form["elements"] if e.get("form_action_type") == "submit"]
        typed = {
            e["name"]: values.get(e["name"], e.get("default_value", ""))
            for e in form["elements"]
            if e.get("tag") == "input"
        }
        action = {"tag": "button", "name": submit["name"], "form_value": typed}
        return self._card_action(action, user, chat, message_id, tenant)


def buttons(card: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in card["body"]["elements"] if e.get("tag") == "button"]


@dataclass
class WsServer:
    """Feishu's side of the long connection: frames in the SDK's own protobuf format (pbbp2.Frame), an event
    pushed as a DATA frame, and the client's response frame (its JSON, with a card action's answer in base64)."""

    url: str = ""
    connections: list[Any] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # message_id -> the response frame's JSON
    _seen: threading.Condition = field(default_factory=threading.Condition)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def wait_connected(self, timeout: float = 20.0) -> None:
        with self._seen:
            if not self._seen.wait_for(lambda: self.connections, timeout):
                raise AssertionError("the long connection never connected")

    def push(self, payload: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
        """Send an event frame; the client's response (code, and `answer`: the card action's decoded result)."""
        Frame = _frame_type()
        message_id = f"msg-{next(self._ids)}"
        frame = Frame(SeqID=1, LogID=1, service=7, method=1, payload=json.dumps(payload).encode())
        for key, value in (
            ("type", "event"),
            ("message_id", message_id),
            ("trace_id", "t-1"),
            ("sum", "1"),
            ("seq", "0"),
        ):
            header = frame.headers.add()
            header.key, header.value = key, value
        self.connections[-1].send(frame.SerializeToString())
        with self._seen:
            if not self._seen.wait_for(lambda: message_id in self.answers, timeout):
                raise AssertionError(f"no response frame for {message_id}")
        answer = self.answers[message_id]
        if answer.get("data"):
            answer["answer"] = json.loads(base64.b64decode(answer["data"]))
        return answer


def _frame_type() -> Any:
    """The SDK's protobuf frame. Entered without `lark_oapi.ws`'s __init__, which imports the ws client and,
    through it, every event processor of the SDK (about a second of CPU a test process)."""
    from bot.feishu.sdk import enter_without_init, load

    load()
    enter_without_init("lark_oapi.ws")
    from lark_oapi.ws.pb.pbbp2_pb2 import Frame

    return Frame


@contextmanager
def ws_server() -> Iterator[WsServer]:
    from websockets.sync.server import serve

    Frame = _frame_type()
    server = WsServer()

    def handler(connection: Any) -> None:
        with server._seen:
            server.connections.append(connection)
            server._seen.notify_all()
        for raw in connection:
            frame = Frame()
            frame.ParseFromString(raw)
            if frame.method != 1:
                continue  # the client's pings
            headers = {h.key: h.value for h in frame.headers}
            with server._seen:
                server.answers[headers["message_id"]] = json.loads(frame.payload)
                server._seen.notify_all()

    with serve(handler, "127.0.0.1", 0) as ws:
        server.url = f"ws://127.0.0.1:{ws.socket.getsockname()[1]}"
        thread = threading.Thread(target=ws.serve_forever, daemon=True)
        thread.start()
        try:
            yield server
        finally:
            ws.shutdown()
            thread.join(5)
