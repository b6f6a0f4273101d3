"""A prepaid balance topped up (`balance autodl +2000`, `autodl充值了2000`, `gpu-advise balance autodl +2000`): what is
left of it now, as its runway reckons it (the balance last recorded less what its items billed since), plus the
amount paid in, recorded as the balance now. A person who tops up knows what they paid, rarely the new total; the
amount typed as a balance (`balance autodl 2000`) replaced a balance of ¥3,000 with ¥2,000."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.fields.rentals import FieldError
from bot.report.money import runways
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.format import money
from rules.policy import Metering


@dataclass(frozen=True)
class TopUp:
    provider: str
    currency: str
    paid: float
    before: float  # what was left of it just before (below 0: owed)
    after: float

    def said(self, lang: Lang) -> str:
        before, after = money(self.before, self.currency), money(self.after, self.currency)
        paid = money(self.paid, self.currency)
        return t("meter.topped_up", lang, provider=self.provider, paid=paid, before=before, after=after)


def top_up(
    rentals: Rentals,
    team: str,
    provider: str,
    paid: float,
    currency: str | None,
    now: datetime,
    metering: Metering | None,
    by: str,
    lang: Lang,
    request_key: str | None = None,
) -> TopUp:
    """`paid` added to what is left of `provider`'s balance now, recorded as its balance now. `currency`: the one
    the amount said, which must be the balance's (None: the balance's). `request_key`: the chat request, whose redo
    finds its top-up made and says it again. FieldError: no balance is known to add to, the currency differs, or
    the balance is owed more than is paid."""
    from bot.state.balances import Balances

    balances = Balances(rentals.store)
    made = balances.by_request(team, request_key) if request_key is not None else None
    if made is not None:  # redone: made already
        return TopUp(provider, made.currency, paid, made.amount - paid, made.amount)
    found = next(iter(runways(rentals, team, now, metering, {provider})), None)
    if found is None:
        raise FieldError("amount", t("meter.top_up_unknown", lang, provider=provider, amount=f"{paid:g}"))
    if currency is not None and currency != found.currency:
        held = money(found.left, found.currency)
        raise FieldError("currency", t("meter.top_up_currency", lang, provider=provider, left=held, currency=currency))
    after = round(found.left + paid, 2)
    if after < 0:
        owed, given = money(-found.left, found.currency), money(paid, found.currency)
        raise FieldError("amount", t("meter.top_up_owed", lang, provider=provider, owed=owed, paid=given))
    balances.record(team, provider, after, found.currency, now, now, by=by, request_key=request_key)
    return TopUp(provider, found.currency, paid, found.left, after)
