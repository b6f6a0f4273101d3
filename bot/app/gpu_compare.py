"""`prices A100 H100` (and asked as people ask it: `A100和H100哪个划算`, `A100 vs H100`): two or more GPUs side by
side, each option as a quote of one GPU-hour prices it, at its own billing (a card billed by the day is said by the
day), in the team's currency, each dedicated price with its provider and age; then that a cheaper hour is not a
cheaper run. `A100和H100多少钱` was "unknown sub-command", and `prices A100 H100` refused the second GPU."""

from __future__ import annotations

from bot.deps import Deps
from bot.fields.quote_words import MOST_GPUS
from bot.text import Lang, t
from bot.text.chinese_names import currency_code
from bot.text.errors import error_text
from bot.text.format import money, share_text
from bot.text.quote import age_text, rate, run_said, run_totals
from pricing.errors import QuoteError
from pricing.quote import Quote, QuoteRequest
from rules.errors import UnknownGPU
from rules.gpus import gpu_model, gpus_in


def several_gpus(words: list[str]) -> list[str] | None:
    """The GPUs `words` name when they are two or more GPUs and nothing else (`A100 H100`, `A100 40G 4090`), in the
    order typed; None otherwise (one GPU, a GPU and a provider, a word no GPU)."""
    try:
        found = gpus_in(words, whole=True)
    except UnknownGPU:  # a word no GPU, or a maker alone: its own question (which card?), not a comparison
        return None
    return found if len(found) > 1 else None


def compare_lines(deps: Deps, gpus: list[str], lang: Lang) -> list[str]:
    """A title, a line per GPU (at most MOST_GPUS), and the note on what an hour's price does not say."""
    currency = currency_code(deps.settings.files.currency)
    lines = [t("prices.side_by_side", lang, gpus=" · ".join(gpus[:MOST_GPUS]), currency=currency)]
    estimated = False
    for gpu in gpus[:MOST_GPUS]:
        said, guessed = _options(deps, gpu, currency, lang)
        estimated |= guessed
        lines.append(f"• **{gpu}** ({gpu_model(gpu).memory_gb:g} GB): {said}")
    if len(gpus) > MOST_GPUS:
        lines.append(t("prices.side_by_side_more", lang, count=len(gpus) - MOST_GPUS, most=MOST_GPUS))
    lines += [t("prices.side_by_side_estimated", lang)] if estimated else []
    lines.append(t("prices.side_by_side_note", lang, gpu=gpus[0]))
    return lines


def _options(deps: Deps, gpu: str, currency: str, lang: Lang) -> tuple[str, bool]:
    """Each option of `gpu` as a quote of one GPU-hour prices it, at its own billing (`dedicated ¥400/day
    (domestic-reference, 2.5 years) · spot ≈¥3.33–¥8.33/hour (estimate) · shared 1/2 card ¥14/hour`), and whether
    one is an estimate."""
    try:
        made = deps.prices.quote(QuoteRequest(gpu=gpu, gpu_hours=1, currency=currency))
    except QuoteError as exc:
        return error_text(exc, lang, where="chat"), False
    parts, estimated = [], False
    for kind, option in (("dedicated", made.dedicated), ("spot", made.spot), ("shared", made.shared)):
        if option is None or option.price is None:
            continue
        if option.estimate:  # no cached price of its own: the policy's share of dedicated, for one hour
            estimated = True
            low, high = money(option.amount_min, currency), money(option.amount_max, currency)
            said = t("prices.side_by_side_estimate", lang, low=low, high=high)
        else:
            said = rate(option.price.unit_price, currency, option.price.unit, "-", lang)
        if kind == "dedicated":
            said += f" ({option.price.provider}, {age_text(option.price.age_days, lang)})"
        label = t(f"option.{kind}.short", lang)
        if kind == "shared" and option.share:
            label = t("prices.side_by_side_slice", lang, share=share_text(option.share))
        parts.append(f"{label} {said}")
    return " · ".join(parts) or t("slack.no_prices", lang), estimated


def run_lines(quotes: list[tuple[str, Quote | str]], lang: Lang) -> list[str]:
    """One run quoted on each GPU (`A100和H100跑一周分别多少钱`, `quote A100 H100 4x14`): a title naming the run, a
    line per GPU with each option's total (a range where it is one: an estimate, or shared efficiency), or why it
    could not be quoted; then the note on what a total does not say."""
    first = next(quote for _, quote in quotes if not isinstance(quote, str))  # one at least was quoted
    gpus = " · ".join(gpu for gpu, _ in quotes)
    lines = [t("prices.run_side_by_side", lang, gpus=gpus, run=run_said(first, lang), currency=first.currency)]
    colon = "：" if lang is Lang.ZH else ": "
    for gpu, quote in quotes:
        if isinstance(quote, str):
            lines.append(f"• **{gpu}**{colon}{quote}")
            continue
        parts = [f"{label} {total}" for _, label, total in run_totals(quote, lang)]
        lines.append(f"• **{gpu}** × {quote.cards}{colon}" + (" · ".join(parts) or t("slack.no_prices", lang)))
    lines.append(t("prices.run_side_by_side_note", lang, gpu=first.gpu))
    return lines
