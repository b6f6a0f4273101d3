"""`track NAME gpu=... price=... [...]`, `track storage NAME size=... price=...` and `track` alone (the form): what
the team rents, tracked in the channel where the command is typed, the same on every chat.

The heartbeat token is shown once, to the person who typed the command alone (Slack: ephemeral; elsewhere a
direct message); a redo of the same request (its reply not delivered) issues a new token in place of the first."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.app.free_words import box_called
from bot.app.invocation import CommandError, Form, Invocation
from bot.chat import inline
from bot.chat.conversation import recommend
from bot.chat.message import plain
from bot.chat.platforms import person_form, person_of
from bot.chat.port import Actor, ChatError
from bot.deps import Deps
from bot.fields.metering import PROVIDER_CURRENCY, billing_of, provider_id, provider_of, stop_billing_of
from bot.fields.rentals import (
    CachedPrice,
    FieldError,
    cards_typed,
    instance_fields,
    money_of,
    price_from_cache,
    read_price_gb_month,
)
from bot.fields.track_words import INSTANCE_KEYS, STORAGE_KEYS, instance_words, storage_words
from bot.state import Conversation
from bot.state.rentals import Instance, RentalError, Rentals
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.chinese_names import TRACK_KINDS
from bot.text.errors import parse_error_text
from bot.text.format import literal, mention, money
from bot.text.quote import instance_rate
from bot.text.runway import when_said
from rules.errors import ParseError
from rules.gpus import gpu_at
from rules.patterns import lazy
from rules.storage_amounts import parse_size_gb

log = logging.getLogger(__name__)


MYSELF = frozenset(("me", "myself", "self", "我", "我自己", "自己", "本人"))  # owner=me: the person typing


def owner_of(text: str | None, user: str, lang: Lang, platform: str) -> str:
    """The owner= given, as a person of the chat it was typed in (a mention as the chat hands it over, or an id:
    U…, ou_…, a DingTalk userId); the person typing when none is given, or `owner=me`. A DingTalk or WeCom userId
    is any word, so "me" was kept as one: an item nobody could then release."""
    if text is None or text.strip().lower() in MYSELF:
        return user
    found = person_of(platform, text)
    if found is None:
        form = person_form(platform)
        if form is None:  # Slack says where its member ids are copied from
            raise CommandError(t("digest.track_bad_owner", lang, text=text))
        raise CommandError(t("digest.track_bad_owner_form", lang, text=text, form=form))
    return found


def _storage_amount(raw: dict[str, str], key: str, name: str, lang: Lang, size: float | None = None) -> float:
    """`size=` (500, 500G, 2T) or `price=` (0.35, 0.35元/GB/月, or the disk's month given its `size`: 每月500元) of
    storage; which is missing, with an example, when one is (the whole usage was said)."""
    if key not in raw:
        raise CommandError(t(f"digest.track_missing.{key}", lang, name=name))
    try:
        return parse_size_gb(raw[key]) if key == "size" else read_price_gb_month(raw[key], size)
    except ParseError as exc:
        raise CommandError(f"`{key}`: {parse_error_text(exc, lang, where='chat')}") from None


def billed_since(moment: datetime, zone: ZoneInfo | None, lang: Lang) -> str:
    """The line saying from when it bills, where `started=` or `created=` was given (nothing otherwise)."""
    return "" if zone is None else "\n" + t("digest.billed_since", lang, at=when_said(moment, zone))


# what is tracked said before its name (登记一台机器 训练机 A100, 登记 一台新服务器 box1): the name follows
_FILLER = lazy(
    r"(?:一|1)?(?:台|个)(?:新的?)?(?:gpu)?(?:机器|服务器|实例|主机)?|(?:新的?)?(?:gpu)?(?:机器|服务器|主机)", re.I
)


def track(inv: Invocation, args: list[str]) -> None:
    lang, kind = inv.lang, "instance"
    if args and args[0].lower() in TRACK_KINDS:  # `track storage`, `登记 存储`
        kind, args = TRACK_KINDS[args[0].lower()], args[1:]
    elif len(args) > 1 and args[1].lower() in TRACK_KINDS:  # `track disk1 storage 2T …`: its kind after its name
        kind, args = TRACK_KINDS[args[1].lower()], [args[0], *args[2:]]
    if not args and kind == "instance":  # `track` alone: the form
        inv.open_form(Form.TRACK, {})
        return
    if len(args) > 1 and _FILLER.fullmatch(args[0]):  # `登记一台机器 训练机 A100`: the name is the next word
        args = args[1:]
    if args and "=" not in args[0] and (called := box_called(" ".join(args))) is not None:  # `一台机器，叫训练机，A800`
        args = called
    if not args or "=" in args[0]:
        raise CommandError(t("digest.track_usage", lang))
    name, rest = args[0], args[1:]
    keyed = next((i for i, word in enumerate(rest) if "=" in word), len(rest))  # `A800 8卡 每小时60元` before it
    # `started=yesterday 9:00`, `gpu=A100 80G`: a value's words, unquoted
    raw = inline.parse_pairs(rest[keyed:], INSTANCE_KEYS if kind == "instance" else STORAGE_KEYS, words=True)[0]
    spilled = _spilled(raw)  # `项目=llm 每小时60元`: the price after a one-word key's value, read as bare words are
    bare = rest[:keyed] + spilled
    try:
        said = (instance_words if kind == "instance" else storage_words)(bare, lang) if bare else {}
    except FieldError as exc:  # a word read as nothing: named, with what was read and the keys
        raise CommandError(exc.message) from None
    for field, text in said.items():
        if field in raw:  # `track box A100 gpu=H100`
            raise CommandError(t("error.inline.twice", lang, key=field))
        raw[field] = text
    base: dict[str, Any] = {
        "channel": inv.channel,
        "owner": owner_of(raw.get("owner"), inv.user, lang, inv.chat.platform),
        "project": raw.get("project"),
    }
    rentals = Rentals(inv.deps.store)
    try:
        if kind == "instance":
            _instance(inv, rentals, name, raw, base)
        else:
            _storage(inv, rentals, name, raw, base)
    except FieldError as exc:
        raise CommandError(f"`{exc.field}`: {exc.message}") from None
    except RentalError as exc:
        raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None


ONE_WORD = (
    "project",
    "provider",
    "currency",
    "billing",
    "stop_billing",
    "instance",
)  # names (an owner may be "@Li Lei")


def _spilled(raw: dict[str, str]) -> list[str]:
    """The words after a one-word key's value (`项目=llm 每小时60元`), taken out of it: they are read as the words
    before the first key are. The price after `项目=llm` was kept in the project's value and dropped, and the price
    cache's used in its place without a word."""
    spilled: list[str] = []
    for field in ONE_WORD:
        first, *more = raw.get(field, "").split() or [""]
        if more:
            raw[field], spilled = first, [*spilled, *more]
    return spilled


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


def _instance(inv: Invocation, rentals: Rentals, name: str, raw: dict[str, str], base: dict[str, Any]) -> None:
    deps, lang = inv.deps, inv.lang
    if "gpu" not in raw:  # the one thing an instance needs: the price may come from the cache
        if gpu_at([name]) is not None:  # `登记 A100`, `track A100 14/h`: the GPU where the name goes
            raise CommandError(t("digest.track_name_is_gpu", lang, gpu=literal(name)))
        raise CommandError(t("digest.track_missing.gpu", lang, name=name))
    try:
        cards = cards_typed(raw["cards"], lang) if "cards" in raw else None  # 8, 8卡, 八张, 两台8卡
    except FieldError as exc:
        raise CommandError(exc.message) from None
    fields = instance_fields(
        raw["gpu"],
        raw.get("price"),
        cards,
        raw.get("share"),
        raw.get("currency"),
        lang,
        cached=cached_price(deps),
        # a price's own sign or currency comes first, then the provider's (runpod: dollars), then the team's
        default_currency=PROVIDER_CURRENCY.get(provider_id(raw.get("provider") or ""), deps.settings.files.currency),
    )
    source = fields.pop("price_source", None)
    fields |= metering_fields(raw, lang)
    started, zone = inv.past(raw.get("started"), inv.deps.now(), "started")  # a box rented before it was tracked
    made, token, again = track_or_reissue(
        rentals, inv.team, inv.request_key, name, fields | base | {"started_at": started}
    )
    if not again:
        tell_owner(inv, made.owner, made.name)
    said = tracked_text(made, token, again, source, lang) + billed_since(made.started_at, zone, lang)
    inv.privately(plain(said, lang))


def _storage(inv: Invocation, rentals: Rentals, name: str, raw: dict[str, str], base: dict[str, Any]) -> None:
    deps, lang = inv.deps, inv.lang
    size = _storage_amount(raw, "size", name, lang)
    price = _storage_amount(raw, "price", name, lang, size)
    try:  # `$0.02/GB/月`: in dollars (the sign was dropped, and the team's currency kept)
        currency = money_of(raw["price"], raw.get("currency"), deps.settings.files.currency, lang)
    except FieldError as exc:
        raise CommandError(f"`currency`: {exc.message}") from None
    created, zone = inv.past(raw.get("created"), inv.deps.now(), "created")
    made = rentals.track_storage(
        inv.team,
        name,
        base | {"size_gb": size, "price_gb_month": price, "currency": currency, "created_at": created},
        raw.get("instance"),
    )
    tell_owner(inv, made.owner, made.name)
    text = t(
        "digest.tracked_storage",
        lang,
        name=made.name,
        owner=mention(made.owner),
        per_month=money(size * price, currency),
    )
    inv.answer(plain(text + billed_since(made.created_at, zone, lang), lang))


def track_or_reissue(
    rentals: Rentals, team: str, request_key: str | None, name: str, fields: dict[str, Any]
) -> tuple[Instance, str, bool]:
    """Track `name`; or, when this very request tracked it before and is being redone because the reply
    with the token was not delivered, a new token for it (the third value True). The token is shown
    once and kept only hashed, so the first cannot be shown again: the new one replaces it."""
    try:
        made, token = rentals.track_instance(team, name, fields, request_key=request_key)
        return made, token, False
    except RentalError as exc:
        if exc.code != "instance_exists" or not request_key:
            raise
        again = rentals.reissue_for(team, name, request_key)
        if again is None:
            raise
        return again[0], again[1], True


def tracked_text(made: Instance, token: str, again: bool, source: str | None, lang: Lang) -> str:
    """What the person who tracked an instance is told: its token (once), and where its price came from."""
    text = t("digest.tracked_instance", lang, name=made.name, owner=mention(made.owner), token=token)
    if again:
        text += "\n" + t("digest.token_reissued", lang)
    if source:
        price = instance_rate(made, lang, unknown="")
        text += "\n" + t("digest.price_from_cache", lang, price=price, source=source)
    return text


def tell_owner(inv: Invocation, owner: str, name: str, given: bool = False) -> None:
    """Tracking something for someone else is allowed, and so is handing it to them (`billing NAME owner=…`, the
    owner's or an admin's): they are told (in their language, directly)."""
    if not owner or owner == inv.user:
        return
    actor = Actor(inv.chat.platform, inv.team, owner)
    lang = inv.chat.user_lang(actor)
    if given:
        said = t("meter.owner_given", lang, user=mention(inv.user), name=name)
    elif inv.channel_link:
        said = t("digest.tracked_for_you", lang, user=mention(inv.user), name=name, channel=inv.channel_link)
    else:  # told in a direct message, where "this chat" would be that chat, and in the owner's language
        said = t("digest.tracked_for_you_unplaced", lang, user=mention(inv.user), name=name)
    try:
        inv.chat.direct(actor, lambda each: plain(said, each), lang)
    except ChatError as exc:  # tracked all the same; the owner still sees it in the digest
        log.warning("could not tell %s about %s: %s", owner, name, exc.code)


def rented(deps: Deps, convo: Conversation) -> dict[str, str]:
    """I rented this: the track form's fields as the recommendation said (its GPU, and its share or cards)."""
    decision = recommend(deps, convo).decision
    initial = {"gpu": decision.gpu}
    if decision.choice.value == "shared":
        initial["share"] = f"{decision.share_fraction:g}"
    else:
        initial["cards"] = str(decision.cards)
    return initial


def cached_price(deps: Deps) -> Callable[[str, int, float | None], CachedPrice | None]:
    """A price from the price cache, for an instance tracked without one."""
    return lambda gpu, cards, share: price_from_cache(deps.prices.offers(gpu=gpu), cards, share)
