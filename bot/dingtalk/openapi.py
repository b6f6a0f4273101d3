"""DingTalk's OpenAPI through its official SDK (alibabacloud-dingtalk's Tea clients), pointed at
GPU_ADVISOR_DINGTALK_API_URL: the app's access token (POST /v1.0/oauth2/accessToken, kept until 5 minutes before it
expires), cards created and delivered (POST /v1.0/card/instances/createAndDeliver) and updated (PUT
/v1.0/card/instances), and the contacts searched (POST /v1.0/contact/users/search).

Throttling (HTTP 429, errcode 88, -1 or 130101, a QPS-limit code) and DingTalk's 5xx are retried with a backoff;
a refused token is asked for again once. What fails for good is DingTalkError, said to `on_failure` (the log and
/healthz). The secret and the tokens never reach a log line."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

THROTTLED = {"88", "-1", "130101"}  # DingTalk's errcodes for "too many calls" and "busy, try again"
BACKOFF_S = (0.5, 1.0, 2.0, 4.0)  # within a custom robot's 20 messages a minute, 4 tries take 7.5 s at most
TOKEN_MARGIN_S = 300  # a token is asked for again 5 minutes before it expires


@dataclass
class DingTalkError(Exception):
    code: str
    status: int | None = None
    msg: str = ""

    def __str__(self) -> str:
        return f"{self.code}: {self.msg}" if self.msg else self.code


def _throttled(code: str, status: int | None) -> bool:
    return status == 429 or code in THROTTLED or "qpslimit" in code.lower() or "throttl" in code.lower()


class OpenApi:
    def __init__(
        self,
        client_id: str,
        client_secret: str,
        api_url: str,
        robot_code: str,
        *,
        on_retry: Callable[[str], None] | None = None,
        on_failure: Callable[[str, DingTalkError], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        backoff_s: Sequence[float] = BACKOFF_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client_id, self._secret, self.robot_code = client_id, client_secret, robot_code
        url = urlsplit(api_url)
        self.protocol, self.endpoint = url.scheme or "https", url.netloc
        self.on_retry, self.on_failure = on_retry, on_failure
        self.sleep, self.backoff_s, self.clock = sleep, tuple(backoff_s), clock
        self._clients: dict[str, Any] = {}
        self._token: tuple[str, float] | None = None
        self._lock = threading.Lock()

    def _client(self, service: str) -> Any:
        """The SDK's client of one service (oauth2_1_0, card_1_0, contact_1_0), made once."""
        found = self._clients.get(service)
        if found is None:
            import importlib

            from alibabacloud_tea_openapi.models import Config

            module = importlib.import_module(f"alibabacloud_dingtalk.{service}.client")
            config = Config(protocol=self.protocol, endpoint=self.endpoint, read_timeout=10_000, connect_timeout=5_000)
            found = self._clients[service] = module.Client(config)
        return found

    def _models(self, service: str) -> Any:
        import importlib

        return importlib.import_module(f"alibabacloud_dingtalk.{service}.models")

    def token(self) -> str:
        """The app's access token, asked for when there is none or it expires within 5 minutes."""
        with self._lock:
            if self._token is not None and self.clock() < self._token[1]:
                return self._token[0]
            models = self._models("oauth2_1_0")
            request = models.GetAccessTokenRequest(app_key=self.client_id, app_secret=self._secret)
            body = self._retrying("oauth2.accessToken", lambda: self._client("oauth2_1_0").get_access_token(request))
            token, expires_in = str(body.get("accessToken") or ""), int(body.get("expireIn") or 0)
            if not token:
                raise DingTalkError("no_token", None, "the access token answer had no accessToken")
            self._token = (token, self.clock() + max(expires_in - TOKEN_MARGIN_S, 60))
            return token

    def check(self) -> None:
        """The credentials are taken: an access token is given (DingTalkError when refused)."""
        with self._lock:
            self._token = None
        self.token()

    def call(
        self, what: str, service: str, method: str, body: dict[str, Any], *, report: bool = True
    ) -> dict[str, Any]:
        """`method` of `service` with `body` (the API's own JSON names), as the app: the answer's body. A refusal
        for good is said to on_failure unless `report` is False (a question whose "no" is an answer)."""
        models = self._models(service)
        name = "".join(part.title() for part in method.removesuffix("_with_options").split("_"))
        request = getattr(models, f"{name}Request")().from_map(body)
        from alibabacloud_tea_util.models import RuntimeOptions

        refreshed = False
        while True:
            headers = getattr(models, f"{name}Headers")(x_acs_dingtalk_access_token=self.token())
            try:
                send: Callable[..., Any] = getattr(self._client(service), method)
                return self._retrying(what, partial(send, request, headers, RuntimeOptions()))
            except DingTalkError as exc:
                if exc.status == 401 and not refreshed:  # the token was revoked or expired early: once more
                    refreshed = True
                    with self._lock:
                        self._token = None
                    continue
                if self.on_failure is not None and report:
                    self.on_failure(what, exc)
                raise

    def _retrying(self, what: str, send: Callable[[], Any]) -> dict[str, Any]:
        from Tea.exceptions import TeaException, UnretryableException

        for attempt in range(len(self.backoff_s) + 1):
            try:
                answer = send()
            except TeaException as exc:
                code, status = str(exc.code or ""), getattr(exc, "statusCode", None)
                error = DingTalkError(code or str(status), status, str(getattr(exc, "description", "") or ""))
                again = _throttled(code, status) or (status is not None and status >= 500)
            except (UnretryableException, OSError) as exc:
                error, again = DingTalkError("unreachable", None, type(exc).__name__), True
            else:
                body = getattr(answer, "body", None)
                found = body.to_map() if body is not None else {}
                errcode = str(found.get("errcode") or found.get("code") or "0")
                if errcode in THROTTLED:  # an answer of 200 that says "too many": as a 429
                    error, again = DingTalkError(errcode, 200, str(found.get("errmsg") or "")), True
                else:
                    return found
            if not again or attempt == len(self.backoff_s):
                raise error
            if self.on_retry is not None:
                self.on_retry("throttled" if _throttled(error.code, error.status) else "unavailable")
            log.info("DingTalk %s: %s, trying again in %.1f s", what, error.code, self.backoff_s[attempt])
            self.sleep(self.backoff_s[attempt])
        raise AssertionError("unreachable")

    # --- what the chat sends ---

    def deliver_card(self, out_track_id: str, space: str, params: dict[str, str], template: str) -> None:
        """A card (`template`, its `params`) created and delivered in `space` (dtv1.card//IM_GROUP.<conversation>
        or dtv1.card//IM_ROBOT.<userId>); `out_track_id` names it for updates and presses, and is the same for a
        redo of the same work, which DingTalk keeps as one card."""
        group = space.startswith("dtv1.card//IM_GROUP.")
        body: dict[str, Any] = {
            "cardTemplateId": template,
            "outTrackId": out_track_id,
            "callbackType": "STREAM",
            "cardData": {"cardParamMap": params},
            "openSpaceId": space,
            "userIdType": 1,
        }
        if group:
            body["imGroupOpenSpaceModel"] = {"supportForward": True}
            body["imGroupOpenDeliverModel"] = {"robotCode": self.robot_code}
        else:
            body["imRobotOpenSpaceModel"] = {"supportForward": True}
            body["imRobotOpenDeliverModel"] = {"spaceType": "IM_ROBOT", "robotCode": self.robot_code}
        answer = self.call("card.createAndDeliver", "card_1_0", "create_and_deliver_with_options", body)
        result = answer.get("result") or {}
        failed = [d for d in result.get("deliverResults") or [] if d.get("success") is False]
        if answer.get("success") is False or failed:
            reason = str((failed[0] if failed else answer).get("errorMsg") or "not delivered")
            raise DingTalkError("not_delivered", None, reason)

    def update_card(self, out_track_id: str, params: dict[str, str]) -> None:
        body = {
            "outTrackId": out_track_id,
            "cardData": {"cardParamMap": params},
            "cardUpdateOptions": {"updateCardDataByKey": True},
            "userIdType": 1,
        }
        self.call("card.update", "card_1_0", "update_card_with_options", body)

    def group_owner(self, conversation: str) -> str | None:
        """The userId of the group's owner (POST /v1.0/im/sceneGroups/query); None when DingTalk will not say (a
        group the robot's app may not read): then nobody is taken for its owner."""
        try:
            body = {"openConversationId": conversation}
            answer = self.call(
                "im.sceneGroups.query", "im_1_0", "get_scene_group_info_with_options", body, report=False
            )
        except DingTalkError as exc:
            log.info("the owner of a group not read (%s): nobody is taken for it", exc.code)
            return None
        return str(answer.get("ownerUserId") or "") or None

    def search_users(self, word: str) -> list[str]:
        """The userIds the contacts find for `word` (a name, a mobile number or an address), exact matches only."""
        body = {"queryWord": word, "offset": 0, "size": 2, "fullMatchField": 1}
        answer = self.call("contact.users.search", "contact_1_0", "search_user_with_options", body)
        return [str(user) for user in answer.get("list") or []]
