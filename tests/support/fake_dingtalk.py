"""A fake DingTalk on 127.0.0.1 that speaks what the official SDKs speak: the Stream gateway (POST
/v1.0/gateway/connections/open with the app's credentials, answering an endpoint and a ticket), the WebSocket
endpoint that pushes CALLBACK frames (headers.topic, headers.messageId, data as a JSON string) and reads the SDK's
acknowledgements (code, headers.messageId, data {"response": …}), and the OpenAPI the bot calls (the access token,
cards created and delivered, updated by key, the contacts searched), with DingTalk's error shapes: 401 for a token
it does not take, 429 with a QPS-limit code when throttled, 503 while a path is unavailable."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.servers import for_the_process, running_websocket

CLIENT_ID, CLIENT_SECRET = "dingabcdefghijklmno", "Xq7-secret-of-the-app-kL2mN9pQ4rS8tU1vW5yZ"
TOKEN = "c1f5e2b8a7d94e3f8b6a0d2c4e6f8a1b"  # the shape of an access token
TICKET = "b41c0d9e-5f7a-4c3b-9e2d-8a1f6b5c3d70"
CORP = "ding8f1e2d3c4b5a6978"
BOT_MESSAGE, CARD_CALLBACK = "/v1.0/im/bot/messages/get", "/v1.0/card/instances/callback"


@dataclass
class Card:
    out_track_id: str
    space: str  # dtv1.card//IM_GROUP.<conversation> or dtv1.card//IM_ROBOT.<userId>
    template: str
    params: dict[str, str]
    updates: int = 0

    @property
    def buttons(self) -> list[dict[str, str]]:
        return list(json.loads(self.params.get("sys_full_json_obj") or "{}").get("msgButtons") or [])

    def button(self, starts: str) -> dict[str, str]:
        return next(b for b in self.buttons if b["text"].startswith(starts))


@dataclass
class FakeDingTalk:
    base_url: str = ""
    ws_url: str = ""
    cards: dict[str, Card] = field(default_factory=dict)  # by outTrackId, in the order delivered
    calls: list[tuple[str, str]] = field(default_factory=list)  # (verb, path) of every OpenAPI call
    throttle: int = 0  # calls answered 429 (QPS limit) before the next one is taken
    unavailable: dict[str, int] = field(default_factory=dict)  # "VERB /path" -> calls answered 503 before one is taken
    users: dict[str, str] = field(default_factory=dict)  # what a contact search finds (an address) -> userId
    group_owners: dict[str, str] = field(default_factory=dict)  # a group's openConversationId -> its owner
    files: dict[str, bytes] = field(default_factory=dict)  # a file message's downloadCode -> its bytes
    tickets: set[str] = field(default_factory=lambda: {TICKET})
    connections: list[Any] = field(default_factory=list)
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)  # frame messageId -> the SDK's acknowledgement
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def in_space(self, space: str) -> list[Card]:
        return [c for c in self.cards.values() if c.space == space]

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> Any:
        with self._changed:
            if not self._changed.wait_for(predicate, timeout):
                raise AssertionError("the fake DingTalk never saw what was waited for")
            return predicate()

    def wait_connected(self, timeout: float = 10.0) -> None:
        self.wait_for(lambda: self.connections, timeout)

    # --- the OpenAPI ---

    def answer(self, verb: str, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        self.calls.append((verb, path))
        if path == "/v1.0/gateway/connections/open" and verb == "POST":
            if (body.get("clientId"), body.get("clientSecret")) != (CLIENT_ID, CLIENT_SECRET):
                return 401, {"code": "invalidClientIdOrSecret", "message": "无效的clientId或clientSecret"}
            topics = {s.get("topic") for s in body.get("subscriptions") or []}
            if not {BOT_MESSAGE, CARD_CALLBACK} <= topics:
                return 400, {"code": "invalidSubscription", "message": f"subscribed to {sorted(topics)}"}
            return 200, {"endpoint": self.ws_url, "ticket": TICKET}
        if path == "/v1.0/oauth2/accessToken" and verb == "POST":
            if (body.get("appKey"), body.get("appSecret")) != (CLIENT_ID, CLIENT_SECRET):
                return 400, {"code": "invalidClientIdOrSecret", "message": "无效的clientId或clientSecret"}
            return 200, {"accessToken": TOKEN, "expireIn": 7200}
        if path.startswith("/download/") and verb == "GET":  # a file's address: no token, as DingTalk's
            found = self.files.get(path.removeprefix("/download/"))
            return (200, found) if found is not None else (404, {"code": "fileNotFound", "message": "文件不存在"})
        if headers.get("x-acs-dingtalk-access-token") != TOKEN:
            return 401, {"code": "InvalidAuthentication", "message": "不合法的access_token"}
        if self.throttle > 0:
            self.throttle -= 1
            return 429, {"code": "Forbidden.AccessDenied.QpsLimitForApi", "message": "调用接口超过QPS限制"}
        if self.unavailable.get(f"{verb} {path}", 0) > 0:
            self.unavailable[f"{verb} {path}"] -= 1
            return 503, {"code": "ServiceUnavailable", "message": "服务暂不可用"}
        if path == "/v1.0/card/instances/createAndDeliver" and verb == "POST":
            return self._deliver(body)
        if path == "/v1.0/card/instances" and verb == "PUT":
            card = self.cards.get(str(body.get("outTrackId")))
            if card is None:
                return 400, {"code": "param.cardNotExist", "message": "卡片不存在"}
            given = (body.get("cardData") or {}).get("cardParamMap") or {}
            by_key = (body.get("cardUpdateOptions") or {}).get("updateCardDataByKey")
            card.params = {**card.params, **given} if by_key else dict(given)
            card.updates += 1
            return 200, {"success": True, "result": True}
        if path == "/v1.0/robot/messageFiles/download" and verb == "POST":
            code = str(body.get("downloadCode") or "")
            if code not in self.files or body.get("robotCode") != CLIENT_ID:
                return 400, {"code": "invalidParameter.downloadCode", "message": "下载码无效"}
            return 200, {"downloadUrl": f"{self.base_url}/download/{code}"}
        if path == "/v1.0/im/sceneGroups/query" and verb == "POST":
            owner = self.group_owners.get(str(body.get("openConversationId")))
            if owner is None:
                return 400, {"code": "invalidParameter.openConversationId", "message": "群不存在"}
            return 200, {"openConversationId": body["openConversationId"], "ownerUserId": owner, "title": "GPU"}
        if path == "/v1.0/contact/users/search" and verb == "POST":
            found = self.users.get(str(body.get("queryWord")))
            return 200, {"hasMore": False, "totalCount": int(found is not None), "list": [found] if found else []}
        return 404, {"code": "InvalidAction.NotFound", "message": f"{verb} {path}"}

    def _deliver(self, body: dict[str, Any]) -> tuple[int, Any]:
        out_track, space = str(body.get("outTrackId") or ""), str(body.get("openSpaceId") or "")
        if not out_track or not space.startswith(("dtv1.card//IM_GROUP.", "dtv1.card//IM_ROBOT.")):
            return 400, {"code": "param.invalid", "message": "outTrackId and openSpaceId are required"}
        deliver = body.get("imGroupOpenDeliverModel" if "IM_GROUP" in space else "imRobotOpenDeliverModel")
        if not deliver or not deliver.get("robotCode"):
            return 400, {"code": "param.invalid", "message": "the deliver model names no robotCode"}
        if out_track not in self.cards:  # delivered again with the same outTrackId: the same card
            params = (body.get("cardData") or {}).get("cardParamMap") or {}
            self.cards[out_track] = Card(out_track, space, str(body.get("cardTemplateId")), dict(params))
        result = {"outTrackId": out_track, "deliverResults": [{"spaceType": space[11:].split(".")[0], "success": True}]}
        return 200, {"success": True, "result": result}

    # --- the Stream connection ---

    def push(
        self, topic: str, data: dict[str, Any], message_id: str | None = None, timeout: float = 10.0, to: int = -1
    ) -> Any:
        """A CALLBACK frame to a connected client (the latest, or the `to`-th to connect); the `response` of its
        acknowledgement."""
        message_id = message_id or f"frame-{next(self._ids)}"
        frame = {
            "specVersion": "1.0",
            "type": "CALLBACK",
            "headers": {
                "appId": "app-1",
                "connectionId": "conn-1",
                "contentType": "application/json",
                "messageId": message_id,
                "time": str(int(time.time() * 1000)),
                "topic": topic,
            },
            "data": json.dumps(data, ensure_ascii=False),
        }
        self.acks.pop(message_id, None)
        self.connections[to].send(json.dumps(frame, ensure_ascii=False))
        ack = self.wait_for(lambda: self.acks.get(message_id), timeout)
        assert ack["code"] == 200, ack
        return json.loads(ack.get("data") or "{}").get("response")

    def message(
        self,
        text: str,
        user: str,
        *,
        group: str | None = None,
        msg_id: str | None = None,
        admin: bool = False,
        nick: str | None = None,
        extra: dict[str, Any] | None = None,
        at: tuple[str, ...] = (),
    ) -> Any:
        """A robot message: in `group` (a conversationId, the robot @mentioned), else the person's chat with it.
        `at`: the userIds of the people @mentioned in it besides the robot (its text shows their names), listed in
        atUsers as DingTalk lists them: each one's dingtalkId and staffId, the robot's with its dingtalkId alone."""
        data = {
            "conversationId": group or f"cid-single-{user}",
            "chatbotCorpId": CORP,
            "chatbotUserId": "$:LWCP_v1:$robot",
            "msgId": msg_id or f"msg{next(self._ids)}",
            "senderNick": nick or user.title(),
            "isAdmin": admin,
            "senderStaffId": user,
            "sessionWebhookExpiredTime": int(time.time() * 1000) + 3_600_000,
            "createAt": int(time.time() * 1000),
            "senderCorpId": CORP,
            "conversationType": "2" if group else "1",
            "senderId": f"$:LWCP_v1:${user}",
            "sessionWebhook": f"{self.base_url}/robot/sendBySession?session=s-{user}",
            "text": {"content": f" {text}" if group else text},  # DingTalk leaves the @mention out, a space kept
            "robotCode": CLIENT_ID,
            "msgtype": "text",
            "isInAtList": bool(group),
        }
        robot = [{"dingtalkId": data["chatbotUserId"]}] if group else []
        if robot or at:
            data["atUsers"] = robot + [{"dingtalkId": f"$:LWCP_v1:${u}", "staffId": u} for u in at]
        if extra:  # another kind of message (a file): its msgtype and content instead of the text
            data = {k: v for k, v in data.items() if k != "text"} | extra
        return self.push(BOT_MESSAGE, data)

    def file_message(self, name: str, data: bytes, user: str, *, group: str | None = None) -> Any:
        """A file sent to the robot (in `group`, or the person's chat with it): kept under a downloadCode."""
        code = f"dl{next(self._ids)}"
        self.files[code] = data
        content = {"downloadCode": code, "fileName": name, "spaceId": "s1", "fileId": "f1"}
        return self.message("", user, group=group, extra={"msgtype": "file", "content": content})

    def press(self, card: Card, button: dict[str, str], user: str, message_id: str | None = None, to: int = -1) -> Any:
        """A button of a card pressed by `user`: the callback DingTalk sends, with the button's params."""
        kind, _, space_id = card.space.removeprefix("dtv1.card//").partition(".")
        content = {
            "cardPrivateData": {"actionIds": [f"btn-{button['text'][:8]}"], "params": json.loads(button["value"])}
        }
        data = {
            "extension": "{}",
            "corpId": CORP,
            "type": "actionCallback",
            "userId": user,
            "content": json.dumps(content, ensure_ascii=False),
            "outTrackId": card.out_track_id,
            "spaceType": kind,
            "spaceId": space_id,
            "userIdType": 1,
        }
        return self.push(CARD_CALLBACK, data, message_id, to=to)


_IN_USE: list[FakeDingTalk] = []  # the fake of the test running in this process (one at a time)


class _Handler(BaseHTTPRequestHandler):
    """The OpenAPI of the fake in use; 503 between tests (a call after its test ended)."""

    def _serve(self, verb: str) -> None:
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        if not _IN_USE:
            status, answer = 503, {"code": "ServiceUnavailable", "message": "no fake DingTalk in use"}
        else:
            fake = _IN_USE[-1]
            with fake._changed:
                status, answer = fake.answer(verb, parts.path, headers, body)
                fake._changed.notify_all()
        raw_file = isinstance(answer, bytes)
        payload = answer if raw_file else json.dumps(answer, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream" if raw_file else "application/json;charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_GET(self) -> None:
        self._serve("GET")

    def log_message(self, *args: object) -> None:
        return


@functools.cache
def _api_url() -> str:
    """One OpenAPI server a test process, answering for the fake in use, as moto's is (tests/support/aws.py): the
    SDK keeps a session for each host and port it calls, with a TLS context made for it (20 ms of CPU, even for
    plain HTTP), so a server on a new port for each test cost each test one. It is never stopped
    (tests/support/servers.for_the_process)."""
    return for_the_process(_Handler)


@contextmanager
def fake_dingtalk() -> Iterator[FakeDingTalk]:
    from websockets.exceptions import ConnectionClosed

    fake = FakeDingTalk()

    def stream(connection: Any) -> None:
        ticket = (parse_qs(urlsplit(connection.request.path).query).get("ticket") or [""])[0]
        if ticket not in fake.tickets:
            connection.close(4001, "invalid ticket")
            return
        with fake._changed:
            fake.connections.append(connection)
            fake._changed.notify_all()
        with contextlib.suppress(ConnectionClosed):  # a client killed without a close frame
            for raw in connection:
                ack = json.loads(raw)
                with fake._changed:
                    fake.acks[str((ack.get("headers") or {}).get("messageId"))] = ack
                    fake._changed.notify_all()

    fake.base_url = _api_url()
    _IN_USE.append(fake)
    try:
        with running_websocket(stream) as ws_url:
            fake.ws_url = ws_url + "/connect"
            yield fake
    finally:
        _IN_USE.remove(fake)
