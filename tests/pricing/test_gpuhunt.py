"""gpuhunt's catalogs as price sources: read by gpuhunt's own reader from a catalog folder (recorded in its
CSV format, tests/data/gpuhunt) or downloaded from a local server as its published layout; names mapped to
ours; what cannot be priced skipped and counted, never failing the source."""

from __future__ import annotations

import csv
import io
import os
import shutil
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from bot.price_book import PriceBook, build_sources, http_client
from bot.settings import Settings
from pricing import cache
from pricing.gpuhunt_source import our_gpu
from pricing.refresh import refresh
from rules.gpus import gpu_model
from rules.policy import load_policy
from tests.support.cli import run_cli

CATALOGS = Path(__file__).parents[1] / "data" / "gpuhunt"
NOW = datetime(2026, 12, 1, 9, tzinfo=UTC)
NOT_OURS = {("B200", 180.0), ("A6000", 48.0), ("GH200", 96.0), ("V100", 16.0)}  # cards the advisor does not price


def _names() -> set[tuple[str, float]]:
    found = set()
    for path in CATALOGS.glob("*.csv"):
        with path.open(encoding="utf-8") as handle:
            found |= {(r["gpu_name"], float(r["gpu_memory"])) for r in csv.DictReader(handle) if r["gpu_name"]}
    return found


@pytest.mark.parametrize("name, memory", sorted(_names()))
def test_every_gpu_name_in_the_catalogs_maps_to_ours_or_is_known_not_to(name: str, memory: float) -> None:
    mapped = our_gpu(name, memory)
    if (name, memory) in NOT_OURS:
        assert mapped is None
        return
    assert mapped is not None and abs(gpu_model(mapped).memory_gb - memory) <= 0.1 * memory


def test_names_that_differ_from_ours() -> None:
    assert our_gpu("A10G", 24) == "A10-24GB"
    assert our_gpu("A100", 40) == "A100-40GB" and our_gpu("A100", 80) == "A100-80GB"
    assert our_gpu("H100NVL", 94) == "H100-94GB" and our_gpu("H100", 80) == "H100-80GB"
    assert our_gpu("RTX4090", 24) == "RTX4090-24GB"
    assert our_gpu("L40", 48) is None and our_gpu(None, None) is None


def _settings(tmp_path: Path, providers: str, folder: Path | None = CATALOGS, **more: object) -> Settings:
    return Settings(
        db=tmp_path / "prices.db",
        azure_enabled=False,
        ecb_enabled=False,
        gpuhunt_providers=providers,
        gpuhunt_catalog_dir=str(folder) if folder else "",
        **more,
    )  # type: ignore[arg-type]


def _refresh_all(settings: Settings, client: httpx.Client | None = None) -> dict[str, object]:
    sources = [s for s in build_sources(settings, client or http_client(settings)) if s.name.startswith("gpuhunt")]
    db = cache.open_db(settings.files.db)
    return {s.name: refresh(db, s, now=lambda: NOW, sleep=lambda _: None) for s in sources}


def test_a_catalog_folder_loads_each_provider_as_its_own_source(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "aws, runpod,lambdalabs")
    results = _refresh_all(settings)
    assert list(results) == ["gpuhunt:aws", "gpuhunt:runpod", "gpuhunt:lambdalabs"]
    assert all(r.ok for r in results.values())  # type: ignore[attr-defined]
    book = PriceBook.open(settings, load_policy(None), http_client(settings), now=lambda: NOW)
    h100 = book.offers(gpu="H100-80GB", source="gpuhunt")
    assert {o.record.provider for o in h100} == {"aws", "runpod", "lambdalabs"}
    p5 = next(
        o.record
        for o in h100
        if o.record.instance_type == "p5.48xlarge"
        and o.record.region == "us-east-1"
        and o.record.pricing_model == "on-demand"
    )
    assert (p5.amount, p5.currency, p5.unit, p5.gpu_count, p5.source) == (55.04, "USD", "hour", 8, "gpuhunt:aws")
    assert p5.effective_date == date(2025, 11, 30)  # aws.version
    runpod = next(o.record for o in h100 if o.record.provider == "runpod")
    assert runpod.effective_date == date(2025, 11, 28)  # the folder's `version`
    assert {o.record.pricing_model for o in h100 if o.record.provider == "runpod"} == {"on-demand", "spot"}
    states = {s.source: s for s in book.status()}
    assert states["gpuhunt:aws"].note == ("24 offers skipped: GPU not known (B200 180GB, V100 16GB); 24 without a GPU")
    assert states["gpuhunt:lambdalabs"].note is not None and "GPU not known" in states["gpuhunt:lambdalabs"].note
    everything = {o.record.source for o in book.offers(source="gpuhunt")}
    assert everything == {"gpuhunt:aws", "gpuhunt:runpod", "gpuhunt:lambdalabs"}
    assert book.offers(source="gpuhunt:aws") and not book.offers(source="gpu")  # a family, not any prefix


