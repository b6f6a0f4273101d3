"""The front door of /slack/events: forged, malformed, oversize and replayed requests; /healthz; /metrics."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy import create_engine

from tests.support.fake_slack import sign
from tests.support.slack_harness import SECRET, Harness, running_app

FORM = "application/x-www-form-urlencoded"


def raw(h: Harness, body: bytes, headers: dict[str, str], path: str = "/slack/events") -> tuple[int, str]:
    request = urllib.request.Request(h.base_url + path, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:  # its socket closed with it
            return exc.code, exc.read().decode()


def get(h: Harness, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(h.base_url + path, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:  # its socket closed with it
            return exc.code, exc.read().decode()


def signed(body: bytes, content_type: str = FORM) -> dict[str, str]:
    stamp = str(int(time.time()))
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": sign(SECRET, stamp, body),
    }


def command(text: str, **fields: str) -> bytes:
    form = {
        "team_id": "T1",
        "channel_id": "C1",
        "user_id": "U1",
        "command": "/gpu-advise",
        "text": text,
        "response_url": "",
        "trigger_id": "1.2.3",
    } | fields
    return urlencode({k: v for k, v in form.items() if v != "-"}).encode()


def said_anything(h: Harness) -> bool:
    return any(c.method.startswith(("chat.", "views.")) for c in h.fake.calls)


def test_a_timestamp_that_is_not_a_number_gets_401_and_nothing_is_said(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        body = command("help")
        for stamp in ("abc", "", "1e3", "-1"):
            headers = {"Content-Type": FORM, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": "v0=00"}
            assert raw(h, body, headers)[0] == 401, stamp
        time.sleep(0.3)
        assert not said_anything(h) and h.fake.of("response_url") == []
        assert h.deps.inbox.pending(timedelta(hours=1)) == []


def test_malformed_bodies_get_401_unsigned_and_400_signed(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        for body in (b"{not json", b"payload={", b"\xff\xfe\x00"):
            assert (
                raw(h, body, {"Content-Type": FORM, "X-Slack-Request-Timestamp": "1", "X-Slack-Signature": "v0=1"})[0]
                == 401
            )
        assert raw(h, b"payload={", signed(b"payload={"))[0] == 400
        assert raw(h, b"\xff\xfe\x00", signed(b"\xff\xfe\x00"))[0] == 400
        assert raw(h, b"{not json", signed(b"{not json", "application/json"))[0] == 400


def test_signed_requests_no_listener_handles_get_404_and_leave_nothing_in_the_inbox(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        click = urlencode(
            {
                "payload": json.dumps(
                    {
                        "type": "block_actions",
                        "user": {"id": "U1", "team_id": "T1"},
                        "team": {"id": "T1"},
                        "actions": [
                            {
                                "type": "button",
                                "action_id": "no_such_button",
                                "block_id": "b",
                                "value": "v",
                                "action_ts": "1",
                            }
                        ],
                    }
                )
            }
        ).encode()
        fieldless = urlencode({"payload": json.dumps({"type": "block_actions", "actions": [{}]})}).encode()
        view = urlencode(
            {
                "payload": json.dumps(
                    {
                        "type": "view_submission",
                        "user": {"id": "U1", "team_id": "T1"},
                        "team": {"id": "T1"},
                        "view": {
                            "id": "V1",
                            "type": "modal",
                            "callback_id": "no_such_view",
                            "private_metadata": "",
                            "state": {"values": {}},
                        },
                    }
                )
            }
        ).encode()
        event = json.dumps(
            {
                "type": "event_callback",
                "event_id": "Ev9",
                "team_id": "T1",
                "event": {"type": "reaction_added", "user": "U1"},
            }
        ).encode()
        no_event = json.dumps({"type": "event_callback", "event_id": "Ev10"}).encode()
        assert raw(h, click, signed(click))[0] == 404
        assert raw(h, fieldless, signed(fieldless))[0] == 400  # bolt cannot read it: nothing is done
        assert raw(h, view, signed(view))[0] == 404
        assert raw(h, event, signed(event, "application/json"))[0] == 404
        assert raw(h, no_event, signed(no_event, "application/json"))[0] == 400
        assert h.deps.inbox.pending(timedelta(hours=1)) == []


def test_a_signed_command_without_a_user_is_acknowledged_and_finished(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        body = command("", user_id="-")
        assert raw(h, body, signed(body))[0] == 200
        h.fake.wait_for(lambda: h.deps.inbox.pending(timedelta(hours=1)) == [] or None)
        assert not said_anything(h)


def test_a_body_above_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with running_app(tmp_path, max_body_bytes=4096) as h:
        body = command("x" * 8000)
        status, reason = raw(h, body, signed(body))
        assert status == 413 and "4096" in reason
        assert h.deps.inbox.pending(timedelta(hours=1)) == []


def test_command_text_beyond_the_limit_is_refused_without_parsing(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        started = time.monotonic()
        body = command('dur="' + "1" * 200_000, response_url=h.fake.response_url())  # shlex would crawl
        assert raw(h, body, signed(body))[0] == 200
        (reply,) = h.fake.wait_for(lambda: h.fake.of("response_url"))
        assert "longer than 4,000 characters" in reply["text"]
        assert time.monotonic() - started < 5


def test_a_replayed_command_is_carried_out_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        body = command("")
        headers = signed(body)
        assert raw(h, body, headers) == (200, "")
        assert raw(h, body, headers) == (200, "")  # the same signed request again
        h.fake.wait_for(lambda: h.fake.of("chat.postMessage"))
        time.sleep(0.5)
        roots = [p for p in h.fake.of("chat.postMessage") if "thread_ts" not in p]
        assert len(roots) == 1


def test_healthz_says_ok_and_down(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        status, body = get(h, "/healthz")
        report = json.loads(body)
        assert status == 200 and report["status"] in ("ok", "degraded")
        assert report["checks"]["state_db"] == "ok" and "ratecard" in report["checks"]["price_sources"]
        h.deps.store.engine = create_engine(f"sqlite:///{tmp_path}/no/such/dir/state.db")  # the database is gone
        status, body = get(h, "/healthz")
        assert status == 503 and json.loads(body)["status"] == "down"


def test_metrics_count_requests_and_acknowledgements(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        body = command("help", response_url="")
        raw(h, body, signed(body))
        raw(h, b"x", {"Content-Type": FORM, "X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": "v0="})
        status, text = get(h, "/metrics")
        assert status == 200
        assert 'gpu_advisor_slack_requests_total{kind="command"} 1.0' in text
        assert 'gpu_advisor_slack_requests_refused_total{status="401"} 1.0' in text
        assert "gpu_advisor_ack_seconds_count 1.0" in text
        assert 'gpu_advisor_price_age_seconds{source="ratecard"}' in text
        assert "gpu_advisor_inbox_backlog" in text


def test_a_locked_state_database_never_holds_the_acknowledgement_past_its_budget(tmp_path: Path) -> None:
    with running_app(tmp_path, ack_db_budget_s=0.5) as h:
        blocker = sqlite3.connect(h.settings.files.state_db_path(), timeout=1)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            started = time.monotonic()
            body = command("")
            status, text = raw(h, body, signed(body))
            waited = time.monotonic() - started
            event = json.dumps(
                {
                    "type": "event_callback",
                    "event_id": "EvBusy",
                    "team_id": "T1",
                    "event": {"type": "app_home_opened", "user": "U1", "tab": "home"},
                }
            ).encode()
            event_status = raw(h, event, signed(event, "application/json"))[0]
        finally:
            blocker.rollback()
            blocker.close()
        assert status == 200 and waited < 2.0
        assert json.loads(text)["response_type"] == "ephemeral" and "请稍后再试" in json.loads(text)["text"]
        assert event_status == 503  # Slack retries an event later
        time.sleep(0.3)
        assert h.fake.of("chat.postMessage") == []  # nothing was carried out
        body = command("")
        assert raw(h, body, signed(body)) == (200, "")  # the lock is gone: back to normal
        h.fake.wait_for(lambda: h.fake.of("chat.postMessage"))


def test_the_listen_queue_is_the_platforms_maximum() -> None:
    from bot.server.http import ThreadingWSGIServer, listen_backlog

    assert ThreadingWSGIServer.request_queue_size == listen_backlog() >= 128


def _event(event: object) -> bytes:
    return json.dumps({"type": "event_callback", "team_id": "T1", "event_id": "Ev9", "event": event}).encode()


def _payload(payload: object) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode()


def test_signed_bodies_of_the_wrong_shape_get_400_never_500(tmp_path: Path) -> None:
    """Issue 20.17: event "str", event [], action_id 5 and deeply nested JSON gave 500."""
    deep: object = {}
    for _ in range(300):
        deep = {"a": deep}
    nested = json.dumps({"type": "event_callback", "team_id": "T1", "event": {"type": "message", "x": deep}})
    cases = [
        (_event("str"), "application/json"),
        (_event([]), "application/json"),
        (
            _payload(
                {"type": "block_actions", "team": {"id": "T1"}, "user": {"id": "U1"}, "actions": [{"action_id": 5}]}
            ),
            FORM,
        ),
        (nested.encode(), "application/json"),
        (_payload({"type": "block_actions", "team": {"id": "T1"}, "x": deep}), FORM),
        (b"[" * 100_000 + b"]" * 100_000, "application/json"),
    ]
    with running_app(tmp_path) as h:
        for body, content_type in cases:
            status, said = raw(h, body, signed(body, content_type))
            assert status == 400, (status, said[:200])
        assert h.deps.inbox.pending(timedelta(hours=1)) == []  # nothing of them kept
