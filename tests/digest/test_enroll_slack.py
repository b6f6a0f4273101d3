"""`/gpu-advise enroll` from Slack: a token shown to the caller alone with the agent command; the boxes it
enrolls are the caller's and report to this channel; a reply redone replaces the token nobody saw."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.slack.inbox import redo_stalled
from bot.state.enrollment import Enrollments, EnrollRefused
from tests.support.slack_harness import Harness, running_app


def replies(h: Harness, count: int) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= count and r)  # type: ignore[no-any-return]


def token_in(text: str) -> str:
    return text.split("`")[1]


def test_enroll_answers_the_caller_alone_with_a_token_and_the_command(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url="https://gpu.example.com") as h:
        h.send.command("enroll project=llm", user="U7", response_url=h.fake.response_url("1"))
        [reply] = replies(h, 1)
        assert reply["response_type"] == "ephemeral"
        token = token_in(reply["text"])
        assert f"gpu-advise agent --url https://gpu.example.com --enroll {token}" in reply["text"]
        grant = Enrollments(h.deps.store).grant(token, h.clock.now)
        assert (grant.team, grant.channel, grant.owner, grant.project) == ("T1", "C1", "U7", "llm")
        assert grant.expires_at == h.clock.now + timedelta(days=7)
        assert h.posts(channel="C1") == []  # never in the channel
        h.send.command("enroll project=no/slashes", response_url=h.fake.response_url("2"))
        assert "`project`" in replies(h, 2)[1]["text"]


def test_a_reply_not_delivered_is_redone_with_a_token_that_replaces_the_first(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.fake.response_errors["1"] = 4  # the first try and the client's three retries
        h.send.command("enroll", response_url=h.fake.response_url("1"))
        h.fake.wait_for(lambda: len(h.fake.of("response_url_failed")) == 4)
        h.fake.wait_for(lambda: len(h.deps.inbox.pending(timedelta(hours=1))) == 1)
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        [reply] = replies(h, 1)
        assert "YOUR-BOT" in reply["text"] and "GPU_ADVISOR_PUBLIC_URL" in reply["text"]
        Enrollments(h.deps.store).grant(token_in(reply["text"]), h.clock.now)  # the delivered one works
        failed = token_in(h.fake.of("response_url_failed")[0]["text"])
        assert failed != token_in(reply["text"])
        with pytest.raises(EnrollRefused):  # the one that never arrived does not
            Enrollments(h.deps.store).grant(failed, h.clock.now)
