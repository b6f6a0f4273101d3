"""serve's hourly reports:keep-days job keeps each team's ended days (their GPU-hours, and each instance's figures
of them) before the board asks: the board then makes only today's part, and its figures are the same."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select

from bot.board.figures import board
from bot.server.jobs import jobs_of
from bot.state.rentals import Rentals
from bot.state.retention import roll_up
from bot.state.schema import activity_days, money_days
from rules.samples import Sample
from tests.support.slack_harness import running_app

THURSDAY_0910_SHANGHAI = datetime(2026, 12, 3, 1, 10, tzinfo=UTC)
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY",
          "owner": "U1", "project": "llm"}  # fmt: skip


def _kept(h: object) -> tuple[int, int]:
    with h.deps.store.reading() as conn:  # type: ignore[attr-defined]
        return tuple(  # type: ignore[return-value]
            int(conn.execute(select(func.count()).select_from(table)).scalar() or 0)
            for table in (activity_days, money_days)
        )


def test_the_job_keeps_the_boards_days_and_the_board_reads_them(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = THURSDAY_0910_SHANGHAI
        rentals = Rentals(h.deps.store)
        for n, channel in enumerate(("C1", "C2")):
            inst, _ = rentals.track_instance(
                "T1", f"box-{n}", FIELDS | {"channel": channel, "started_at": h.clock.now - timedelta(days=9)}
            )
            samples = [
                Sample(h.clock.now - timedelta(minutes=m), 0, 90.0 if m % 600 < 300 else 1.0, 1000.0, 81920.0)
                for m in range(30, 8 * 24 * 60, 10)
            ]
            rentals.add_samples(inst.id, samples, [None] * len(samples))
        roll_up(h.deps.store)
        before = board(h.deps, "T1", None, h.clock.now, lambda _t, ids: {})  # adds every day up, and keeps them
        shown = _kept(h)
        with h.deps.store.writing() as conn:
            conn.execute(activity_days.delete())
            conn.execute(money_days.delete())
        [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "reports:keep-days"]
        assert job.every == job.shared == timedelta(hours=1) and job.at_start  # not an hour after a deploy
        assert job.work() == 1  # one team, in one zone (the default schedule's)
        assert _kept(h) == shown and min(shown) > 0  # the days the board keeps, for both boxes
        again = board(h.deps, "T1", None, h.clock.now, lambda _t, ids: {})
        assert _kept(h) == shown  # read, nothing left to keep
        assert again.as_json() == before.as_json()


def test_the_fold_and_the_keeping_run_just_after_each_whole_hour_and_at_start_up(tmp_path: Path) -> None:
    """Every whole hour is midnight in some zone: the day that ended is folded, then kept, within a minute of it, so
    the first board after a zone's midnight finds it kept, whenever serve was started."""
    from bot.server.jobs import trigger_of

    started = datetime(2026, 12, 3, 1, 10, 5, tzinfo=UTC)
    with running_app(tmp_path) as h:
        jobs = {j.id: j for j in jobs_of(h.settings, h.deps, h.doors())}
    for job_id, past in (("samples:compact", 10), ("reports:keep-days", 40)):
        trigger, first = trigger_of(jobs[job_id], started)
        assert first == started  # and once at start-up
        fires = [trigger.get_next_fire_time(None, started)]
        fires.append(trigger.get_next_fire_time(fires[0], fires[0] + timedelta(seconds=1)))
        assert fires == [datetime(2026, 12, 3, h, 0, past, tzinfo=UTC) for h in (2, 3)]
    trigger, first = trigger_of(jobs["inbox:prune"], started)  # the others run every so often from start-up
    assert first is None and trigger.get_next_fire_time(None, started) == started + timedelta(hours=6)
