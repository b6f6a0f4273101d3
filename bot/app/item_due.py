"""When a box's billing period ends, asked (`训练机什么时候到期`, `训练机 几号续费`, `when does box1 renew`): it was not
understood. A box billed by the day or the month is billed again at each period's start until it is released (the
metering rules' own periods, rules/metering.py), so its answer is when this period ends and what the next one costs;
an hourly box has no period to end: it bills while it runs."""

from __future__ import annotations

from bot.app.invocation import CommandError, Invocation
from bot.chat.message import plain
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.format import literal, money
from bot.text.runway import when_said
from rules.metering import Basis, basis, period_end, period_price


def item_due(inv: Invocation, name: str) -> None:
    """Say when `name`'s billing period ends and what the next costs (an hourly box: that it has none)."""
    lang = inv.lang
    found = Rentals(inv.deps.store).instance(inv.team, name)
    if found is None or found.released_at is not None:
        raise CommandError(t("error.rental.no_instance", lang, name=name))
    billed = basis(found)
    if billed is Basis.HOURLY:
        inv.answer(plain(t("item.due_hourly", lang, name=literal(name)), lang))
        return
    end = period_end(found, inv.deps.now())
    price = money(period_price(found), found.currency)
    said = t(f"item.due.{billed.value}", lang, name=literal(name), at=when_said(end, inv.channel_zone()), price=price)
    inv.answer(plain(said, lang))
