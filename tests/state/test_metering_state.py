"""Migration 0022 and the metering tables on SQLite and PostgreSQL: an instance kept before it is on from its
start after the upgrade (as every figure counted it), down to 0021 and up again; sightings extend their report
or start one; a person's report refused in the future or inside a machine's stretch; reports read from a time
with the one before it; the latest balance per provider and its alert claimed once per threshold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, insert, select

from bot.state import Store
from bot.state.balance_floors import Floors
from bot.state.balances import Balances
from bot.state.migrate import downgrade, upgrade
from bot.state.power import PowerLog, Sighting
from bot.state.rentals import RentalError, Rentals
from bot.state.schema import power_reports, prepaid_balances
from rules.power import Power

T0 = datetime(2026, 12, 1, 1, tzinfo=UTC)
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 14.0, "currency": "CNY"}
FIELDS |= {"channel": "C1", "owner": "U1", "project": None}


def test_an_instance_kept_before_0022_is_on_from_its_start(db_target: str) -> None:
    from sqlalchemy import column, table

    store = Store(db_target)
    with store.engine.begin() as conn:
        downgrade(conn, "0021")
        names = ("team", "name", "channel", "owner", "gpu", "cards", "unit", "price", "currency", "token_hash")
        old = table("rental_instances", *(column(n) for n in (*names, "started_at", "source")))
        conn.execute(
            insert(old).values(
                team="T1", name="old", channel="C1", owner="U1", gpu="A100-80GB", cards=1, unit="day", price=400.0,
                currency="CNY", token_hash="x" * 64, started_at=T0.isoformat() if conn.dialect.name == "sqlite" else T0,
                source="track",
            )
        )  # fmt: skip
        upgrade(conn)
    inst = Rentals(Store(db_target)).instance("T1", "old")
    assert inst is not None and (inst.billing, inst.stop_billing, inst.provider) == (None, None, None)
    [report] = PowerLog(Store(db_target)).reports([inst.id])[inst.id]
    assert (report.state, report.at, report.source) == (Power.ON, T0, "track")


def test_sightings_a_persons_word_and_reports_from_a_time(db_target: str) -> None:
    store = Store(db_target)
    inst, _ = Rentals(store).track_instance("T1", "box", FIELDS | {"started_at": T0})
    log = PowerLog(store)
    beats = [Sighting(inst.id, Power.ON, T0 + timedelta(minutes=m), "agent") for m in (60, 61, 62, 90)]
    assert log.sight(beats) == 2  # 60-62 one report; 90 past the 15 minutes of silence: another
    assert log.sight(beats[:2]) == 0  # a replayed buffer: kept once
    said = log.reports([inst.id])[inst.id]
    assert [(r.source, r.at - T0, r.last_at - T0) for r in said] == [
        ("track", timedelta(0), timedelta(0)),
        ("agent", timedelta(minutes=60), timedelta(minutes=62)),
        ("agent", timedelta(minutes=90), timedelta(minutes=90)),
    ]
    now = T0 + timedelta(hours=3)
    with pytest.raises(RentalError) as future:
        log.say(inst.id, Power.OFF, now + timedelta(hours=1), now, source="person", by="U1")
    assert future.value.code == "power_future"
    with pytest.raises(RentalError) as before:  # kept before, it changed nothing: the bill begins at the start
        log.say(inst.id, Power.OFF, T0 - timedelta(minutes=1), now, source="person", by="U1")
    assert before.value.code == "power_before_start" and before.value.params["start"] == f"{T0:%Y-%m-%d %H:%M} UTC"
    shanghai = ZoneInfo("Asia/Shanghai")  # said on the reader's clock where the caller knows it (it was UTC always)
    with pytest.raises(RentalError) as told:
        log.say(inst.id, Power.OFF, T0 - timedelta(minutes=1), now, source="person", by="U1", zone=shanghai)
    assert told.value.params["start"] == f"{T0.astimezone(shanghai):%Y-%m-%d %H:%M} Asia/Shanghai"
    with pytest.raises(RentalError) as inside:
        log.say(inst.id, Power.OFF, T0 + timedelta(minutes=61), now, source="person", by="U1")
    assert inside.value.code == "power_overlaps" and inside.value.params["source"] == "agent"
    assert log.say(inst.id, Power.OFF, T0 + timedelta(hours=2), now, source="person", by="U1")
    assert not log.say(inst.id, Power.OFF, T0 + timedelta(hours=2), now, source="person", by="U1")  # once
    recent = log.reports([inst.id], since=T0 + timedelta(minutes=100))[inst.id]
    assert [r.at - T0 for r in recent] == [timedelta(minutes=90), timedelta(hours=2)]  # with the one before
    with store.reading() as conn:
        assert conn.execute(select(power_reports.c.by).where(power_reports.c.source == "person")).scalar() == "U1"


def test_the_latest_balance_counts_and_its_alert_is_claimed_once(db_target: str) -> None:
    balances = Balances(Store(db_target))
    balances.record("T1", "autodl", 500.0, "CNY", T0, T0)
    newer = balances.record("T1", "autodl", 320.0, "CNY", T0 + timedelta(hours=1), T0)
    balances.record("T1", "aliyun", 90.0, "CNY", T0, T0)
    balances.record("T2", "autodl", 1.0, "CNY", T0, T0)
    assert [(b.provider, b.amount) for b in balances.latest("T1")] == [("aliyun", 90.0), ("autodl", 320.0)]
    assert balances.claim_alert(newer.id, 48) and not balances.claim_alert(newer.id, 48)
    assert balances.claim_alert(newer.id, 12) and not balances.claim_alert(newer.id, 48)


def test_forgetting_a_providers_balance_takes_every_row_of_it_and_no_other(db_target: str) -> None:
    balances = Balances(Store(db_target))
    balances.record("T1", "autdl", 500.0, "CNY", T0, T0)
    balances.record("T1", "autdl", 320.0, "CNY", T0 + timedelta(hours=1), T0)
    balances.record("T1", "aliyun", 90.0, "CNY", T0, T0)
    balances.record("T2", "autdl", 1.0, "CNY", T0, T0)
    assert balances.forget("T1", "autdl") == 2 and balances.forget("T1", "autdl") == 0
    assert [b.provider for b in balances.latest("T1")] == ["aliyun"]
    assert [(b.provider, b.amount) for b in balances.latest("T2")] == [("autdl", 1.0)]  # another team's stays


def test_an_unchanged_reading_moves_the_time_of_the_one_before_it(db_target: str) -> None:
    """Read every half hour, an idle wallet adds no row; a change (spent, topped up, typed) does."""
    store = Store(db_target)
    balances = Balances(store)
    first = balances.record("T1", "autodl", 320.0, "CNY", T0, T0, source="autodl-api")
    assert balances.claim_alert(first.id, 48)
    for half_hours in range(1, 6):
        at = T0 + timedelta(minutes=30 * half_hours)
        same = balances.record("T1", "autodl", 320.0, "CNY", at, at, source="autodl-api")
        assert (same.id, same.at, same.alerted_below_h) == (first.id, at, 48)  # the alert stays told
    spent = balances.record("T1", "autodl", 300.0, "CNY", T0 + timedelta(hours=3), T0, source="autodl-api")
    typed = balances.record("T1", "autodl", 300.0, "CNY", T0 + timedelta(hours=4), T0)
    assert len({first.id, spent.id, typed.id}) == 3
    with store.reading() as conn:
        assert conn.execute(select(func.count()).select_from(prepaid_balances)).scalar() == 3


def test_an_earlier_price_kept_before_0037_is_billed_as_the_instance_is_now_and_0037_goes_down_and_up(
    db_target: str,
) -> None:
    """0037 keeps how an earlier price was billed; one kept before it has none and reads as before (the instance's
    basis now), and going down and up again keeps every earlier price."""
    rentals = Rentals(Store(db_target))
    rentals.track_instance("T1", "box", FIELDS | {"started_at": T0})
    rentals.set_price("T1", "box", 9000.0, "month", "U1", T0 + timedelta(hours=10))
    [new] = rentals.instance("T1", "box").earlier_prices  # type: ignore[union-attr]
    assert (new.price, new.unit, new.billing) == (14.0, "hour", "hourly")
    with Store(db_target).engine.begin() as conn:
        downgrade(conn, "0036")
        upgrade(conn)
    [old] = Rentals(Store(db_target)).instance("T1", "box").earlier_prices  # type: ignore[union-attr]
    assert (old.until, old.price, old.unit, old.billing) == (T0 + timedelta(hours=10), 14.0, "hour", None)


def test_an_amount_told_stays_told_through_lower_readings_and_0038_goes_down_and_up(db_target: str) -> None:
    """A reading from the provider's API no higher than the one before keeps the amount alert told (read every half
    hour, it would be told again each time); a typed balance starts afresh. 0038 goes down and up keeping balances."""
    store = Store(db_target)
    balances = Balances(store)
    first = balances.record("T1", "aliyun", 400.0, "CNY", T0, T0, source="aliyun")
    assert balances.claim_floor(first.id, 500.0) and not balances.claim_floor(first.id, 500.0)
    lower = balances.record("T1", "aliyun", 350.0, "CNY", T0 + timedelta(hours=1), T0, source="aliyun")
    assert lower.id != first.id and lower.alerted_floor == 500.0
    typed = balances.record("T1", "aliyun", 300.0, "CNY", T0 + timedelta(hours=2), T0)
    assert typed.alerted_floor is None
    Floors(store).set("T1", "aliyun", 400.0, "CNY", "C2", "U2", T0)
    Floors(store).set("T1", "aliyun", 500.0, None, "C1", "U1", T0)  # in place of the one before
    assert [(f.amount, f.currency, f.channel) for f in Floors(store).of("T1").values()] == [(500.0, None, "C1")]
    with store.engine.begin() as conn:
        downgrade(conn, "0037")
        upgrade(conn)
    assert [b.amount for b in Balances(Store(db_target)).latest("T1")] == [300.0]
    assert Floors(Store(db_target)).of("T1") == {}  # the floors went with the table
