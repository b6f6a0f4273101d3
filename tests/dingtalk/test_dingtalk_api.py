"""DingTalk's OpenAPI and settings as the bot uses them: throttling retried and a failure for good said in
/healthz's terms; the secret, the access token and the Stream ticket in no log line at any level; half the
credentials refused naming what to set; the terminal's `remind --now` sends an organisation's digest with only
DingTalk's settings."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.message import plain
from bot.chat.port import ChatError, Place
from bot.dingtalk.events import MESSAGE_TOPIC
from bot.dingtalk.gateway import DingTalkGateway
from bot.dingtalk.setup import SETUP
from bot.settings import Settings
from bot.state import Store
from bot.state.rentals import Rentals
from bot.text import Lang
from bot.web.answer import DoorRefused
from rules.samples import Sample
from tests.digest.test_schedule import FIELDS
from tests.support.cli import run_cli
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CLIENT_ID, CLIENT_SECRET, CORP, TICKET, TOKEN, fake_dingtalk
from tests.support.state_template import migrated_state_db

GROUP = "cidGroupA1b2C3+d4/e5=="
TEAM = f"dingtalk:{CORP}"


def test_throttling_is_retried_and_a_refusal_for_good_is_said(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        chat, place = h.gateway.chat, Place(h.gateway.chat.platform, TEAM, GROUP)
        h.fake.throttle = 2  # two 429s with DingTalk's QPS-limit code, then taken
        posted = chat.post(place, lambda each: plain("hello", each), Lang.EN)
        assert h.fake.cards[posted.id].params["markdown"] == "hello"
        h.fake.throttle = 10  # past every retry
        with pytest.raises(ChatError) as refused:
            chat.post(place, lambda each: plain("again", each), Lang.EN)
        assert refused.value.code == "Forbidden.AccessDenied.QpsLimitForApi"
        assert "QpsLimit" in (h.gateway.health().get("last_failure") or "")
        assert h.gateway.health()["state"] == "connected"


def test_no_secret_token_or_ticket_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_dingtalk(tmp_path, lang="en") as h:
        h.fake.message("advise", "manager4521")
        h.fake.wait_for(lambda: len(h.fake.cards) >= 2)
        h.settled()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert logged  # the SDKs and the bot did log (at DEBUG)
    for secret in (CLIENT_SECRET, TOKEN, TICKET):
        assert secret not in logged


def test_half_the_credentials_are_refused_naming_what_to_set() -> None:
    settings = Settings(dingtalk_client_id=CLIENT_ID)
    assert SETUP.turned_on(settings)
    with pytest.raises(DoorRefused, match="GPU_ADVISOR_DINGTALK_CLIENT_SECRET"):
        SETUP.check(settings, Lang.EN)
    with pytest.raises(ValueError, match="http only on the loopback"):
        Settings(dingtalk_api_url="http://api.example.com")


def test_remind_now_sends_an_organisations_digest_from_the_terminal(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    now = datetime.now(UTC)
    rentals = Rentals(store)
    inst, _ = rentals.track_instance(
        TEAM, "train-1", FIELDS | {"channel": GROUP, "owner": "manager4521", "started_at": now - timedelta(hours=3)}
    )
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    with fake_dingtalk() as fake:
        env = {
            "GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db"),
            "GPU_ADVISOR_DINGTALK_CLIENT_ID": CLIENT_ID,
            "GPU_ADVISOR_DINGTALK_CLIENT_SECRET": CLIENT_SECRET,
            "GPU_ADVISOR_DINGTALK_API_URL": fake.base_url,
            "GPU_ADVISOR_REMIND_PACE_S": "0",
            "GPU_ADVISOR_LANG": "en",
        }
        done = run_cli("remind", "--now", "--team", TEAM, "--channel", GROUP, env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        [digest] = fake.in_space(f"dtv1.card//IM_GROUP.{GROUP}")
        assert "train-1" in digest.params["markdown"] and digest.buttons


def test_an_owner_tag_by_address_or_mobile_is_found_in_the_contacts(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        h.fake.users |= {"ana@example.com": "manager4521", "13800138000": "staff0917"}
        wing = h.gateway.wing()
        assert wing.person(TEAM, "ana@example.com") == "manager4521"
        assert wing.person(TEAM, "13800138000") == "staff0917"
        assert wing.person(TEAM, "nobody@example.com") is None


def test_a_frame_acknowledged_before_a_crash_is_done_once_at_the_next_start(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        h.gateway.stop()  # the process that acknowledged it is gone; its frame is kept, its work not done
        frame = {"msgId": "msgCrash1", "senderStaffId": "manager4521", "chatbotCorpId": CORP, "conversationType": "2",
                 "conversationId": GROUP, "text": {"content": " prices A100"}, "msgtype": "text"}  # fmt: skip
        assert h.deps.inbox.enqueue("dingtalk:msgCrash1", "dingtalk", frame)
        again = DingTalkGateway(h.deps)  # the next start
        assert again.replay() == 1 and again.replay() == 0
        assert len(h.fake.in_space(f"dtv1.card//IM_GROUP.{GROUP}")) == 1  # answered once
        assert again.receive(MESSAGE_TOPIC, "frame-late", frame) == {}  # DingTalk's late redelivery: done once
        again.pool.shutdown(wait=True)
        assert len(h.fake.in_space(f"dtv1.card//IM_GROUP.{GROUP}")) == 1


def test_a_groups_messages_are_paced_under_dingtalks_20_a_minute(tmp_path: Path) -> None:
    from bot.chat.pacer import Pacer
    from bot.dingtalk.chat import PER_MINUTE

    slept: list[float] = []
    now = [1000.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    with running_dingtalk(tmp_path, lang="en") as h:
        chat = h.gateway.chat
        chat.pacer = Pacer(PER_MINUTE, None, "DingTalk", clock=lambda: now[0], sleep=sleep)
        place = Place(chat.platform, TEAM, GROUP)
        for n in range(PER_MINUTE + 1):
            chat.post(place, lambda each, n=n: plain(f"line {n}", each), Lang.EN)
        assert slept == [pytest.approx(60.0)]  # the 21st waited for the minute; none was dropped
        assert len(h.fake.in_space(f"dtv1.card//IM_GROUP.{GROUP}")) == PER_MINUTE + 1


def test_serve_refuses_to_start_when_dingtalk_refuses_the_credentials(tmp_path: Path) -> None:
    from bot.deps import build_deps
    from tests.support.state_template import with_migrated_state

    with fake_dingtalk() as fake:
        settings = Settings(
            db=tmp_path / "bot.db",
            dingtalk_client_id=CLIENT_ID,
            dingtalk_client_secret="not-the-secret",
            dingtalk_api_url=fake.base_url,
        )
        with_migrated_state(settings)
        gateway = DingTalkGateway(build_deps(settings))
        gateway.api.backoff_s = ()
        with pytest.raises(DoorRefused, match="GPU_ADVISOR_DINGTALK_CLIENT_SECRET") as refused:
            gateway.check(Lang.EN)
        assert "invalidClientIdOrSecret" in str(refused.value) and "not-the-secret" not in str(refused.value)
