from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.support.bundled import BUNDLED_ROWS
from tests.support.cli import run_cli
from tests.support.imported import imported_by
from tests.support.servers import serve

DATA = Path(__file__).parents[1] / "data"
OFFLINE = {
    "GPU_ADVISOR_AZURE_ENABLED": "false",
    "GPU_ADVISOR_ECB_ENABLED": "false",
    "GPU_ADVISOR_LANG": "en",
    "GPU_ADVISOR_REFRESH_BACKOFF_S": "0.01",
}


def test_quote_json_is_the_worked_example(tmp_path: Path) -> None:
    result = run_cli(
        "quote",
        "--gpu",
        "A100-80GB",
        "--hours-per-day",
        "4",
        "--days",
        "14",
        "--share",
        "1/2",
        "--json",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["dedicated"]["amount"] == 5600 and data["dedicated"]["billing"] == "daily"
    assert data["shared"]["amount"] == 784
    assert (data["shared"]["amount_min"], data["shared"]["amount_max"]) == (980, 1120)
    assert (data["shared"]["days_min"], data["shared"]["days_max"]) == (17.5, 20)
    assert data["dedicated"]["price"]["source"] == "ratecard"
    assert data["dedicated"]["price"]["stale"] is True
    assert data["spot"]["estimate"] is True


def test_quote_table_shows_source_age_and_stale_label(tmp_path: Path) -> None:
    result = run_cli(
        "quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14", "--lang", "en", env=OFFLINE, tmp=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "¥5,600" in result.stdout and "¥784" in result.stdout
    assert "as of" in result.stdout and "2024-06-01" in result.stdout  # (the cell may wrap between the two)
    assert "STALE" in result.stdout
    assert "past their refresh window" in result.stdout


def test_fractional_cards_are_refused_with_the_way_out(tmp_path: Path) -> None:
    result = run_cli(
        "quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14", "--cards", "1.5", env=OFFLINE, tmp=tmp_path
    )
    assert result.returncode == 2
    assert "not a whole number of cards; use --share 1/2" in result.stderr


def test_cards_and_currency_as_chat_takes_them(tmp_path: Path) -> None:
    """--cards 8卡 was "not a whole number" and --currency 美元 not a currency, where chat's cards= and currency=
    read both."""
    said = run_cli(
        "quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14", "--cards", "2卡", "--currency", "美元",
        "--json", env=OFFLINE, tmp=tmp_path,
    )  # fmt: skip
    assert said.returncode == 0, said.stderr
    made = json.loads(said.stdout)
    assert (made["cards"], made["currency"]) == (2, "USD")


def test_zero_days_is_refused(tmp_path: Path) -> None:
    result = run_cli("quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "0", env=OFFLINE, tmp=tmp_path)
    assert result.returncode == 2
    assert "--days 0: must be above 0" in result.stderr


def test_unknown_gpu_lists_known_models(tmp_path: Path) -> None:
    result = run_cli("quote", "--gpu", "B300", "--hours-per-day", "4", "--days", "14", env=OFFLINE, tmp=tmp_path)
    assert result.returncode == 2
    assert "unknown GPU model 'B300'. Known models: A10-24GB" in result.stderr


def test_bad_share(tmp_path: Path) -> None:
    result = run_cli("quote", "--hours-per-day", "4", "--days", "14", "--share", "3g.99gb", env=OFFLINE, tmp=tmp_path)
    assert result.returncode == 2
    assert "--share" in result.stderr and "not a MIG profile of this GPU" in result.stderr


def test_advise_with_quote(tmp_path: Path) -> None:
    result = run_cli(
        "advise",
        "--duration",
        "4h",
        "--memory-peak",
        "35GB",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
        "--workload",
        "lora",
        "--schedule",
        "4x14",
        "--quote",
        "--json",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["choice"] == "shared" and data["mig_profile"] == "3g.40gb"
    assert data["quote"]["shared"]["amount"] == 784  # the 3g.40gb half slice
    assert data["quote"]["dedicated"]["amount"] == 5600


def test_advise_quote_assumes_the_schedule_as_slack_does_and_schedule_overrides(tmp_path: Path) -> None:
    """Issue 17.10: --quote without --schedule was refused while Slack assumed one from the answers."""
    flags = (
        "advise",
        "--duration",
        "4h",
        "--memory-peak",
        "no",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
        "--quote",
        "--lang",
        "en",
    )
    assumed = run_cli(*flags, "--json", env=OFFLINE, tmp=tmp_path)
    assert assumed.returncode == 0, assumed.stderr
    data = json.loads(assumed.stdout)
    # 4 h a run, 7 runs a week: 4 h a day over 30 days, the same rule as the Slack thread (rules/schedule.py)
    assert data["schedule_assumed"] is True
    assert (data["quote"]["hours_per_day"], data["quote"]["days"]) == (4, 30)
    given = json.loads(run_cli(*flags, "--schedule", "2x10", "--json", env=OFFLINE, tmp=tmp_path).stdout)
    assert given["schedule_assumed"] is False and (given["quote"]["hours_per_day"], given["quote"]["days"]) == (2, 10)
    shown = run_cli(*flags, env=OFFLINE, tmp=tmp_path)
    assert "Schedule assumed from your answers (run length × runs a week): 4 h a day for 30 days" in shown.stdout


def test_refresh_from_local_sources_then_list_status_and_quote_in_usd(tmp_path: Path) -> None:
    page1 = json.loads((DATA / "azure_page1.json").read_text())
    page2 = (DATA / "azure_page2.json").read_bytes()
    feed = (DATA / "team_ratecard.csv").read_bytes()
    routes = {
        "/ecb.xml": (200, {"Content-Type": "text/xml"}, (DATA / "ecb.xml").read_bytes()),
        "/feed.csv": (200, {"Content-Type": "text/csv"}, feed.replace(b"acme-cloud", b"feed-co")),
        "/azure/page2": (200, {"Content-Type": "application/json"}, page2),
    }
    with serve(routes) as server:
        page1["NextPageLink"] = f"{server.base_url}/azure/page2?$skip=100"
        routes["/azure"] = (200, {"Content-Type": "application/json"}, json.dumps(page1).encode())
        env = {
            "GPU_ADVISOR_AZURE_BASE_URL": f"{server.base_url}/azure",
            "GPU_ADVISOR_ECB_URL": f"{server.base_url}/ecb.xml",
            "GPU_ADVISOR_FEED": f"{server.base_url}/feed.csv",
            "GPU_ADVISOR_LANG": "en",
        }
        refreshed = run_cli("prices", "refresh", env=env, tmp=tmp_path)
        assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr
        assert "azure: 4 rows" in refreshed.stdout and "feed: 3 rows" in refreshed.stdout
        assert "ecb: 1 rows" in refreshed.stdout
        assert "$filter=serviceName eq 'Virtual Machines'" in unquote(server.hits("/azure")[0].query)
        listed = json.loads(run_cli("prices", "list", "--gpu", "A100", "--json", env=env, tmp=tmp_path).stdout)
        assert {p["source"] for p in listed} == {"ratecard", "azure"}
        status = json.loads(run_cli("prices", "status", "--json", env=env, tmp=tmp_path).stdout)
        assert {s["source"]: s["rows"] for s in status} == {"ratecard": BUNDLED_ROWS, "azure": 4, "feed": 3, "ecb": 1}
        assert all(s["last_error"] is None for s in status)
        assert [s["source"] for s in status if s["stale"]] == ["ratecard"]  # its 2023-2024 reference rows
        every = json.loads(run_cli("prices", "list", "--source", "ratecard", "--json", env=env, tmp=tmp_path).stdout)
        assert status[0]["stale_rows"] == sum(p["stale"] for p in every) > 0  # status and list agree
        quoted = run_cli(
            "quote",
            "--gpu",
            "A100",
            "--hours-per-day",
            "4",
            "--days",
            "14",
            "--currency",
            "USD",
            "--region",
            "eastus",
            "--json",
            env=env,
            tmp=tmp_path,
        )
    data = json.loads(quoted.stdout)
    assert data["dedicated"]["price"]["source"] == "azure"
    assert data["dedicated"]["amount"] == round(56 * 3.673, 2)
    assert data["spot"]["amount"] == round(56 * 0.8815, 2) and data["spot"]["estimate"] is False
    assert data["stale"] is False


def test_failed_source_keeps_its_prices_and_the_command_says_why(tmp_path: Path) -> None:
    good = (DATA / "team_ratecard.csv").read_bytes()
    with serve({"/feed.csv": [(200, {}, good), (500, {}, b"down"), (500, {}, b"down"), (500, {}, b"down")]}) as server:
        env = OFFLINE | {"GPU_ADVISOR_FEED": f"{server.base_url}/feed.csv"}
        assert run_cli("prices", "refresh", "--source", "feed", env=env, tmp=tmp_path).returncode == 0
        failed = run_cli("prices", "refresh", "--source", "feed", env=env, tmp=tmp_path)
    assert failed.returncode == 1
    assert "feed: failed after 3 attempt(s): HTTP 500" in failed.stdout
    assert "(its previous 3 prices kept)" in failed.stdout
    status = json.loads(run_cli("prices", "status", "--json", env=env, tmp=tmp_path).stdout)
    feed = next(s for s in status if s["source"] == "feed")
    assert feed["rows"] == 3 and "HTTP 500" in feed["last_error"]


def test_malformed_team_rate_card_names_file_row_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "ours.csv"
    bad.write_text((DATA / "team_ratecard.csv").read_text().replace("650,CNY", "-650,CNY"))
    result = run_cli(
        "prices", "refresh", "--source", "ratecard", env=OFFLINE | {"GPU_ADVISOR_RATE_CARDS": str(bad)}, tmp=tmp_path
    )
    assert result.returncode == 1
    assert f"{bad}, row 2, field 'amount': Input should be greater than 0" in result.stdout


def test_unknown_source(tmp_path: Path) -> None:
    result = run_cli("prices", "refresh", "--source", "aws", env=OFFLINE, tmp=tmp_path)
    assert result.returncode == 2
    assert "unknown source 'aws'. Configured sources: ratecard" in result.stderr


def test_errors_speak_the_configured_language(tmp_path: Path) -> None:
    result = run_cli("prices", "refresh", "--source", "aws", env=OFFLINE | {"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert result.returncode == 2
    assert "未知的价格来源“aws”。已配置的来源：ratecard" in result.stderr
    quoted = run_cli(
        "quote", "--gpu", "B300", "--hours-per-day", "4", "--days", "14", "--lang", "zh", env=OFFLINE, tmp=tmp_path
    )
    assert quoted.returncode == 2
    assert "未知的 GPU 型号“B300”" in quoted.stderr


def test_a_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("these are my notes, not a database")
    result = run_cli("quote", "--hours-per-day", "4", "--days", "14", "--db", str(bad), env=OFFLINE, tmp=tmp_path)
    assert result.returncode == 2
    assert f"cannot use the database {bad}: file is not a database" in result.stderr
    assert bad.read_text() == "these are my notes, not a database"  # untouched


def test_money_reads_like_money_and_no_figure_is_folded(tmp_path: Path) -> None:
    flags = ["quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14"]
    data = json.loads(run_cli(*flags, "--json", env=OFFLINE, tmp=tmp_path).stdout)
    table = run_cli(*flags, env=OFFLINE | {"COLUMNS": "72"}, tmp=tmp_path).stdout
    spot = data["spot"]
    low, high = round(spot["amount_min"]), round(spot["amount_max"])
    assert f"¥{low}–¥{high}" in table  # ¥187–¥467, not ¥186.67–¥466.67, on one line
    assert "¥980–¥1,120" in table and "(17.5–20" in table  # a figure whole; its words may wrap
    assert "costs 91.7–96.7% less than dedicated" in table


def test_a_saving_below_zero_is_said_as_costing_more(tmp_path: Path) -> None:
    result = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "24",
        "--days",
        "30",
        "--share",
        "1",
        env=OFFLINE | {"COLUMNS": "200"},
        tmp=tmp_path,
    )
    assert "costs" in result.stdout and "% more than dedicated" in result.stdout
    assert "-" not in result.stdout.split("more than dedicated")[0].split("costs")[-1]


def test_storage_and_traffic_give_the_total_cost_of_the_run(tmp_path: Path) -> None:
    result = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "30",
        "--storage-gb",
        "500",
        "--storage-price",
        "0.15",
        "--egress-gb",
        "100",
        "--egress-price",
        "0.8",
        "--json",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["extras"]["storage"]["amount"] == 75  # 500 GB x 0.15 x 1 month
    assert data["extras"]["egress"]["amount"] == 80
    assert data["totals"]["dedicated"] == data["dedicated"]["amount"] + 155
    table = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "30",
        "--storage-gb",
        "500",
        "--storage-price",
        "0.15",
        env=OFFLINE,
        tmp=tmp_path,
    ).stdout
    assert "Total cost of the run (storage 500 GB × 1 months" in table


def test_storage_alone_is_priced_from_the_bundled_reference_rows(tmp_path: Path) -> None:
    """Issue 17.11: `--storage-gb 500` alone failed ("no storage price in the cache") though the README
    promised the cheapest storage row; the months printed were not the months used; a spot total that
    is a range was one figure."""
    result = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "4",
        "--storage-gb",
        "500",
        "--egress-gb",
        "100",
        "--json",
        "--lang",
        "en",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    storage, egress = data["extras"]["storage"], data["extras"]["egress"]
    assert storage["source"] == "ratecard" and "ESSD PL0" in storage["basis"] and storage["unit_price"] == 0.5
    assert egress["basis"].startswith("internet egress") and egress["unit_price"] > 0
    assert storage["amount"] == round(500 * 0.5 * storage["months"], 2) and storage["months"] == 0.13
    spot = data["spot"]
    low, high = data["totals_range"]["spot"]
    beside = storage["amount"] + egress["amount"]
    assert (low, high) == (round(spot["amount_min"] + beside, 2), round(spot["amount_max"] + beside, 2)) and low < high
    table = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "4",
        "--storage-gb",
        "500",
        "--lang",
        "en",
        env=OFFLINE,
        tmp=tmp_path,
    ).stdout
    assert "storage 500 GB × 0.13 months at 0.5 CNY/GB-month = ¥32.5" in table
    assert "spot ¥" in table and "–" in table.split("spot ¥")[1].split(";")[0].split("\n")[0]


def test_a_rate_card_can_price_storage(tmp_path: Path) -> None:
    card = tmp_path / "storage.csv"
    card.write_text(
        "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,kind,basis\n"
        "our-cloud,,,,,0.12,CNY,gb-month,storage,negotiated 2026\n"
        "our-cloud,,,,,0.5,CNY,gb,egress,negotiated 2026\n"
    )
    env = OFFLINE | {"GPU_ADVISOR_RATE_CARDS": str(card)}
    result = run_cli(
        "quote",
        "--gpu",
        "A100",
        "--hours-per-day",
        "4",
        "--days",
        "30",
        "--storage-gb",
        "1000",
        "--egress-gb",
        "10",
        "--json",
        env=env,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    extras = json.loads(result.stdout)["extras"]
    assert (extras["storage"]["amount"], extras["storage"]["source"]) == (120, "ratecard")
    assert extras["egress"]["amount"] == 5


def test_infinite_gpu_hours_are_refused_with_a_reason(tmp_path: Path) -> None:
    for value in ("inf", "1e309", "nan"):
        result = run_cli("quote", "--gpu", "A100", "--gpu-hours", value, env=OFFLINE, tmp=tmp_path)
        assert result.returncode == 2, value
        assert "bad quote request" in result.stderr and "Traceback" not in result.stderr


def test_a_source_that_never_loaded_does_not_claim_to_keep_prices(tmp_path: Path) -> None:
    """Issue 19.16: 'previous prices kept' was said of a source that had none."""
    with serve({"/feed.csv": [(500, {}, b"down")] * 3}) as server:
        env = OFFLINE | {"GPU_ADVISOR_FEED": f"{server.base_url}/feed.csv"}
        failed = run_cli("prices", "refresh", "--source", "feed", env=env, tmp=tmp_path)
    assert failed.returncode == 1 and "(no prices from it yet)" in failed.stdout and "kept" not in failed.stdout


def test_prices_list_names_the_currency_of_each_per_gpu_hour_price(tmp_path: Path) -> None:
    """Issue 19.16: the per GPU-h column mixed USD and CNY unlabelled."""
    listed = run_cli("prices", "list", "--gpu", "RTX4090", env=OFFLINE, tmp=tmp_path).stdout
    assert "4.5 CNY" in listed and "0.29 USD" in listed


def test_prices_list_cheapest_names_the_cheapest_of_each_gpu_first_in_the_teams_currency(tmp_path: Path) -> None:
    """As chat's `最便宜的4090`: the dollar offer at $0.29 is ¥2.09 a GPU-hour, below the yuan one's ¥4.5."""
    env = OFFLINE | {"GPU_ADVISOR_CURRENCY": "CNY"}
    listed = " ".join(run_cli("prices", "list", "4090", "A100", "--cheapest", "--lang", "en", env=env, tmp=tmp_path)
                      .stdout.split())  # fmt: skip
    assert (
        "RTX4090-24GB: Cheapest whole card: RTX 4090 24GB (per GPU-hour) at openrelay, 0.29 USD/hour (about" in listed
    )
    assert "A100-80GB: Cheapest slice: A100 80GB quarter-card instance (20GB) at domestic-reference" in listed
    said = " ".join(run_cli("prices", "list", "4090", "最便宜", "--lang", "zh", env=env, tmp=tmp_path).stdout.split())
    assert "最便宜的整卡：openrelay 的" in said
    assert "Cheapest" not in run_cli("prices", "list", "4090", "--lang", "en", env=env, tmp=tmp_path).stdout


@pytest.mark.parametrize(
    "command",
    [
        (
            "advise",
            "--duration",
            "4h",
            "--memory-peak",
            "35GB",
            "--model-parallel",
            "no",
            "--frequency",
            "daily",
            "--can-resume",
            "yes",
            "--schedule",
            "4x14",
            "--quote",
        ),
        ("quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14"),
    ],
)
def test_a_currency_quotes_cannot_be_made_in_is_refused_with_the_list(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Issue 20.14: --currency EUR ended in a traceback; since issue 22 any currency the ECB publishes is taken
    (RUB is not published since 2022)."""
    done = run_cli(*command, "--currency", "RUB", env=OFFLINE, tmp=tmp_path)
    said = "--currency RUB is not a currency quotes can be made in: use one of AUD, BGN, BRL, CAD, CHF, CNY"
    assert done.returncode == 2 and said in done.stderr and "EUR" in done.stderr


def test_a_team_rate_card_row_naming_an_unknown_gpu_is_left_out_not_the_file(tmp_path: Path) -> None:
    """Issue 52: a row for 'HAI 基础型' (a bundle, not a GPU) refused the whole file, so none of its prices held."""
    ours = tmp_path / "ours.csv"
    hai = "acme-cloud,guangzhou,inland,HAI basic,HAI 基础型,1,dedicated,,on_demand,4.2,CNY,hour,2026-11-01,quote\n"
    ours.write_text((DATA / "team_ratecard.csv").read_text() + hai)
    env = OFFLINE | {"GPU_ADVISOR_RATE_CARDS": str(ours)}
    result = run_cli("prices", "refresh", "--source", "ratecard", env=env, tmp=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    status = json.loads(run_cli("prices", "status", "--json", env=env, tmp=tmp_path).stdout)
    ratecard = next(s for s in status if s["source"] == "ratecard")
    assert f"{ours} row 4 left out" in ratecard["note"] and "HAI 基础型" in ratecard["note"], ratecard
    shown = run_cli("prices", "list", "--gpu", "H800", "--json", env=env, tmp=tmp_path)
    assert "acme-cloud" in shown.stdout  # the file's other rows price


def test_a_rate_cards_words_are_printed_as_written(tmp_path: Path) -> None:
    """Printed through rich's markup, a rate card's "[/box]" crashed `prices list` and its region "[cn-north]"
    vanished from the quote's source; ":fire:" became an emoji."""
    card = tmp_path / "ours.csv"
    card.write_text(
        "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,region\n"
        "our-cloud,[/box] :fire:,A100-80GB,1,on-demand,10,CNY,hour,[cn-north]\n"
    )
    env = OFFLINE | {"GPU_ADVISOR_RATE_CARDS": str(card), "COLUMNS": "200"}
    assert run_cli("prices", "refresh", "--source", "ratecard", env=env, tmp=tmp_path).returncode == 0
    listed = run_cli("prices", "list", "--gpu", "A100-80GB", env=env, tmp=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "[/box] :fire:" in listed.stdout and "[cn-north]" in listed.stdout
    quoted = run_cli("quote", "--gpu", "A100-80GB", "--hours-per-day", "4", "--days", "3", env=env, tmp=tmp_path)
    assert quoted.returncode == 0, quoted.stderr
    assert "our-cloud, [cn-north]" in quoted.stdout
    status = run_cli("prices", "status", env=env, tmp=tmp_path)
    assert status.returncode == 0 and "ratecard" in status.stdout


def test_prices_list_through_a_pipe_keeps_each_row_whole(tmp_path: Path) -> None:
    """Through a pipe rich assumed 80 columns and cut every cell ("RTX40…", "202…"); now a row is a line at the
    table's own width, and in a narrow terminal (COLUMNS) cells wrap and are never cut."""
    piped = run_cli("prices", "list", "--gpu", "RTX4090", env=OFFLINE | {"COLUMNS": None}, tmp=tmp_path).stdout
    rows = [line for line in piped.splitlines() if "RTX4090-24GB" in line]
    assert len(rows) == 2 and any("RTX 4090 24GB whole card (hourly)" in row and "2023-12-31" in row for row in rows)
    narrow = run_cli("prices", "list", "--gpu", "RTX4090", env=OFFLINE | {"COLUMNS": "60"}, tmp=tmp_path).stdout
    assert max(len(line) for line in narrow.splitlines()) <= 60 and "…" not in narrow


def test_prices_of_a_gpu_without_one_name_the_gpus_with_prices(tmp_path: Path) -> None:
    """`prices list --gpu H800` said "no cached prices match; run prices refresh", as if the cache were empty."""
    done = run_cli("prices", "list", "--gpu", "H800", "--lang", "en", env=OFFLINE, tmp=tmp_path)
    said = " ".join(done.stdout.split())
    assert done.returncode == 0 and "no cached price for H800-80GB. GPUs with prices: A10-24GB, A100-40GB" in said


@pytest.mark.e2e  # starts a process
def test_listing_prices_imports_no_policy_and_no_quote(tmp_path: Path) -> None:
    """Issue 50: `prices list` opened the price book with the policy and imported the quote's models and the ECB's
    XML parser it never uses (0.03 s of a 0.27 s start)."""
    code = (
        f"import os\nos.environ['GPU_ADVISOR_DB'] = {str(tmp_path / 'p.db')!r}\nos.environ['GPU_ADVISOR_LANG'] = 'en'\n"
        "from bot.cli.main import main\nmain(['prices', 'list', '--gpu', 'A100-80GB'])"
    )
    loaded, said = imported_by(code, "rules.policy", "pricing.quote", "pricing.book", "xml.etree")
    assert "A100" in said and loaded == [], loaded


def test_prices_list_in_a_narrow_terminal_shows_records_with_every_word_whole(tmp_path: Path) -> None:
    """Ten columns do not fit 80 even a word a line: they were folded inside their columns ("dedica / ted",
    "2026-0 / 9-25"). Now each offer is a record of "column  value" lines (psql's expanded display), every word
    whole; where the table fits (120 columns) it stays a table, a row a line."""
    for lang, stale, head, kind in (("en", "STALE", "per GPU-h", "dedicated"), ("zh", "已过期", "每 GPU 小时", "独占")):
        env = OFFLINE | {"TTY_COMPATIBLE": "1", "COLUMNS": "80"}
        shown = re.sub(r"\x1b\[[0-9;]*m", "", run_cli("prices", "list", "--gpu", "RTX4090", "--lang", lang, env=env,
                                                        tmp=tmp_path).stdout)  # fmt: skip
        lines = shown.splitlines()
        assert max(len(line) for line in lines) <= 80 and "…" not in shown and "\t" not in shown
        records = [block.splitlines() for block in shown.strip("\n").split("\n\n")]
        assert len(records) == 2 and all(len(record) == 10 for record in records), records
        assert [record[0].split() for record in records] == [["GPU", "RTX4090-24GB"]] * 2
        assert {kind, "2023-12-31", stale} <= set(shown.split()) and head in shown
        wide = run_cli("prices", "list", "--gpu", "RTX4090", "--lang", lang, env=env | {"COLUMNS": "160"}, tmp=tmp_path)
        rows = [line for line in wide.stdout.splitlines() if "RTX4090-24GB" in line]
        assert len(rows) == 2 and all(re.search(r"ratecard +\d{4}-\d\d-\d\d", row) for row in rows), rows


def test_a_quote_out_of_bounds_names_the_flag_and_the_bound_in_the_users_language(tmp_path: Path) -> None:
    """pydantic's English was shown with our field names: "hours_per_day: Input should be less than or equal to 24"."""
    en = run_cli("quote", "--gpu", "A100", "--hours-per-day", "30", "--days", "0", env=OFFLINE, tmp=tmp_path)
    assert en.returncode == 2 and "--hours-per-day 30: must be at most 24; --days 0: must be above 0" in en.stderr
    zh = run_cli(
        "quote", "--gpu", "A100", "--cards", "2000", "--gpu-hours", "5", "--lang", "zh", env=OFFLINE, tmp=tmp_path
    )
    assert zh.returncode == 2 and "--cards 2,000：不能大于 1,024" in zh.stderr and "Input" not in zh.stderr
    none = run_cli("quote", "--gpu", "A100", "--days", "3", env=OFFLINE, tmp=tmp_path)
    assert none.returncode == 2 and "give --hours-per-day and --days, or --gpu-hours" in none.stderr
    both = ("--hours-per-day", "2", "--days", "3")  # 6 GPU-hours: was priced as 5, titled "2 h/day × 3 days"
    mixed = run_cli("quote", "--gpu", "A100", *both, "--gpu-hours", "5", env=OFFLINE, tmp=tmp_path)
    assert mixed.returncode == 2 and "give --hours-per-day and --days, or --gpu-hours" in mixed.stderr
    agreed = run_cli("quote", "--gpu", "A100", *both, "--gpu-hours", "6", "--json", env=OFFLINE, tmp=tmp_path)
    assert agreed.returncode == 0 and json.loads(agreed.stdout)["gpu_hours"] == 6


def test_a_period_alone_is_the_card_rented_for_it(tmp_path: Path) -> None:
    """`--schedule 一个月` was refused: a quote prices renting, and a month alone is the card rented for it (24 h a
    day), as chat's `报价 A100 一个月` and 包月 are."""
    done = run_cli("quote", "--gpu", "A100", "--schedule", "一个月", "--json", env=OFFLINE, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert (made["hours_per_day"], made["days"], made["dedicated"]["amount"]) == (24, 30, 11500)


def test_an_unknown_gpu_is_said_before_a_missing_schedule(tmp_path: Path) -> None:
    """`quote --gpu 哈哈` asked for hours a day and days; given them, it then refused the GPU."""
    done = run_cli("quote", "--gpu", "哈哈", "--lang", "zh", env=OFFLINE, tmp=tmp_path)
    assert done.returncode == 2 and "未知的 GPU 型号“哈哈”" in done.stderr and "--hours-per-day" not in done.stderr


def test_total_gpu_hours_compared_say_they_run_back_to_back(tmp_path: Path) -> None:
    """--compare with --gpu-hours was titled "24 h/day × 12.5 days", a pace nobody said."""
    made = run_cli("quote", "--gpu", "4090", "--gpu-hours", "300", "--compare", env=OFFLINE, tmp=tmp_path)
    assert made.returncode == 0 and "300 GPU-hours back to back (12.5 days)" in " ".join(made.stdout.split())
    assert "h/day" not in made.stdout


def test_prices_say_sharing_pricing_and_unit_in_the_readers_words(tmp_path: Path) -> None:
    """In Chinese `prices list` and chat's `prices` said "dedicated · on-demand · 4.5 CNY/hour" in English words; both
    now say each offer from one function (bot/text/quote.py's offer_cells), in the reader's words."""
    env = OFFLINE | {"COLUMNS": "200"}
    zh = run_cli("prices", "list", "--gpu", "A100-80GB", "--lang", "zh", env=env, tmp=tmp_path).stdout
    assert "独占" in zh and "包天" in zh and "400 CNY/天" in zh and "MIG 3g.40gb" in zh and "按量" in zh
    assert "dedicated" not in zh and "on-demand" not in zh and "CNY/day" not in zh
    en = run_cli("prices", "list", "--gpu", "A100-80GB", "--lang", "en", env=env, tmp=tmp_path).stdout
    assert "dedicated" in en and "400 CNY/day" in en and "mig 3g.40gb" in en


def test_a_chinese_quote_in_80_columns_keeps_its_right_edge_and_every_word(tmp_path: Path) -> None:
    """rich measured each Chinese sentence of the quote as one word, could not shrink the table to 80 columns and cut
    its right edge off, a letter with it ("domest / c-reference"). Where the words do not fit, each option is said as
    a record of "column  value" lines; in English the table stays."""
    flags = ["quote", "--gpu", "A100", "--hours-per-day", "4", "--days", "14"]
    env = OFFLINE | {"TTY_COMPATIBLE": "1", "COLUMNS": "80"}
    zh = re.sub(r"\x1b\[[0-9;]*m", "", run_cli(*flags, "--lang", "zh", env=env, tmp=tmp_path).stdout)
    assert max(len(line) for line in zh.splitlines()) <= 80
    assert "ratecard：400 CNY/day（domestic-reference）" in zh and "¥980–¥1,120（17.5–20 天）" in zh
    assert [line.split()[0] for line in zh.splitlines() if line.startswith("方案")] == ["方案"] * 3
    en = re.sub(r"\x1b\[[0-9;]*m", "", run_cli(*flags, "--lang", "en", env=env, tmp=tmp_path).stdout)
    assert en.splitlines()[1].startswith("┏") and all(len(line) <= 80 for line in en.splitlines())
    # rich shrank the English table itself and folded a word ("(domestic-referen / ce)"): its columns are set so that
    # every word is whole; and the bundled price's caveat, the same on every row, is said once under the table
    assert "(domestic-reference)," in en and "referen\n" not in en.replace(" ", "").replace("│", "")
    assert en.count("rate card") == 1 and "• Every price above is a bundled reference price" in en
    assert zh.count("价目表") == 1 and "• 以上均为内置参考价" in zh


def test_quote_takes_a_schedule_in_words_as_chat_and_advise_do(tmp_path: Path) -> None:
    """`quote` took the schedule only as --hours-per-day and --days; chat's `hours=` and advise's schedule answer
    read it in words (每天4小时14天)."""
    flags = ["quote", "--gpu", "A100", "--share", "1/2", "--json"]
    said = run_cli(*flags, "--schedule", "每天4小时14天", env=OFFLINE, tmp=tmp_path)
    given = run_cli(*flags, "--hours-per-day", "4", "--days", "14", env=OFFLINE, tmp=tmp_path)
    assert said.returncode == 0, said.stderr
    assert json.loads(said.stdout) == json.loads(given.stdout)
    twice = run_cli(*flags, "--schedule", "4x14", "--days", "3", env=OFFLINE | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert twice.returncode == 2 and "not both" in twice.stderr
    bad = run_cli(*flags, "--schedule", "soon", env=OFFLINE | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("--schedule: Could not read 'soon'")


def test_one_run_on_several_gpus_side_by_side(tmp_path: Path) -> None:
    """`gpu-advise quote A100 H100 4x14` refused H100 as a word not read: the run is quoted on each, a row a GPU,
    each the GPU's own quote (`A100和H100`, `A100 vs H100` too)."""
    both = run_cli("quote", "A100", "vs", "H100", "4x14", "--json", env=OFFLINE, tmp=tmp_path)
    assert both.returncode == 0, both.stderr
    quotes = json.loads(both.stdout)["quotes"]
    assert [q["gpu"] for q in quotes] == ["A100-80GB", "H100-80GB"]
    for made in quotes:
        alone = run_cli("quote", made["gpu"], "4x14", "--json", env=OFFLINE, tmp=tmp_path)
        assert json.loads(alone.stdout)["dedicated"]["amount"] == made["dedicated"]["amount"]
    text = run_cli("quote", "A100和H100", "跑一周", "--lang", "zh", env=OFFLINE, tmp=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "A100-80GB · H100-80GB：每天 24 小时 × 7 天的费用" in text.stdout and "独占" in text.stdout
    rows = [line.split()[0] for line in text.stdout.splitlines() if line.startswith(("A100-80GB  ", "H100-80GB  "))]
    assert rows == ["A100-80GB", "H100-80GB"], text.stdout  # a row a GPU
    unknown = run_cli("quote", "A100", "MI300X", "4x14", "--lang", "en", env=OFFLINE, tmp=tmp_path)  # "not read" before
    assert unknown.returncode == 2 and "unknown GPU model 'MI300X'" in unknown.stderr, unknown.stderr


def test_prices_with_a_gpu_where_a_sub_command_goes_is_its_list(tmp_path: Path) -> None:
    """`gpu-advise prices 910B` answered "No such command '910B'" (chat's `prices 910B` lists its prices): a GPU where
    a sub-command goes is `prices list` of it; another word is still no such command, with the nearest named."""
    listed = run_cli("prices", "list", "910B", "A100", "--json", env=OFFLINE, tmp=tmp_path)
    asked = run_cli("prices", "910B", "A100", "--json", env=OFFLINE, tmp=tmp_path)
    assert asked.returncode == 0 and json.loads(asked.stdout) == json.loads(listed.stdout), asked.stderr
    assert {row["gpu"] for row in json.loads(asked.stdout)} >= {"Ascend-910B2-64GB", "A100-80GB"}
    typo = run_cli("prices", "lsit", env=OFFLINE, tmp=tmp_path)
    assert typo.returncode == 2 and "No such command 'lsit'" in typo.stderr and "'list'" in typo.stderr


def test_a_provider_said_among_a_quotes_words_is_its_provider(tmp_path: Path) -> None:
    """`quote 8 H100 for 3 days on runpod`, `报价 A100 4x14 在阿里云上`, `A100 在阿里云上跑一周多少钱` were refused as
    words not read ("unexpected 'on'"), or priced every provider: the provider named is --provider (provider=)."""
    en = OFFLINE | {"GPU_ADVISOR_LANG": "en"}
    on = run_cli("quote", "H100", "4x14", "on", "lambda", "--json", env=en, tmp=tmp_path)
    flag = run_cli("quote", "H100", "4x14", "--provider", "lambda", "--json", env=en, tmp=tmp_path)
    assert on.returncode == 0, on.stderr
    assert json.loads(on.stdout) == json.loads(flag.stdout)
    elsewhere = run_cli("quote", "8", "H100", "for", "3", "days", "on", "runpod", env=en, tmp=tmp_path)
    assert elsewhere.returncode == 2 and "from provider 'runpod'" in elsewhere.stderr, elsewhere.stderr
    glued = run_cli("quote", "A100", "4x14", "在阿里云上", env=en, tmp=tmp_path)
    assert glued.returncode == 2 and "from provider 'aliyun'" in glued.stderr, glued.stderr
    twice = run_cli("quote", "H100", "4x14", "on", "runpod", "--provider", "lambda", env=en, tmp=tmp_path)
    assert twice.returncode == 2 and "--provider is given twice" in twice.stderr
