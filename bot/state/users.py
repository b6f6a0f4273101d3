"""What the bot keeps of people: their Slack locale and time zone (cached), and their recent recommendations."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, insert, select

from bot.state.schema import locales, recommendations
from bot.state.store import Store


class Users:
    def __init__(self, store: Store) -> None:
        self.store = store

    def cached_locale(self, user: str, ttl: timedelta) -> tuple[str | None, str | None] | None:
        with self.store.reading() as conn:
            row = conn.execute(select(locales).where(locales.c.user == user)).first()
        if row is None or self.store.now() - row.fetched_at > ttl:
            return None
        return row.locale, row.tz

    def cache_locale(self, user: str, locale: str | None, tz: str | None) -> None:
        with self.store.writing() as conn:
            conn.execute(delete(locales).where(locales.c.user == user))
            conn.execute(insert(locales).values(user=user, locale=locale, tz=tz, fetched_at=self.store.now()))

    def add_recommendation(self, team: str, user: str, choice: str, summary: str, data: dict[str, Any]) -> None:
        with self.store.writing() as conn:
            conn.execute(
                insert(recommendations).values(
                    team=team, user=user, choice=choice, summary=summary, data=data, created_at=self.store.now()
                )
            )

    def recent_recommendations(self, team: str, user: str, limit: int = 5) -> list[dict[str, Any]]:
        """The user's latest recommendations in this workspace (a Grid user's other workspaces stay apart)."""
        query = (
            select(recommendations.c.choice, recommendations.c.summary, recommendations.c.created_at)
            .where(recommendations.c.team == team, recommendations.c.user == user)
            .order_by(recommendations.c.id.desc())
            .limit(limit)
        )
        with self.store.reading() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]
