"""`quote --compare` in words: the title, each provider's row as table cells (terminal) or a line (Slack)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.text import Lang, t
from bot.text.format import money, show
from bot.text.quote import span_text
from pricing.compare import ProviderOffer
from pricing.quote import QuoteRequest


def compare_title(rows: Sequence[ProviderOffer], req: QuoteRequest, lang: Lang) -> str:
    gpu = rows[0].gpu if rows else req.gpu
    return t(
        "compare.title" if req.paced else "compare.title_total",
        lang,
        gpu=gpu,
        cards=req.cards,
        hours=show(round(req.daily_hours, 1)),
        days=show(round(req.period_days, 1)),
        span=span_text(req.period_days, lang),
        gpu_hours=show(round(req.used_hours_per_card * req.cards, 1)),
    )


def _amount(value: float | None, currency: str, lang: Lang) -> str:
    return money(value, currency) if value is not None else t("compare.not_sold", lang)


def cells(row: ProviderOffer, lang: Lang) -> list[str]:
    """Provider, region, dedicated, shared, spot, total, source, price date."""
    return [
        row.provider,
        t("compare.any_region", lang) if row.region == "any" else row.region,  # a price for no one region
        _amount(row.dedicated, row.currency, lang),
        _amount(row.shared, row.currency, lang),
        _amount(row.spot, row.currency, lang),
        money(row.total, row.currency),
        row.source,
        row.price_date,
    ]


def lines(rows: Sequence[ProviderOffer], req: QuoteRequest, lang: Lang) -> list[str]:
    """The comparison as mrkdwn lines (Slack): the title, a line a provider, what the totals count."""
    if not rows:
        return [t("compare.none", lang, gpu=req.gpu)]
    out = [f"*{compare_title(rows, req, lang)}*"]
    for row in rows:
        provider, region, dedicated, shared, spot, total, source, date = cells(row, lang)
        out.append(
            t(
                "compare.line",
                lang,
                provider=provider,
                region=region,
                total=total,
                dedicated=dedicated,
                shared=shared,
                spot=spot,
                source=source,
                date=date,
            )
        )
    included = sorted({kind for row in rows for kind in row.includes})
    if included:
        out.append(t("compare.includes", lang, what=", ".join(included)))
    return out
