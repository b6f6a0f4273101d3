"""A report's CSV runs nothing in a spreadsheet (issue 34.4): item, project, owner, GPU and channel values that
start like a formula (=, +, -, @, a tab, a carriage return) get a leading ' as OWASP recommends; numbers stay
numbers, and a value that only contains such a sign is left as it is."""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.report.compose import cell
from bot.state import Store
from bot.state.rentals import Rentals
from tests.support.cli import run_cli
from tests.support.state_template import migrated_state_db

SHANGHAI = ZoneInfo("Asia/Shanghai")


def test_formula_cells_are_neutralised_and_numbers_are_not() -> None:
    for hostile in ('=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)*cmd|' /C calc'!A0", "\tx", "\rx"):
        assert cell(hostile) == "'" + hostile
    assert cell("a-b=c") == "a-b=c" and cell("") == "" and cell(None) is None
    assert cell(-3.5) == -3.5 and cell(7) == 7


def test_a_hostile_name_and_project_reach_the_csv_neutralised(tmp_path: Path) -> None:
    started = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=2)
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    fields = {
        "gpu": "A100-80GB",
        "cards": 1,
        "share": None,
        "unit": "day",
        "price": 240.0,
        "currency": "CNY",
        "channel": "C1",
        "owner": "U1",
        "project": "=cmd|' /C calc'!A0",
        "started_at": started,
    }
    rentals.track_instance("T1", "box", fields)
    today = datetime.now(SHANGHAI).date()
    first, last = (today - timedelta(days=3)).isoformat(), (today - timedelta(days=1)).isoformat()
    env = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    out = tmp_path / "r.csv"
    done = run_cli("report", "--from", first, "--to", last, "--team", "T1", "--csv", str(out), env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(r["project"] == "'=cmd|' /C calc'!A0" for r in rows)
    assert all(not r[k].startswith(("=", "+", "@")) for r in rows for k in r)
    assert float(rows[0]["cost"]) >= 0  # figures are still numbers
