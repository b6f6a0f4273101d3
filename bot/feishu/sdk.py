"""The parts of lark-oapi this app uses, and only those: `import lark_oapi` loads every API of the SDK (about 3 s of
CPU here), `lark_oapi.client.Client` as much again; the IM and contact services whole with the core take 0.4 s and
17 MB. So the SDK's packages are entered without running their __init__ (which imports everything), and only the
resources the app calls are built (RESOURCES), on the SDK's own Config, token manager and transport, as the SDK's
service objects build each of theirs.

Calls are retried with backoff on Feishu's frequency limit (HTTP 429, code 99991400) and on 5xx or a dropped
connection; anything else is an answer (FeishuError carries its code)."""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import sys
import time
import types
from collections.abc import Callable
from typing import Any, NoReturn

log = logging.getLogger(__name__)

RATE_LIMITED = {99991400, 11232, 230020}  # frequency limit (Open API), message rate limits (IM)
# the tenant access token is refused (revoked, reset, or expired early): the SDK keeps its cached one until its own
# expiry, so every call fails meanwhile unless the cache is dropped and a fresh token asked for
TOKEN_REFUSED = {99991663, 99991661, 99991668}
ATTEMPTS = 4


class FeishuError(Exception):
    """The Open API refused a call (after the retries): its `code` and `msg`."""

    def __init__(self, code: int | None, msg: str, status: int | None = None) -> None:
        super().__init__(f"Feishu error {code}: {msg}")
        self.code, self.msg, self.status = code, msg, status


def enter_without_init(name: str) -> None:
    """Make package `name` importable for its submodules without running its __init__ (see the module's note)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError(f"{name} is not installed: pip install lark-oapi")
    package = types.ModuleType(name)
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    package.__package__ = name
    sys.modules[name] = package


# The Open API resources the app calls, by service: each is one module of the SDK (with the models of its own calls)
RESOURCES = {
    "lark_oapi.api.im.v1": {"message": "Message", "chat": "Chat", "image": "Image", "file": "File"},
    "lark_oapi.api.contact.v3": {"user": "User"},
}


_WORD_STARTS = re.compile(r"(?<!^)(?=[A-Z])")  # CreateMessageRequest -> create_message_request, its module's name


class Models:
    """A service's request and body models by class name (`im.CreateMessageRequest`), each imported from its own
    module when first asked for: the service's model package imports all of its models (IM's: about 900)."""

    def __init__(self, package: str) -> None:
        self._package = package

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a protocol's probe (copy, pickle, inspect): no model is named so
            raise AttributeError(name)
        try:
            module = importlib.import_module(f"{self._package}.model.{_WORD_STARTS.sub('_', name).lower()}")
            found = getattr(module, name)
        except (ImportError, AttributeError):
            raise AttributeError(f"lark-oapi has no model {name} in {self._package}") from None
        setattr(self, name, found)
        return found


def service(package: str, config: Any) -> types.SimpleNamespace:
    """The service's resources the app calls (`im.message`, `contact.user`), built on `config` as the SDK's own
    service object builds every one of its resources."""
    return types.SimpleNamespace(
        **{
            attribute: getattr(importlib.import_module(f"{package}.resource.{attribute}"), cls)(config)
            for attribute, cls in RESOURCES[package].items()
        }
    )


def load() -> Any:
    """The SDK's pieces: Config, the IM and contact services' models (`im`, `contact`), AESCipher. The services'
    packages are entered without their __init__ too: with it, IM's and contact's resources and models were about
    1,000 modules and 17 MB of each process that talks to Feishu (issue 50), for the five resources used."""
    for service_package in RESOURCES:
        parts = service_package.split(".")
        for n in range(1, len(parts) + 1):  # lark_oapi, lark_oapi.api, lark_oapi.api.im, lark_oapi.api.im.v1
            enter_without_init(".".join(parts[:n]))
        for inside in ("resource", "model"):
            enter_without_init(f"{service_package}.{inside}")
    from lark_oapi.core.model import Config
    from lark_oapi.core.utils.decryptor import AESCipher

    _pool_connections()
    return types.SimpleNamespace(
        Config=Config,
        im=Models("lark_oapi.api.im.v1"),
        contact=Models("lark_oapi.api.contact.v3"),
        AESCipher=AESCipher,
    )


POOL_SIZE = 16  # connections kept to Feishu: the gateway's threads and the digest sender's, with room


class _Pooled:
    """The `requests` the SDK's transport calls, with `request` going through one session kept for the process."""

    def __init__(self, session: Any) -> None:
        self.request = session.request

    def __getattr__(self, name: str) -> Any:
        import requests

        return getattr(requests, name)


def _pool_connections() -> None:
    """lark-oapi's transport sends every call with the module-level `requests.request`: a new session, TCP
    connection (TLS handshake included) and name lookup each time, about 40 % of the Feishu work's CPU in a burst
    of answers (issue 50). The SDK offers no session to configure, so its transport module's `requests` is given
    one whose `request` is a pooled session's, kept for the process (requests' connection pool is safe across
    threads). Done once; the SDK's own code is unchanged."""
    from lark_oapi.core.http import transport

    if isinstance(transport.requests, _Pooled):
        return
    _new_pool()
    # serve's work process is forked from the front door (bot/server/work_process.py): two processes reading
    # answers off one inherited connection would take each other's. The child starts with a pool of its own.
    os.register_at_fork(after_in_child=_new_pool)


