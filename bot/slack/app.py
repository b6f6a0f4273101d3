"""The bolt app, built in one function; the server is started elsewhere (bot/cli/serve.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any
from urllib.error import URLError

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltError
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.deps import Deps, Handoff, Installs, build_deps
from bot.metrics import Metrics
from bot.settings import Settings
from bot.slack import routes
from bot.slack.client import YieldingClient
from bot.slack.inbox import keep_in_inbox, unavailable
from bot.slack.replies import report
from bot.slack.request import SlackRequest
from bot.slack.retries import retry_handlers
from bot.state import Inbox, StoreUnavailable
from bot.state.write_lock import AckGate
from bot.text import Lang, t

LAZY_WORKERS = 4


class _NotAProblem(logging.Filter):
    """bolt reads SLACK_BOT_TOKEN from the environment and, given our client (which carries that token),
    warns on every start that the token "will be unused": expected here, so not logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != warning_client_prioritized_and_token_skipped()


class SlackUnreachable(RuntimeError):
    """auth.test failed at start-up: Slack unreachable, or the token rejected."""


class MissingSlackSettings(RuntimeError):
    """Slack tokens are not configured; the message says what to set, where to find it, and the way out."""


def check_tokens(settings: Settings, lang: Lang | None = None) -> None:
    """MissingSlackSettings, saying what to set and where to find it (in `lang`), unless the tokens look usable."""
    missing = []
    token = settings.slack.bot_token.get_secret_value() if settings.slack.bot_token else ""
    if settings.slack.oauth():
        missing += _oauth_problems(settings)
    elif not token:
        missing.append("bot_token_unset")
    elif not token.startswith("xoxb-"):
        missing.append("bot_token_not_xoxb")
    app_token = settings.slack.app_token.get_secret_value() if settings.slack.app_token else ""
    if app_token and not app_token.startswith("xapp-"):
        missing.append("app_token_not_xapp")
    if not app_token and not (settings.slack.signing_secret and settings.slack.signing_secret.get_secret_value()):
        missing.append("signing_secret_unset")
    if missing:
        lang = lang or settings.files.lang
        problems = "; ".join(t(f"serve.missing.{code}", lang) for code in missing)
        raise MissingSlackSettings(t("serve.not_configured", lang, problems=problems))


def _keys_open_every_install(settings: Settings, engine: Any, lang: Lang | None) -> None:
    """MissingSlackSettings (saying what to do) unless the configured keys open every stored token; tokens
    under an older key are encrypted again with the newest (key rotation)."""
    from bot.slack.installs import BadEncryptionKey, check_and_rotate

    key = settings.slack.encryption_key.get_secret_value() if settings.slack.encryption_key else ""
    try:
        rotated = check_and_rotate(engine, key)
    except BadEncryptionKey:
        raise MissingSlackSettings(t("serve.encryption_key_changed", lang or settings.files.lang)) from None
    if rotated:
        logging.getLogger(__name__).info("%d stored tokens encrypted again with the newest key", rotated)


def _oauth_problems(settings: Settings) -> list[str]:
    from bot.slack.installs import BadEncryptionKey, fernet

    problems = []
    if settings.slack.app_token:
        problems.append("oauth_socket_mode")
    key = settings.slack.encryption_key.get_secret_value() if settings.slack.encryption_key else ""
    if not key:
        problems.append("encryption_key_unset")
    else:
        try:
            fernet(key)
        except BadEncryptionKey:
            problems.append("encryption_key_bad")
    return problems


def web_client(settings: Settings, metrics: Metrics | None = None, acks: AckGate | None = None) -> WebClient:
    """The Web API client: SLACK_API_URL as base; retries after 429, 5xx and dropped connections (retries.py);
    each call gives way to the process's acknowledgements in flight (`acks`)."""
    token = settings.slack.bot_token.get_secret_value() if settings.slack.bot_token else None
    base = settings.slack.api_url if settings.slack.api_url.endswith("/") else settings.slack.api_url + "/"
    return YieldingClient(
        token=token,
        base_url=base,
        acks=acks,
        retry_handlers=retry_handlers(metrics, backoff_s=settings.slack.retry_backoff_s),
    )


