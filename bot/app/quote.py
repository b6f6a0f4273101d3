"""`quote gpu=… hours=HxD [cards=N | share=F] [currency=C] [provider=P] [region=R] [compare=yes]`: what the
options cost for a schedule, the same on every chat, answered where it was typed for everyone there."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bot.app.gpu_compare import run_lines
from bot.app.invocation import CommandError, Invocation
from bot.chat import inline
from bot.chat.message import Message, Section, plain
from bot.chat.profile_messages import costs
from bot.deps import Deps
from bot.fields.quote_words import BARE_KEYS, MOST_GPUS, bare_words, gpus_said
from bot.fields.rentals import FieldError, cards_typed, machine
from bot.text import Lang, t
from bot.text.chinese_names import currency_code
from bot.text.compare import lines as compare_lines
from bot.text.errors import error_text
from bot.text.quote import title
from bot.text.request_errors import request_problems
from pricing.errors import QuoteError
from pricing.fx import ECB_CURRENCIES
from pricing.quote import Quote, QuoteRequest
from rules.errors import ParseError
from rules.parsing import parse_rental_schedule, parse_share


def request_of(deps: Deps, raw: dict[str, str], lang: Lang) -> QuoteRequest:
    if "schedule" not in raw and "gpu_hours" not in raw:
        raise CommandError(t("error.quote_needs_schedule", lang))
    schedule = parse_rental_schedule(raw["schedule"]) if "schedule" in raw else None
    currency = currency_code(raw.get("currency", deps.settings.files.currency))  # USD, 美元
    if currency not in ECB_CURRENCIES:
        raise CommandError(
            t("error.quote_currency", lang, currency=currency[:12], accepted=", ".join(sorted(ECB_CURRENCIES)))
        )
    cards: int | None = None
    if "cards" in raw:
        try:
            said = raw["cards"]  # 8, 8卡, 八张, 两台8卡; a figure as typed, for the quote's own range check
            cards = int(said) if said.isdigit() else cards_typed(said, lang)
        except FieldError as exc:
            raise CommandError(exc.message) from None
    try:
        gpu, cards = machine(raw.get("gpu", "A100-80GB"), cards, lang)  # "A100*8": eight cards of it
    except FieldError as exc:
        raise CommandError(exc.message) from None
    fields: dict[str, Any] = {
        "gpu": gpu,
        "hours_per_day": schedule.hours_per_day if schedule else None,
        "days": schedule.days if schedule else None,
        "gpu_hours": raw.get("gpu_hours", "").removesuffix("h").strip() or None,
        "currency": currency,
        "region": raw.get("region"),
        "provider": None if raw.get("provider", "").lower() in ("", "cheapest") else raw["provider"],
    }
    if cards is not None:
        fields["cards"] = cards
    if "share" in raw:
        fields["share"] = parse_share(raw["share"], gpu)
    for key in ("storage_gb", "storage_price", "egress_gb", "egress_price"):
        if key in raw:
            fields[key] = raw[key].removesuffix("GB").removesuffix("gb").strip()
    try:
        return QuoteRequest.model_validate(fields)
    except ValidationError as exc:
        problems = request_problems(exc, lang, _key_of, where="chat")
        raise CommandError(t("error.bad_quote_request", lang, problems=problems)) from None


def _key_of(field: str, given: str) -> str:
    """A request's field as it is typed (inline.QUOTE_KEYS in English): cards=2000; hours=HxD gives the
    schedule's figures, said as the key alone (they are not one value); the schedule as a whole, either way of
    giving it."""
    if field == "schedule":
        return "hours=HxD, or gpu_hours=N"
    if field in ("hours_per_day", "days"):
        return "hours=HxD"
    key = next((key for key, meant in inline.QUOTE_KEYS.items() if meant == field and key.isascii()), field)
    return f"{key}={given}"


def message(made: Quote, inv: Invocation) -> Message:
    """The quote as a neutral message: its title, a section per option, the notes under them."""
    lang = inv.lang
    priced = costs(made, None, inv.deps.policy, lang)
    sections = (Section(priced["title"]), *(Section(row) for row in priced["rows"]))
    return Message(
        text=title(made, lang), lang=lang, sections=sections, context=(priced["notes"],) if priced["notes"] else ()
    )


def quote(inv: Invocation, args: list[str]) -> None:
    gpus, rest = gpus_said(args)
    if len(gpus) > 1:  # `quote A100 H100 4x14`, A100和H100跑一周分别多少钱: the run on each, side by side
        quotes: list[tuple[str, Quote | str]] = []
        for gpu in gpus[:MOST_GPUS]:
            try:
                quotes.append((gpu, inv.deps.prices.quote(_request(inv, [gpu, *rest])[0])))
            except CommandError as exc:
                quotes.append((gpu, str(exc)))
            except (ParseError, QuoteError) as exc:
                quotes.append((gpu, error_text(exc, inv.lang, where="chat")))
        if all(isinstance(made, str) for _, made in quotes):  # the words are wrong for every card: said once
            raise CommandError(str(quotes[0][1]))
        inv.announce(plain("\n".join(run_lines(quotes, inv.lang)), inv.lang))
        return
    asked, wanted = _request(inv, args)
    try:
        if wanted in inline.COMPARE_YES:
            inv.announce(plain("\n".join(compare_lines(inv.deps.prices.compare(asked), asked, inv.lang)), inv.lang))
            return
        made = inv.deps.prices.quote(asked)
    except (ParseError, QuoteError) as exc:
        raise CommandError(error_text(exc, inv.lang, where="chat")) from None
    inv.announce(message(made, inv))


def _request(inv: Invocation, args: list[str]) -> tuple[QuoteRequest, str]:
    """The request `args` make, and whether a comparison across providers was asked."""
    deps, lang = inv.deps, inv.lang
    keyed, bare = bare_words(args)
    raw = inline.parse_pairs(keyed, inline.QUOTE_KEYS)[0]
    for field, text in bare.items():
        if field in raw:  # a bare GPU beside gpu=, a bare schedule beside hours=
            raise CommandError(t("error.inline.twice", lang, key=BARE_KEYS[field]))
        raw[field] = text
    wanted = raw.get("compare", "no").strip().lower()
    if wanted not in inline.COMPARE_YES + inline.COMPARE_NO:
        raise CommandError(t("error.bad_compare", lang, value=wanted[:20]))
    try:
        return request_of(deps, raw, lang), wanted
    except (ParseError, QuoteError) as exc:
        raise CommandError(error_text(exc, lang, where="chat")) from None
