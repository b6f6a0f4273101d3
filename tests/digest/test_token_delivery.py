"""Issue 20.1: a heartbeat token is shown once, so its delivery must not be lost. A response_url reply is
retried like a Web API call; when it still fails, the work stays pending and its redo issues a new token
for the instance that request tracked (saying so) instead of answering "already tracked"."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.slack.inbox import redo_stalled
from bot.state.rentals import Rentals
from tests.slack.test_commands import submit
from tests.support.slack_harness import Harness, running_app

TRACK = "track train-1 gpu=A100 price=14/h"


def token_in(text: str) -> str:
    return text.split("`")[1]


def delivered(h: Harness, count: int = 1) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= count and r)  # type: ignore[no-any-return]


def test_a_reply_that_fails_once_is_retried_and_the_token_arrives(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.fake.response_errors["1"] = 1
        h.send.command(TRACK, response_url=h.fake.response_url("1"))
        [reply] = delivered(h)
        assert len(h.fake.of("response_url_failed")) == 1
        inst = Rentals(h.deps.store).by_token(token_in(reply["text"]))
        assert inst is not None and inst.name == "train-1"


def test_a_reply_that_cannot_be_delivered_is_redone_with_a_new_token_said_so(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.fake.response_errors["1"] = 4  # the first try and the client's three retries
        h.send.command(TRACK, response_url=h.fake.response_url("1"))
        h.fake.wait_for(lambda: len(h.fake.of("response_url_failed")) == 4)
        h.fake.wait_for(lambda: len(h.deps.inbox.pending(timedelta(hours=1))) == 1)  # not done: to be redone
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        [reply] = delivered(h)
        assert "already" not in reply["text"] and "new token" in reply["text"]
        rentals = Rentals(h.deps.store)
        [inst] = rentals.instances("T1")
        assert rentals.by_token(token_in(reply["text"])) == inst
        assert h.deps.inbox.pending(timedelta(hours=1)) == []
        # someone else's later `track train-1` is still told the name is taken, and gets no token
        h.send.command(TRACK, response_url=h.fake.response_url("2"))
        assert "already" in delivered(h, 2)[1]["text"] and rentals.by_token(token_in(reply["text"])) == inst


def test_a_form_whose_ephemeral_fails_four_times_is_redone_with_a_new_token(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.send.command("track", response_url=h.fake.response_url("1"))
        view = h.fake.wait_for(lambda: h.fake.of("views.open"))[0]["view"]
        view = json.loads(view) if isinstance(view, str) else view
        h.fake.server_errors["chat.postEphemeral"] = 4
        status, _ = submit(h, view, {"name": "train-1", "gpu": "A100-80GB", "price": "400/day", "cards": "1"})
        assert status == 200
        h.fake.wait_for(lambda: len(h.fake.of("chat.postEphemeral")) == 4)
        h.fake.wait_for(lambda: len(h.deps.inbox.pending(timedelta(hours=1))) == 1)
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        note = h.fake.of("chat.postEphemeral")[-1]
        assert "新的令牌" in note["text"] or "new token" in note["text"]
        [inst] = Rentals(h.deps.store).instances("T1")
        assert Rentals(h.deps.store).by_token(token_in(note["text"])) == inst
