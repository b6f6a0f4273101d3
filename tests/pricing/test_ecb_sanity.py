"""ECB rates that are not a finite positive number a currency can have per euro (inf, nan, 1e-300, 0) fail the
source in one line, and the last good rates stay: a quote never comes out at $0 or as an OverflowError
(issue 34.7b)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pricing.errors import SourceError
from pricing.fx import parse_ecb
from tests.support.cli import run_cli
from tests.support.servers import serve

ECB = (Path(__file__).parents[1] / "data" / "ecb.xml").read_text()  # USD 1.04, JPY 160.12, CNY 7.5296
AT = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("code", "rate"), [("JPY", "inf"), ("JPY", "nan"), ("USD", "1e-300"), ("CNY", "0"), ("JPY", "1e308")]
)
def test_an_impossible_rate_fails_the_source_naming_it(code: str, rate: str) -> None:
    broken = ECB.replace(f"currency='{code}' rate='", f"currency='{code}' rate='{rate}' old='")
    assert broken != ECB
    with pytest.raises(SourceError) as caught:
        parse_ecb(broken, AT)
    assert f"ECB rate for {code} is '{rate}'" in str(caught.value) and "\n" not in str(caught.value)


def test_the_last_good_rates_stay_and_quotes_use_them(tmp_path: Path) -> None:
    good = (200, {"Content-Type": "text/xml"}, ECB.encode())
    bad = (
        200,
        {"Content-Type": "text/xml"},
        ECB.replace("currency='JPY' rate='", "currency='JPY' rate='inf' x='").encode(),
    )
    with serve({"/ecb.xml": [good, bad]}) as ecb:
        env = {"GPU_ADVISOR_ECB_URL": f"{ecb.base_url}/ecb.xml", "GPU_ADVISOR_AZURE_ENABLED": "false"}
        assert run_cli("prices", "refresh", "--source", "ecb", env=env, tmp=tmp_path).returncode == 0
        failed = run_cli("prices", "refresh", "--source", "ecb", env=env, tmp=tmp_path)
        assert failed.returncode != 0 and "Traceback" not in failed.stdout + failed.stderr
        assert "ECB rate for JPY is 'inf'" in failed.stdout + failed.stderr
    args = ("quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14", "--currency", "JPY", "--json")
    done = run_cli(*args, env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    quote = json.loads(done.stdout)
    assert quote["currency"] == "JPY" and quote["dedicated"]["amount"] > 0
    assert quote["fx"]["rate"] == round(160.12 / 7.5296, 6) and quote["fx"]["date"] == "2026-11-27"  # the last good