def _new_pool() -> None:
    import requests
    from lark_oapi.core.http import transport
    from requests.adapters import HTTPAdapter

    session = requests.Session()
    adapter = HTTPAdapter(pool_connections=4, pool_maxsize=POOL_SIZE)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    transport.requests = _Pooled(session)


class OpenApi:
    """One app's Open API: the IM and contact services on one Config (the SDK keeps the tenant token cached)."""

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        base_url: str,
        *,
        backoff_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[str], None] = lambda _reason: None,
        on_failure: Callable[[str, FeishuError], None] = lambda _what, _error: None,
    ) -> None:
        self.sdk = load()
        config = self.sdk.Config()
        config.app_id, config.app_secret, config.domain, config.timeout = app_id, app_secret, base_url, 10
        self.base_url = base_url.rstrip("/")
        self.im = service("lark_oapi.api.im.v1", config)
        self.contact = service("lark_oapi.api.contact.v3", config)
        self.backoff_s, self.sleep = backoff_s, sleep
        self.on_retry, self.on_failure = on_retry, on_failure

    def check(self) -> None:
        """Ask for a tenant access token (serve's start-up check, as auth.test for Slack): FeishuError when the
        app's credentials are refused or Feishu cannot be reached."""
        self.tenant_token()

    def forget_token(self) -> None:
        """Drop the SDK's cached tenant access token: the next call asks for a fresh one."""
        from lark_oapi.core.token.manager import TokenManager

        config = self.im.message.config
        TokenManager.cache.set(f"self_tenant_token:{config.app_id}", "", 0)

    def tenant_token(self) -> str:
        """The app's tenant access token, from the SDK's token manager (cached there until near its expiry).
        FeishuError when the credentials are refused or Feishu cannot be reached. Kept out of every log."""
        import requests
        from lark_oapi.core.exception import ObtainAccessTokenException
        from lark_oapi.core.token.manager import TokenManager

        from bot.logs import keep_secret

        try:
            token = str(TokenManager.get_self_tenant_token(self.im.message.config))
        except ObtainAccessTokenException as exc:
            raise FeishuError(getattr(exc, "code", None), str(getattr(exc, "msg", "") or exc)) from None
        except requests.RequestException as exc:
            raise FeishuError(None, f"unreachable: {type(exc).__name__}") from None
        keep_secret(token)
        return token

    def call(self, what: str, send: Callable[[], Any]) -> Any:
        """Send (`send` makes the SDK call) until it is answered: the response's data, else FeishuError."""
        import requests

        delay, renewed = self.backoff_s, False
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = send()
            except requests.RequestException as exc:
                if attempt == ATTEMPTS:
                    self._failed(what, FeishuError(None, f"unreachable: {type(exc).__name__}"))
                log.warning("Feishu %s: %s, retrying in %.1f s", what, type(exc).__name__, delay)
                self.on_retry("unreachable")
            else:
                status = response.raw.status_code if response.raw is not None else None
                if response.success():
                    return getattr(response, "data", None)  # some answers (patch) carry none
                if response.code in TOKEN_REFUSED and not renewed:  # once: a fresh token, and the call again
                    log.warning(
                        "Feishu %s: the tenant token was refused (code %s); asking for a new one", what, response.code
                    )
                    self.forget_token()
                    renewed = True
                    continue
                limited = status == 429 or response.code in RATE_LIMITED
                if not (limited or (status or 0) >= 500) or attempt == ATTEMPTS:
                    self._failed(what, FeishuError(response.code, str(response.msg or ""), status))
                log.warning("Feishu %s: code %s (HTTP %s), retrying in %.1f s", what, response.code, status, delay)
                self.on_retry("rate_limited" if limited else "server_error")
            self.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    def post(self, what: str, uri: str, body: dict[str, Any]) -> None:
        """POST `body` to an Open API path the SDK has no service for (as its own `Client.request` sends one),
        with the tenant token, the pooled session and call()'s retries; FeishuError when refused."""
        from lark_oapi.core.enum import AccessTokenType, HttpMethod
        from lark_oapi.core.model import BaseRequest

        request = (
            BaseRequest.builder()
            .http_method(HttpMethod.POST)
            .uri(uri)
            .token_types({AccessTokenType.TENANT})
            .body(body)
            .build()
        )
        self.call(what, lambda: _request(self.im.message.config, request))

    def _failed(self, what: str, error: FeishuError) -> NoReturn:
        self.on_failure(what, error)
        raise error


def _request(config: Any, request: Any) -> Any:
    """Sent as the SDK's generated resources send theirs (`im.message.create`): the tenant token set, a JSON body,
    the answer read into a BaseResponse."""
    from lark_oapi.core.const import APPLICATION_JSON, CONTENT_TYPE, UTF_8
    from lark_oapi.core.http import Transport
    from lark_oapi.core.json import JSON
    from lark_oapi.core.model import BaseResponse, RequestOption
    from lark_oapi.core.token import verify

    option = RequestOption()
    verify(config, request, option)
    option.headers[CONTENT_TYPE] = f"{APPLICATION_JSON}; charset=utf-8"
    raw = Transport.execute(config, request, option)
    response = JSON.unmarshal(str(raw.content, UTF_8), BaseResponse)
    response.raw = raw
    return response
