"""What one item cost over a period, asked of it (`训练机 昨天花了多少`, `训练机 上个月花了多少`, `训练机 这周的费用`,
`how much did box1 cost last week`): the report's days of that item alone, summed, as the report and `list` reckon
them (bot/report/compose.py: one figure everywhere). Each was refused as a period named "训练机昨天", or answered
with this month's line whatever period was asked."""

from __future__ import annotations

import re
from datetime import date

from bot.app.invocation import Invocation
from bot.app.report import DAYS_BACK, period
from bot.chat.message import plain
from bot.report.compose import compose
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.format import literal, money
from rules.patterns import lazy
from rules.report import Row

_SAID = {"这周": "this-week", "本周": "this-week", "这个星期": "this-week", "this week": "this-week"}
_SAID |= {"上周": "last-week", "上个星期": "last-week", "last week": "last-week", "这个月": "this-month"}
_SAID |= {"本月": "this-month", "this month": "this-month", "上个月": "last-month", "上月": "last-month"}
_SAID |= {"last month": "last-month", "so far": "this-month"}
# the words of a period an item's cost is asked over, for the patterns that find them
PERIOD_WORDS = "|".join(sorted(map(lambda w: w.replace(" ", r"\s+"), [*DAYS_BACK, *_SAID]), key=len, reverse=True))


_PERIOD_IN = lazy(PERIOD_WORDS, re.IGNORECASE)


def other_period_in(said: str) -> str | None:
    """The period a question names among its words (上周, this week, 昨天), as item costs read them, unless it is this
    month (the list's own); None for none."""
    found = _PERIOD_IN.search(said)
    word = " ".join(found.group(0).lower().split()) if found is not None else ""
    return word if word and _SAID.get(word) != "this-month" else None


def days_of(said: str, today: date, inv: Invocation) -> tuple[date, date]:
    """The days `said` names, from `today`: the report's periods (a day back, 今天, 昨天, among them)."""
    word = " ".join(said.lower().split())
    return period(_SAID.get(word, word), today, inv.lang)


def _rows(inv: Invocation, name: str, said: str) -> tuple[list[Row], str]:
    """The report's days of the instance `name` over the period `said`, and those days as said."""
    deps, zone, now = inv.deps, inv.channel_zone(), inv.deps.now()
    first, last = days_of(said, now.astimezone(zone).date(), inv)
    made = compose(
        Rentals(deps.store), inv.team, first, last, zone=zone, now=now,
        busy_above_pct=deps.policy.idle.utilisation_max_pct, worth=deps.prices.worth(),
    )  # fmt: skip
    days = f"{first:%m-%d}" if first == last else f"{first:%m-%d} – {last:%m-%d}"
    return [r for r in made.rows if r.item == name and r.kind == "instance"], days


def item_spent(inv: Invocation, name: str, said: str) -> None:
    """`name`'s cost over the period `said`, in each currency it billed in, with its idle GPU-hours; said to be
    nothing where it billed nothing then (not yet tracked, released, or off)."""
    lang = inv.lang
    rows, days = _rows(inv, name, said)
    cost: dict[str, float] = {}
    for row in rows:
        cost[row.currency] = cost.get(row.currency, 0.0) + row.cost
    if not any(round(amount, 2) for amount in cost.values()):
        inv.answer(plain(t("item.spent_nothing", lang, name=literal(name), days=days), lang))
        return
    spent = " + ".join(money(amount, currency) for currency, amount in sorted(cost.items()))
    idle = sum(r.idle_gpu_hours for r in rows)
    said_idle = t("item.spent_idle", lang, hours=f"{idle:.1f}") if idle >= 0.05 else ""
    inv.answer(plain(t("item.spent", lang, name=literal(name), days=days, cost=spent, idle=said_idle), lang))


def item_idle(inv: Invocation, name: str, said: str) -> None:
    """How long `name` sat idle over the period `said` (`训练机 闲置了多久`, `how long has box1 been idle`): its billed
    GPU-hours, busy, idle (with what they cost) and without data, as the report counts them; it was its on and off
    stretches, which say nothing of idle."""
    lang = inv.lang
    rows, days = _rows(inv, name, said)
    billed = sum(r.gpu_hours for r in rows)
    if billed < 0.05:
        inv.answer(plain(t("item.spent_nothing", lang, name=literal(name), days=days), lang))
        return
    burned: dict[str, float] = {}
    for row in rows:
        burned[row.currency] = burned.get(row.currency, 0.0) + row.idle_cost
    cost = " + ".join(money(amount, currency) for currency, amount in sorted(burned.items()) if amount >= 0.005)
    hours = {k: sum(getattr(r, f"{k}_gpu_hours") for r in rows) for k in ("busy", "idle", "unknown")}
    said_cost = t("item.idle_cost", lang, cost=cost) if cost else ""
    key = "item.idle_no_data" if hours["unknown"] >= billed - 0.05 else "item.idle"
    figures = {k: f"{v:.1f}" for k, v in hours.items()} | {"billed": f"{billed:.1f}", "cost": said_cost}
    inv.answer(plain(t(key, lang, name=literal(name), days=days, **figures), lang))
