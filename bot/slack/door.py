"""Slack as one of serve's front doors (bot/server/doors.py): /slack/events over HTTP (events.py; none in Socket
Mode, where bolt's socket brings them), bolt's OAuth install pages, the inbox's replay and redo, and the work the
work process takes for it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.request.internals import parse_body

from bot.deps import Deps
from bot.slack.events import EVENTS_PATH, events_endpoint
from bot.slack.ids import INSTALL_PATH, REDIRECT_PATH
from bot.slack.inbox import kind_of
from bot.slack.replies import lang_for
from bot.slack.wing import SlackWing
from bot.text import Lang
from bot.web.answer import Route

log = logging.getLogger("bot.serve")


class SlackDoor:
    name = "slack"

    def __init__(self, app: App, deps: Deps) -> None:
        self.app, self.deps = app, deps
        self.socket: Any = None
        self.handler = SlackRequestHandler(app, path=EVENTS_PATH)

    def routes(self) -> list[Route]:
        routes = []
        if not self.deps.settings.slack.app_token:  # else Slack comes over its socket
            routes.append(Route(EVENTS_PATH, frozenset({"POST"}), events_endpoint(self.app, self.deps, self.handler)))
        if self.app.oauth_flow:  # installs into many workspaces: bolt's install page and Slack's redirect
            for path in (INSTALL_PATH, REDIRECT_PATH):
                routes.append(Route(path, frozenset({"GET", "POST"}), self.handler))
        return routes

    def health(self) -> dict[str, Any]:
        return {"mode": "socket" if self.deps.settings.slack.app_token else "http", "state": "ok"}

    def wing(self) -> SlackWing:
        deps, client = self.deps, self.app.client
        return SlackWing(lambda team: deps.client_of(team, client), lambda c, user: lang_for(c, deps, user))

    def replay(self, received_before: datetime | None = None, first: Callable[[str], bool] | None = None) -> int:
        """Slack's requests kept before the last stop; in the front door only without a work process (which
        replays them itself, `received_before` its start)."""
        from bot.slack.inbox import replay_pending

        if received_before is None and self.deps.work is not None:
            return 0
        return replay_pending(self.deps, self.app.client, received_before, first)

    def redo_stalled(self) -> int:
        from bot.slack.inbox import redo_stalled

        return redo_stalled(self.deps, self.app.client)

    def opened(self, raw: bytes, content_type: str | None) -> tuple[str, dict[str, Any]]:
        """A request bolt would read: a form body (commands, interactions) or JSON (events)."""
        body = parse_body(raw.decode("utf-8"), content_type)
        return kind_of(body), body

    def take(self, key: str, kind: str, body: Any, workers: ThreadPoolExecutor) -> bool:
        from bot.slack.inbox import request_for
        from bot.slack.routes import SLACK_KINDS, start

        if kind not in SLACK_KINDS:
            return False
        found = request_for(self.deps, self.app.client, key, kind, body)
        if found is not None:
            start(found[0], self.deps, found[1], workers)
        return True

    def default_team(self) -> str | None:
        try:
            return str(self.app.client.auth_test()["team_id"])
        except Exception:  # Slack down, or OAuth with no bot token: the caller says it and tries again later
            return None

    def check(self, lang: Lang) -> None:
        """Slack's tokens were checked as the app was made (bot/slack/app.py: check_tokens, auth.test)."""

    def start(self) -> None:
        """Socket Mode (SLACK_APP_TOKEN): bolt's socket, connected on its own threads (the HTTP side serves the
        rest: agents' heartbeats, /healthz, /metrics)."""
        token = self.deps.settings.slack.app_token
        if token is None or not token.get_secret_value():
            return
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        self.socket = SocketModeHandler(self.app, token.get_secret_value())
        # connect() waits for Slack's socket (and retries it): on its own thread, so HTTP is served meanwhile
        threading.Thread(target=self.socket.connect, name="slack-socket", daemon=True).start()
        log.info("starting in Socket Mode: Slack's events come over its socket")

    def stop(self) -> None:
        if self.socket is not None:
            self.socket.close()
