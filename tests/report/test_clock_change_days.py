"""A day the clocks change has the hours it really had: money follows billed time, in the report's zone."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.report.compose import compose
from bot.state import Store
from bot.state.rentals import Rentals
from tests.support.state_template import migrated_state_db

NEW_YORK = ZoneInfo("America/New_York")  # clocks back an hour on 2026-11-01, forward an hour on 2027-03-14


@pytest.mark.parametrize(
    ("day", "hours"),
    [(date(2026, 11, 1), 25.0), (date(2026, 10, 31), 24.0), (date(2027, 3, 14), 23.0), (date(2027, 3, 15), 24.0)],
)
def test_a_clock_change_day_bills_its_real_hours(tmp_path: Path, day: date, hours: float) -> None:
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    since = datetime(2026, 10, 1, tzinfo=UTC)
    # one an hour each: 720 GB at 1 a GB-month (30 days) and a card at 24 a day billed by the hour, on all along
    rentals.track_storage(
        "T1", "ckpt",
        {"size_gb": 720.0, "price_gb_month": 1.0, "currency": "USD", "channel": "C1", "owner": "U1",
         "created_at": since},
        None,
    )  # fmt: skip
    rentals.track_instance(
        "T1", "box",
        {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "day", "billing": "hourly", "price": 24.0,
         "currency": "USD", "channel": "C1", "owner": "U1", "started_at": since},
    )  # fmt: skip
    made = compose(rentals, "T1", day, day, zone=NEW_YORK, now=datetime(2027, 4, 1, tzinfo=UTC), busy_above_pct=5)
    costs = {r.kind: r.cost for r in made.rows}
    assert costs == {"storage": pytest.approx(hours), "instance": pytest.approx(hours)}
    assert [r.billed_hours for r in made.rows if r.kind == "instance"] == [pytest.approx(hours)]


def test_the_months_storage_in_the_digest_is_the_reports_across_a_clock_change(tmp_path: Path) -> None:
    from rules.digest import stored_this_month

    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    rentals.track_storage(
        "T1", "ckpt",
        {"size_gb": 720.0, "price_gb_month": 1.0, "currency": "USD", "channel": "C1", "owner": "U1",
         "created_at": datetime(2026, 10, 1, tzinfo=UTC)},
        None,
    )  # fmt: skip
    now = datetime(2026, 11, 3, 17, tzinfo=UTC).astimezone(NEW_YORK)  # 12:00 on the 3rd, clocks back on the 1st
    made = compose(rentals, "T1", date(2026, 11, 1), date(2026, 11, 30), zone=NEW_YORK, now=now, busy_above_pct=5)
    [disk] = rentals.storage("T1")
    assert sum(r.cost for r in made.rows) == pytest.approx(25 + 24 + 12)  # an hour's money an hour
    assert stored_this_month(disk, now) == pytest.approx(25 + 24 + 12)
