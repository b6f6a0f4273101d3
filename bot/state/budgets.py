"""Each project's monthly budget, per team."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from bot.state.schema import budget_alerts, project_budgets
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
            conn.execute(
                insert(project_budgets).values(
                    team=team, project=project, amount=amount, currency=currency, set_by=first, updated_at=now
                )
            )

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
            rows = conn.execute(
                select(project_budgets).where(project_budgets.c.team == team).order_by(project_budgets.c.project)
            )
            return {(r.project, r.currency): r.amount for r in rows}

    def teams(self) -> list[str]:
        with self.store.reading() as conn:
            return sorted({r[0] for r in conn.execute(select(project_budgets.c.team).distinct())})

    def claim_alert(
        self, team: str, project: str, currency: str, month: str, crossed: list[float], now: datetime
    ) -> float | None:
        """Claim the highest of the `crossed` thresholds not alerted yet this month (the lower ones count as
        sent with it); that threshold, or None when there is nothing new (or another replica has it)."""
        a = budget_alerts.c
        key = (a.team == team, a.project == project, a.currency == currency, a.month == month)
        try:
            return self._claim(key, team, project, currency, month, crossed, now)
        except IntegrityError:  # another replica claimed the same at the same moment: it sends the alert
            return None

    def _claim(
        self,
        key: tuple[Any, ...],
        team: str,
        project: str,
        currency: str,
        month: str,
        crossed: list[float],
        now: datetime,
    ) -> float | None:
        a = budget_alerts.c
        with self.store.writing() as conn:
            known = {r[0] for r in conn.execute(select(a.threshold_pct).where(*key))}
            new = [t for t in crossed if t not in known]
            if not new or max(new) < max(known, default=0):
                return None
            highest = max(new)
            conn.execute(
                insert(budget_alerts),
                [
                    {
                        "team": team,
                        "project": project,
                        "currency": currency,
                        "month": month,
                        "threshold_pct": t,
                        "claimed_at": now,
                        "alerted": t == highest,
                    }
                    for t in new
                ],
            )
        return highest

    def give_back_alert(self, team: str, project: str, currency: str, month: str, since: datetime) -> None:
        """The alert could not be posted: forget what was claimed for it, so a later check sends it."""
        a = budget_alerts.c
        with self.store.writing() as conn:
            conn.execute(
                delete(budget_alerts).where(
                    a.team == team,
                    a.project == project,
                    a.currency == currency,
                    a.month == month,
                    a.claimed_at >= since,
                )
            )
