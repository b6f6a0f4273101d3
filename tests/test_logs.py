"""Log lines: text or JSON with the request id and team; tokens and secrets never appear."""

from __future__ import annotations

import io
import json
import logging
import urllib.request
from pathlib import Path

import pytest

from bot.logs import RequestContext, about, configure
from tests.support.servers import fetch
from tests.support.slack_harness import SECRET, running_app


def test_json_lines_carry_time_level_logger_request_and_team() -> None:
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
    assert {k: first[k] for k in ("level", "logger", "message", "request_id", "team")} == {
        "level": "INFO",
        "logger": "bot.test",
        "message": "hello there",
        "request_id": "abc123",
        "team": "T9",
    }
    assert "time" in first and second["request_id"] == "-"


def test_text_lines_name_the_request() -> None:
    record = logging.LogRecord("bot.x", logging.INFO, __file__, 1, "work done", None, None)
    with about("r1", "T1"):
        RequestContext().filter(record)
    assert (record.request_id, record.team) == ("r1", "T1")  # type: ignore[attr-defined]


def test_a_whole_conversation_at_debug_logs_no_token_or_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
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


def test_bolts_token_will_be_unused_warning_is_not_printed_on_every_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
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


def test_no_secret_the_bot_holds_reaches_a_log_line_at_debug(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 20.6: at DEBUG a heartbeat token (in the response_url body slack_sdk logs) and an installed
    workspace's bot token (oauth.v2.access) were logged. Every secret is tried here."""
    from cryptography.fernet import Fernet

    from tests.slack.test_oauth import install, oauth_app

    caplog.set_level(logging.DEBUG)
    with running_app(tmp_path / "one") as h:
        h.send.command("track box gpu=A100-80GB price=400/day", response_url=h.fake.response_url("t"))
        reply = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/t")])[0]
        heartbeat_token = next(w for w in str(reply).replace("`", " ").split() if len(w) >= 40)
        h.send.command("enroll", response_url=h.fake.response_url("e"))
        said = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/e")])[0]
        enroll_token = said["text"].split("`")[1]
        box = {"name": "gpu-box-9", "machine_id": "m1", "gpus": [{"index": 0, "name": "NVIDIA L4"}]}
        body = json.dumps(box).encode()
        request = urllib.request.Request(
            h.base_url + "/api/enroll", data=body, method="POST", headers={"Authorization": f"Bearer {enroll_token}"}
        )
        enrolled_token = json.loads(fetch(request))["token"]
    with oauth_app(tmp_path / "two", None) as (_fake, _send, base, _):
        install(base, "T1")
    logged = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert len(caplog.records) > 20  # slack_sdk, bolt and the OAuth flow logged at DEBUG
    from tests.slack.test_oauth import KEY

    for secret in (
        heartbeat_token,
        enroll_token,
        enrolled_token,
        "xoxb-test-token",
        "xoxb-T1-bot-token",
        SECRET,
        "client-secret",
        KEY,
    ):
        assert secret not in logged, secret
    assert Fernet(KEY.encode())  # the key tried is a real one


def test_cloud_request_signatures_and_secret_keys_never_reach_a_log_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an SDK might log at debug (an Authorization header, a key pair) comes out redacted."""
    from bot.discover.aliyun import Aliyun
    from bot.discover.huawei import Huawei
    from bot.discover.tencent import Tencent
    from bot.discover.volcengine import Volcengine

    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAI-log-test")
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "aliyun-secret-for-the-log-test")
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", "AKID-log-test")
    monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", "tencent-secret-for-the-log-test")
    monkeypatch.setenv("VOLCENGINE_ACCESS_KEY", "AKLT-log-test")
    monkeypatch.setenv("VOLCENGINE_SECRET_KEY", "volcengine-secret-for-the-log-test")
    Aliyun(("cn-hangzhou",), "http://127.0.0.1:9").config("cn-hangzhou")
    Tencent(("ap-guangzhou",), "http://127.0.0.1:9").client("cvm", "ap-guangzhou")
    Volcengine(("cn-beijing",), "http://127.0.0.1:9")._api("ecs", "cn-beijing")
    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", "HPUA-log-test")
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", "huawei-secret-for-the-log-test")
    Huawei(("cn-north-4",), "http://127.0.0.1:9", {"cn-north-4": "p0"})._client("ecs", "cn-north-4")
    signature = "0f" * 32
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("tencentcloud_sdk_common").debug(
            "SendRequest: Authorization: TC3-HMAC-SHA256 Credential=AKID/2026-12-02/cvm/tc3_request, "
            "SignedHeaders=content-type;host, Signature=%s key=%s",
            signature,
            "tencent-secret-for-the-log-test",
        )
        logging.getLogger("alibabacloud").debug("secret %s", "aliyun-secret-for-the-log-test")
        logging.getLogger("com.volcengine.sdkcore").debug(
            "final Authorization header: HMAC-SHA256 Credential=AKLT/20261205/cn-beijing/ecs/request, "
            "SignedHeaders=host;x-date, Signature=%s sk=%s",
            signature,
            "volcengine-secret-for-the-log-test",
        )
        logging.getLogger("HuaweiCloud-SDK").debug(
            "Authorization: SDK-HMAC-SHA256 Access=HPUA-log-test, SignedHeaders=host;x-sdk-date, Signature=%s sk=%s",
            signature,
            "huawei-secret-for-the-log-test",
        )
    assert signature not in caplog.text and "secret-for-the-log-test" not in caplog.text
    assert caplog.text.count("[redacted]") >= 7