def test_without_a_version_file_the_catalog_is_dated_by_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    shutil.copy(CATALOGS / "gcp.csv", folder / "gcp.csv")
    moment = datetime(2025, 10, 3, 12, tzinfo=UTC).timestamp()
    os.utime(folder / "gcp.csv", (moment, moment))
    settings = _settings(tmp_path, "gcp", folder)
    assert _refresh_all(settings)["gpuhunt:gcp"].ok  # type: ignore[attr-defined]
    offers = PriceBook.open(settings, load_policy(None), http_client(settings), now=lambda: NOW).offers(
        source="gpuhunt:gcp"
    )
    assert {o.record.effective_date for o in offers} == {date(2025, 10, 3)}
    assert all(o.stale for o in offers)  # 14 days is the default: two months old is stale


def test_a_provider_without_a_catalog_fails_alone_and_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    shutil.copy(CATALOGS / "azure.csv", folder / "azure.csv")
    results = _refresh_all(_settings(tmp_path, "azure,vastai,gcp", folder))
    assert results["gpuhunt:azure"].ok  # type: ignore[attr-defined]
    assert "gpuhunt publishes no catalog of 'vastai'" in results["gpuhunt:vastai"].error  # type: ignore[attr-defined]
    assert "cannot read the gpuhunt catalog" in results["gpuhunt:gcp"].error  # type: ignore[attr-defined]


