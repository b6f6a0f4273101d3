"""A provider's balance taken back, and a balance kept under a name that looks mistyped: one rule for chat's
`balance PROVIDER forget` and the terminal's `balance PROVIDER --forget`.

A balance typed under a wrong provider (`balance autdl 300` for autodl) stayed in every list, runway, digest and the
board, with no way to take it back. Now it can be forgotten (all its rows: by whoever recorded its latest, or an
admin; the terminal is the operator's), and a balance kept under a name no item bills to and no balance had, that
looks like one that does (autdl beside autodl), says which was likely meant and how to forget it."""

from __future__ import annotations

import difflib

from bot.fields.metering import PROVIDER_CURRENCY, PROVIDER_WORDS
from bot.fields.rentals import FieldError
from bot.state.balances import Balances
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.format import who

# the words that take a provider's balance back, said after its name (balance autdl forget, 余额 autdl 删除) or before
FORGET_WORDS = frozenset(
    {"forget", "delete", "remove", "drop", "删除", "删掉", "删了", "清除", "移除", "去掉", "不要了"}
)
_KNOWN = frozenset(PROVIDER_WORDS.values()) | set(PROVIDER_CURRENCY) | {"autodl", "featurize", "scnet"}


def forget_asked(words: list[str]) -> str | None:
    """The provider word of `PROVIDER forget` (or `删除 PROVIDER`); None when the words say no such thing."""
    if len(words) != 2:
        return None
    first, second = words
    if second.lower() in FORGET_WORDS:
        return first
    return second if first.lower() in FORGET_WORDS else None


def forget(balances: Balances, team: str, provider: str, lang: Lang, *, by: str, admin: bool) -> str:
    """Forget every balance kept of `provider` and say so; FieldError where none is kept, or where someone else
    recorded its latest and `by` is no admin."""
    kept = balances.latest(team)
    latest = next((b for b in kept if b.provider == provider), None)
    if latest is None:
        listed = ", ".join(b.provider for b in kept) or "-"
        raise FieldError("provider", t("meter.balance_forget_none", lang, provider=provider, kept=listed))
    if not admin and latest.recorded_by not in (None, by):
        raise FieldError("provider", t("meter.balance_forget_not_yours", lang, provider=provider,
                                       user=who(latest.recorded_by, lang)))  # fmt: skip
    rows = balances.forget(team, provider)
    return t("meter.balance_forgotten", lang, provider=provider, rows=rows)


def providers_in_use(rentals: Rentals, balances: Balances, team: str) -> set[str]:
    """The providers the team's running items bill to or a balance is kept of."""
    ours = {i.provider for i in rentals.instances(team, active_only=True) if i.provider}
    return ours | {b.provider for b in balances.latest(team)}


def likely_meant(
    rentals: Rentals, balances: Balances, team: str, provider: str, lang: Lang, *, terminal: bool = False
) -> str | None:
    """Asked before a balance of `provider` is kept: where no item bills to it and no balance of it is kept, and it
    looks like a provider that items bill to, a balance is kept of, or that is known (autdl: autodl), which one and
    how to forget it (in the terminal's words, or chat's); None otherwise."""
    ours = providers_in_use(rentals, balances, team)
    if provider in ours or provider in _KNOWN:  # in use, or a provider known by name: no typo, whatever is like it
        return None
    near = difflib.get_close_matches(provider, sorted(ours | _KNOWN), n=1, cutoff=0.75)
    if not near:
        return None
    undo = f"gpu-advise balance {provider} --forget" if terminal else t("meter.forget_said", lang, provider=provider)
    return t("meter.balance_likely_meant", lang, provider=provider, meant=near[0], forget=undo)
