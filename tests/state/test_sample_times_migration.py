"""Migration 0019: samples kept as ISO text or timestamptz become whole Unix seconds, nothing lost but a
fraction of a second, and a GPU's two samples in one second are kept once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Column, Float, Integer, MetaData, Table, insert

from bot.state import Store, migrate
from bot.state.rentals import Rentals
from bot.state.schema import UtcDateTime, rental_instances
from bot.state.store import as_url, make_engine

old = MetaData()
old_samples = Table(
    "gpu_samples",
    old,
    Column("id", Integer, primary_key=True),
    Column("instance_id", Integer),
    Column("at", UtcDateTime),
    Column("gpu", Integer),
    Column("utilization_pct", Float),
    Column("memory_used_mib", Float),
    Column("memory_total_mib", Float),
    Column("power_w", Float),
)
old_hourly = Table(
    "gpu_samples_hourly",
    old,
    Column("instance_id", Integer, primary_key=True),
    Column("gpu", Integer, primary_key=True),
    Column("hour", UtcDateTime, primary_key=True),
    Column("samples", Integer),
    Column("utilization_max_pct", Float),
    Column("memory_used_max_mib", Float),
    Column("memory_total_mib", Float),
    Column("power_max_w", Float),
)
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _fill_at_0018(target: str) -> None:
    engine = make_engine(as_url(target))
    with engine.begin() as conn:
        migrate.upgrade(conn, "0018")
        conn.execute(
            insert(rental_instances).values(
                id=1,
                team="T1",
                name="box",
                channel="C1",
                owner="U1",
                gpu="A100-80GB",
                cards=1,
                unit="hour",
                price=30.0,
                currency="CNY",
                token_hash="h" * 64,
                started_at=T0 - timedelta(days=1),
            )
        )
        rows = [
            {
                "instance_id": 1,
                "at": T0 + timedelta(minutes=m, microseconds=250_000),
                "gpu": 0,
                "utilization_pct": float(m),
                "memory_used_mib": 100.0,
                "memory_total_mib": 81920.0,
                "power_w": None,
            }
            for m in range(3)
        ]
        rows.append(rows[0] | {"at": T0 + timedelta(microseconds=750_000), "utilization_pct": 99.0})  # same second
        rows.append(rows[0] | {"gpu": 1})
        conn.execute(insert(old_samples), rows)
        conn.execute(
            insert(old_hourly).values(
                instance_id=1,
                gpu=0,
                hour=T0 - timedelta(hours=5),
                samples=60,
                utilization_max_pct=12.5,
                memory_used_max_mib=900.0,
                memory_total_mib=81920.0,
                power_max_w=250.0,
            )
        )
    engine.dispose()


def test_kept_samples_become_whole_seconds_once_each(empty_db_target: str) -> None:
    _fill_at_0018(empty_db_target)
    rentals = Rentals(Store(empty_db_target))  # migrates to the head
    kept = rentals.samples(1, T0 - timedelta(hours=1))
    assert [(s.at, s.gpu, s.utilization_pct) for s in kept] == [
        (T0, 0, 0.0),
        (T0, 1, 0.0),
        (T0 + timedelta(minutes=1), 0, 1.0),
        (T0 + timedelta(minutes=2), 0, 2.0),
    ]
    with rentals.store.reading() as conn:
        hour, top = conn.exec_driver_sql("SELECT hour, utilization_max_pct FROM gpu_samples_hourly").one()
        raw = conn.exec_driver_sql("SELECT at FROM gpu_samples ORDER BY at, gpu").scalars().all()
    assert (hour, top) == (int((T0 - timedelta(hours=5)).timestamp()), 12.5)
    assert raw[0] == int(T0.timestamp())


def test_a_repeat_in_the_same_second_is_skipped_after_the_migration(empty_db_target: str) -> None:
    _fill_at_0018(empty_db_target)
    rentals = Rentals(Store(empty_db_target))
    from rules.samples import Sample

    again = [
        Sample(T0 + timedelta(milliseconds=400), 0, 50.0, 1.0, 81920.0),
        Sample(T0 + timedelta(minutes=3), 0, 50.0, 1.0, 81920.0),
    ]
    assert rentals.add_samples(1, again, [None, None]) == 1
