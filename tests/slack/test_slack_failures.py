"""Slack's bad moments: a 5xx is retried; work that cannot reach Slack stays pending and is redone."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.slack.inbox import redo_stalled
from tests.support.slack_harness import running_app


def test_a_server_error_is_retried_and_the_message_arrives(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.fake.server_errors["chat.postMessage"] = 2
        h.send.command("", response_url=h.fake.response_url())
        root = h.fake.wait_for(lambda: [p for p in h.posts() if "_ts" in p])[0]
        assert "a few questions" in root["text"]
        assert len([c for c in h.fake.of("chat.postMessage") if c.get("text") == root["text"]]) == 3
        retried = h.deps.metrics.registry.get_sample_value(
            "gpu_advisor_slack_api_retries_total", {"reason": "server_error"}
        )
        assert retried == 2


def test_work_that_cannot_reach_slack_stays_pending_and_is_redone(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.fake.server_errors["chat.postMessage"] = 8  # more than the client's retries
        h.send.command("", response_url=h.fake.response_url())
        h.fake.wait_for(lambda: h.fake.server_errors["chat.postMessage"] <= 4)
        h.fake.wait_for(lambda: len(h.deps.inbox.pending(timedelta(hours=1))) == 1)
        h.fake.server_errors["chat.postMessage"] = 0  # Slack is back
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        roots = [p for p in h.posts() if "_ts" in p and "thread_ts" not in p]
        assert len(roots) == 1 and h.deps.inbox.pending(timedelta(hours=1)) == []