def slack_deps(
    settings: Settings,
    *,
    now: Callable[[], datetime] | None = None,
    acks: AckGate | None = None,
    work: Callable[[Deps], tuple[Handoff, Inbox | None]] | None = None,
) -> Deps:
    """The process's Deps for the Slack app: build_deps with the OAuth installs' clients when the app installs
    through OAuth (installs.py)."""
    return build_deps(settings, now=now, acks=acks, work=work, installs=installs if settings.slack.oauth() else None)


def installs(deps: Deps) -> Installs:
    """The OAuth installs' clients, each with its workspace's own token."""
    from bot.slack.installs import Installs, installation_store

    return Installs(
        installation_store(deps.settings, deps.store.engine), web_client(deps.settings, deps.metrics, deps.acks)
    )


def create_app(deps: Deps, *, client: WebClient | None = None, lang: Lang | None = None) -> App:
    """The bolt app with every route of routes.py registered behind the inbox.

    MissingSlackSettings without tokens; SlackUnreachable when Slack (SLACK_API_URL) cannot be
    reached or rejects the token. Nothing is replayed here: serve starts inbox.replay_pending."""
    settings = deps.settings
    check_tokens(settings, lang)
    client = client or web_client(settings, deps.metrics, deps.acks)
    secret = settings.slack.signing_secret.get_secret_value() if settings.slack.signing_secret else None
    extra: dict[str, Any] = {}
    if settings.slack.oauth():  # many workspaces: each request's client carries its workspace's token
        from bot.slack.installs import Installs, oauth_settings

        if not isinstance(deps.installs, Installs):
            raise TypeError("OAuth settings need Deps with the installs' clients: build them with slack_deps()")
        extra["oauth_settings"] = oauth_settings(settings, deps.store.engine, deps.installs.store)
        _keys_open_every_install(settings, deps.store.engine, lang)
    try:
        # The HTTP front door (bot/server/http.py, bot/slack/verify.py) checks every signature before bolt sees
        # the request, without bolt's crash on a malformed timestamp; Socket Mode has no signatures.
        logger = logging.getLogger("bot.slack")
        if not any(isinstance(f, _NotAProblem) for f in logger.filters):
            logger.addFilter(_NotAProblem())
        workers = ThreadPoolExecutor(max_workers=LAZY_WORKERS, thread_name_prefix="lazy")
        # name given: bolt otherwise names the app after its caller's file with inspect.stack(), which reads the
        # source of every frame (0.1 s a start)
        app = App(
            name="gpu-advisor",
            client=client,
            signing_secret=secret,
            logger=logger,
            request_verification_enabled=False,
            process_before_response=True,
            listener_executor=workers,
            **extra,
        )
    except (BoltError, SlackApiError, URLError, OSError) as exc:
        reason = exc.response.get("error") if isinstance(exc, SlackApiError) else str(exc)
        raise SlackUnreachable(
            t("serve.slack_unreachable", lang or settings.files.lang, url=settings.slack.api_url, reason=str(reason))
        ) from None
    app.middleware(keep_in_inbox(deps))
    routes.register(app, deps, workers)

    @app.error
    def on_error(error: Exception, body: dict[str, Any], client: WebClient) -> BoltResponse | None:
        if isinstance(error, StoreUnavailable):  # the database went down mid-request: 503, not 500
            logging.getLogger(__name__).error("the state database is down: answered 503 (%s)", error.reason)
            return unavailable(error)
        request = SlackRequest(body, client)
        report(error, client, channel=request.channel, user=request.user, lang=settings.files.lang)
        return None

    return app
