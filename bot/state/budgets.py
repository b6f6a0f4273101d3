"""Each project's monthly budget, per workspace."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select

from bot.state.schema import project_budgets
from bot.state.store import Store


class Budgets:
    def __init__(self, store: Store) -> None:
        self.store = store

    def put(self, team: str, project: str, amount: float, currency: str, user: str, now: datetime) -> None:
        """Set a project's budget; whoever set it first stays its setter (the one who may change it)."""
        c = project_budgets.c
        with self.store.writing() as conn:
            first = conn.execute(select(c.set_by).where(c.team == team, c.project == project)).scalar() or user
            conn.execute(delete(project_budgets).where(c.team == team, c.project == project))
            conn.execute(insert(project_budgets).values(team=team, project=project, amount=amount, currency=currency,
                                                        set_by=first, updated_at=now))

    def set_by(self, team: str, project: str) -> str | None:
        c = project_budgets.c
        with self.store.reading() as conn:
            return conn.execute(select(c.set_by).where(c.team == team, c.project == project)).scalar()

    def remove(self, team: str, project: str) -> bool:
        c = project_budgets.c
        with self.store.writing() as conn:
            return bool(conn.execute(delete(project_budgets).where(c.team == team, c.project == project)).rowcount)

    def of(self, team: str) -> dict[tuple[str, str], float]:
        """(project, currency) -> amount."""
        with self.store.reading() as conn:
            rows = conn.execute(select(project_budgets).where(project_budgets.c.team == team)
                                .order_by(project_budgets.c.project))
            return {(r.project, r.currency): r.amount for r in rows}
