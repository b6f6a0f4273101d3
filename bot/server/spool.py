"""The front door's spool: with a work process on SQLite, the front door keeps each request in a file of
its own (`state.db-spool`, an inbox only it writes) instead of the state database, which the work process
writes all the time. An acknowledgement then never waits for the work process's transactions (on one
SQLite file, one writer at a time: about half of all acknowledgements waited for one, 0.8 ms on average).

The work process takes each request it is handed into the state database's inbox (Inbox.adopt: a request
taken before, a Slack retry, is not done twice) and does it from there, as before. The front door's sweep
(every second) forgets what the inbox holds, and hands over again what the work process has not taken
after GPU_ADVISOR_REDO_AFTER_S (a hand-over lost with a work process that died). A work process starting
takes what is spooled from before its start. On PostgreSQL there is no spool: rows, not files, are locked.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from pathlib import Path

from bot.deps import Handoff
from bot.state import Inbox, Store
from bot.state.inbox import KEPT, SPOOL_REPLAY

log = logging.getLogger("bot.serve")

SWEEP_EVERY_S = 1.0
SWEEP_ROWS = 2000  # the oldest this many are looked at each sweep (keys only), so a long backlog costs little


def open_spool(store: Store, *, only_if_there: bool = False) -> Inbox | None:
    """The spool beside a SQLite state database (None on PostgreSQL; with `only_if_there`, None when there is
    no spool file: serve without a work process only takes over what one left)."""
    path = store.sqlite_path()
    if path is None or (only_if_there and not Path(f"{path}-spool").exists()):
        return None
    return Inbox(Store(f"{path}-spool", now=store.now, replica=store.replica))


class Sweeper:
    def __init__(self, spool: Inbox, inbox: Inbox, work: Handoff, resend_after: timedelta) -> None:
        self.spool, self.inbox, self.work, self.resend_after = spool, inbox, work, resend_after
        self._resent: dict[str, datetime] = {}

    def sweep(self) -> tuple[int, int]:
        """Forget what the inbox took; hand over again what it has not taken in time. (forgotten, resent)"""
        rows = self.spool.waiting(KEPT, SWEEP_ROWS)
        if not rows:
            return 0, 0
        known = self.inbox.known([key for key, _ in rows])
        forgotten = self.spool.forget(sorted(known)) if known else 0
        now = self.spool.store.now()
        due = [
            key
            for key, received in rows
            if key not in known and now - self._resent.get(key, received) >= self.resend_after
        ]
        for key, kind, body in self.spool.bodies(due):
            self.work.run(key, kind, body)
            self._resent[key] = now
        self._resent = {key: at for key, at in self._resent.items() if key not in known}
        if due:
            log.warning(
                "%d acknowledged request(s) not taken by the work process after %.0f s: handed over again",
                len(due),
                self.resend_after.total_seconds(),
            )
        return forgotten, len(due)

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(SWEEP_EVERY_S):
            try:
                self.sweep()
            except Exception:  # a database that failed for a moment: the next sweep tries again
                log.exception("the spool's sweep failed; tried again in %.0f s", SWEEP_EVERY_S)

    def start(self, stop: threading.Event) -> None:
        threading.Thread(target=self.run, args=(stop,), name="spool-sweep", daemon=True).start()


def take_over(spool: Inbox, inbox: Inbox) -> int:
    """serve starting without a work process: take everything spooled into the inbox, and empty the spool."""
    taken = take_spooled(spool, inbox, spool.store.now())
    spool.forget(sorted(inbox.known([key for key, _ in spool.waiting(KEPT, 100_000)])))
    return taken


def take_spooled(spool: Inbox, inbox: Inbox, received_before: datetime) -> int:
    """In a work process starting (or serve starting without one): take into the inbox what the front door
    spooled before then and the inbox does not hold (a hand-over lost with a work process). Returns how many."""
    taken = 0
    for row in spool.spooled(SPOOL_REPLAY, received_before):
        taken += inbox.adopt(row.key, row.kind, row.body, row.received_at)
    return taken
