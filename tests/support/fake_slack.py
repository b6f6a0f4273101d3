"""A fake Slack Web API on 127.0.0.1 that records every call, plus helpers to send signed requests to the app."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlencode

from tests.support.servers import running

JSON_FIELDS = ("blocks", "view", "attachments", "metadata")


@dataclass
class Call:
    method: str
    args: dict[str, Any]


@dataclass
class FakeSlack:
    base_url: str = ""
    calls: list[Call] = field(default_factory=list)
    refuse_channels: dict[str, str] = field(default_factory=dict)  # channel -> error (e.g. not_in_channel)
    rate_limit_once: set[str] = field(default_factory=set)  # methods answered 429 the first time
    locales: dict[str, str] = field(default_factory=dict)
    zones: dict[str, str] = field(default_factory=dict)  # users' Slack time zones (users.info tz)
    names: dict[str, str] = field(default_factory=dict)  # users' Slack display names
    user_teams: dict[str, str] = field(default_factory=dict)  # a user's own workspace (default T1)
    admins: set[str] = field(default_factory=set)  # users.info answers is_admin for these
    emails: dict[str, str] = field(default_factory=dict)  # users.lookupByEmail: address -> user id
    delays: dict[str, float] = field(default_factory=dict)  # method -> seconds to wait before answering
    auth_error: str | None = None  # auth.test answers this error (e.g. invalid_auth)
    errors: dict[str, str] = field(default_factory=dict)  # method -> the Slack error it answers
    server_errors: dict[str, int] = field(default_factory=dict)  # method -> how many more times it answers 500
    response_errors: dict[str, int] = field(default_factory=dict)  # response_url name -> times it answers 500
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # file id -> (name, content), for files.info
    uploads: dict[str, bytes] = field(default_factory=dict)  # upload id -> bytes POSTed to its upload URL
    file_host: str | None = None  # files.info names this host in its download URL instead of ours
    download_answer: tuple[int, str, bytes] | None = None  # what every private download gets, when set
    download_trickle_s: float = 0  # when set, a download sends a byte, then waits this long, and so on
    unstored: set[str] = field(default_factory=set)  # ts of posts Slack has taken but not yet shows in reads
    storing: bool = False  # while set, each post is taken (its ts answered) but left out of reads: `unstored`
    _ts: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _answered: threading.Condition = field(default_factory=threading.Condition)  # notified after each request

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def response_url(self, name: str = "1") -> str:
        return f"{self.base_url}/response/{name}"

    def of(self, method: str) -> list[dict[str, Any]]:
        return [c.args for c in self.calls if c.method == method]

    def methods(self) -> list[str]:
        return [c.method for c in self.calls]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            with self._answered:  # woken by the next request answered, else looked at again after 10 ms
                self._answered.wait(0.01)
        raise AssertionError(f"timed out; calls so far: {self.methods()}")

    def answer(self, method: str, args: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
        if method in self.delays:
            time.sleep(self.delays[method])
        with self._lock:
            if method in self.rate_limit_once:
                self.rate_limit_once.discard(method)
                return 429, {"Retry-After": "1"}, {"ok": False, "error": "ratelimited"}
            if self.server_errors.get(method, 0) > 0:
                self.server_errors[method] -= 1
                return 500, {}, {"ok": False, "error": "internal_error"}
            ts = f"1700000000.{next(self._ts):06d}"
        channel = str(args.get("channel", ""))
        if method in self.errors:
            return 200, {}, {"ok": False, "error": self.errors[method]}
        if method == "auth.test" and self.auth_error:
            return 200, {}, {"ok": False, "error": self.auth_error}
        if method == "auth.test":
            team = self._team_of_token(str(args.get("token") or args.get("_auth", "")))
            return (
                200,
                {},
                {"ok": True, "user_id": "UBOT", "bot_id": f"B{team}", "team_id": team, "user": "gpu-advisor"},
            )
        if method == "oauth.v2.access":  # code "code-T2" installs workspace T2 with the bot token xoxb-T2-...
            team = str(args.get("code", "")).removeprefix("code-")
            return (
                200,
                {},
                {
                    "ok": True,
                    "app_id": "A1",
                    "authed_user": {"id": "U1"},
                    "token_type": "bot",
                    "scope": "commands,chat:write",
                    "access_token": f"xoxb-{team}-bot-token",
                    "bot_user_id": "UBOT",
                    "team": {"id": team, "name": f"Team {team}"},
                    "enterprise": None,
                    "is_enterprise_install": False,
                },
            )
        if method in ("chat.postMessage", "chat.postEphemeral") and channel in self.refuse_channels:
            return 200, {}, {"ok": False, "error": self.refuse_channels[channel]}
        if method == "chat.postMessage":
            if self.storing:  # Slack slow to store it (issue 53.17 saw 15 s): reads miss it until it is
                self.unstored.add(ts)
            return 200, {}, {"ok": True, "channel": channel, "ts": ts, "message": {"ts": ts, "text": args.get("text")}}
        if method == "chat.postEphemeral":
            return 200, {}, {"ok": True, "message_ts": ts}
        if method == "chat.update":
            return 200, {}, {"ok": True, "channel": channel, "ts": args.get("ts")}
        if method in ("views.open", "views.publish", "views.update"):
            return 200, {}, {"ok": True, "view": {"id": "V" + ts.replace(".", "")}}
        if method == "users.info":
            user = str(args.get("user"))
            return (
                200,
                {},
                {
                    "ok": True,
                    "user": {
                        "id": user,
                        "locale": self.locales.get(user, "en-US"),
                        "tz": self.zones.get(user, "Asia/Shanghai"),
                        "profile": {"display_name": self.names.get(user, "")},
                        "is_admin": user in self.admins,
                        "team_id": self.user_teams.get(user, "T1"),
                    },
                },
            )
        if method == "users.lookupByEmail":  # the people of `emails` (address -> user id)
            found = self.emails.get(str(args.get("email", "")).lower())
            said = {"ok": True, "user": {"id": found}} if found else {"ok": False, "error": "users_not_found"}
            return 200, {}, said
        if method == "apps.connections.open":  # Socket Mode: a WebSocket URL nobody listens on
            return 200, {}, {"ok": True, "url": "ws://127.0.0.1:9/link"}
        if method == "files.info":
            return self._file_info(str(args.get("file")))
        if method == "files.getUploadURLExternal":
            upload = f"F{next(self._ts):06d}"
            return 200, {}, {"ok": True, "upload_url": f"{self.base_url}/upload/{upload}", "file_id": upload}
        if method == "files.completeUploadExternal":
            listed = args.get("files")
            listed = json.loads(listed) if isinstance(listed, str) else listed
            return 200, {}, {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in listed or []]}
        if method == "conversations.history":
            return 200, {}, {"ok": True, "messages": self._history(channel), "has_more": False}
        if method == "conversations.replies":  # the thread's root and its replies, oldest first, as Slack gives them
            thread = str(args.get("ts", ""))
            found = [m for m in reversed(self._history(channel)) if m["ts"] == thread or m.get("thread_ts") == thread]
            return 200, {}, {"ok": True, "messages": found, "has_more": False}
        if method == "conversations.open":
            return 200, {}, {"ok": True, "channel": {"id": "D" + str(args.get("users", "")).split(",")[0]}}
        return 200, {}, {"ok": False, "error": "unknown_method"}

    def _history(self, channel: str) -> list[dict[str, Any]]:
        """The channel's messages posted here, newest first. (`oldest` is not applied: the fake's ts do not
        follow the tests' clocks; the caller's `oldest` is in the recorded call.)"""
        posted = [
            c
            for c in self.of("chat.postMessage")
            if c.get("channel") == channel and "_ts" in c and c["_ts"] not in self.unstored
        ]
        updated = {c.get("ts"): c for c in self.of("chat.update") if c.get("channel") == channel}  # the latest wins
        out = []
        for c in reversed(posted):
            now = updated.get(c["_ts"], c)
            blocks = now.get("blocks")
            out.append(
                {
                    "type": "message",
                    "ts": c["_ts"],
                    **({"thread_ts": c["thread_ts"]} if c.get("thread_ts") else {}),
                    "text": now.get("text"),
                    "bot_id": "BT1",
                    **({"blocks": json.loads(blocks) if isinstance(blocks, str) else blocks} if blocks else {}),
                    **({"metadata": c["metadata"]} if c.get("metadata") else {}),
                }
            )
        return out

    @staticmethod
    def _team_of_token(token: str) -> str:
        """xoxb-T2-... belongs to workspace T2 (OAuth installs); any other bot token to T1."""
        parts = token.removeprefix("Bearer ").split("-")
        return parts[1] if len(parts) > 2 and parts[0] == "xoxb" and parts[1].startswith("T") else "T1"

    def _file_info(self, file_id: str) -> tuple[int, dict[str, str], dict[str, Any]]:
        if file_id not in self.files:
            return 200, {}, {"ok": False, "error": "file_not_found"}
        name, data = self.files[file_id]
        host = f"http://{self.file_host}" if self.file_host else self.base_url
        url = f"{host}/files-pri/T1-{file_id}/download/{name}"
        return (
            200,
            {},
            {
                "ok": True,
                "file": {
                    "id": file_id,
                    "name": name,
                    "size": len(data),
                    "url_private_download": url,
                    "url_private": url,
                },
            },
        )

    def download(self, path: str, auth: str) -> tuple[int, str, bytes]:
        """GET of a private file URL: the bytes with a bot token; Slack's sign-in page without one."""
        file_id = path.split("/")[2].removeprefix("T1-")
        if self.download_answer is not None:
            return self.download_answer
        if not auth.startswith("Bearer xoxb-"):
            return 200, "text/html", b"<html><body>Sign in to Slack</body></html>"
        if file_id not in self.files:
            return 404, "text/plain", b"not found"
        return 200, "application/octet-stream", self.files[file_id][1]


