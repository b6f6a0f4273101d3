"""The app served on 127.0.0.1 against the fake Slack, with a clock the test can move."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.deps import Deps, Handoff
from bot.server.http import build_server
from bot.settings import Settings
from bot.slack.app import create_app, slack_deps, web_client
from bot.slack.digest_outlet import SlackOutlet, slack_outlets
from bot.slack.door import SlackDoor
from bot.slack.events import EVENTS_PATH
from bot.slack.teller import SlackTeller, slack_tellers
from bot.slack.ui.digest import render
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack
from tests.support.servers import POLL_S
from tests.support.state_template import with_migrated_state

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Harness:
    fake: FakeSlack
    send: SlackSender
    clock: Clock
    settings: Settings
    deps: Deps
    base_url: str
    app: Any = None

    def doors(self) -> list[Any]:
        """serve's front doors for this app: Slack's."""
        return [SlackDoor(self.app, self.deps)]

    def deps_client(self) -> WebClient:
        """A Web API client like the app's, on the fake Slack."""
        return web_client(self.settings, self.deps.metrics)

    def outlets(self) -> Callable[[str], SlackOutlet]:
        """The digest's outlet of each workspace, as serve's digest job makes them."""
        return slack_outlets(self.deps, self.deps_client(), render)

    def tellers(self) -> Callable[[str], SlackTeller]:
        """Each workspace's chat for the clock's work, as serve's jobs make them."""
        return slack_tellers(self.deps, self.deps_client())

    def send_digest(self, channel: str = "C1", *, force: bool = False) -> Any:
        """The channel's digest now, in English, through Slack as serve sends it (no pace): its outcome."""
        from zoneinfo import ZoneInfo

        from bot.digest.send import send_digests
        from bot.state.digest_sends import Sends
        from bot.state.rentals import Rentals
        from bot.text import Lang

        [outcome] = send_digests(
            Rentals(self.deps.store),
            Sends(self.deps.store),
            SlackOutlet(self.deps_client(), render),
            team="T1",
            channels=[channel],
            now=self.clock,
            rules=self.deps.policy.idle,
            lang=Lang.EN,
            zone=ZoneInfo("Asia/Shanghai"),
            pace_s=0,
            force=force,
        )
        return outcome

    def posts(self, **match: Any) -> list[dict[str, Any]]:
        return [c for c in self.fake.of("chat.postMessage") if all(c.get(k) == v for k, v in match.items())]

    def wait_posts(self, count: int, **match: Any) -> list[dict[str, Any]]:
        return self.fake.wait_for(lambda: (p := self.posts(**match)) and len(p) >= count and p)  # type: ignore[no-any-return]

    def texts(self, message: dict[str, Any]) -> str:
        """All text of a recorded message, blocks included."""
        parts = [str(message.get("text", ""))]
        for block in message.get("blocks") or []:
            parts.append(str(block))
        return "\n".join(parts)


def settings_for(tmp_path: Path, fake: FakeSlack, **extra: Any) -> Settings:
    """Settings of an app talking to `fake`, its state a fresh migrated SQLite file (unless a database_url).
    Digests go out without Slack's pace of a second between channels (the fake has no rate limit; a test of
    the pace sets `remind_pace_s`)."""
    settings = Settings(
        db=tmp_path / "bot.db",
        slack_bot_token="xoxb-test-token",
        slack_signing_secret=SECRET,
        slack_api_url=fake.api_url,
        azure_enabled=False,
        ecb_enabled=False,
        lang="zh",
        **({"remind_pace_s": 0} | extra),
    )
    return with_migrated_state(settings)


@contextmanager
def running_app(tmp_path: Path, *, work: Handoff | None = None, **extra: Any) -> Iterator[Harness]:
    """The app on a local port talking to a fresh fake Slack; `work`: where the work after each acknowledgement
    is handed (as to serve's work process) instead of being done here."""
    with fake_slack() as fake:
        settings = settings_for(tmp_path, fake, **extra)
        clock = Clock()
        deps = slack_deps(settings, now=clock, work=(lambda _: (work, None)) if work is not None else None)
        app = create_app(deps)
        server = build_server(deps, "127.0.0.1", 0, doors=[SlackDoor(app, deps)])
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}{EVENTS_PATH}"
            yield Harness(
                fake,
                SlackSender(url, SECRET),
                clock,
                settings,
                deps,
                f"http://127.0.0.1:{server.server_address[1]}",
                app,
            )
        finally:
            server.shutdown()
            server.server_close()
            deps.shutdown()  # captures still downloading end with the test
            # the work after the last acknowledgements ends while the fake Slack still answers it: else it outlives
            # the test, finds Slack gone and says so in whatever the process runs next
            app.listener_runner.listener_executor.shutdown(wait=True)
