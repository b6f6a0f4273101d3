"""`最便宜的A100`, `cheapest H100`, `prices 4090 cheapest`, `gpu-advise prices list 4090 --cheapest`: which cached
offer of a GPU costs least, in the team's currency (a dollar price and a yuan price ranked alike, at the rate a
quote takes), a whole card and a slice apart (a quarter card's hour is not an A100's), and what its billing asks
(a card billed by the day or the month is that cheap an hour only when used the whole day or month). The list of
every offer follows, as `prices` gives it; before, the question gave that list alone, in the cache's order, yuan
and dollars unranked."""

from __future__ import annotations

from bot.text import Lang, t
from bot.text.format import money, share_text
from pricing.errors import QuoteError
from pricing.offers import Offer
from pricing.options import Money
from pricing.records import Sharing


def cheapest_lines(offers: list[Offer], to_team: Money, lang: Lang) -> list[str]:
    """The cheapest whole card (by the GPU-hour) and the cheapest slice (by its hour) among `offers`, a line each,
    in `to_team`'s currency (chat's `prices A100 cheapest`, the terminal's `prices list A100 --cheapest`); none
    where no offer converts to it."""
    lines = []
    for whole in (True, False):
        ranked = _hourly(offers, to_team, whole)
        if ranked:
            hourly, best = min(ranked, key=lambda pair: pair[0])
            lines.append(_line(best, money(hourly, to_team.currency), whole, lang))
    return lines


def _hourly(offers: list[Offer], to_team: Money, whole: bool) -> list[tuple[float, Offer]]:
    """Whole cards by their GPU-hour (`whole`), else slices by the hour of the slice (what is paid for it), each in
    the team's currency beside its offer; an offer in a currency with no rate to the team's is not ranked."""
    ranked = []
    for offer in offers:
        r = offer.record
        if (r.sharing is Sharing.DEDICATED) != whole:
            continue
        try:
            ranked.append((to_team(r.per_gpu_hour if whole else r.per_hour, r.currency), offer))
        except QuoteError:
            continue
    return ranked


def _line(offer: Offer, hourly: str, whole: bool, lang: Lang) -> str:
    r = offer.record
    sold = f"{r.amount:g} {r.currency}/{t(f'word.per.{r.unit}', lang)}"
    stale = f" *{t('stale', lang)}*" if offer.stale else ""
    if not whole:
        share = share_text(r.gpu_count)
        said = t("prices.cheapest_slice", lang, provider=r.provider, what=r.instance_type, share=share, sold=sold)
        return said + stale
    key = "prices.cheapest_whole" if r.unit == "hour" else f"prices.cheapest_whole_per_{r.unit}"
    return t(key, lang, provider=r.provider, what=r.instance_type, sold=sold, hourly=hourly) + stale


MOST_CARDS = 12  # cards a "cheapest card" answer names


def cheapest_by_card(offers: list[Offer], to_team: Money, lang: Lang) -> list[str]:
    """`最便宜的卡`, `有没有便宜点的卡`, `prices cheapest`: each card's cheapest whole-card GPU-hour in the team's
    currency, cheapest first (at most MOST_CARDS), with whose price it is and its billing said where not hourly."""
    best: dict[str, tuple[float, Offer]] = {}
    for hourly, offer in _hourly(offers, to_team, whole=True):
        gpu = offer.record.gpu
        if gpu not in best or hourly < best[gpu][0]:
            best[gpu] = (hourly, offer)
    ranked = sorted(best.items(), key=lambda item: (item[1][0], item[0]))
    lines = [t("prices.cheapest_by_card", lang, currency=to_team.currency)] if ranked else []
    for gpu, (hourly, offer) in ranked[:MOST_CARDS]:
        r = offer.record
        billed = "" if r.unit == "hour" else t(f"prices.cheapest_by_card_per_{r.unit}", lang)
        said = t("prices.cheapest_by_card_line", lang, gpu=gpu, hourly=money(hourly, to_team.currency))
        lines.append(f"{said} · {r.provider}{billed}" + (f" *{t('stale', lang)}*" if offer.stale else ""))
    if len(ranked) > MOST_CARDS:
        lines.append(t("report.more", lang, count=len(ranked) - MOST_CARDS))
    return lines
