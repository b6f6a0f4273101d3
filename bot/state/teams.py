"""The tenants this state knows (a Slack workspace T…, a Feishu tenant behind its prefix): those with a profile,
something tracked, a digest time or a budget. The terminal's default team when exactly one is known."""

from __future__ import annotations

from sqlalchemy import select, union

from bot.state.schema import conversations, digest_schedules, project_budgets, rental_instances, rental_storage
from bot.state.store import Store


def known_teams(store: Store) -> list[str]:
    tables = (conversations, rental_instances, rental_storage, digest_schedules, project_budgets)
    query = union(*(select(table.c.team.label("team")) for table in tables))
    with store.reading() as conn:
        return sorted(str(row[0]) for row in conn.execute(query) if row[0])
