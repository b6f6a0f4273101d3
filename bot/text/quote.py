"""A quote as rows and notes in zh or en, for the terminal table and the Slack message alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.text.catalogue import t
from bot.text.format import money, share_text
from bot.text.lang import Lang
from rules.policy import Policy

if TYPE_CHECKING:  # only read here: the quote models load with the quote
    from pricing.quote import Option, Quote
    from pricing.status import SourceState


@dataclass(frozen=True)
class Row:
    option: str
    cost: str
    billing: str
    source: str
    stale: bool


def stale_text(state: SourceState, lang: Lang) -> str:
    """STALE, and how many rows are, when a source holds rows past their TTL (as `prices list` marks them)."""
    if state.stale_rows and state.last_success is not None:
        return t("stale.rows", lang, stale=state.stale_rows, rows=state.rows)
    return t("stale", lang)


def age_text(days: float, lang: Lang) -> str:
    """How old a price is: '5 h', '12 days', '2.1 years'."""
    if days < 1:
        return t("age.hours", lang, n=max(round(days * 24), 0))
    if days < 365:
        return t("age.days", lang, n=round(days))
    return t("age.years", lang, n=round(days / 365, 1))


def _cost(option: Option, quote: Quote, policy: Policy, lang: Lang) -> str:
    cur = quote.currency
    if option.kind == "shared" and option.amount_min != option.amount_max:  # a batch job's days stretch
        text = money(option.amount, cur)
        text += "; " + t("shared.adjusted", lang, low=money(option.amount_min, cur), high=money(option.amount_max, cur),
                        eff_low=round(policy.shared.efficiency_min * 100),
                        eff_high=round(policy.shared.efficiency_max * 100),
                        days_low=option.days_min or 0, days_high=option.days_max or 0)
    elif option.amount_min != option.amount_max:
        text = f"{money(option.amount_min, cur)}–{money(option.amount_max, cur)}"
    else:
        text = money(option.amount, cur)
    if option.estimate:
        text += f" ({t('estimate', lang)})"
    return text


def _source(option: Option, lang: Lang) -> str:
    price = option.price
    if price is None:
        return ""
    text = t("source.line", lang, source=price.source, original=price.original, as_of=price.as_of,
             age=age_text(price.age_days, lang))
    if price.stale:
        text += f" [{t('stale', lang)}]"
    return text


def _notes(option: Option, policy: Policy, lang: Lang) -> list[str]:
    out = []
    for note in option.notes:
        if note == "billed_whole_period":
            continue
        out.append(t(f"note.{note}", lang, low=round(policy.spot.price_fraction_min * 100),
                     high=round(policy.spot.price_fraction_max * 100),
                     eff_low=round(policy.shared.efficiency_min * 100),
                     eff_high=round(policy.shared.efficiency_max * 100)))
    if option.price and option.price.flags:
        out += [t(f"note.flag.{flag}", lang) for flag in option.price.flags.split(",") if flag]
    return out


def rows(quote: Quote, policy: Policy, lang: Lang) -> list[Row]:
    out = []
    for option in (quote.dedicated, quote.shared, quote.spot):
        if option is None:
            continue
        name = t(f"option.{option.kind}", lang, share=share_text(option.share or quote.share))
        if option.memory_gb:
            name += " · " + t("option.memory", lang, memory_gb=option.memory_gb)
        billing = t(f"billing.{option.billing}", lang)
        extra = _notes(option, policy, lang)
        if extra:
            billing += "; " + "; ".join(extra)
        out.append(Row(name, _cost(option, quote, policy, lang), billing, _source(option, lang),
                       bool(option.price and option.price.stale)))
    return out


def title(quote: Quote, lang: Lang) -> str:
    return t("quote.title", lang, gpu=quote.gpu, cards=quote.cards, hours=quote.hours_per_day, days=quote.days,
             gpu_hours=quote.gpu_hours)


def notes(quote: Quote, lang: Lang) -> list[str]:
    out = [t(f"omitted.{kind}.{reason}", lang) for kind, reason in quote.omitted.items()]
    names = {"shared": t("option.shared", lang, share=share_text(quote.share)), "spot": t("option.spot", lang)}
    for kind, pct in quote.savings_pct.items():
        low, high = quote.savings_range_pct[kind]
        if kind == "spot" and low != high:  # an estimate: the range is the figure
            out.append(t("savings.range", lang, option=names[kind], low=low, high=high))
            continue
        line = t("savings" if pct >= 0 else "savings.more", lang, option=names[kind], pct=abs(pct))
        if kind == "shared" and (low, high) != (pct, pct):
            line += t("savings.adjusted", lang, low=low, high=high)
        out.append(line)
    even = quote.break_even_hours_per_day
    if even is not None:
        if even["adjusted_max"] is None:
            out.append(t("break_even.never", lang))
        elif even["nominal"] is None:
            out.append(t("break_even.adjusted", lang, low=even["adjusted_min"] or ">24", high=even["adjusted_max"]))
        else:
            out.append(t("break_even", lang, nominal=even["nominal"] if even["nominal"] is not None else ">24",
                         low=even["adjusted_min"] if even["adjusted_min"] is not None else ">24",
                         high=even["adjusted_max"] if even["adjusted_max"] is not None else ">24"))
    rvb = quote.rent_vs_buy
    out.append(t(str(rvb["advice"]), lang, hours=rvb["yearly_gpu_hours_at_this_pace"], threshold=rvb["threshold"]))
    if quote.fx:
        base, target = str(quote.fx["pair"]).split("/")
        out.append(t("fx", lang, base=base, quote=target, rate=quote.fx["rate"], source=quote.fx["source"],
                     date=quote.fx["date"]))
    if quote.stale:
        out.append(t("stale.warning", lang))
    return out
