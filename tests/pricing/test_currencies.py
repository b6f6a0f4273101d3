"""Quotes in any currency the ECB publishes: rates fetched from the ECB source (a local server here), amounts
converted through the euro, the rate and its date named; a currency it does not publish refused by name."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pricing.fx import ECB_CURRENCIES, currency_code, parse_ecb
from tests.support.cli import run_cli
from tests.support.servers import serve

ECB = (Path(__file__).parents[1] / "data" / "ecb.xml").read_bytes()  # 2026-11-27: USD 1.04, JPY 160.12, CNY 7.5296
GPUHUNT = Path(__file__).parents[1] / "data" / "gpuhunt"


def test_the_ecb_file_gives_every_currency_per_euro() -> None:
    rate = parse_ecb(ECB.decode(), datetime(2026, 11, 30, tzinfo=UTC))
    assert rate.rate == round(7.5296 / 1.04, 6) and rate.euro is not None
    assert rate.euro.per_eur == {"USD": 1.04, "JPY": 160.12, "CNY": 7.5296}
    assert rate.euro.rate_date == date(2026, 11, 27)
    assert rate.euro.rate("USD", "EUR") == pytest.approx(1 / 1.04)
    assert rate.euro.rate("CNY", "JPY") == pytest.approx(160.12 / 7.5296)
    assert rate.euro.rate("USD", "GBP") is None  # not in that day's file


def test_a_currency_code_is_one_the_ecb_publishes() -> None:
    assert currency_code(" eur ") == "EUR" and "CNY" in ECB_CURRENCIES and len(ECB_CURRENCIES) == 31
    with pytest.raises(ValueError, match="'RUB' is not a currency the ECB publishes rates for; use one of AUD"):
        currency_code("RUB")


def test_quotes_and_comparisons_in_euros_name_the_rate(tmp_path: Path) -> None:
    with serve({"/stats/eurofxref/eurofxref-daily.xml": (200, {"Content-Type": "text/xml"}, ECB)}) as ecb:
        env = {
            "GPU_ADVISOR_ECB_URL": f"{ecb.base_url}/stats/eurofxref/eurofxref-daily.xml",
            "GPU_ADVISOR_AZURE_ENABLED": "false",
            "GPU_ADVISOR_GPUHUNT_PROVIDERS": "runpod,aws",
            "GPU_ADVISOR_GPUHUNT_CATALOG_DIR": str(GPUHUNT),
        }
        done = run_cli("prices", "refresh", env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stdout
    quote = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--currency",
        "eur",
        "--provider",
        "domestic-reference",
        "--json",
        env=env,
        tmp=tmp_path,
    )
    data = json.loads(quote.stdout)
    assert data["currency"] == "EUR"
    # 400 CNY a day for 14 days = 5,600 CNY, at 7.5296 CNY a euro
    assert data["dedicated"]["amount"] == pytest.approx(5600 / 7.5296, abs=0.01)
    assert data["fx"] == {"rate": round(1 / 7.5296, 6), "date": "2026-11-27", "source": "ecb", "pair": "CNY/EUR"}
    table = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--currency",
        "EUR",
        "--provider",
        "domestic-reference",
        "--lang",
        "en",
        env=env,
        tmp=tmp_path,
    )
    assert "Converted at 1 CNY = 0.13 EUR (ecb, 2026-11-27)" in " ".join(table.stdout.split())

    compared = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--compare",
        "--currency",
        "EUR",
        "--json",
        env=env,
        tmp=tmp_path,
    )
    offers = {o["provider"]: o for o in json.loads(compared.stdout)["offers"]}
    assert offers["runpod"]["currency"] == "EUR"
    assert offers["runpod"]["dedicated"] == pytest.approx(2.39 * 112 / 1.04, abs=0.01)  # USD through the euro
    yen = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--provider",
        "runpod",
        "--currency",
        "JPY",
        "--json",
        env=env,
        tmp=tmp_path,
    )
    assert json.loads(yen.stdout)["dedicated"]["amount"] == pytest.approx(2.39 * 112 * 160.12 / 1.04, abs=1)


def test_without_the_ecb_rates_a_euro_quote_says_what_to_do(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_ECB_ENABLED": "false", "GPU_ADVISOR_AZURE_ENABLED": "false"}
    done = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--currency",
        "EUR",
        "--lang",
        "en",
        env=env,
        tmp=tmp_path,
    )
    assert done.returncode == 2 and "no exchange rate to convert CNY to EUR" in done.stderr
    assert "GPU_ADVISOR_ECB_ENABLED" in done.stderr
    bad = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--currency",
        "RUB",
        "--lang",
        "en",
        env=env,
        tmp=tmp_path,
    )
    assert bad.returncode == 2 and "RUB" in bad.stderr and "EUR" in bad.stderr and "JPY" in bad.stderr
    setting = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--lang",
        "en",
        env=env | {"GPU_ADVISOR_CURRENCY": "XYZ"},
        tmp=tmp_path,
    )
    assert setting.returncode == 2 and "'XYZ' is not a currency the ECB publishes" in setting.stdout + setting.stderr
