"""WeCom's connection and sender as the bot uses them: its own pacing under WeCom's 30 messages a minute to one
chat (waiting, said in the log) and 1,000 an hour (refused, said); a card update past WeCom's 5 s sent anew; no
secret in any log line; half the settings refused naming what to set; the terminal's `remind --now` through the
robot's connection with only WeCom's settings."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.message import plain
from bot.chat.pacer import Pacer
from bot.chat.port import ChatError, Place, Posted
from bot.settings import Settings
from bot.state import Store
from bot.state.rentals import Rentals
from bot.text import Lang
from bot.web.answer import DoorRefused
from bot.wecom.chat import PER_HOUR, PER_MINUTE
from bot.wecom.setup import SETUP
from rules.samples import Sample
from tests.digest.test_schedule import FIELDS
from tests.support.cli import run_cli
from tests.support.fake_wecom import BOT_ID, BOT_SECRET, fake_wecom
from tests.support.state_template import migrated_state_db
from tests.support.wecom_harness import running_wecom

GROUP = "wrkSFfCgAAxyzGroup01"


class FakeClock:
    def __init__(self) -> None:
        self.now, self.slept = 1000.0, []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_sender_waits_within_the_minute_and_refuses_past_the_hour(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.chat.pacer")
    clock = FakeClock()
    pacer = Pacer(PER_MINUTE, PER_HOUR, "WeCom", clock=lambda: clock.now, sleep=clock.sleep)
    for _ in range(PER_MINUTE):
        pacer.take(GROUP)
    assert clock.slept == []
    pacer.take(GROUP)  # the 31st within the minute waits until the first is a minute old
    assert clock.slept == [pytest.approx(60.0)] and "holding a message" in caplog.text
    pacer.take("another-chat")  # each chat has its own count
    assert len(clock.slept) == 1
    for _ in range(PER_HOUR - PER_MINUTE - 1):
        pacer.take(GROUP)
    with pytest.raises(ChatError, match="paced_hour"):
        pacer.take(GROUP)
    assert "held back a message" in caplog.text


def test_a_click_answered_past_wecoms_5_s_sends_the_card_anew(tmp_path: Path) -> None:
    with running_wecom(tmp_path, lang="en") as h:
        chat = h.gateway.chat
        posted = chat.post(Place(chat.platform, f"wecom:{BOT_ID}", GROUP), lambda e: plain("before", e), Lang.EN)
        stale = {"cmd": "aibot_event_callback", "headers": {"req_id": "aibot_event_callback_gone"}, "body": {}}
        with chat.answering(posted.id, stale):  # a click whose frame WeCom no longer takes (a redo after a stop)
            chat.update(Posted(posted.place, posted.id), lambda e: plain("after", e), Lang.EN)
        assert h.fake.refused_updates == 1 and "after" in h.fake.to(GROUP)[-1].text
        chat.update(Posted(posted.place, posted.id), lambda e: plain("later", e), Lang.EN)
        assert "later" not in h.fake.to(GROUP)[-1].text  # no click on it: it stays as it was


def test_no_secret_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_wecom(tmp_path, lang="en") as h:
        h.fake.message("advise", "ana.li")
        h.fake.wait_for(lambda: len(h.fake.sent) >= 2)
        h.settled()
        h.settled(h.fake.file_message("capture.csv", b"not a capture", "ana.li"))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "Received push message" in logged and BOT_SECRET not in logged
    [path] = h.fake.files  # the file's key and its address's signature are in no line
    assert '"aeskey": "[redacted]"' in logged and path.split("?")[1] not in logged


def test_half_the_settings_are_refused_naming_what_to_set() -> None:
    settings = Settings(wecom_bot_id=BOT_ID)
    assert SETUP.turned_on(settings)
    with pytest.raises(DoorRefused, match="GPU_ADVISOR_WECOM_BOT_SECRET"):
        SETUP.check(settings, Lang.EN)
    with pytest.raises(ValueError, match="ws only on the loopback"):
        Settings(wecom_ws_url="ws://openws.example.com")


def test_remind_now_sends_a_robots_digest_from_the_terminal(tmp_path: Path) -> None:
    team = f"wecom:{BOT_ID}"
    store = Store(migrated_state_db(tmp_path / "state.db"))
    now = datetime.now(UTC)
    rentals = Rentals(store)
    inst, _ = rentals.track_instance(
        team, "train-1", FIELDS | {"channel": GROUP, "owner": "ana.li", "started_at": now - timedelta(hours=3)}
    )
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    with fake_wecom() as fake:
        env = {
            "GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db"),
            "GPU_ADVISOR_WECOM_BOT_ID": BOT_ID,
            "GPU_ADVISOR_WECOM_BOT_SECRET": BOT_SECRET,
            "GPU_ADVISOR_WECOM_WS_URL": fake.url,
            "GPU_ADVISOR_REMIND_PACE_S": "0",
            "GPU_ADVISOR_LANG": "en",
        }
        done = run_cli("remind", "--now", "--team", team, "--channel", GROUP, env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        [digest] = fake.to(GROUP)
        assert "train-1" in digest.text and digest.buttons


def test_an_owner_tag_by_address_is_found_with_the_classic_api() -> None:
    from bot.wecom.corp_api import CorpApi
    from tests.support.servers import Request, serve

    def token(request: Request) -> tuple[int, dict[str, str], bytes]:
        good = "corpid=ww1234&corpsecret=app-secret-1" in request.query
        body = {"errcode": 0, "access_token": "tok-42", "expires_in": 7200} if good else {"errcode": 40001}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    def by_email(request: Request) -> tuple[int, dict[str, str], bytes]:
        asked = json.loads(request.body)
        found = "access_token=tok-42" in request.query and asked == {"email": "ana@example.com", "email_type": 2}
        body = {"errcode": 0, "userid": "ana.li"} if found else {"errcode": 46004, "errmsg": "user not found"}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    with serve({"/cgi-bin/gettoken": token, "/cgi-bin/user/get_userid_by_email": by_email}) as api:
        contacts = CorpApi("ww1234", "app-secret-1", api.base_url)
        assert contacts.userid_of("ana@example.com") == "ana.li"
        assert contacts.userid_of("nobody@example.com") is None  # a work address, then a personal one: none
        assert len(api.hits("/cgi-bin/gettoken")) == 1  # the token kept
        assert CorpApi("ww1234", "wrong", api.base_url).userid_of("ana@example.com") is None


def test_a_frame_taken_before_a_crash_is_done_once_at_the_next_start(tmp_path: Path) -> None:
    from bot.wecom.gateway import WeComGateway

    with running_wecom(tmp_path, lang="en") as h:
        frame = {
            "cmd": "aibot_msg_callback",
            "headers": {"req_id": "aibot_msg_callback_old"},
            "body": {"msgid": "msgCrash1", "aibotid": BOT_ID, "chattype": "group", "chatid": GROUP,
                     "from": {"userid": "ana.li"}, "msgtype": "text", "text": {"content": "@GPU助手 prices A100"}},
        }  # fmt: skip
        assert h.deps.inbox.enqueue("wecom:msgCrash1", "wecom", frame)  # kept; the process died before its work
        again = WeComGateway(h.deps)  # the next start (it sends over the connection it opens)
        try:
            assert again.replay() == 1 and again.replay() == 0
            assert len(h.fake.to(GROUP)) == 1  # answered once (its reply's window gone: sent unasked)
            again.receive(frame)  # WeCom hands it again: done once
            again.pool.shutdown(wait=True)
            assert len(h.fake.to(GROUP)) == 1
        finally:
            again.stop()


def test_serve_refuses_to_start_when_wecom_refuses_the_robots_secret(tmp_path: Path) -> None:
    from bot.deps import build_deps
    from bot.wecom.gateway import WeComGateway
    from tests.support.state_template import with_migrated_state

    with fake_wecom() as fake:
        settings = Settings(
            db=tmp_path / "bot.db", wecom_bot_id=BOT_ID, wecom_bot_secret="not-the-secret", wecom_ws_url=fake.url
        )
        with_migrated_state(settings)
        gateway = WeComGateway(build_deps(settings))
        with pytest.raises(DoorRefused, match="GPU_ADVISOR_WECOM_BOT_SECRET") as refused:
            gateway.check(Lang.EN)
        assert "invalid secret" in str(refused.value) and "not-the-secret" not in str(refused.value)
        assert not gateway.connection.thread.is_alive()  # closed, not retrying behind a refused start


def test_a_message_is_answered_even_when_the_state_cannot_keep_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """WeCom gives a frame once and takes no acknowledgement: a full disk must not lose the person's message."""
    from sqlalchemy import create_engine, event

    with running_wecom(tmp_path, lang="en") as h:
        db = Path(h.deps.store.engine.url.database or "")
        full = create_engine(f"sqlite:///{db}", connect_args={"check_same_thread": False})

        @event.listens_for(full, "connect")
        def _cap(dbapi: Any, _record: Any) -> None:
            dbapi.execute("PRAGMA query_only = ON")  # no write is taken: as a disk that is full or gone read-only

        h.deps.store.engine = full
        h.fake.message("prices A100", "ana.li")
        [said] = h.fake.wait_for(lambda: h.fake.to("ana.li"))
        assert "A100" in said.text and "not kept" in caplog.text  # said in the log: it will not be redone
