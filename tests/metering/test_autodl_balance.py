"""AutoDL's wallet balance, read from its developer API (a local fake speaking it over real HTTP), kept as the
prepaid balance of provider autodl: by `gpu-advise balance --read` and by serve's `balances:read` job; 厘 become
yuan; a refused token, an error code and an unreachable API are one line each, never a traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from bot.settings import state_db_beside
from bot.state import Store
from bot.state.balances import Balances
from tests.support.cli import run_cli
from tests.support.fake_autodl import TOKEN, fake_autodl
from tests.support.slack_harness import running_app


def env(url: str, token: str = TOKEN, **extra: str) -> dict[str, str]:
    return {"GPU_ADVISOR_AUTODL_TOKEN": token, "GPU_ADVISOR_AUTODL_URL": url, "GPU_ADVISOR_LANG": "en", **extra}


def test_balance_read_keeps_the_wallet_in_yuan_with_its_source(tmp_path: Path) -> None:
    with fake_autodl() as fake:
        done = run_cli("balance", "--read", "--team", "T1", "--json", env=env(fake.url), tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        [row] = json.loads(done.stdout)
        assert (row["provider"], row["balance"], row["currency"], row["source"]) == (
            "autodl",
            320.5,
            "CNY",
            "autodl-api",
        )
        assert fake.seen[0].headers["Authorization"] == TOKEN and fake.seen[0].method == "POST"
        fake.assets_li = 100_000
        run_cli("balance", "--read", "--team", "T1", env=env(fake.url), tmp=tmp_path)
        [row] = json.loads(run_cli("balance", "--team", "T1", "--json", env=env(fake.url), tmp=tmp_path).stdout)
        assert row["balance"] == 100.0


def test_a_refused_token_an_error_code_and_no_api_are_each_one_line(tmp_path: Path) -> None:
    with fake_autodl() as fake:
        refused = run_cli("balance", "--read", "--team", "T1", env=env(fake.url, token="wrong"), tmp=tmp_path)
        assert refused.returncode == 1 and "Traceback" not in refused.stdout + refused.stderr
        assert refused.stderr.strip().splitlines() == [
            "autodl: AutoDL refused the developer token (HTTP 401): check GPU_ADVISOR_AUTODL_TOKEN"
        ]
        fake.answer = {"code": "InternalError", "msg": "服务繁忙"}
        odd = run_cli("balance", "--read", "--team", "T1", env=env(fake.url), tmp=tmp_path)
        assert odd.returncode == 1 and odd.stderr.strip().splitlines() == ["autodl: AutoDL InternalError: 服务繁忙"]
    with socket.socket() as probe:  # bound, never listening: refused, and no other test can take the port
        probe.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{probe.getsockname()[1]}"
        down = run_cli("balance", "--read", "--team", "T1", env=env(nobody), tmp=tmp_path)
    assert down.returncode == 1 and down.stderr.startswith("autodl: AutoDL unreachable: ConnectError"), down.stderr
    off = run_cli("balance", "--read", "--team", "T1", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert off.returncode == 2 and "GPU_ADVISOR_AUTODL_TOKEN" in off.stderr and "没有可读余额" in off.stderr
    state = state_db_beside(tmp_path / "advisor.db")  # the commands' own state file
    assert state.exists() and Balances(Store(state)).latest("T1") == []  # nothing failed was kept


def test_serve_reads_the_wallet_as_a_job(tmp_path: Path) -> None:
    """Without the Pro API (GPU_ADVISOR_AUTODL_PRO=false) a job of its own reads the wallet; with it, AutoDL's
    discovery does (tests/discover/test_autodl_pro.py)."""
    from bot.server.jobs import jobs_of

    with fake_autodl() as fake:
        fake.assets_li = 48_000
        with running_app(tmp_path, autodl_token=TOKEN, autodl_url=fake.url, autodl_pro=False) as h:
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "balances:read"]
            assert job.at_start and job.work() == {}
            [balance] = Balances(h.deps.store).latest("T1")
            assert (balance.provider, balance.amount, balance.source) == ("autodl", 48.0, "autodl-api")


@pytest.mark.parametrize("assets", [float("nan"), float("inf"), 10**40 * 1000])
def test_a_balance_no_wallet_holds_is_a_problem_line_and_nothing_kept(tmp_path: Path, assets: float) -> None:
    """Issue 53.9: NaN crashed `balance --read` with a traceback, Infinity was kept and printed as invalid JSON,
    a 40-digit amount was kept ("about ¥10,000,000,000,000,000,303,… left")."""
    with fake_autodl() as fake:
        fake.answer = {"code": "Success", "msg": "", "data": {"assets": assets, "accumulate": 0, "voucher_balance": 0}}
        done = run_cli("balance", "--read", "--team", "T1", "--json", env=env(fake.url), tmp=tmp_path)
        assert done.returncode == 1 and "autodl" in done.stderr and "Traceback" not in done.stderr
        assert json.loads(done.stdout) == []  # valid JSON, and nothing kept


def test_an_owed_balance_is_said_as_owed_not_as_nothing_left() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from bot.text import Lang
    from bot.text.runway import runway_line
    from rules.runway import Runway

    at = datetime(2026, 12, 1, tzinfo=UTC)
    owed = Runway("aliyun", "CNY", -120.0, at, "aliyun-api", -120.0, 0.0, None, None)  # nothing billing: no rate
    said = runway_line(owed, Lang.EN, ZoneInfo("Asia/Shanghai"))
    assert "¥120" in said and "used up" in said and "¥0 left" not in said
