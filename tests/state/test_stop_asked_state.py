"""A stop asked for at a time, in the state (0039): kept as a warning with who asked, replacing the one open and not
yet acting, refused while a stop is under way, called off once; 0039 goes down and up keeping the warnings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.state import Store
from bot.state.actions import Actions
from bot.state.migrate import downgrade, upgrade
from bot.state.rentals import Rentals

T0 = datetime(2026, 12, 7, 14, 0, tzinfo=UTC)


def _box(store: Store) -> int:
    made, _ = Rentals(store).track_instance(
        "T1",
        "box1",
        {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 14.0, "currency": "CNY"}
        | {"billing": "hourly", "channel": "C1", "owner": "U1", "project": None, "started_at": T0},
    )
    return made.id


def test_a_stop_asked_replaces_the_open_one_is_refused_under_way_and_called_off_once(db_target: str) -> None:
    store = Store(db_target)
    box, actions = _box(store), Actions(store)
    idle = actions.warn("T1", box, "C1", T0, T0 + timedelta(hours=4), "1.1")
    assert idle is not None and idle.asked_by is None
    first, replaced = actions.ask("T1", box, "C1", T0, T0 + timedelta(hours=2), "U1", "zh")
    assert first is not None and replaced == idle and first.asked_by == "U1" and first.figures is None
    assert actions.get(idle.id).detail == "asked_again"  # type: ignore[union-attr]
    second, replaced = actions.ask("T1", box, "C1", T0, T0 + timedelta(hours=3), "U2", "zh", remind=True)
    assert second is not None and replaced == first and second.figures == {"remind": True}
    assert list(actions.asked_for([box]).values()) == [second]
    assert actions.call_off(box, T0, "U1") == second and actions.call_off(box, T0, "U1") is None
    assert actions.get(second.id).figures == {"by": "U1"}  # type: ignore[union-attr]
    third, _ = actions.ask("T1", box, "C1", T0, T0, "U1", None)
    assert third is not None and actions.move(third.id, "warned", "requested", T0, attempt=True)
    refused, under_way = actions.ask("T1", box, "C1", T0, T0 + timedelta(hours=1), "U1", None)
    assert refused is None and under_way is not None and under_way.id == third.id
    assert actions.asked_for([box]) == {} and actions.call_off(box, T0, "U1") is None  # under way: not called off
    with store.engine.begin() as conn:
        downgrade(conn, "0038")
        upgrade(conn)
    kept = Actions(Store(db_target)).history("T1")
    assert len(kept) == 4 and {w.asked_by for w, _ in kept} == {None}  # who asked went with the column
