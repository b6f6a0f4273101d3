"""Prepaid balances of provider accounts (prepaid_balances): the latest per team and provider is the one
that counts; a reading from the provider's API replaces a typed one (its `source` says which). Runway alerts are
claimed on the balance's row, so each threshold is told once per recorded balance across replicas."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, or_, select, update

from bot.state.schema import prepaid_balances
from bot.state.store import Store


@dataclass(frozen=True)
class Balance:
    id: int
    team: str
    provider: str
    amount: float
    currency: str
    at: datetime
    source: str  # typed, or the API that read it
    recorded_by: str | None
    alerted_below_h: float | None
    request_key: str | None = None  # the chat request that recorded it, where one did (a top-up)
    alerted_floor: float | None = None  # the amount alert (bot/state/balance_floors.py) already told for it


COLUMNS = [prepaid_balances.c[name] for name in Balance.__dataclass_fields__]


class Balances:
    def __init__(self, store: Store) -> None:
        self.store = store

    def record(
        self,
        team: str,
        provider: str,
        amount: float,
        currency: str,
        at: datetime,
        now: datetime,
        *,
        source: str = "typed",
        by: str | None = None,
        request_key: str | None = None,
    ) -> Balance:
        """Keep a balance. A reading from the provider's API that is no higher than the balance before it keeps
        the runway alerts already told (read every discovery run, it would otherwise tell them again each run);
        a top-up, or a balance typed by a person, starts them afresh. A reading the same as the one before it (the
        same API, amount and currency) moves that row's time instead of adding one: read every half hour, an idle
        account's unchanged wallet made a row each time, 48 a day for nothing."""
        told = floor_told = None
        if source != "typed":
            before = next((b for b in self.latest(team) if b.provider == provider), None)
            if before is not None and before.currency == currency and amount <= before.amount:
                told, floor_told = before.alerted_below_h, before.alerted_floor
            if before is not None and (before.source, before.amount, before.currency) == (source, amount, currency):
                if at >= before.at:
                    with self.store.writing() as conn:
                        conn.execute(
                            update(prepaid_balances)
                            .where(prepaid_balances.c.id == before.id)
                            .values(at=at, recorded_at=now)
                        )
                found = self.get(before.id)
                assert found is not None
                return found
        with self.store.writing() as conn:
            made = conn.execute(
                insert(prepaid_balances).values(
                    team=team,
                    provider=provider,
                    amount=amount,
                    currency=currency,
                    at=at,
                    source=source,
                    recorded_by=by,
                    recorded_at=now,
                    alerted_below_h=told,
                    request_key=request_key,
                    alerted_floor=floor_told,
                )
            ).inserted_primary_key
        assert made is not None
        found = self.get(int(made[0]))
        assert found is not None
        return found

    def forget(self, team: str, provider: str) -> int:
        """Take back every balance kept of `provider` (one typed under a wrong name); how many rows went."""
        c = prepaid_balances.c
        with self.store.writing() as conn:
            return conn.execute(delete(prepaid_balances).where(c.team == team, c.provider == provider)).rowcount

    def get(self, balance_id: int) -> Balance | None:
        with self.store.reading() as conn:
            row = conn.execute(select(*COLUMNS).where(prepaid_balances.c.id == balance_id)).first()
        return Balance(*row) if row else None

    def by_request(self, team: str, request_key: str) -> Balance | None:
        """The balance this chat request recorded, if it did (a top-up redone finds it made)."""
        c = prepaid_balances.c
        with self.store.reading() as conn:
            row = conn.execute(select(*COLUMNS).where(c.team == team, c.request_key == request_key)).first()
        return Balance(*row) if row else None

    def latest(self, team: str | None = None) -> list[Balance]:
        """Each (team, provider)'s latest balance (by its time, then as recorded), by provider."""
        c = prepaid_balances.c
        ranked = select(c.team, c.provider, func.max(c.at).label("at")).group_by(c.team, c.provider).subquery()
        newest = (
            select(func.max(c.id))
            .join(ranked, (ranked.c.team == c.team) & (ranked.c.provider == c.provider) & (ranked.c.at == c.at))
            .group_by(c.team, c.provider)
        )
        query = select(*COLUMNS).where(c.id.in_(newest.scalar_subquery()))
        if team is not None:
            query = query.where(c.team == team)
        with self.store.reading() as conn:
            return [Balance(*r) for r in conn.execute(query.order_by(c.team, c.provider))]

    def claim_alert(self, balance_id: int, below_h: float) -> bool:
        """Claim telling that this balance's runway fell below `below_h` hours; False when told already."""
        c = prepaid_balances.c
        with self.store.writing() as conn:
            changed = conn.execute(
                update(prepaid_balances)
                .where(c.id == balance_id, or_(c.alerted_below_h.is_(None), c.alerted_below_h > below_h))
                .values(alerted_below_h=below_h)
            ).rowcount
        return bool(changed)

    def claim_floor(self, balance_id: int, floor: float) -> bool:
        """Claim telling that this balance is below the amount `floor`; False when told already (at that amount or a
        higher one: a floor raised after it was told is told once more)."""
        c = prepaid_balances.c
        with self.store.writing() as conn:
            changed = conn.execute(
                update(prepaid_balances)
                .where(c.id == balance_id, or_(c.alerted_floor.is_(None), c.alerted_floor < floor))
                .values(alerted_floor=floor)
            ).rowcount
        return bool(changed)

    def give_back_floor(self, balance_id: int, previous: float | None) -> None:
        with self.store.writing() as conn:
            conn.execute(
                update(prepaid_balances).where(prepaid_balances.c.id == balance_id).values(alerted_floor=previous)
            )

    def give_back_alert(self, balance_id: int, previous: float | None) -> None:
        with self.store.writing() as conn:
            conn.execute(
                update(prepaid_balances).where(prepaid_balances.c.id == balance_id).values(alerted_below_h=previous)
            )