def _parse_body(raw: bytes, content_type: str) -> dict[str, Any]:
    if "json" in content_type:
        data: dict[str, Any] = json.loads(raw or b"{}")
    else:
        data = dict(parse_qsl(raw.decode("utf-8"), keep_blank_values=True))
    for key in JSON_FIELDS:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return data


@contextmanager
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack()

    class Handler(BaseHTTPRequestHandler):
        def handle_one_request(self) -> None:
            super().handle_one_request()
            with fake._answered:
                fake._answered.notify_all()

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            auth = self.headers.get("Authorization", "")
            fake.calls.append(Call("download", {"_path": self.path, "_auth": auth}))
            status, kind, payload = fake.download(self.path, auth)
            if fake.download_trickle_s <= 0:
                self._send(status, kind, payload)
                return
            self.send_response(status)  # headers promising the whole length, then a byte at a time
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            for byte in payload:
                if fake.download_trickle_s < 0:
                    return
                time.sleep(fake.download_trickle_s)
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return  # the bot gave up on it

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if self.path.startswith("/upload/"):
                fake.uploads[self.path.removeprefix("/upload/")] = self.rfile.read(length)
                fake.calls.append(Call("upload", {"_path": self.path, "_auth": self.headers.get("Authorization", "")}))
                self._send(200, "text/plain", f"OK - {length}".encode())
                return
            args = _parse_body(self.rfile.read(length), self.headers.get("Content-Type", ""))
            if self.path.startswith("/response/"):
                name = self.path.removeprefix("/response/")
                with fake._lock:
                    failing = fake.response_errors.get(name, 0)
                    fake.response_errors[name] = max(0, failing - 1)
                kind = "response_url_failed" if failing else "response_url"
                fake.calls.append(Call(kind, args | {"_path": self.path}))
                status, headers, body = (500, {}, {"ok": False}) if failing else (200, {}, {"ok": True})
            else:
                method = self.path.removeprefix("/api/").split("?")[0]
                args["_auth"] = self.headers.get("Authorization", "")
                fake.calls.append(Call(method, args))
                status, headers, body = fake.answer(method, args)
                if body.get("ts"):
                    args["_ts"] = body["ts"]
            payload = json.dumps(body).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return

    with running(Handler) as base_url:
        fake.base_url = base_url
        try:
            yield fake
        finally:
            fake.download_trickle_s = -1  # a trickling download still going ends with the test


