"""A recommendation for a set of answers: the decision and its cost quote, ready to render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.deps import Deps
from bot.present import decision_data
from pricing.errors import QuoteError
from pricing.quote import Quote, QuoteRequest
from rules.answers import build_profile, parse_answers
from rules.engine import evaluate
from rules.messages import Lang
from rules.schedule import assumed_schedule


@dataclass(frozen=True)
class Recommendation:
    data: dict[str, Any]
    quote: Quote | None
    quote_error: str | None
    schedule_assumed: bool


def recommend(answers: dict[str, str], deps: Deps, lang: Lang) -> Recommendation:
    """Decide and quote. Answers must already parse (the conversation and the form check them)."""
    profile = build_profile(parse_answers(answers))
    decision = evaluate(profile, deps.policy)
    data = decision_data(profile, decision, lang)
    schedule = profile.schedule or assumed_schedule(profile, deps.policy)
    share = decision.share_fraction if decision.choice.value == "shared" else 0.5
    request = QuoteRequest(gpu=decision.gpu, cards=profile.cards, hours_per_day=schedule.hours_per_day,
                           days=schedule.days, share=share, currency=deps.settings.currency)
    try:
        quote, error = deps.quote(request), None
    except QuoteError as exc:
        quote, error = None, str(exc)
    return Recommendation(data, quote, error, profile.schedule is None)
