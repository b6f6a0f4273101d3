"""The bolt app, built in one function; the server is started elsewhere (bot/serve.py)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from urllib.error import URLError

from slack_bolt import App
from slack_bolt.error import BoltError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot import listeners
from bot.deps import Deps
from bot.settings import Settings
from bot.store import Store
from bot.wiring import build_sources, http_client, open_cache
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


def create_app(settings: Settings, *, client: WebClient | None = None,
               now: Callable[[], datetime] | None = None) -> App:
    """Build the bolt app with every listener registered.

    Local problems are found before Slack is contacted: MissingSlackSettings without tokens,
    CacheUnavailable or StoreUnavailable for an unusable database, PolicyError for a bad policy.
    SlackUnreachable when Slack (SLACK_API_URL) cannot be reached or rejects the token."""
    check_tokens(settings)
    policy = load_policy(settings.policy)
    http = http_client(settings)
    clock = now or (lambda: datetime.now(UTC))
    sources = build_sources(settings, http)
    open_cache(settings, sources).close()  # the bundled rate card on first start, so quotes work at once
    store = Store(settings.state_db_path(), now=clock)
    client = client or web_client(settings)
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    try:
        # Acknowledge in the request thread (every ack function is trivial) and run the work in lazy
        # listeners on a pool of their own: acks never queue behind slow work, and never poll for it.
        app = App(client=client, signing_secret=secret, logger=logging.getLogger("bot.slack"),
                  request_verification_enabled=secret is not None, process_before_response=True,
                  listener_executor=ThreadPoolExecutor(max_workers=LAZY_WORKERS, thread_name_prefix="lazy"))
    except (BoltError, SlackApiError, URLError, OSError) as exc:
        reason = exc.response.get("error") if isinstance(exc, SlackApiError) else str(exc)
        raise SlackUnreachable(f"Slack did not accept the bot token at {settings.slack_api_url} (auth.test): "
                               f"{reason}. Check SLACK_BOT_TOKEN and SLACK_API_URL") from None
    deps = Deps(settings=settings, policy=policy, store=store, sources=sources, now=clock)
    replay_pending = listeners.register(app, deps)
    threading.Thread(target=replay_pending, args=(client,), name="replay", daemon=True).start()
    return app
