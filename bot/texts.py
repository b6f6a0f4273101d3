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
    "savings.range": {Lang.EN: "{option} costs {low}–{high}% less than dedicated", Lang.ZH: "{option}比独占卡便宜 {low}–{high}%"},
    "savings.adjusted": {Lang.EN: " ({low}–{high}% counting shared speed)", Lang.ZH: "（计入共享效率为 {low}–{high}%）"},
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
    "slack.root": {Lang.EN: "GPU advice for <@{user}>: 5 questions in this thread.",
                   Lang.ZH: "<@{user}> 的 GPU 选型建议：请在本帖回答 5 个问题。"},
    "slack.dm_fallback": {Lang.EN: "I can't post in <#{channel}> (Slack said `{error}`), so we continue here.",
                          Lang.ZH: "我无法在 <#{channel}> 发消息（Slack 返回 `{error}`），我们在这里继续。"},
    "slack.moved_to_dm": {Lang.EN: "I can't post in this channel, so I've started your profile in a DM with you.",
                          Lang.ZH: "我无法在此频道发消息，已在私信中开始你的评估。"},
    "slack.question": {Lang.EN: "*Question {n}/{total}*  {text}", Lang.ZH: "*问题 {n}/{total}*  {text}"},
    "slack.follow_up": {Lang.EN: "*Optional*  {text}", Lang.ZH: "*可选*  {text}"},
    "slack.type_hint": {Lang.EN: "Or reply in this thread, e.g. {examples}", Lang.ZH: "也可以在本帖直接回复，例如 {examples}"},
    "slack.skip": {Lang.EN: "Skip", Lang.ZH: "跳过"},
    "slack.answered": {Lang.EN: "*{answer}* — answered by <@{user}>", Lang.ZH: "*{answer}* — <@{user}> 回答"},
    "slack.skipped": {Lang.EN: "_skipped_ by <@{user}>", Lang.ZH: "<@{user}> _已跳过_"},
    "slack.bad_answer": {Lang.EN: "I couldn't read that: {problem}. Try one of: {accepted}",
                         Lang.ZH: "无法识别：{problem}。可以这样回答：{accepted}"},
    "slack.not_yours": {Lang.EN: "<@{other}> replied in your profile thread; only your answers count here.",
                        Lang.ZH: "<@{other}> 在你的评估帖中回复了；这里只采用你的回答。"},
    "slack.only_starter": {Lang.EN: "Only <@{user}> can answer this profile. Start your own with `/gpu-advise`.",
                           Lang.ZH: "只有 <@{user}> 可以回答这个评估。用 `/gpu-advise` 开始你自己的评估。"},
    "slack.expired": {Lang.EN: "This profile expired after {hours} h without an answer. Start again with `/gpu-advise`.",
                      Lang.ZH: "该评估超过 {hours} 小时未回答，已过期。请用 `/gpu-advise` 重新开始。"},
    "slack.already": {Lang.EN: "That question was already answered.", Lang.ZH: "这个问题已经回答过了。"},
    "slack.change": {Lang.EN: "Change an answer", Lang.ZH: "修改回答"},
    "slack.restart": {Lang.EN: "Start over", Lang.ZH: "重新开始"},
    "slack.new_profile": {Lang.EN: "New profile", Lang.ZH: "新建评估"},
    "slack.why": {Lang.EN: "*Why*", Lang.ZH: "*依据*"},
    "slack.costs": {Lang.EN: "*Costs*", Lang.ZH: "*费用*"},
    "slack.assumed_schedule": {Lang.EN: "Assumed from your answers: {hours} h/day × {days} days; give `hours=4x14` for yours.",
                               Lang.ZH: "根据你的回答假设：每天 {hours} 小时 × {days} 天；可用 `hours=4x14` 指定。"},
    "slack.no_quote": {Lang.EN: "No cost quote: {reason}", Lang.ZH: "无法报价：{reason}"},
    "slack.form_title": {Lang.EN: "GPU advice", Lang.ZH: "GPU 选型建议"},
    "slack.form_submit": {Lang.EN: "Advise", Lang.ZH: "生成建议"},
    "slack.form_cancel": {Lang.EN: "Cancel", Lang.ZH: "取消"},
    "slack.required": {Lang.EN: "This question needs an answer.", Lang.ZH: "此问题必须回答。"},
    "slack.home_title": {Lang.EN: "GPU Advisor", Lang.ZH: "GPU 选型助手"},
    "slack.home_intro": {Lang.EN: "Dedicated card, shared slice or spot? Answer 5 questions and get a recommendation with costs.",
                         Lang.ZH: "独占卡、共享切片还是抢占式实例？回答 5 个问题，获得带费用的建议。"},
    "slack.home_recent": {Lang.EN: "*Your recent recommendations*", Lang.ZH: "*你最近的建议*"},
    "slack.home_none": {Lang.EN: "None yet: type `/gpu-advise` in any channel, or press the button.",
                        Lang.ZH: "还没有：在任意频道输入 `/gpu-advise`，或点击按钮。"},
    "slack.home_sources": {Lang.EN: "*Price sources*", Lang.ZH: "*价格来源*"},
    "slack.source_line": {Lang.EN: "`{source}` {state} · {rows} rows · last success {when}{error}",
                          Lang.ZH: "`{source}` {state} · {rows} 条 · 最近成功 {when}{error}"},
    "slack.fresh": {Lang.EN: "fresh", Lang.ZH: "最新"},
    "slack.never": {Lang.EN: "never", Lang.ZH: "从未"},
    "slack.error": {Lang.EN: "Something went wrong (error id `{ref}`). Please try again; quote the id if it persists.",
                    Lang.ZH: "出错了（错误编号 `{ref}`）。请重试；如仍有问题请提供该编号。"},
    "slack.slack_error": {Lang.EN: "Slack refused a request (`{error}`, error id `{ref}`).",
                          Lang.ZH: "Slack 拒绝了请求（`{error}`，错误编号 `{ref}`）。"},
    "slack.missing": {Lang.EN: "Missing answers: {keys}.", Lang.ZH: "缺少回答：{keys}。"},
    "slack.prices_title": {Lang.EN: "*Cached prices{gpu}*", Lang.ZH: "*缓存的价格{gpu}*"},
    "slack.no_prices": {Lang.EN: "No cached prices match.", Lang.ZH: "没有匹配的缓存价格。"},
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
