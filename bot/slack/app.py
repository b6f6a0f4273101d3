"""The bolt app, built in one function; the server is started elsewhere (bot/cli/serve.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any
from urllib.error import URLError

from slack_bolt import App
from slack_bolt.error import BoltError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.prices import PriceBook, http_client
from bot.settings import Settings
from bot.slack import routes
from bot.slack.deps import Deps
from bot.slack.inbox import keep_in_inbox
from bot.slack.replies import report
from bot.slack.request import SlackRequest
from bot.state import Store
from rules.policy import load_policy

LAZY_WORKERS = 4


class SlackUnreachable(RuntimeError):
    """auth.test failed at start-up: Slack unreachable, or the token rejected."""


class MissingSlackSettings(RuntimeError):
    """Slack tokens are not configured; the message says what to set, where to find it, and the way out."""


HELP_TOKENS = """Slack is not configured: {missing}.
  SLACK_BOT_TOKEN       the Bot User OAuth Token (xoxb-...): your app's page at api.slack.com/apps > OAuth & Permissions
  SLACK_SIGNING_SECRET  Basic Information > App Credentials > Signing Secret (HTTP mode)
  SLACK_APP_TOKEN       for Socket Mode: Basic Information > App-Level Tokens, scope connections:write (xapp-...)
Create the app from manifest.yml (see the README). Without Slack, `gpu-advise advise` works in the terminal."""


def check_tokens(settings: Settings) -> None:
    missing = []
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else ""
    if not token:
        missing.append("SLACK_BOT_TOKEN is not set")
    elif not token.startswith("xoxb-"):
        missing.append("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
    app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token else ""
    if app_token and not app_token.startswith("xapp-"):
        missing.append("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
    if not app_token and not (settings.slack_signing_secret and settings.slack_signing_secret.get_secret_value()):
        missing.append("SLACK_SIGNING_SECRET is not set (needed in HTTP mode; or set SLACK_APP_TOKEN for Socket Mode)")
    if missing:
        raise MissingSlackSettings(HELP_TOKENS.format(missing="; ".join(missing)))


def web_client(settings: Settings) -> WebClient:
    """The Web API client: SLACK_API_URL as base, and retries after HTTP 429 (Retry-After)."""
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    base = settings.slack_api_url if settings.slack_api_url.endswith("/") else settings.slack_api_url + "/"
    client = WebClient(token=token, base_url=base)
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=3))
    return client


def build_deps(settings: Settings, *, now: Callable[[], datetime] | None = None) -> Deps:
    """What the handlers need. Local problems are found here, before Slack is contacted: PolicyError
    for a bad policy, StoreUnavailable or CacheUnavailable for an unusable database."""
    policy = load_policy(settings.policy)
    clock = now or (lambda: datetime.now(UTC))
    store = Store(settings.state_url(), now=clock)
    prices = PriceBook.open(settings, policy, http_client(settings), now=clock)
    return Deps(settings=settings, policy=policy, store=store, prices=prices, now=clock)


def create_app(deps: Deps, *, client: WebClient | None = None) -> App:
    """The bolt app with every route of routes.py registered behind the inbox.

    MissingSlackSettings without tokens; SlackUnreachable when Slack (SLACK_API_URL) cannot be
    reached or rejects the token. Nothing is replayed here: serve starts inbox.replay_pending."""
    settings = deps.settings
    check_tokens(settings)
    client = client or web_client(settings)
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    try:
        app = App(client=client, signing_secret=secret, logger=logging.getLogger("bot.slack"),
                  request_verification_enabled=secret is not None, process_before_response=True,
                  listener_executor=ThreadPoolExecutor(max_workers=LAZY_WORKERS, thread_name_prefix="lazy"))
    except (BoltError, SlackApiError, URLError, OSError) as exc:
        reason = exc.response.get("error") if isinstance(exc, SlackApiError) else str(exc)
        raise SlackUnreachable(f"Slack did not accept the bot token at {settings.slack_api_url} (auth.test): "
                               f"{reason}. Check SLACK_BOT_TOKEN and SLACK_API_URL") from None
    app.middleware(keep_in_inbox(deps))
    routes.register(app, deps)

    @app.error
    def on_error(error: Exception, body: dict[str, Any], client: WebClient) -> None:
        request = SlackRequest(body, client)
        report(error, client, channel=request.channel, user=request.user, lang=settings.lang)

    return app
