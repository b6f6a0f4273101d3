"""A team's rate card edited after the cache loaded it is quoted as it is now, by the next command itself (not
only after serve's daily refresh or `prices refresh`); an unchanged one is not read again at every command, and
a cache from before the rate card's inputs were kept takes the bundled rows of the version now installed."""

from __future__ import annotations

import json
from pathlib import Path

from pricing import cache
from tests.cli.test_prices import OFFLINE
from tests.support.cli import run_cli

HEADER = "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,effective_date,basis\n"


def quoted(tmp_path: Path, env: dict[str, str], gpu: str = "H800") -> float:
    done = run_cli("quote", "--gpu", gpu, "--hours-per-day", "24", "--days", "1", "--json", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    return float(json.loads(done.stdout)["dedicated"]["amount"])


def ratecard_runs(db: Path) -> int:
    opened = cache.open_db(db)
    try:
        return len(cache.runs(opened, "ratecard"))
    finally:
        opened.close()


def test_an_edited_team_rate_card_is_quoted_at_the_next_command(tmp_path: Path) -> None:
    card = tmp_path / "ours.csv"
    card.write_text(HEADER + "acme,H800 x1,H800-80GB,1,on-demand,20,CNY,hour,2026-11-01,negotiated 2026\n")
    db = tmp_path / "prices.db"
    env = OFFLINE | {"GPU_ADVISOR_RATE_CARDS": str(card), "GPU_ADVISOR_DB": str(db)}
    assert quoted(tmp_path, env) == 480  # 24 h × ¥20
    runs = ratecard_runs(db)
    assert quoted(tmp_path, env) == 480 and ratecard_runs(db) == runs  # unchanged: not read again
    card.write_text(HEADER + "acme,H800 x1,H800-80GB,1,on-demand,15,CNY,hour,2026-11-01,negotiated 2026\n")
    assert quoted(tmp_path, env) == 360 and ratecard_runs(db) == runs + 1


def test_a_cache_from_before_inputs_were_kept_loads_the_installed_rate_card(tmp_path: Path) -> None:
    db = tmp_path / "prices.db"
    env = OFFLINE | {"GPU_ADVISOR_DB": str(db)}
    assert quoted(tmp_path, env, "A100") > 0
    opened = cache.open_db(db)
    with cache.writing(opened):
        opened.execute("UPDATE refresh_runs SET inputs = NULL")  # as an older version left it
        opened.execute("DELETE FROM prices WHERE gpu LIKE 'Ascend%'")  # its rate card had no Ascend rows
    opened.close()
    done = run_cli("quote", "--gpu", "910B2", "--hours-per-day", "4", "--days", "14", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ratecard_runs(db) == 2
