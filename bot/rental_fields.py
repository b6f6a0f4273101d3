"""An instance's fields as typed in the terminal (flags) or in Slack (key=value): read once, here.

A bad value raises FieldError naming the field and saying, in the user's language, what was wrong
and what is accepted; each front end puts its own spelling of the field in front (`--price`, `price=`).
"""

from __future__ import annotations

from typing import Any

from bot.text import Lang, t
from bot.text.errors import parse_error_text
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu
from rules.parsing import parse_price, parse_share

CURRENCIES = ("CNY", "USD")


class FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def currency_of(text: str, lang: Lang) -> str:
    if text.upper() not in CURRENCIES:
        raise FieldError("currency", t("error.rental.bad_currency", lang, currency=text))
    return text.upper()


def instance_fields(gpu: str, price: str, cards: int, share: str | None, currency: str, lang: Lang) -> dict[str, Any]:
    """GPU model, price and its billing unit, cards or a slice, currency: the columns of an instance."""
    try:
        model = canonical_gpu(gpu)
    except UnknownGPU as exc:
        raise FieldError("gpu", t("error.unknown_gpu", lang, gpu=exc.name, known=", ".join(exc.known))) from None
    try:
        amount, unit = parse_price(price)
    except ParseError as exc:
        raise FieldError("price", parse_error_text(exc, lang)) from None
    try:
        part = parse_share(share, model) if share is not None else None
    except ParseError as exc:
        raise FieldError("share", parse_error_text(exc, lang)) from None
    return {"gpu": model, "cards": cards, "share": part, "unit": unit, "price": amount,
            "currency": currency_of(currency, lang)}
