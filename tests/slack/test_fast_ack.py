"""The front door keeps a request and answers Slack before bolt sees it (bot/slack/fast_ack.py): the answer
does not wait for bolt, the work follows it, and what bolt never got to is redone from the inbox. Forms whose
answer depends on checking them still wait for bolt."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.slack import fast_ack
from bot.slack.inbox import redo_stalled
from bot.state.schema import inbox
from tests.slack.test_commands import submit
from tests.support.slack_harness import running_app


def _pending(h: Any) -> list[str]:
    with h.deps.store.reading() as conn:
        return [r.kind for r in conn.execute(select(inbox.c.kind).where(inbox.c.done_at.is_(None)))]


def test_the_answer_goes_out_before_bolt_and_the_work_follows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    real = fast_ack.dispatch

    def held(*args: Any) -> None:
        gate.wait(10)
        real(*args)

    monkeypatch.setattr(fast_ack, "dispatch", held)
    with running_app(tmp_path) as h:
        status, body = h.send.command("help", response_url=h.fake.response_url("help"))
        assert (status, body) == (200, "")  # answered while bolt has not started
        assert _pending(h) == ["command"] and not h.fake.of("response_url")  # kept on disk, not done yet
        gate.set()
        [reply] = h.fake.wait_for(lambda: h.fake.of("response_url"))
        assert "`form`" in reply["text"]
        h.fake.wait_for(lambda: not _pending(h))


def test_what_bolt_never_got_to_is_redone_from_the_inbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_ack, "dispatch", lambda *args: None)  # the process stops right after answering
    with running_app(tmp_path) as h:
        assert h.send.command("help", response_url=h.fake.response_url("lost"))[0] == 200
        assert _pending(h) == ["command"]
        h.clock.advance(minutes=2)
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        [reply] = h.fake.wait_for(lambda: h.fake.of("response_url"))
        assert "`form`" in reply["text"] and not _pending(h)


def test_a_repeated_request_is_answered_once_and_a_form_still_waits_for_its_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = fast_ack.dispatch
    monkeypatch.setattr(
        fast_ack, "dispatch", lambda app, raw, headers, key: (calls.append(key), real(app, raw, headers, key))
    )
    with running_app(tmp_path) as h:
        event = {"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}
        assert h.send.event(event, event_id="EvTwice")[0] == 200
        assert h.send.event(event, event_id="EvTwice")[0] == 200  # Slack's retry: kept once, done once
        h.fake.wait_for(lambda: h.fake.of("views.publish"))
        assert len(calls) == 1 and len(h.fake.of("views.publish")) == 1
        h.send.command("form", trigger_id="999.888.form", response_url=h.fake.response_url())
        (opened,) = h.fake.wait_for(lambda: h.fake.of("views.open"))
        status, body = submit(h, opened["view"], {"duration": "forever-ish"})
        assert status == 200 and '"response_action": "errors"' in body  # checked by bolt before Slack was answered
        assert len(calls) == 2  # the event and the command: the front door left the form to bolt
