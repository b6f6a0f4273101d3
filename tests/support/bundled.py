"""Facts about the bundled rate card that tests compare with (it grows as reference prices are added)."""

from __future__ import annotations

import csv

from tests.support.cli import ROOT

with (ROOT / "pricing" / "data" / "ratecard.csv").open(encoding="utf-8", newline="") as handle:
    BUNDLED_ROWS = sum(1 for _ in csv.DictReader(handle))