def sign(secret: str, timestamp: str, body: bytes) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


@dataclass
class SlackSender:
    """Sends real signed HTTP requests to the app, as Slack does."""

    url: str
    secret: str

    def post(
        self,
        body: bytes,
        content_type: str,
        *,
        timestamp: str | None = None,
        signature: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        ts = timestamp or str(int(time.time()))
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": content_type,
                "X-Slack-Request-Timestamp": ts,
                "X-Slack-Signature": signature or sign(self.secret, ts, body),
                **(headers or {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def command(
        self,
        text: str,
        *,
        user: str = "U1",
        channel: str = "C1",
        response_url: str = "",
        trigger_id: str = "111.222.abc",
        team: str = "T1",
        **kwargs: Any,
    ) -> tuple[int, str]:
        form = {
            "token": "legacy",
            "team_id": team,
            "team_domain": "acme",
            "channel_id": channel,
            "channel_name": "gpu",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/gpu-advise",
            "text": text,
            "api_app_id": "A1",
            "response_url": response_url,
            "trigger_id": trigger_id,
        }
        return self.post(urlencode(form).encode(), "application/x-www-form-urlencoded", **kwargs)

    def interaction(self, payload: dict[str, Any], **kwargs: Any) -> tuple[int, str]:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs)

    def event(self, event: dict[str, Any], event_id: str, team: str = "T1", **kwargs: Any) -> tuple[int, str]:
        envelope = {
            "token": "legacy",
            "team_id": team,
            "api_app_id": "A1",
            "event": event,
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": "UBOT", "is_bot": True}],
        }
        return self.post(json.dumps(envelope).encode(), "application/json", **kwargs)

    def click(
        self,
        message: dict[str, Any],
        action_id: str,
        *,
        user: str = "U1",
        response_url: str = "",
        value: str | None = None,
    ) -> tuple[int, str]:
        """Press the button `action_id` of a message the bot posted (as recorded by the fake); `value`: the button's
        value, or a digest item's name without its row id (`train-1` for `train-1#4`)."""
        block, button = next(
            (b, e)
            for b in message["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
            if e["action_id"] == action_id and (value is None or value in (e["value"], e["value"].partition("#")[0]))
        )
        return self.interaction(
            {
                "type": "block_actions",
                "user": {"id": user, "team_id": "T1"},
                "team": {"id": "T1"},
                "api_app_id": "A1",
                "channel": {"id": message["channel"]},
                "trigger_id": "333.444.def",
                "container": {
                    "type": "message",
                    "message_ts": message.get("_ts", ""),
                    "channel_id": message["channel"],
                },
                "response_url": response_url,
                "message": {"ts": message.get("_ts", ""), "text": message.get("text", ""), "blocks": message["blocks"]},
                "actions": [
                    {
                        "action_id": action_id,
                        "block_id": block.get("block_id", "answers"),
                        "type": "button",
                        "value": button["value"],
                        "action_ts": str(time.time()),
                    }
                ],
            }
        )
