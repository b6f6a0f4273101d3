"""The board's idle list is the digest's (bot/board/figures.py `_idle_now`): which items are idle is judged from the
power timelines of the last idle window and an hour, and only those idle items' months are read for what they billed
since they went quiet. Its items, their moments and their money equal the digest's: a box off for a stretch since it
went quiet, one started again long ago, one started again within the window (too young for either), one off now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.board.figures import board
from bot.deps import build_deps
from bot.digest.send import digests
from bot.settings import Settings
from bot.state.power import PowerLog, Sighting
from bot.state.rentals import Rentals
from rules.idle import Activity
from rules.power import Power
from rules.samples import Sample
from tests.support.state_template import with_migrated_state

NOW = datetime(2026, 12, 4, 2, tzinfo=UTC)  # 10:00 in Shanghai
SHANGHAI = ZoneInfo("Asia/Shanghai")
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY",
          "owner": "U1", "project": "llm", "started_at": NOW - timedelta(days=6)}  # fmt: skip


def test_the_idle_list_is_the_digests_with_each_idle_items_month_read(tmp_path: Path) -> None:
    deps = build_deps(
        with_migrated_state(Settings(state_db=tmp_path / "state.db", db=tmp_path / "prices.db", azure_enabled=False))
    )
    rentals, log = Rentals(deps.store), PowerLog(deps.store)
    # name, channel, utilisation, power (off from, on again from; hours before now), or None
    boxes = [
        ("off-a-while", "C1", 0.0, (20, 16)),  # quiet, and off four hours of it: not billed then
        ("restarted-long-ago", "C1", 0.0, (30, 26)),
        ("restarted-just-now", "C2", 0.0, (3, 0.5)),  # on again 30 minutes ago: too young to judge
        ("busy", "C2", 90.0, None),
        ("off-now", "C2", 0.0, (2, None)),
    ]
    for name, channel, util, power in boxes:
        inst, _ = rentals.track_instance("T1", name, FIELDS | {"channel": channel})
        samples = [Sample(NOW - timedelta(minutes=m), 0, util, 1000, 81920) for m in range(1, 60 * 48, 5)]
        rentals.add_samples(inst.id, samples, [None] * len(samples))
        if power is not None:
            off, on = power
            log.sight([Sighting(inst.id, Power.OFF, NOW - timedelta(hours=off), "agent")])
            if on is not None:
                log.sight([Sighting(inst.id, Power.ON, NOW - timedelta(hours=on), "agent")])
    made = board(deps, "T1", None, NOW, lambda _t, _ids: {})
    told = digests(rentals, "T1", ["C1", "C2"], NOW, deps.policy.idle, deps.policy.metering, SHANGHAI)
    quiet = sorted(
        (news.name, where, news.since.isoformat() if news.since else None, round(news.burned, 2))
        for where, digest in told.items()
        for news in digest.instances
        if news.activity in (Activity.IDLE, Activity.MEMORY_HELD)
    )
    shown = sorted((r["item"], r["channel"], r["since"], r["billed_since"]) for r in made.idle)
    assert shown == quiet
    assert [r[0] for r in shown] == ["off-a-while", "restarted-long-ago"]
    billed = {r[0]: r[3] for r in shown}
    assert billed["off-a-while"] < billed["restarted-long-ago"]  # its hours off since it went quiet are not billed
