"""A team renting in dollars and in yuan had the two compared as bare numbers wherever money set an order: $3 an hour
(about ¥21.6 at the rate a quote takes: here the bundled fallback, 7.2) ranked below ¥10 in the digest, the report's
rankings, the board and its chart's currency. Each amount is still said in its own currency; only the order is made
on the team's (GPU_ADVISOR_CURRENCY, CNY by default)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.digest.due import run_due
from bot.state.rentals import Rentals
from rules.samples import Sample
from rules.worth import RAW, Worth
from tests.board.test_board import get, token
from tests.support.slack_harness import Harness, running_app

NOW = datetime(2026, 12, 4, 1, 40, tzinfo=UTC)  # 09:40 on a Friday in Shanghai: the 09:30 digest is due
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "channel": "C1"}


def rented(h: Harness) -> None:
    """Two boxes idle these ten hours, started three days ago: `yuan-box` (U1, cv) at ¥10 an hour and `dollar-box`
    (U2, llm) at $3 an hour."""
    h.clock.now = NOW
    rentals = Rentals(h.deps.store)
    for name, owner, project, price, currency in (
        ("yuan-box", "U1", "cv", 10.0, "CNY"),
        ("dollar-box", "U2", "llm", 3.0, "USD"),
    ):
        fields = {"owner": owner, "project": project, "price": price, "currency": currency}
        inst, _ = rentals.track_instance("T1", name, FIELDS | fields | {"started_at": NOW - timedelta(days=3)})
        samples = [Sample(NOW - timedelta(minutes=m), 0, 0.0, 1000, 81920) for m in range(0, 600, 5)]
        rentals.add_samples(inst.id, samples, [None] * len(samples))


def _text(post: dict[str, Any]) -> str:
    return json.dumps(post, ensure_ascii=False)


def test_the_digest_the_report_and_the_board_put_the_dollars_first(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rented(h)
        run_due(h.deps, h.outlets())  # the daily digest, as serve sends it
        [digest] = h.posts(channel="C1")
        said = _text(digest)
        assert said.index("dollar-box") < said.index("yuan-box"), said
        assert "$72" in said and "¥240" in said  # each a day, in its own currency

        h.send.command("report this-week", response_url=h.fake.response_url("r"))
        [report] = h.fake.wait_for(lambda: [p for p in h.posts(channel="C1") if "GPU report" in str(p.get("text"))])
        text = report["text"]
        spend = text.split("Spend by project", 1)[1]
        assert spend.index("llm") < spend.index("cv"), text  # $216 against ¥720
        idle = text.split("Idle cost by owner", 1)[1]
        assert idle.index("<@U2>") < idle.index("<@U1>"), text

        board = get(h, f"/board/{token(h)}.json").json()
        assert [r["item"] for r in board["idle_now"]] == ["dollar-box", "yuan-box"]
        assert [r["owner"] for r in board["week"]["by_owner"]] == ["U2", "U1"]
        assert [r["project"] for r in board["week"]["by_project"]] == ["llm", "cv"]
        assert board["chart"]["currency"] == "USD"  # the currency the most money is in: drawn in it


def test_worth_converts_only_what_is_not_the_teams_currency() -> None:
    asked: list[str] = []

    def converter() -> Any:
        asked.append("rates")  # the cache is read once, when a foreign amount first asks
        return lambda amount, currency: amount * 7.2 if currency == "USD" else None

    worth = Worth("CNY", converter)
    assert worth.one(10, "CNY") == 10 and not asked  # the team's own currency: nothing read
    assert worth.one(3, "USD") == 3 * 7.2 and worth.one(5, "JPY") == 5  # no rate: its bare number, as before
    assert worth.of({"CNY": 10, "USD": 3}) == 10 + 3 * 7.2 and asked == ["rates"]
    assert worth.most({"CNY": 720, "USD": 216}, "CNY") == "USD" and RAW.most({"CNY": 720, "USD": 216}, "CNY") == "CNY"
    assert worth.most({}, "CNY") == "CNY" and RAW.of({"CNY": 10, "USD": 3}) == 13
