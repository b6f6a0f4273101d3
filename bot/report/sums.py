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
from typing import Any

from bot.state import money_days
from bot.state.money_days import Where
from bot.state.store import Store
from rules.report import Sums


class KeptSums:
    def __init__(self, store: Store, where: Where, instance_ids: Sequence[int], seen: int) -> None:
        self.store, self.where, self.ids, self.seen = store, where, sorted(instance_ids), seen
        self._read: dict[tuple[Any, ...], dict[tuple[str, str], Sums] | None] = {}

    def sums(self, by: str | None, first: date, last: date, channel: str | None) -> dict[tuple[str, str], Sums] | None:
        key = (by, first, last, channel)
        if key not in self._read:
            self._read[key] = self._sums(by, first, last, channel)
        return self._read[key]

    def _sums(self, by: str | None, first: date, last: date, channel: str | None) -> dict[tuple[str, str], Sums] | None:
        return money_days.sums(self.store, self.where, self.ids, (by, first, last, channel), self.seen)