def _zip(provider: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.write(CATALOGS / f"{provider}.csv", f"{provider}.csv")
    return out.getvalue()


def test_the_published_layout_is_downloaded_and_a_failure_keeps_the_last_prices(tmp_path: Path) -> None:
    answers = {
        "/v3/runpod/version": [httpx.Response(200, text="20251129\n")],
        "/v3/runpod/20251129/catalog.zip": [httpx.Response(503), httpx.Response(200, content=_zip("runpod"))],
    }
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        queue = answers.get(request.url.path, [])
        return queue.pop(0) if len(queue) > 1 else (queue[0] if queue else httpx.Response(404))

    client = httpx.Client(transport=httpx.MockTransport(handler))
    settings = _settings(tmp_path, "runpod", None, gpuhunt_catalog_url="https://catalogs.test/v3", refresh_backoff_s=0)
    first = _refresh_all(settings, client)["gpuhunt:runpod"]
    assert first.ok and first.attempts == 2 and first.rows == 400 - 40  # type: ignore[attr-defined]  # 503 retried; A6000 skipped
    assert seen.count("/v3/runpod/20251129/catalog.zip") == 2
    answers["/v3/runpod/version"] = [httpx.Response(200, text="20251201")]
    answers["/v3/runpod/20251201/catalog.zip"] = [httpx.Response(200, content=b"not a zip")]
    second = _refresh_all(settings, client)["gpuhunt:runpod"]
    assert not second.ok and "is not a zip with runpod.csv" in second.error  # type: ignore[attr-defined]
    db = cache.open_db(settings.files.db)
    assert cache.count_prices(db, "gpuhunt:runpod") == 360  # the last good catalog stays


def test_the_terminal_refreshes_lists_and_reports_the_family(tmp_path: Path) -> None:
    env = {
        "GPU_ADVISOR_GPUHUNT_PROVIDERS": "aws,lambdalabs",
        "GPU_ADVISOR_GPUHUNT_CATALOG_DIR": str(CATALOGS),
        "GPU_ADVISOR_AZURE_ENABLED": "false",
        "GPU_ADVISOR_ECB_ENABLED": "false",
    }
    done = run_cli("prices", "refresh", "--source", "gpuhunt", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gpuhunt:aws" in done.stdout and "gpuhunt:lambdalabs" in done.stdout and "ratecard" not in done.stdout
    listed = run_cli("prices", "list", "--gpu", "H100", "--source", "gpuhunt", env=env, tmp=tmp_path)
    assert "p5.48xlarge" in listed.stdout and "gpu_8x_h100_sxm5" in listed.stdout and "A100" not in listed.stdout
    status = run_cli("prices", "status", env=env, tmp=tmp_path)
    assert "offers skipped: GPU not known" in status.stdout


GPUHUNT_ENV = {
    "GPU_ADVISOR_GPUHUNT_PROVIDERS": "aws,gcp,azure,lambdalabs,runpod",
    "GPU_ADVISOR_GPUHUNT_CATALOG_DIR": str(CATALOGS),
    "GPU_ADVISOR_AZURE_ENABLED": "false",
    "GPU_ADVISOR_ECB_ENABLED": "false",
    "GPU_ADVISOR_USD_CNY": "7.1",
    "GPU_ADVISOR_USD_CNY_DATE": "2026-11-30",
}


def test_compare_prices_the_schedule_at_each_provider_cheapest_total_first(tmp_path: Path) -> None:
    import json

    card = tmp_path / "storage.csv"  # RunPod's network volume: 0.07 USD per GB-month (its pricing page)
    card.write_text(
        "provider,region,region_class,instance_type,gpu,gpu_count,sharing,mig_profile,pricing_model,"
        "amount,currency,unit,effective_date,basis,kind,provenance\n"
        "runpod,any,,,,,,,,0.07,USD,gb-month,2026-11-30,RunPod network volume list price,storage,\n"
    )
    env = GPUHUNT_ENV | {"GPU_ADVISOR_RATE_CARDS": str(card)}
    assert run_cli("prices", "refresh", env=env, tmp=tmp_path).returncode == 0
    done = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--compare",
        "--json",
        "--currency",
        "USD",
        "--storage-gb",
        "500",
        env=env,
        tmp=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    offers = json.loads(done.stdout)["offers"]
    assert list(offers[0])[:10] == [
        "provider",
        "source",
        "region",
        "gpu",
        "billing",
        "dedicated",
        "spot",
        "total",
        "currency",
        "price_date",
    ]
    assert [o["total"] for o in offers] == sorted(o["total"] for o in offers)
    by = {o["provider"]: o for o in offers}
    assert {"aws", "gcp", "azure", "lambdalabs", "runpod"} <= set(by)
    # RunPod: its cheapest H100 (PCIe, 2.39 USD/h) for 112 h, plus 500 GB kept for 14 days at its own price
    assert by["runpod"]["dedicated"] == 267.68 and by["runpod"]["includes"] == ["storage"]
    assert by["runpod"]["total"] == round(267.68 + 500 * 0.07 * round(14 / 30, 2), 2)  # months as quotes count them
    assert by["runpod"]["spot"] == round(2.39 * 0.35 * 112, 2) and by["lambdalabs"]["spot"] is None
    assert by["aws"]["source"] == "gpuhunt:aws" and by["aws"]["price_date"] == "2025-11-30"
    assert by["aws"]["dedicated"] == round(55.04 / 8 * 112, 2) and by["aws"]["includes"] == []  # no AWS storage row
    assert all(o["shared"] is None and o["currency"] == "USD" for o in offers)

    table = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--compare",
        "--lang",
        "zh",
        env=env,
        tmp=tmp_path,
    )
    assert "各供应商报价" in table.stdout and "gpuhunt:runpod" in table.stdout


def test_a_quote_from_one_provider_names_it_and_its_region(tmp_path: Path) -> None:
    import json

    assert run_cli("prices", "refresh", "--source", "gpuhunt", env=GPUHUNT_ENV, tmp=tmp_path).returncode == 0
    done = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--provider",
        "lambdalabs",
        "--json",
        "--currency",
        "USD",
        env=GPUHUNT_ENV,
        tmp=tmp_path,
    )
    price = json.loads(done.stdout)["dedicated"]["price"]
    assert (price["provider"], price["region"], price["unit_price"]) == ("lambdalabs", "us-east-1", 2.99)
    shown = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--provider",
        "lambdalabs",
        "--lang",
        "en",
        env=GPUHUNT_ENV,
        tmp=tmp_path,
    )
    assert "(lambdalabs," in shown.stdout and "us-east-1)" in shown.stdout  # (the cell may wrap between)
    cheapest = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--provider",
        "cheapest",
        "--json",
        env=GPUHUNT_ENV,
        tmp=tmp_path,
    )
    assert json.loads(cheapest.stdout)["dedicated"]["price"]["provider"] == "runpod"
    wrong = run_cli(
        "quote",
        "--gpu",
        "H100",
        "--hours-per-day",
        "8",
        "--days",
        "14",
        "--provider",
        "nope",
        "--lang",
        "en",
        env=GPUHUNT_ENV,
        tmp=tmp_path,
    )
    assert wrong.returncode == 2 and "from provider 'nope'" in wrong.stderr and "runpod" in wrong.stderr


