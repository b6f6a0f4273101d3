"""A platform's lifecycle where it costs data (rules/platforms.py): an AutoDL instance left powered off is said in
the digest with when AutoDL will release it and its data (15 days off in a row) and that a paid data disk bills
meanwhile, in Slack and in Feishu's card alike, in the channel's language; a box on another platform, or one
powered on again, is not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import digest_message
from bot.digest.due import run_due
from bot.slack.markup import mrkdwn
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.text import Lang
from rules.digest import Digest, LifecycleNews
from rules.platforms import LIFECYCLES, off_since, release_at
from rules.power import Power, Stretch
from tests.metering.test_digest_and_alerts import FIELDS, MONDAY_1110_SHANGHAI
from tests.support.slack_harness import running_app

T0 = datetime(2026, 11, 20, 2, 0, tzinfo=UTC)


def test_off_since_is_the_start_of_the_trailing_off_stretch_whoever_said_it() -> None:
    day = timedelta(days=1)
    stretches = [
        Stretch(Power.ON, T0, T0 + day, "agent"),
        Stretch(Power.OFF, T0 + day, T0 + 2 * day, "agent"),
        Stretch(Power.OFF, T0 + 2 * day, T0 + 3 * day, "person"),
    ]
    assert off_since(stretches, T0 + 3 * day) == T0 + day
    assert release_at("AutoDL", stretches, T0 + 3 * day) == (T0 + day, T0 + 16 * day)
    assert release_at("aliyun", stretches, T0 + 3 * day) is None  # no such rule for it
    on_again = [*stretches, Stretch(Power.ON, T0 + 3 * day, T0 + 4 * day, "agent")]
    assert release_at("autodl", on_again, T0 + 4 * day) is None
    assert LIFECYCLES["autodl"].released_after_off == timedelta(days=15)


def test_the_digest_says_when_autodl_releases_a_box_left_off(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rentals = Rentals(h.deps.store)
        now = h.clock.now
        off, _ = rentals.track_instance("T1", "left-off", FIELDS | {"started_at": now - timedelta(days=5)})
        other, _ = rentals.track_instance(
            "T1", "elsewhere", FIELDS | {"started_at": now - timedelta(days=5), "provider": "matpool"}
        )
        for inst in (off, other):
            PowerLog(h.deps.store).say(inst.id, Power.OFF, now - timedelta(days=3), now, source="person", by="U1")
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent"
        text = json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)
        # the channel speaks Chinese; off since 11-27 11:10 Shanghai, released around 12-12 11:10
        assert "*left-off*（<@U1>）自 11-27 11:10 Asia/Shanghai 起在 AutoDL 上处于关机状态" in text
        assert "约在 12-12 11:10 Asia/Shanghai" in text and "数据盘仍在计费" in text
        assert "elsewhere" not in text and "还有" not in text  # nothing left out


def test_feishu_and_english_say_the_same() -> None:
    news = LifecycleNews("box", "ou_1", "autodl", T0, T0 + timedelta(days=15))
    card = digest_message(Digest(lifecycle=[news]), Lang.EN, ZoneInfo("Asia/Shanghai"))
    [line] = [mrkdwn(s.text) for s in card.sections]  # in Slack's markup
    assert line.startswith("*box* (<@ou_1>) has been powered off on AutoDL since 11-20 10:00 Asia/Shanghai")
    assert "around 12-05 10:00 Asia/Shanghai" in line and "paid data disk bills while it is off" in line
    assert card.title == "GPU rentals: 1 to look at"


def test_a_slice_off_on_its_daily_schedule_is_not_news_until_it_stays_off_a_day() -> None:
    """Issue 52: a slice powered off on its normal daily schedule appeared in every digest ("自 … 起在 AutoDL 上处于
    关机状态") with no button to silence it. Off under a day is its schedule; from a day off it is said."""
    hour = timedelta(hours=1)
    daily = [
        Stretch(Power.ON, T0, T0 + 4 * hour, "agent"),
        Stretch(Power.OFF, T0 + 4 * hour, T0 + 24 * hour, "agent"),
        Stretch(Power.ON, T0 + 24 * hour, T0 + 28 * hour, "agent"),
        Stretch(Power.OFF, T0 + 28 * hour, T0 + 60 * hour, "agent"),
    ]
    assert release_at("autodl", daily, T0 + 40 * hour) is None  # off 12 h: its schedule
    assert release_at("autodl", daily, T0 + 52 * hour) == (T0 + 28 * hour, T0 + 28 * hour + timedelta(days=15))


def test_the_left_off_lines_buttons_each_do_what_they_say(tmp_path: Path) -> None:
    """Issue 52: the line had no button to answer it. Snooze a week silences it for the week; Started says it is on
    again (no longer off: not news); Released releases it."""
    from tests.digest.test_buttons import again, updates

    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rentals, now = Rentals(h.deps.store), h.clock.now
        made = {}
        for name in ("snoozed", "started", "released"):
            made[name], _ = rentals.track_instance("T1", name, FIELDS | {"started_at": now - timedelta(days=5)})
            PowerLog(h.deps.store).say(made[name].id, Power.OFF, now - timedelta(days=3), now, source="person", by="U1")
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent"
        message = h.posts(channel="C1")[-1]
        pressed = {"snoozed": "rental_snooze_week", "started": "rental_started", "released": "rental_released"}
        for n, (name, action) in enumerate(pressed.items(), 1):
            h.send.click(message, action, user="U1", value=name)
            updates(h, n)
        assert rentals.instance("T1", "released").released_at == now  # type: ignore[union-attr]
        assert rentals.instance("T1", "snoozed").snoozed_until == now + timedelta(days=7)  # type: ignore[union-attr]
        later = now + timedelta(minutes=1)
        [started] = PowerLog(h.deps.store).timelines([made["started"]], later).values()
        assert started[-1].state is Power.ON and started[-1].start == now
        h.clock.advance(hours=1)
        again(h, rentals)
        after = json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)
        assert "处于关机状态" not in after  # none of the three is left off and unanswered any more
        assert "*snoozed*" not in after and "*released*" not in after
