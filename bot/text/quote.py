"""A quote as rows and notes in zh or en, for the terminal table and the Slack message alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.text.catalogue import t
from bot.text.format import money, share_text, show
from bot.text.lang import Lang

if TYPE_CHECKING:  # only read here: the quote models load with the quote
    from pricing.offers import Offer
    from pricing.quote import Option, Quote
    from pricing.status import SourceState
    from rules.policy import Policy


@dataclass(frozen=True)
class Row:
    option: str
    cost: str
    billing: str
    source: str
    stale: bool


def rate(price: float | None, currency: str, unit: str, unknown: str, lang: Lang) -> str:
    """An instance's price as it reads in a list, in the reader's language ("¥14/hour", "¥14/小时"), or `unknown`
    (the words for a price not known)."""
    if price is None:
        return unknown
    return f"{money(price, currency)}/{t(f'word.per.{unit}', lang) if unit in ('hour', 'day', 'month') else unit}"


def instance_rate(item: Any, lang: Lang, unknown: str | None = None) -> str:
    """A tracked instance's price as people are told it: its own price, and where it is a machine of several cards,
    that the price is the machine's ("¥80/hour for all 8 cards"); an instance's price is always its whole price (a
    typed --price/price=, or the cache's price of a card times its cards), and "A100-80GB × 8 · ¥80/hour" read as a
    card's. `unknown`: the words for no price (digest.no_price)."""
    said = rate(item.price, item.currency, item.unit, t("digest.no_price", lang) if unknown is None else unknown, lang)
    cards = item.cards or 1
    if item.price is None or cards <= 1 or item.share:
        return said
    return said + t("rate.whole_machine", lang, cards=show(cards))


def offer_cells(offer: Offer, lang: Lang) -> list[str]:
    """A cached offer as `prices list` and chat's `prices` say it: GPU, what is sold, sharing, pricing model, price,
    per GPU-hour, region, source, the day of the price and its age. Sharing, pricing model and unit are words of
    the reader's language (独占, 按量, 天); the rest is the source's own."""
    r = offer.record
    sharing = t(f"word.sharing.{r.sharing}", lang) + (f" {r.mig_profile}" if r.mig_profile else "")
    unit = t(f"word.per.{r.unit}", lang)
    return [
        r.gpu,
        r.instance_type,
        sharing,
        t(f"word.pricing.{r.pricing_model}", lang),
        f"{r.amount:g} {r.currency}/{unit}",
        f"{r.per_gpu_hour:.3g} {r.currency}",
        r.region,
        r.source,
        offer.as_of.date().isoformat(),
        age_text(offer.age_days, lang),
    ]


def source_line(state: SourceState, lang: Lang) -> str:
    """One price source as App Home and chat's `prices status` say it: its state, rows, last success, last error."""
    said = stale_text(state, lang) if state.stale else t("slack.fresh", lang)
    when = age_text(state.age_days, lang) if state.age_days is not None else t("slack.never", lang)
    error = f" · ⚠️ {state.last_error}" if state.last_error else ""
    return t("slack.source_line", lang, source=state.source, state=said, rows=show(state.rows), when=when, error=error)


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
        return counted("age.days", round(days), lang)
    return counted("age.years", round(days / 365, 1), lang)


def counted(key: str, n: float, lang: Lang) -> str:
    """A figure with its unit, one or many: `age.days` of 1 is `age.day`'s "1 day" ("1 days" before)."""
    return t(key.removesuffix("s") if n == 1 else key, lang, n=show(n))


def _cost(option: Option, quote: Quote, policy: Policy, lang: Lang) -> str:
    cur = quote.currency
    if option.kind == "shared" and option.amount_min != option.amount_max:  # a batch job's days stretch
        text = money(option.amount, cur)
        text += "; " + t(
            "shared.adjusted",
            lang,
            low=money(option.amount_min, cur),
            high=money(option.amount_max, cur),
            eff_low=round(policy.shared.efficiency_min * 100),
            eff_high=round(policy.shared.efficiency_max * 100),
            days_low=round(option.days_min or 0, 1),
            days_high=round(option.days_max or 0, 1),
        )
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
    where = price.provider if price.region in ("", "any") else f"{price.provider}, {price.region}"
    text = t(
        "source.line",
        lang,
        source=price.source,
        original=price.original,
        where=where,
        as_of=price.as_of,
        age=age_text(price.age_days, lang),
    )
    if price.stale:
        text += f" [{t('stale', lang)}]"
    return text


SAID_ONCE = ("reference",)  # flags said once under the table when every option has them (note.flag.*.all)


def _flags(option: Option) -> set[str]:
    return set(filter(None, option.price.flags.split(","))) if option.price else set()


def _common_flags(quote: Quote) -> list[str]:
    """The flags every priced option has (a bundled reference price, on every row): said once under the table
    rather than in each row, where they tripled the rows' height."""
    priced = [_flags(o) for o in (quote.dedicated, quote.shared, quote.spot) if o is not None and o.price]
    return [flag for flag in SAID_ONCE if len(priced) > 1 and all(flag in flags for flags in priced)]


def _notes(option: Option, policy: Policy, lang: Lang, common: list[str]) -> list[str]:
    out = []
    for note in option.notes:
        if note == "billed_whole_period":
            continue
        out.append(
            t(
                f"note.{note}",
                lang,
                low=round(policy.spot.price_fraction_min * 100),
                high=round(policy.spot.price_fraction_max * 100),
                eff_low=round(policy.shared.efficiency_min * 100),
                eff_high=round(policy.shared.efficiency_max * 100),
                inland_low=round(policy.regions.inland_discount_min * 100),
                inland_high=round(policy.regions.inland_discount_max * 100),
            )
        )
    if option.billing_note:
        out.append(t(f"note.billing.{option.billing_note}", lang))
    out += [t(f"note.flag.{flag}", lang) for flag in sorted(_flags(option)) if flag not in common]
    return out


SHARINGS = ("vnpu", "qgpu", "hami", "time-slicing")  # named in the option (MIG is the slice)


def option_name(option: Option, quote: Quote, lang: Lang) -> str:
    """An option as its row and its saving name it: a whole card on a shared platform is no "shared 1 card", and
    several cards' slices say how many ("Shared 1/2 card × 8": one half of each of the eight)."""
    share = option.share or quote.share
    whole = option.kind == "shared" and share >= 1
    named = f"option.shared_{option.sharing}" if option.kind == "shared" and option.sharing in SHARINGS else None
    name = t(
        named or ("option.shared_whole" if whole else f"option.{option.kind}"),
        lang,
        share=share_text(share),
        compute_pct=round(share * 100),
    )
    return f"{name} × {quote.cards}" if option.kind == "shared" and quote.cards > 1 else name


def rows(quote: Quote, policy: Policy, lang: Lang) -> list[Row]:
    out, common = [], _common_flags(quote)
    for option in (quote.dedicated, quote.shared, quote.spot):
        if option is None:
            continue
        name = option_name(option, quote, lang)
        if option.memory_gb:
            name += " · " + t("option.memory", lang, memory_gb=option.memory_gb)
        billing = t(f"billing.{option.billing}", lang)
        extra = _notes(option, policy, lang, common)
        if extra:
            sep = t("list.sep", lang)
            billing += sep + sep.join(extra)
        out.append(
            Row(
                name,
                _cost(option, quote, policy, lang),
                billing,
                _source(option, lang),
                bool(option.price and option.price.stale),
            )
        )
    return out


def title(quote: Quote, lang: Lang) -> str:
    return t(
        "quote.title" if quote.paced else "quote.title_total",
        lang,
        gpu=quote.gpu,
        cards=quote.cards,
        hours=round(quote.hours_per_day, 1),
        days=counted("age.days", round(quote.days, 1), lang),
        span=span_text(quote.days, lang),
        gpu_hours=counted("count.gpu_hours", round(quote.gpu_hours, 1), lang),
    )


def run_totals(quote: Quote, lang: Lang) -> list[tuple[str, str, str]]:
    """Each option of a quote as its kind, its label and its total for the run (a range where it is one: shared
    efficiency, or an estimate, said), dedicated first: a run quoted on several GPUs side by side, in chat and the
    terminal."""
    out = []
    for kind, option in (("dedicated", quote.dedicated), ("shared", quote.shared), ("spot", quote.spot)):
        if option is None:
            continue
        label = t(f"option.{kind}.short", lang)
        if kind == "shared" and option.share:
            label = t("prices.side_by_side_slice", lang, share=share_text(option.share))
        low, high = money(option.amount_min, quote.currency), money(option.amount_max, quote.currency)
        total = low if low == high else f"{low}–{high}"
        out.append((kind, label, total + (t("prices.run_estimate", lang) if option.estimate else "")))
    return out


def run_said(quote: Quote, lang: Lang) -> str:
    """The run a quote prices, in words: "24 h a day × 7 days (168 GPU-hours)", or its GPU-hours back to back."""
    return t(
        "quote.run" if quote.paced else "quote.run_total",
        lang,
        hours=round(quote.hours_per_day, 1),
        days=counted("age.days", round(quote.days, 1), lang),
        span=span_text(quote.days, lang),
        gpu_hours=counted("count.gpu_hours", round(quote.gpu_hours / max(quote.cards, 1), 1), lang),
    )


def span_text(days: float, lang: Lang) -> str:
    """How long a run back to back lasts: "4.2 days", or within a day its hours ("1 h": it said "0 days")."""
    if days >= 1:
        return counted("age.days", round(days, 1), lang)
    return t("age.hours", lang, n=show(round(days * 24, 1)))


def change(low: float, high: float, lang: Lang) -> str:
    """A saving as words: "12% less", "10–20% less", "5% more", "between 5% more and 10% less"."""
    low, high = sorted((round(low, 1), round(high, 1)))
    if low == high:
        return t("change.less" if low >= 0 else "change.more", lang, pct=abs(low))
    if low >= 0:
        return t("change.less_range", lang, low=low, high=high)
    if high <= 0:
        return t("change.more_range", lang, low=-high, high=-low)
    return t("change.mixed", lang, more=-low, less=high)


def _hours(value: float | None) -> str:
    return show(round(value, 1)) if value is not None else ">24"


def _savings(quote: Quote, lang: Lang) -> list[str]:
    out = []
    names = {o.kind: option_name(o, quote, lang) for o in (quote.shared, quote.spot) if o is not None}
    for kind, pct in quote.savings_pct.items():
        low, high = quote.savings_range_pct[kind]
        if round(pct, 1) == round(low, 1) == round(high, 1) == 0:  # "0% less" said nothing a reader could use
            out.append(t("savings.same", lang, option=names[kind]))
            continue
        if kind == "spot" and low != high:  # an estimate: the range is the figure
            out.append(t("savings", lang, option=names[kind], change=change(low, high, lang)))
            continue
        line = t("savings", lang, option=names[kind], change=change(pct, pct, lang))
        if kind == "shared" and (low, high) != (pct, pct):
            line += t("savings.adjusted", lang, change=change(low, high, lang))
        out.append(line)
    return out


def _break_even(quote: Quote, lang: Lang) -> list[str]:
    even = quote.break_even_hours_per_day
    if even is None:
        return []
    if even["adjusted_max"] is None:
        return [t("break_even.never", lang)]
    return [_break_even_line(even, lang), *_past_break_even(quote, even, lang)]


def _break_even_line(even: dict[str, float | None], lang: Lang) -> str:
    low, high = _hours(even["adjusted_min"]), _hours(even["adjusted_max"])
    if even["nominal"] is None:
        return t("break_even.adjusted", lang, low=low, high=high)
    if low == high == _hours(even["nominal"]):  # no speed to count: a whole card, or a service
        return t("break_even.plain", lang, nominal=low)
    return t("break_even", lang, nominal=_hours(even["nominal"]), low=low, high=high)


def _past_break_even(quote: Quote, even: dict[str, float | None], lang: Lang) -> list[str]:
    """The schedule quoted past the break-even (a service 24 h a day on a whole card by the hour): said outright,
    since the cheaper row is then the dedicated one whatever the rules allowed."""
    lines = [v for v in (even["nominal"], even["adjusted_min"], even["adjusted_max"]) if v is not None]
    # within the range shared speed spans, or total GPU-hours alone (their 24 h a day is no plan): not said outright
    if not quote.paced or not lines or quote.hours_per_day <= max(lines):
        return []
    return [t("break_even.past", lang, hours=_hours(quote.hours_per_day))]


def _totals(quote: Quote, lang: Lang) -> list[str]:
    """The total cost of the run: the cards, plus storage and traffic."""
    if not quote.totals:
        return []
    cur = quote.currency
    parts = [
        t(
            f"extra.{kind}",
            lang,
            gb=cost.gb,
            amount=money(cost.amount, cur),
            price=cost.unit_price,
            months=cost.months or 0,
            currency=cur,
        )
        for kind, cost in quote.extras.items()
    ]  # the months used

    def total(kind: str, amount: float) -> str:
        low, high = quote.totals_range.get(kind, (amount, amount))
        return money(amount, cur) if low == high else f"{money(low, cur)}–{money(high, cur)}"

    totals = t("list.sep", lang).join(
        f"{t(f'option.{kind}.short', lang)} {total(kind, amount)}" for kind, amount in quote.totals.items()
    )
    return [t("extra.total", lang, extras=t("list.sep", lang).join(parts), totals=totals)]


def notes(quote: Quote, lang: Lang) -> list[str]:
    out = [t(f"omitted.{kind}.{reason}", lang) for kind, reason in quote.omitted.items()]
    out += _savings(quote, lang) + _break_even(quote, lang) + _totals(quote, lang)
    rvb = quote.rent_vs_buy
    if rvb["advice"] != "no_pace":  # total GPU-hours alone: a one-off total, no year to weigh a card against
        yearly = rvb["yearly_gpu_hours_at_this_pace"]
        per_card = rvb.get("yearly_gpu_hours_per_card", yearly)
        out.append(t(str(rvb["advice"]), lang, hours=yearly, per_card=per_card, threshold=rvb["threshold"]))
    if quote.fx:
        base, target = str(quote.fx["pair"]).split("/")
        out.append(
            t(
                "fx",
                lang,
                base=base,
                quote=target,
                rate=quote.fx["rate"],
                source=quote.fx["source"],
                date=quote.fx["date"],
            )
        )
    out += [t(f"note.flag.{flag}.all", lang) for flag in _common_flags(quote)]
    if quote.stale:
        out.append(t("stale.warning", lang))
    return out