def test_the_default_catalog_address_is_gpuhunts_own() -> None:
    from gpuhunt._internal.catalog import CATALOG_URL

    from pricing import gpuhunt_source

    assert gpuhunt_source.CATALOG_URL == CATALOG_URL == Settings().prices.gpuhunt_catalog_url


def test_a_file_that_is_not_a_catalog_fails_and_bad_rows_are_counted(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    shutil.copy(CATALOGS / "azure.csv", folder / "azure.csv")
    settings = _settings(tmp_path, "azure", folder)
    assert _refresh_all(settings)["gpuhunt:azure"].ok  # type: ignore[attr-defined]
    (folder / "azure.csv").write_text("name,price\nx,1\n")  # someone's own price list, not gpuhunt's
    failed = _refresh_all(settings)["gpuhunt:azure"]
    assert not failed.ok and "is not a gpuhunt catalog: no column cpu, gpu_count" in failed.error  # type: ignore
    # every row's `spot` unreadable: gpuhunt skips each, and a catalog of which nothing is read fails
    lines = (CATALOGS / "azure.csv").read_text().splitlines()
    broken = [lines[0], *(line.replace(",False,", ",maybe,").replace(",True,", ",maybe,") for line in lines[1:])]
    (folder / "azure.csv").write_text("\n".join(broken) + "\n")
    none = _refresh_all(settings)["gpuhunt:azure"]
    assert not none.ok and "gpuhunt could read none of the 56 rows" in none.error  # type: ignore[attr-defined]
    db = cache.open_db(settings.files.db)
    assert cache.count_prices(db, "gpuhunt:azure") == 48  # the last good catalog stays
    (folder / "azure.csv").write_text("\n".join([*lines[:1], lines[1].replace(",False,", ",maybe,"), *lines[2:]]))
    assert _refresh_all(settings)["gpuhunt:azure"].ok  # type: ignore[attr-defined]
    book = PriceBook.open(settings, load_policy(None), http_client(settings), now=lambda: NOW)
    note = {s.source: s.note for s in book.status()}["gpuhunt:azure"]
    assert note is not None and "1 rows gpuhunt could not read" in note


def test_a_catalog_with_a_field_over_the_csv_limit_fails_its_source_in_one_line(tmp_path: Path) -> None:
    """Issue 34.8: a field over the CSV reader's limit crashed the refresh with an internal error; the last
    prices of that source stay, the others load."""
    folder = tmp_path / "catalogs"
    folder.mkdir()
    shutil.copy(CATALOGS / "azure.csv", folder / "azure.csv")
    good = (CATALOGS / "aws.csv").read_text(encoding="utf-8").splitlines()
    huge = '"' + "x" * (csv.field_size_limit() + 10) + '"'
    (folder / "aws.csv").write_text("\n".join([good[0], good[1], huge + good[2][good[2].index(",") :]]) + "\n")
    results = _refresh_all(_settings(tmp_path, "azure,aws", folder))
    assert results["gpuhunt:azure"].ok  # type: ignore[attr-defined]
    error = results["gpuhunt:aws"].error  # type: ignore[attr-defined]
    assert error is not None and "malformed gpuhunt catalog near row" in error and "internal error" not in error
    assert "\n" not in error
