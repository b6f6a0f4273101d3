"""The amounts a team's prepaid balances are told below (`余额低于500提醒我`, `balance autodl alert 500`): one a
provider, or one for every provider (`*`), in a currency or in each balance's own (`200` alone: ¥200 on a yuan
wallet, $200 on a dollar one). The runway alerts (bot/digest/runway_alerts.py) tell each once a balance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select

from bot.state.conflicts import insert_for
from bot.state.schema import balance_floors
from bot.state.store import Store

EVERY = "*"  # every provider of the team without a floor of its own


@dataclass(frozen=True)
class Floor:
    team: str
    provider: str  # or EVERY
    amount: float
    currency: str | None  # None: each balance's own
    channel: str | None  # where it was set (told there too)
    set_by: str | None
    set_at: datetime


COLUMNS = [balance_floors.c[name] for name in Floor.__dataclass_fields__]


class Floors:
    def __init__(self, store: Store) -> None:
        self.store = store

    def set(
        self, team: str, provider: str, amount: float, currency: str | None, channel: str | None, by: str, at: datetime
    ) -> Floor:
        """Keep `provider`'s floor (EVERY: every provider's without one of its own), in place of the one before."""
        floor = Floor(team, provider, amount, currency, channel, by, at)
        with self.store.writing() as conn:
            upsert = insert_for(conn, balance_floors).values(**floor.__dict__)
            kept = {k: v for k, v in floor.__dict__.items() if k not in ("team", "provider")}
            conn.execute(upsert.on_conflict_do_update(index_elements=["team", "provider"], set_=kept))
        return floor

    def off(self, team: str, provider: str) -> bool:
        """Take `provider`'s floor away; False where it had none."""
        c = balance_floors.c
        with self.store.writing() as conn:
            return bool(conn.execute(delete(balance_floors).where(c.team == team, c.provider == provider)).rowcount)

    def of(self, team: str | None = None) -> dict[tuple[str, str], Floor]:
        """The floors, by team and provider (of one team, or every team's)."""
        query = select(*COLUMNS)
        if team is not None:
            query = query.where(balance_floors.c.team == team)
        with self.store.reading() as conn:
            return {(f.team, f.provider): f for f in (Floor(*row) for row in conn.execute(query))}


def floor_for(floors: Mapping[tuple[str, str], Floor], team: str, provider: str, currency: str) -> Floor | None:
    """The floor a balance of `provider` in `currency` is told below: its own, else every provider's; None where
    neither is set, or the one that is is in another currency."""
    found = floors.get((team, provider)) or floors.get((team, EVERY))
    return found if found is not None and found.currency in (None, currency) else None
