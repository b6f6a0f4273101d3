"""POST /api/enroll: a GPU box registers itself with an enrollment token (`gpu-advise enroll-token`).

`Authorization: Bearer ENROLL_TOKEN`; the body is JSON `{"name", "machine_id", "gpus": [{"index", "name",
"memory_total_mib"}], "price"?, "currency"?, "provider_id"?}`. Answers 201 `{"instance", "token", "gpu",
"cards", "price"}` with the heartbeat token (shown once); 401 for an unknown, expired or used-up token
(checked from the header alone, before the body is read); 400 naming a bad field; 409 when another
machine has the name. The same machine id enrolling again gets its own instance back with a fresh token.
Tokens never appear in a log.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.fields.rentals import price_from_cache
from bot.server.heartbeat import Answer, bearer, field_name
from bot.state.enrollment import Box, Enrollments, EnrollRefused
from bot.state.rentals import BOUNDS, RentalError
from rules.errors import ParseError
from rules.gpus import card_model
from rules.parsing import parse_price

PATH = "/api/enroll"
log = logging.getLogger(__name__)
REFUSALS = {
    "unknown_token": "unknown enrollment token: ask for one with `gpu-advise enroll-token` or `/gpu-advise enroll`",
    "expired_token": "the enrollment token expired at {at}: ask for a new one",
    "used_up_token": "the enrollment token has no uses left: ask for a new one",
    "name_taken": "another machine is enrolled as {name}: choose another name with --name",
    "machine_taken": "this machine is enrolled as someone else's instance: enroll it with a token of its owner's "
    "(or the operator's, `gpu-advise enroll-token`); nothing was changed",
}


class CardIn(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    index: int = Field(ge=0, le=1023)
    name: str = Field(min_length=1, max_length=96)
    memory_total_mib: float | None = Field(default=None, gt=0, le=BOUNDS["memory_mib"][1])


class EnrollIn(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    name: str = Field(min_length=1, max_length=64)
    machine_id: str = Field(min_length=1, max_length=64, pattern=r"^[\w.:\-]+$")
    gpus: list[CardIn] = Field(min_length=1, max_length=1024)
    price: str | None = Field(default=None, max_length=40)  # 14/h, 400/day, 11500/month
    currency: str | None = Field(default=None, pattern=r"^(CNY|USD)$")
    # the cloud key discovery files it under: aws:i-..., tencent-hai:hai-..., aliyun-dsw:dsw-...
    provider_id: str | None = Field(default=None, max_length=200, pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*:[\w.:/\-]+$")


def refusal(exc: EnrollRefused) -> Answer:
    return Answer(exc.status, {"error": REFUSALS[exc.reason].format(**exc.params), "reason": exc.reason, **exc.params})


def identify(enrollments: Enrollments, authorization: str | None, now: datetime) -> str | Answer:
    """The enrollment token when it may still enroll, else the 401 to give (from the header alone)."""
    token = bearer(authorization)
    if token is None:
        return Answer(
            401, {"error": "no bearer token: send Authorization: Bearer <enrollment token>", "reason": "no_token"}
        )
    try:
        enrollments.grant(token, now)
    except EnrollRefused as exc:
        log.info("enrollment refused: %s", exc.reason)
        return refusal(exc)
    return token


def model_of(cards: list[CardIn]) -> str:
    """The box's GPU model: the most common card's canonical name, else its driver name (without the vendor)."""
    names = Counter(
        card_model(c.name, c.memory_total_mib) or c.name.removeprefix("NVIDIA ").strip()[:32] for c in cards
    )
    return names.most_common(1)[0][0]


def pricing(box: EnrollIn, gpu: str, offers: Callable[[str], list[Any]], currency: str) -> dict[str, Any] | Answer:
    """The instance's unit, price and currency: the box's own price when it gives one, else the price cache's
    dedicated price for its cards, else none (said in the digest)."""
    if box.price is not None:
        try:
            amount, unit = parse_price(box.price)
        except ParseError:
            return Answer(
                400,
                {"error": f"price: {box.price!r} is not a price; say 14/h, 400/day or 11500/month", "field": "price"},
            )
        return {"unit": unit, "price": amount, "currency": box.currency or currency}
    found = price_from_cache(offers(gpu), len(box.gpus), None)
    if found is None:
        return {"unit": "hour", "price": None, "currency": box.currency or currency}
    return {"unit": found.unit, "price": found.amount, "currency": found.currency}


def receive(
    enrollments: Enrollments,
    token: str,
    body: bytes,
    now: datetime,
    *,
    offers: Callable[[str], list[Any]],
    currency: str,
) -> Answer:
    """What an identified enrollment request gets."""
    try:
        box = EnrollIn.model_validate_json(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        return Answer(400, {"error": f"{field_name(first)}: {first['msg']}", "field": field_name(first)})
    gpu = model_of(box.gpus)
    price = pricing(box, gpu, offers, currency)
    if isinstance(price, Answer):
        return price
    try:
        made, heartbeat = enrollments.enroll(
            token, Box(box.name, box.machine_id, gpu, len(box.gpus), box.provider_id), price, now
        )
    except EnrollRefused as exc:
        return refusal(exc)
    except RentalError as exc:
        field = exc.params.get("field", "name")
        return Answer(400, {"error": f"{field}: not accepted ({exc.code})", "field": field})
    log.info("enrolled %s (%s × %d)", made.name, made.gpu, made.cards)
    return Answer(
        201,
        {
            "instance": made.name,
            "token": heartbeat,
            "gpu": made.gpu,
            "cards": made.cards,
            "price": made.price,
            "unit": made.unit,
            "currency": made.currency,
        },
    )
