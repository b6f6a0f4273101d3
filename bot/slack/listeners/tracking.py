"""`/gpu-advise track NAME gpu=... price=... [...]` and `/gpu-advise track storage NAME size=... price=...`:
track what the team rents from Slack, in the channel where the command is typed.

The heartbeat token is shown once, ephemerally, to the person who typed the command.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack
from slack_sdk.errors import SlackApiError

from bot.chat import inline
from bot.chat.ids import ButtonValue
from bot.deps import Deps
from bot.fields.metering import billing_of, provider_of, stop_billing_of
from bot.fields.rentals import CachedPrice, FieldError, currency_of, instance_fields, price_from_cache
from bot.slack.conversation import recommend
from bot.slack.listeners.rentals import RentalCommandError
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks, track_form
from bot.state.rentals import Instance, RentalError, Rentals
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.format import money
from bot.text.quote import rate

log = logging.getLogger(__name__)

INSTANCE_KEYS = {
    k: k
    for k in ("gpu", "price", "cards", "share", "project", "owner", "currency", "billing", "stop_billing", "provider")
}
INSTANCE_KEYS["stop-billing"] = "stop_billing"
STORAGE_KEYS = {k: k for k in ("size", "price", "instance", "project", "owner", "currency")}
MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|@?([UW][A-Z0-9]{2,})")


def _owner(text: str | None, user: str, lang: Lang) -> str:
    if text is None:
        return user
    found = MENTION.fullmatch(text.strip())
    if not found:
        raise RentalCommandError(t("digest.track_bad_owner", lang, text=text))
    return found[1] or found[2]


def _positive(raw: dict[str, str], key: str, lang: Lang) -> float:
    try:
        value = float(raw[key].replace(",", "").removesuffix("GB").removesuffix("gb"))
    except (KeyError, ValueError):
        raise RentalCommandError(t("digest.track_bad_number", lang, key=key, text=raw.get(key, ""))) from None
    if not 0 < value < 1e9:
        raise RentalCommandError(t("digest.track_bad_number", lang, key=key, text=raw[key]))
    return value


def on_track(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    kind = "instance"
    if args and args[0].lower() in ("instance", "storage"):
        kind, args = args[0].lower(), args[1:]
    if not args and kind == "instance":  # `/gpu-advise track` alone: the form
        meta = track_form.TrackMeta(ch=request.channel or request.user or "", lang=lang.value)
        request.client.views_open(trigger_id=request.body["trigger_id"], view=track_form.view(meta, {}))
        return
    if not args or "=" in args[0]:
        raise RentalCommandError(t("digest.track_usage", lang))
    name, pairs = args[0], args[1:]
    raw = inline.parse_pairs(pairs, INSTANCE_KEYS if kind == "instance" else STORAGE_KEYS)[0]
    user, channel = request.user or "", request.channel or ""
    base: dict[str, Any] = {
        "channel": channel,
        "owner": _owner(raw.get("owner"), user, lang),
        "project": raw.get("project"),
    }
    rentals = Rentals(deps.store)
    try:
        if kind == "instance":
            _instance(deps, request, rentals, name, raw, base, lang)
        else:
            _storage(deps, request, rentals, name, raw, base, lang)
    except FieldError as exc:
        raise RentalCommandError(f"`{exc.field}`: {exc.message}") from None
    except RentalError as exc:
        raise RentalCommandError(tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)) from None


def metering_fields(raw: dict[str, str], lang: Lang) -> dict[str, str]:
    """`billing=hourly|day|month`, `stop_billing=stops|keeps` (or `stop-billing=`), `provider=autodl`."""
    out = {}
    if "billing" in raw:
        out["billing"] = billing_of(raw["billing"], lang)
    stop = raw.get("stop_billing")
    if stop is not None:
        out["stop_billing"] = stop_billing_of(stop, lang)
    if "provider" in raw:
        out["provider"] = provider_of(raw["provider"], lang)
    return out


def _instance(
    deps: Deps,
    request: SlackRequest,
    rentals: Rentals,
    name: str,
    raw: dict[str, str],
    base: dict[str, Any],
    lang: Lang,
) -> None:
    if "gpu" not in raw:
        raise RentalCommandError(t("digest.track_usage", lang))
    cards = raw.get("cards", "1")
    if not cards.isdigit() or not 1 <= int(cards) <= 1024:
        raise RentalCommandError(t("error.whole_cards", lang, cards=cards))
    fields = instance_fields(
        raw["gpu"],
        raw.get("price"),
        int(cards),
        raw.get("share"),
        raw.get("currency", deps.settings.currency),
        lang,
        cached=cached_price(deps),
    )
    source = fields.pop("price_source", None)
    fields |= metering_fields(raw, lang)
    made, token, again = track_or_reissue(rentals, request, name, fields | base | {"started_at": deps.now()})
    if not again:
        _tell_owner(deps, request, made.owner, made.name)
    text = _tracked_text(made, token, again, lang)
    if source:
        text += "\n" + t(
            "digest.price_from_cache", lang, price=rate(made.price, made.currency, made.unit, "", lang), source=source
        )
    request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))


def _storage(
    deps: Deps,
    request: SlackRequest,
    rentals: Rentals,
    name: str,
    raw: dict[str, str],
    base: dict[str, Any],
    lang: Lang,
) -> None:
    size, price = _positive(raw, "size", lang), _positive(raw, "price", lang)
    currency = currency_of(raw.get("currency", deps.settings.currency), lang)
    made = rentals.track_storage(
        request.team,
        name,
        base | {"size_gb": size, "price_gb_month": price, "currency": currency, "created_at": deps.now()},
        raw.get("instance"),
    )
    _tell_owner(deps, request, made.owner, made.name)
    text = t(
        "digest.tracked_storage",
        lang,
        name=made.name,
        owner=f"<@{made.owner}>",
        per_month=money(size * price, currency),
    )
    request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))


def track_or_reissue(
    rentals: Rentals, request: SlackRequest, name: str, fields: dict[str, Any]
) -> tuple[Instance, str, bool]:
    """Track `name`; or, when this very request tracked it before and is being redone because the reply
    with the token was not delivered, a new token for it (the third value True). The token is shown
    once and kept only hashed, so the first cannot be shown again: the new one replaces it."""
    try:
        made, token = rentals.track_instance(request.team, name, fields, request_key=request.inbox_key)
        return made, token, False
    except RentalError as exc:
        if exc.code != "instance_exists" or not request.inbox_key:
            raise
        again = rentals.reissue_for(request.team, name, request.inbox_key)
        if again is None:
            raise
        return again[0], again[1], True


def _tracked_text(made: Instance, token: str, again: bool, lang: Lang) -> str:
    text = t("digest.tracked_instance", lang, name=made.name, owner=f"<@{made.owner}>", token=token)
    return text + "\n" + t("digest.token_reissued", lang) if again else text


def _tell_owner(deps: Deps, request: SlackRequest, owner: str, name: str) -> None:
    """Tracking something for someone else is allowed, and they are told (in their language, by DM)."""
    user = request.user or ""
    if owner and owner != user:
        said = t(
            "digest.tracked_for_you",
            lang_for(request.client, deps, owner),
            user=f"<@{user}>",
            name=name,
            channel=f"<#{request.channel}>" if request.channel else "",
        )
        try:
            request.client.chat_postMessage(channel=owner, text=said)
        except SlackApiError as exc:  # tracked all the same; the owner still sees it in the digest
            log.warning("could not tell %s about %s: %s", owner, name, exc.response.get("error"))


def on_rented(deps: Deps, request: SlackRequest) -> None:
    """I rented this (on a recommendation): the track form, pre-filled with the recommended GPU and size."""
    convo = deps.conversations.get(ButtonValue.model_validate_json(request.action["value"]).c, request.team)
    if convo is None:
        return
    decision = recommend(deps, convo).decision
    initial = {"gpu": decision.gpu}
    if decision.choice.value == "shared":
        initial["share"] = f"{decision.share_fraction:g}"
    else:
        initial["cards"] = str(decision.cards)
    meta = track_form.TrackMeta(ch=request.channel or convo.channel, lang=convo.lang)
    request.client.views_open(trigger_id=request.body["trigger_id"], view=track_form.view(meta, initial))


def cached_price(deps: Deps) -> Callable[[str, int, float | None], CachedPrice | None]:
    """A price from the price cache, for an instance tracked without one."""
    return lambda gpu, cards, share: price_from_cache(deps.prices.offers(gpu=gpu), cards, share)


def check_track_form(deps: Deps, ack: Ack, request: SlackRequest) -> None:
    """The acknowledgement: an error under each wrong field (a taken name too), and the modal stays open."""
    fields, errors = track_form.read(request.body["view"], deps.settings.currency, cached_price(deps))
    if not errors and Rentals(deps.store).instance(request.team, fields["name"]) is not None:
        meta = track_form.TrackMeta.model_validate_json(request.body["view"].get("private_metadata") or "{}")
        errors["name"] = tw("error.rental.instance_exists", Lang(meta.lang), "slack", name=fields["name"])
    if errors:
        if request.inbox_key:
            deps.inbox.done(request.inbox_key)
        ack(response_action="errors", errors=errors)
    else:
        ack()


def on_track_form(deps: Deps, request: SlackRequest) -> None:
    """A valid track form: the instance is tracked; its token goes to the submitter only, once."""
    fields, errors = track_form.read(request.body["view"], deps.settings.currency, cached_price(deps))
    if errors:
        return
    source = fields.pop("price_source", None)
    meta = track_form.TrackMeta.model_validate_json(request.body["view"].get("private_metadata") or "{}")
    lang, user = Lang(meta.lang), request.user or ""
    name = fields.pop("name")
    try:
        made, token, again = track_or_reissue(
            Rentals(deps.store), request, name, fields | {"owner": user, "started_at": deps.now()}
        )
    except RentalError as exc:
        request.client.chat_postEphemeral(
            channel=meta.ch, user=user, text=tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)
        )
        return
    text = _tracked_text(made, token, again, lang)
    if source:
        text += "\n" + t(
            "digest.price_from_cache", lang, price=rate(made.price, made.currency, made.unit, "", lang), source=source
        )
    request.client.chat_postEphemeral(channel=meta.ch, user=user, text=text)
