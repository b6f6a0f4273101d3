"""Sentences about quotes and prices, in English and Chinese (decision sentences live in rules/messages.py)."""

from __future__ import annotations

from rules.messages import Lang, show

TEXTS: dict[str, dict[Lang, str]] = {
    "quote.title": {Lang.EN: "Cost for {gpu} × {cards}, {hours} h/day × {days} days ({gpu_hours} GPU-hours)",
                    Lang.ZH: "{gpu} × {cards} 的费用：每天 {hours} 小时 × {days} 天（共 {gpu_hours} GPU 小时）"},
    "option.dedicated": {Lang.EN: "Dedicated", Lang.ZH: "独占卡"},
    "option.shared": {Lang.EN: "Shared {share} card", Lang.ZH: "共享 {share} 卡"},
    "option.spot": {Lang.EN: "Spot / preemptible", Lang.ZH: "抢占式实例"},
    "col.option": {Lang.EN: "Option", Lang.ZH: "方案"},
    "col.cost": {Lang.EN: "Cost", Lang.ZH: "费用"},
    "col.billing": {Lang.EN: "Billing", Lang.ZH: "计费"},
    "col.source": {Lang.EN: "Price source", Lang.ZH: "价格来源"},
    "billing.daily": {Lang.EN: "per card-day, whole period", Lang.ZH: "按卡·天，整段计费"},
    "billing.monthly": {Lang.EN: "per card-month, whole period", Lang.ZH: "按卡·月，整段计费"},
    "billing.hourly": {Lang.EN: "per hour of use", Lang.ZH: "按使用小时"},
    "shared.adjusted": {Lang.EN: "{low}–{high} at {eff_low}–{eff_high}% speed ({days_low}–{days_high} days)",
                        Lang.ZH: "按 {eff_low}–{eff_high}% 效率折算为 {low}–{high}（{days_low}–{days_high} 天）"},
    "estimate": {Lang.EN: "estimate", Lang.ZH: "估算"},
    "stale": {Lang.EN: "STALE", Lang.ZH: "已过期"},
    "source.line": {Lang.EN: "{source}: {original}, as of {as_of} ({age} old)",
                    Lang.ZH: "{source}：{original}，价格日期 {as_of}（{age}前）"},
    "note.estimated_from_policy_range": {Lang.EN: "no cached spot price: {low}–{high}% of dedicated (policy range)",
                                         Lang.ZH: "无抢占式实例报价：按独占价格的 {low}–{high}% 估算（策略区间）"},
    "note.estimated_proportional_to_slice": {Lang.EN: "no cached slice price: the card price × the slice",
                                             Lang.ZH: "无切片报价：按整卡价格 × 切片比例估算"},
    "note.scaled_from_other_slice": {Lang.EN: "scaled from another slice size's price",
                                     Lang.ZH: "由其他切片规格的价格按比例换算"},
    "note.release_between_runs": {Lang.EN: "hourly card, released between runs",
                                  Lang.ZH: "按小时租用，两次运行之间释放"},
    "note.needs_checkpoints": {Lang.EN: "only for jobs that checkpoint and resume",
                               Lang.ZH: "仅适合能保存检查点并续跑的任务"},
    "note.flag.spot_above_on_demand": {Lang.EN: "this spot price is above on-demand",
                                       Lang.ZH: "该抢占式价格高于按需价格"},
    "savings": {Lang.EN: "{option} costs {pct}% less than dedicated", Lang.ZH: "{option}比独占卡便宜 {pct}%"},
    "savings.more": {Lang.EN: "{option} costs {pct}% more than dedicated", Lang.ZH: "{option}比独占卡贵 {pct}%"},
    "break_even": {Lang.EN: "Dedicated becomes cheaper above {nominal} h/day of use ({low}–{high} h counting "
                   "shared speed)",
                   Lang.ZH: "每天使用超过 {nominal} 小时后独占卡更便宜（计入共享效率为 {low}–{high} 小时）"},
    "break_even.adjusted": {Lang.EN: "Counting shared speed, dedicated becomes cheaper above {low}–{high} h/day of use",
                            Lang.ZH: "计入共享效率后，每天使用超过 {low}–{high} 小时独占卡更便宜"},
    "break_even.never": {Lang.EN: "Shared stays cheaper even at 24 h/day of use",
                         Lang.ZH: "即使每天用满 24 小时，共享卡仍更便宜"},
    "rent": {Lang.EN: "At this pace all year: {hours} GPU-hours, below {threshold}: renting beats buying",
             Lang.ZH: "按此节奏全年约 {hours} GPU 小时，低于 {threshold}：租比买划算"},
    "consider_buying": {Lang.EN: "At this pace all year: {hours} GPU-hours, at least {threshold}: price buying too",
                        Lang.ZH: "按此节奏全年约 {hours} GPU 小时，达到 {threshold}：可评估买卡"},
    "fx": {Lang.EN: "Converted at 1 {base} = {rate} {quote} ({source}, {date})",
           Lang.ZH: "汇率 1 {base} = {rate} {quote}（{source}，{date}）"},
    "stale.warning": {Lang.EN: "Some prices are past their refresh window: check current prices before you commit.",
                      Lang.ZH: "部分价格已过期：下单前请确认最新价格。"},
    "age.hours": {Lang.EN: "{n} h", Lang.ZH: "{n} 小时"},
    "age.days": {Lang.EN: "{n} days", Lang.ZH: "{n} 天"},
    "age.years": {Lang.EN: "{n} years", Lang.ZH: "{n} 年"},
}


def t(key: str, lang: Lang, **params: object) -> str:
    return TEXTS[key][lang].format(**{k: v if isinstance(v, str) else show(v) for k, v in params.items()})  # type: ignore[arg-type]


def age_text(days: float, lang: Lang) -> str:
    if days < 1:
        return t("age.hours", lang, n=max(round(days * 24), 0))
    if days < 365:
        return t("age.days", lang, n=round(days))
    return t("age.years", lang, n=round(days / 365, 1))


def money(amount: float, currency: str) -> str:
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, "")
    return f"{symbol}{show(round(amount, 2))}" if symbol else f"{show(round(amount, 2))} {currency}"
