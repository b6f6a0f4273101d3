"""Which box cost most over a period asked (`这周谁的机器最贵`, `上个月哪台机器最花钱`, `list dearest last-week`): each
item's cost over those days, as the report reckons them (bot/report/compose.py: one figure everywhere), the most
first. It answered with this month's list, whatever period was asked."""

from __future__ import annotations

from collections import defaultdict

from bot.app.invocation import CommandError, Invocation
from bot.app.item_spent import days_of
from bot.chat.message import plain
from bot.report.compose import compose
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.format import literal, money

_SHOWN = 10  # as many lines as the list's dearest shows before it gets long


def dearest_over(inv: Invocation, said: str) -> bool:
    """The items that cost most over the days `said` names, with what each cost then (none said as such); False,
    answering nothing, where `said` names no period (a project's or an item's name: the list's)."""
    deps, lang = inv.deps, inv.lang
    zone, now = inv.channel_zone(), deps.now()
    try:
        first, last = days_of(said, now.astimezone(zone).date(), inv)
    except CommandError:
        return False
    worth = deps.prices.worth()
    made = compose(
        Rentals(deps.store), inv.team, first, last, zone=zone, now=now,
        busy_above_pct=deps.policy.idle.utilisation_max_pct, worth=worth,
    )  # fmt: skip
    cost: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in made.rows:
        cost[(row.kind, row.item)][row.currency] += row.cost
    spent = [
        (kind, item, amounts) for (kind, item), amounts in cost.items() if any(round(a, 2) for a in amounts.values())
    ]
    spent.sort(key=lambda each: (-worth.of(each[2]), each[1]))  # on the team's currency, only for the order
    days = f"{first:%m-%d}" if first == last else f"{first:%m-%d} – {last:%m-%d}"
    if not spent:
        inv.answer(plain(t("list.dearest_over_none", lang, days=days), lang))
        return True
    lines = [t("list.dearest_over", lang, days=days)]
    for kind, item, amounts in spent[:_SHOWN]:
        said_cost = " + ".join(money(a, c) for c, a in sorted(amounts.items()) if round(a, 2))
        lines.append(t(f"list.dearest_over_{kind}", lang, name=literal(item), cost=said_cost))
    if len(spent) > _SHOWN:
        lines.append(t("report.more", lang, count=len(spent) - _SHOWN))
    inv.answer(plain("\n".join(lines), lang))
    return True
