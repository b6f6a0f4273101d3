"""Facts about the bundled rate card that tests compare with (it grows as reference prices are added)."""

from __future__ import annotations

import csv

from tests.support.cli import ROOT

with (ROOT / "pricing" / "data" / "ratecard.csv").open(encoding="utf-8", newline="") as handle:
    ROWS = list(csv.DictReader(handle))
BUNDLED_ROWS = sum(1 for row in ROWS if row.get("kind", "gpu") in ("gpu", ""))  # GPU price rows
BUNDLED_EXTRAS = len(ROWS) - BUNDLED_ROWS  # storage and egress reference rows
