"""Every message kind renders valid Block Kit in both languages, and long text is cut to Slack's limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.advice import Advice, advise
from bot.slack.ui import blocks as slack_views
from bot.slack.ui import templating as blocks
from bot.text import Lang
from pricing.errors import QuoteError
from pricing.offers import Freshness, as_offers
from pricing.quote import Quote, QuoteRequest, quote
from pricing.sources import rate_card_records
from pricing.status import SourceState
from rules.answers import parse_answers
from rules.policy import Policy
from rules.profile import Workload
from rules.questions import ASKS, Stage, steps

NOW = datetime(2026, 11, 30, tzinfo=UTC)
LANGS = [Lang.EN, Lang.ZH]


def valid(message: list[dict[str, object]]) -> None:
    assert 0 < len(message) <= 50
    for block in message:
        Block.parse(block).validate_json()  # type: ignore[union-attr]


def recommendation(policy: Policy, **answers: str) -> Advice:
    base = {
        "duration": "10h",
        "memory": "70/80",
        "model_parallel": "yes",
        "frequency": "daily",
        "can_resume": "no",
        "workload": "pretrain",
        "phase": "stable",
        "checkpointing": "no",
        "cards": "8",
    }
    offers = as_offers(rate_card_records([], NOW), {"ratecard": Freshness(timedelta(days=365), True)}, NOW)

    def quoter(request: QuoteRequest) -> Quote:
        return quote(request, offers, policy)

    return advise(parse_answers(base | answers), policy, quoter=quoter, assume_schedule=True)


@pytest.mark.parametrize("lang", LANGS)
def test_every_question_renders(lang: Lang) -> None:
    training, service = steps({}), steps({"workload": Workload.INFERENCE})
    assert {s.ask.key for s in training + service} == {a.key for a in ASKS if a.stage is not Stage.EXTRA}
    for step in training + service:
        valid(slack_views.question("c" * 32, step, lang))
        valid(slack_views.answered(step, "some answer", "U1", lang))
        valid(slack_views.answered(step, None, "U1", lang))
    assert ("Question 1/2" if lang is Lang.EN else "问题 1/2") in str(slack_views.question("c", service[1], lang))


@pytest.mark.parametrize("lang", LANGS)
def test_recommendation_renders_with_costs(lang: Lang, policy: Policy) -> None:
    message = slack_views.recommendation(recommendation(policy, schedule="4x14"), "c" * 32, policy, lang)
    valid(message)
    text = str(message)
    assert "44,800" in text  # 8 cards x 14 days x 400
    assert ("STALE" if lang is Lang.EN else "已过期") in text


@pytest.mark.parametrize("lang", LANGS)
def test_recommendation_without_a_quote_says_why(lang: Lang, policy: Policy) -> None:
    rec = recommendation(policy)
    error = QuoteError("no_price", "no cached price", gpu="L40S-48GB", priced="A100-80GB")
    message = slack_views.recommendation(Advice(rec.profile, rec.decision, quote_error=error), "c", policy, lang)
    valid(message)
    assert "L40S-48GB" in str(message) and "A100-80GB" in str(message)
    assert ("Your GPU Advisor admin can add" if lang is Lang.EN else "可请 GPU 选型助手的管理员") in str(message)
    assert "gpu-advise prices refresh" not in str(message)  # a Slack user is not told to run a command


@pytest.mark.parametrize("lang", LANGS)
def test_views_render(lang: Lang) -> None:
    form = slack_views.form({"duration": "10h"}, '{"c": null}', lang)
    View(**form).validate_json()
    states = [
        SourceState(
            source="ratecard",
            description="d",
            rows=4,
            last_success=NOW,
            age_days=0.1,
            ttl_hours=24,
            stale=False,
            last_error=None,
            last_attempt=NOW,
        ),
        SourceState(
            source="azure",
            description="d",
            rows=0,
            last_success=None,
            age_days=None,
            ttl_hours=24,
            stale=True,
            last_error="HTTP 503 from azure",
            last_attempt=NOW,
        ),
    ]
    home = slack_views.home([{"choice": "shared", "summary": "3h · 20GB", "created_at": NOW}], states, lang)
    View(**home).validate_json()
    assert "HTTP 503" in str(home)
    # issue 19.5: a time names its zone; Slack's date token shows it in each reader's own
    assert f"<!date^{int(NOW.timestamp())}^{{date_num}} {{time}}|{NOW:%Y-%m-%d %H:%M} UTC>" in str(home)


def test_long_text_is_cut_to_slacks_limits() -> None:
    huge = "长" * 5000
    message = slack_views.text(huge)
    valid(message)
    assert len(message[0]["text"]["text"]) == blocks.SECTION_TEXT  # type: ignore[index]
    answered = slack_views.answered(steps({})[1], "x" * 4000, "U1", Lang.EN)
    valid(answered)
    form = slack_views.form({"duration": "y" * 5000}, "m" * 5000, Lang.EN)
    View(**form).validate_json()
    assert len(form["private_metadata"]) == blocks.METADATA


def test_user_text_cannot_break_the_json_or_the_markup() -> None:
    nasty = 'a "quote" \\ back\nslash <!channel> & {{ braces }} </script>'
    message = slack_views.answered(steps({})[1], nasty, "U1", Lang.EN)
    valid(message)
    shown = message[1]["elements"][0]["text"]  # type: ignore[index]
    assert "&lt;!channel&gt;" in shown and "&amp;" in shown  # no @channel ping, no broken markup
    assert '"quote"' in shown
