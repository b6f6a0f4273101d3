"""An amount a provider's prepaid balance is told below, set in chat: `balance [PROVIDER] alert AMOUNT|off`
(`余额 autodl 提醒 500`), or in words (`余额低于200时提醒我`, `autodl余额低于500提醒我`, `alert me when runpod is
below $50`). Without a provider it is every provider's that has none of its own; an amount without a currency is
in each balance's own (bot/state/balance_floors.py). The alert itself: bot/digest/runway_alerts.py."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot.fields.metering import provider_of, top_up_amount
from bot.fields.rentals import FieldError
from bot.report.balance_kept import providers_in_use
from bot.state.balance_floors import EVERY, Floor, Floors
from bot.state.balances import Balances
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.format import money, show
from rules.patterns import lazy

if TYPE_CHECKING:  # the terminal lists the floors without the chat's invocation (bot.deps: 45 ms)
    from bot.app.invocation import Invocation

_ALERT_WORDS = ("alert", "提醒", "提醒线", "预警")
_OFF = ("off", "关", "关闭", "取消", "不用", "none")
_BELOW_ZH = lazy(
    r"^(?:(?P<provider>[^\s的余]+?)\s*(?:的|账户|账号)?\s*)?(?:余额)?\s*(?:低于|少于|不足|小于|不到|跌破|掉到|降到|只剩)\s*"
    r"(?P<amount>[^\s时的]+?)\s*(?:元|块钱?)?\s*(?:的)?\s*(?:时候?)?\s*(?:就|请)?\s*(?:提醒|通知|告诉|提示)"
    r"(?:我|我们|一下|大家)?[。!！]?$"
)
_BELOW_EN = lazy(
    r"^(?:please\s+)?(?:alert|remind|tell|warn|notify|ping)\s+(?:me|us)\s+(?:when|if|once)\s+(?:the\s+|our\s+)?"
    r"(?:(?P<provider>[\w-]+?)(?:'s)?\s+)?(?:balance|credits?|wallet)?\s*(?:on\s+(?P<provider_on>[\w-]+)\s+)?"
    r"(?:is|goes|drops|falls|gets|runs)?\s*(?:below|under|less than|lower than)\s+(?P<amount>\S+?)[.!]?$",
    re.IGNORECASE,
)
_NOT_PROVIDERS = {"balance", "credit", "credits", "wallet", "it", "money"}


@dataclass(frozen=True)
class FloorAsked:
    provider: str | None  # as said; None: every provider
    amount: list[str] | None  # the amount's words; None: taken away


def floor_asked(args: list[str]) -> FloorAsked | None:
    """The floor `balance`'s words set or take away (`autodl alert 500`, `alert off`, `提醒 autodl余额低于500提醒我`
    as the free words pass a sentence on); None where they say none."""
    said = " ".join(args).strip()
    sentence = said.removeprefix("提醒").strip()  # bot/app/free_words.py passes `提醒` and the sentence
    for pattern in (_BELOW_ZH, _BELOW_EN):
        if (found := pattern.match(sentence)) is not None:
            named = found.groupdict()
            provider = named.get("provider") or named.get("provider_on")
            provider = None if provider is None or provider.lower() in _NOT_PROVIDERS else provider
            return FloorAsked(provider, [found["amount"]])
    where = next((n for n, word in enumerate(args) if word.lower() in _ALERT_WORDS), None)
    if where is None or where > 1 or len(args) == where + 1:
        return None
    return floor_of(args[0] if where == 1 else None, args[where + 1 :])


def floor_of(provider: str | None, words: list[str]) -> FloorAsked:
    """The floor an amount's words set for `provider` (None: every provider), or take away (`off`, `取消`): `alert`'s
    words in chat, `--alert` in the terminal."""
    return FloorAsked(provider, None if words[0].lower() in _OFF else words)


def set_floor(inv: Invocation, asked: FloorAsked) -> str:
    """Keep (or take away) the floor asked in chat, told in the channel it was set in too; what to say of it."""
    from bot.app.invocation import CommandError

    try:
        return keep_floor(Floors(inv.deps.store), inv.team, asked, (inv.channel, inv.user), inv.deps.now(), inv.lang)
    except FieldError as exc:
        raise CommandError(f"{exc.field}: {exc.message}") from None


def keep_floor(
    floors: Floors, team: str, asked: FloorAsked, where: tuple[str | None, str], now: datetime, lang: Lang
) -> str:
    """Keep (or take away) the floor asked, set in `where` (its channel, or None from the terminal; and by whom);
    what to say of it. FieldError for a provider or an amount that is none."""
    provider = provider_of(asked.provider, lang) if asked.provider is not None else EVERY
    if asked.amount is None:
        gone = floors.off(team, provider)
        return t("meter.floor_off" if gone else "meter.floor_none", lang, provider=_whose(provider, lang))
    amount, currency = top_up_amount(asked.amount, None, lang)
    if provider != EVERY and (unknown := _unknown(floors, team, provider, lang)) is not None:
        raise FieldError("provider", unknown)
    floor = floors.set(team, provider, amount, currency, where[0], where[1], now)
    arg = "" if provider == EVERY else f"{provider} "
    # the terminal's floor is told in the provider's items' chats alone: it has no chat of its own
    said = "meter.floor_set" if where[0] is not None else "meter.floor_set_terminal"
    return t(said, lang, provider=_whose(provider, lang), floor=floor_said(floor), arg=arg)


def floors_line(store_floors: dict[tuple[str, str], Floor], lang: Lang) -> str | None:
    """The amounts a team's balances are told below, for `balance`'s list; None where none is set."""
    if not store_floors:
        return None
    said = [f"{_whose(f.provider, lang)} {floor_said(f)}" for _, f in sorted(store_floors.items())]
    return t("meter.floors", lang, floors=("、" if lang is Lang.ZH else ", ").join(said))


def floor_said(floor: Floor) -> str:
    """Its amount, in its currency where it has one (`¥500`), else as typed (`200`: each balance's own)."""
    return money(floor.amount, floor.currency) if floor.currency else show(floor.amount)


def _unknown(floors: Floors, team: str, provider: str, lang: Lang) -> str | None:
    """Why a floor of `provider` would never be told (no balance of it kept, no item billing to it: `autdl`), with
    the one likely meant; None where it would."""
    ours = providers_in_use(Rentals(floors.store), Balances(floors.store), team)
    if provider in ours:
        return None
    near = difflib.get_close_matches(provider, sorted(ours), n=1, cutoff=0.6)
    meant = t("meter.floor_meant", lang, meant=near[0]) if near else ""
    return t("meter.floor_unknown", lang, provider=provider, meant=meant)


def _whose(provider: str, lang: Lang) -> str:
    return t("meter.floor_every", lang) if provider == EVERY else provider
