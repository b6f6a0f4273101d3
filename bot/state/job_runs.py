"""Claims of scheduled jobs' time slots: a job shared by the replicas runs once per slot (bot/server/jobs.py)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from bot.state.schema import job_runs
from bot.state.store import Store


class JobRuns:
    def __init__(self, store: Store) -> None:
        self.store = store

    def claim(self, job: str, slot: str) -> bool:
        """Run `job` for time slot `slot` here? True for the one replica whose claim lands first."""
        try:
            with self.store.writing() as conn:
                conn.execute(
                    insert(job_runs).values(
                        job=job, slot=slot, claimed_by=self.store.replica, claimed_at=self.store.now()
                    )
                )
        except IntegrityError:
            return False
        return True

    def prune(self, older_than: timedelta) -> int:
        """Forget the claims of runs older than `older_than`."""
        with self.store.writing() as conn:
            return int(
                conn.execute(delete(job_runs).where(job_runs.c.claimed_at < self.store.now() - older_than)).rowcount
            )
