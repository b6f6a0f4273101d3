"""Owners named by address, through WeCom's classic API (GPU_ADVISOR_WECOM_CORP_ID and _CORP_SECRET): the app's
token (GET /cgi-bin/gettoken, kept until 5 minutes before it expires) and the userid of an address (POST
/cgi-bin/user/get_userid_by_email). WeCom has no official Python SDK for this API; two calls with httpx are less than
a third-party one brings. The secret and the token are never logged."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import httpx

from bot.logs import keep_secret
from bot.tls import shared_context

log = logging.getLogger(__name__)


class CorpApi:
    def __init__(self, corp_id: str, secret: str, api_url: str, clock: Callable[[], float] = time.monotonic):
        keep_secret(secret)
        self.corp_id, self._secret, self.clock = corp_id, secret, clock
        self.client = httpx.Client(base_url=api_url, timeout=10.0, verify=shared_context())
        self._token: tuple[str, float] | None = None
        self._lock = threading.Lock()

    def token(self) -> str | None:
        with self._lock:
            if self._token is not None and self.clock() < self._token[1]:
                return self._token[0]
            answer = self.client.get("/cgi-bin/gettoken", params={"corpid": self.corp_id, "corpsecret": self._secret})
            found = answer.json() if answer.status_code == 200 else {}
            if found.get("errcode") not in (0, None) or not found.get("access_token"):
                log.warning("WeCom gave no token for the contacts (errcode %s)", found.get("errcode"))
                return None
            token = str(found["access_token"])
            keep_secret(token)
            self._token = (token, self.clock() + max(int(found.get("expires_in") or 7200) - 300, 60))
            return token

    def userid_of(self, email: str) -> str | None:
        """The userid of the member with this address (a work address first, then a personal one)."""
        try:
            token = self.token()
            if token is None:
                return None
            for kind in (2, 1):  # 2: the organisation's address, 1: a personal one
                body = {"email": email, "email_type": kind}
                found = self.client.post("/cgi-bin/user/get_userid_by_email", params={"access_token": token}, json=body)
                data = found.json() if found.status_code == 200 else {}
                if data.get("errcode") == 0 and data.get("userid"):
                    return str(data["userid"])
        except (httpx.HTTPError, ValueError) as exc:
            log.info("WeCom's contacts not reached for an owner tag (%s)", type(exc).__name__)
        return None
