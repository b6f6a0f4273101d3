from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pricing.errors import RecordError
from pricing.feed import parse_text
from pricing.records import PriceRecord, PricingModel, Sharing
from pricing.sources import rate_card_records

NOW = datetime(2026, 11, 30, tzinfo=UTC)
DATA = Path(__file__).parents[1] / "data"
HEADER = "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit"


def csv_rows(*lines: str, header: str = HEADER) -> list[object]:
    return list(
        parse_text("\n".join([header, *lines]) + "\n", fmt="csv", origin="team.csv", source="feed", fetched_at=NOW)
    )


def test_bundled_rate_card_has_the_articles_prices() -> None:
    records = [r for r in rate_card_records([], NOW) if isinstance(r, PriceRecord)]
    by_type = {(r.sharing, r.pricing_model, r.gpu_count): r for r in records}
    assert by_type[(Sharing.DEDICATED, PricingModel.DAILY, 1)].amount == 400
    assert by_type[(Sharing.MIG, PricingModel.ON_DEMAND, 0.5)].amount == 14
    assert all(r.basis and r.effective_date for r in records)


def test_team_rate_card_is_added() -> None:
    records = [r for r in rate_card_records([DATA / "team_ratecard.csv"], NOW) if isinstance(r, PriceRecord)]
    h800 = [r for r in records if r.gpu == "H800-80GB"]
    assert {r.pricing_model for r in h800} == {PricingModel.MONTHLY, PricingModel.DAILY, PricingModel.SPOT}
    assert h800[0].provenance.endswith("team_ratecard.csv")


def test_csv_row_with_vendor_gpu_name() -> None:
    (record,) = csv_rows("acme,x1,NVIDIA A100-SXM4-80GB,1,on-demand,12.5,CNY,hour")
    assert record.gpu == "A100-80GB"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        ("acme,x1,B300,1,on-demand,12,CNY,hour", "gpu", "unknown GPU model 'B300'"),
        ("acme,x1,A100,1,on-demand,-5,CNY,hour", "amount", "greater than 0"),
        ("acme,x1,A100,1,on-demand,12,EUR,hour", "currency", "'CNY' or 'USD'"),
        ("acme,x1,A100,1,hourly,12,CNY,hour", "pricing_model", "on-demand"),
        ("acme,x1,A100,0.5,on-demand,12,CNY,hour", None, "whole cards"),
        ("acme,x1,A100,1,on-demand,12000,CNY,hour", None, "sane range"),
        ("acme,x1,A100,1,on-demand,,CNY,hour", "amount", "required value is missing"),
    ],
)
def test_bad_row_names_file_row_and_field(line: str, field: str | None, problem: str) -> None:
    with pytest.raises(RecordError) as caught:
        csv_rows("acme,ok,A100,1,on-demand,12,CNY,hour", line)
    error = caught.value
    assert (error.origin, error.row, error.field) == ("team.csv", 2, field)
    assert problem in str(error)
    assert str(error).startswith("team.csv, row 2")


def test_unknown_column() -> None:
    with pytest.raises(RecordError, match="unknown column; accepted: provider"):
        csv_rows("acme,x1,A100,1,on-demand,12,CNY,hour,9", header=HEADER + ",discount")


def test_missing_column() -> None:
    with pytest.raises(RecordError) as caught:
        csv_rows("acme,x1,A100,1,on-demand,12,CNY", header=HEADER.removesuffix(",unit"))
    assert caught.value.field == "unit"


def test_json_feed_list_or_object() -> None:
    row = {
        "provider": "acme",
        "instance_type": "x",
        "gpu": "H100",
        "gpu_count": 8,
        "pricing_model": "on-demand",
        "amount": 220,
        "currency": "CNY",
        "unit": "hour",
        "region": "guizhou",
        "region_class": "inland",
    }
    for text in (json.dumps([row]), json.dumps({"prices": [row]})):
        (record,) = parse_text(text, fmt="json", origin="f.json", source="feed", fetched_at=NOW)
        assert record.per_gpu_hour == pytest.approx(27.5)


def test_malformed_json_feed() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        list(parse_text("[{", fmt="json", origin="f.json", source="feed", fetched_at=NOW))
    with pytest.raises(RecordError, match="expected a JSON list"):
        list(parse_text('{"rows": []}', fmt="json", origin="f.json", source="feed", fetched_at=NOW))


def test_unreadable_team_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read the file"):
        list(rate_card_records([tmp_path / "missing.csv"], NOW))


def test_a_row_of_an_unknown_kind_is_named() -> None:
    text = "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,kind\nx,,,,,1,CNY,gb,bandwidth\n"
    with pytest.raises(RecordError, match="field 'kind': kind must be gpu, storage or egress"):
        list(parse_text(text, fmt="csv", origin="t.csv", source="feed", fetched_at=NOW))


def test_a_storage_row_needs_its_unit() -> None:
    text = "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,kind\nx,,,,,1,CNY,gb,storage\n"
    with pytest.raises(RecordError, match="a storage price is per gb-month"):
        list(parse_text(text, fmt="csv", origin="t.csv", source="feed", fetched_at=NOW))
