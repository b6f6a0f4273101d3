"""What the database adds up for a report (rules/report.py's Summed): over the kept days of its instances
(bot/state/money_days.py), per owner or project and currency, one statement a few hundred instances at a time, so a
month's rankings and totals at 2,000 instances are added up by the database, not row by row here. The report adds the
days not kept (today's part, storage) to them.

The sums are those of the days the report read or made: it keeps every ended day it made, and forgets the kept days of
its instances it did not use (an instance whose start moved), before these are read. They are read only while no power
report has reached back since the report read its timelines (the marker is read after the sums: unchanged, nothing the
sums read was forgotten or made again since); else None, and the report adds its rows up itself."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from bot.state import money_days
from bot.state.money_days import Where
from bot.state.store import Store
from rules.report import Sums

Part = list[tuple[str, str, str, Sums, int]]  # a channel's (or the report's) groups: owner, project, currency, sums,
# and how many days each holds


class KeptSums:
    def __init__(self, store: Store, where: Where, instance_ids: Sequence[int], seen: int) -> None:
        self.store, self.where, self.ids, self.seen = store, where, sorted(instance_ids), seen
        self._read: dict[money_days.Asked, dict[str, Part] | None] = {}

    def sums(
        self, by: str | None, first: date, last: date, channel: str | None, rows: int
    ) -> dict[tuple[str, str], Sums] | None:
        """Read once for the whole report, or once for all its channels (each channel's part asks in turn), per owner,
        project and currency; then put together per owner, project or neither. None when the kept days are not the
        report's `rows` days (another report forgot some since, keeping an instance's days after its start moved)."""
        asked = (first, last, channel is not None)
        if asked not in self._read:
            found = money_days.sums(self.store, self.where, self.ids, asked, self.seen)
            self._read[asked] = None if found is None else _per_channel(found)
        parts = self._read[asked]
        if parts is None:
            return None
        mine = parts.get(channel or "", [])
        if sum(days for *_, days in mine) != rows:
            return None
        out: dict[tuple[str, str], list[int]] = {}
        for owner, project, currency, sums, _days in mine:
            key = (owner if by == "owner" else project if by == "project" else "", currency)
            kept = out.get(key)
            out[key] = list(sums) if kept is None else [a + b for a, b in zip(kept, sums, strict=True)]
        return {k: (v[0], v[1], v[2], v[3], v[4], v[5]) for k, v in out.items()}


def _per_channel(found: dict[money_days.Group, tuple[Sums, int]]) -> dict[str, Part]:
    parts: dict[str, Part] = {}
    for (channel, owner, project, currency), (sums, days) in found.items():
        parts.setdefault(channel, []).append((owner, project, currency, sums, days))
    return parts
