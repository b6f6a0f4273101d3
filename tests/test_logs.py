"""Log lines: text or JSON with the request id and workspace; tokens and secrets never appear."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from bot.logs import RequestContext, about, configure
from tests.support.slack_harness import SECRET, running_app


def test_json_lines_carry_time_level_logger_request_and_workspace() -> None:
    stream = io.StringIO()
    configure("DEBUG", "json")
    handler = logging.getLogger().handlers[0]
    handler.setStream(stream)  # type: ignore[attr-defined]
    try:
        with about("abc123", "T9"):
            logging.getLogger("bot.test").info("hello %s", "there")
        logging.getLogger("bot.test").debug("outside")
    finally:
        logging.getLogger().handlers.clear()
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert {k: first[k] for k in ("level", "logger", "message", "request_id", "workspace")} == {
        "level": "INFO", "logger": "bot.test", "message": "hello there", "request_id": "abc123", "workspace": "T9"}
    assert "time" in first and second["request_id"] == "-"


def test_text_lines_name_the_request() -> None:
    record = logging.LogRecord("bot.x", logging.INFO, __file__, 1, "work done", None, None)
    with about("r1", "T1"):
        RequestContext().filter(record)
    assert (record.request_id, record.workspace) == ("r1", "T1")  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_a_whole_conversation_at_debug_logs_no_token_or_secret(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80 mp=no freq=daily resume=no", response_url=h.fake.response_url())
        h.send.command("help", response_url=h.fake.response_url("help"))
        h.send.command("", signature="v0=" + "0" * 64)  # refused: logged without its body
        h.fake.wait_for(lambda: [p for p in h.posts() if (p.get("blocks") or [{}])[0].get("type") == "header"])
        h.fake.wait_for(lambda: h.fake.of("response_url"))
    lines = [r.getMessage() for r in caplog.records] + [caplog.text]
    assert len(caplog.records) > 20  # slack_sdk and bolt logged their requests at DEBUG
    for line in lines:
        assert "xoxb-test-token" not in line and SECRET not in line


@pytest.mark.e2e
def test_bolts_token_will_be_unused_warning_is_not_printed_on_every_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 19.17: 'As you gave client as well, token will be unused.' was printed at every start."""
    from bot.deps import build_deps
    from bot.slack.app import create_app
    from tests.support.fake_slack import fake_slack
    from tests.support.slack_harness import settings_for

    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
    with fake_slack() as fake, caplog.at_level(logging.DEBUG):
        deps = build_deps(settings_for(tmp_path, fake))
        create_app(deps)
        deps.store.close()
    assert not [r for r in caplog.records if "will be unused" in r.getMessage()]
