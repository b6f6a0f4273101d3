"""Every sentence the product says about a decision, in English and Chinese.

Engine reasons are (id, params); render() turns one into text. The terminal and Slack both
render through here, so they say the same thing.
"""

from __future__ import annotations

from enum import StrEnum

from rules.decision import Check, Param, Reason


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"


def show(value: Param) -> str:
    """Numbers without trailing zeros: 10.0 -> '10', 87.5 -> '87.5', 5600.0 -> '5,600'."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float):
        if abs(value - round(value)) < 1e-9:
            return f"{round(value):,}"
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


_T = dict[str, dict[Lang, str]]

CHECKS: _T = {
    "long_run_hours.hit": {Lang.EN: "Long run: {hours} h is more than {threshold} h",
                           Lang.ZH: "长时任务：单次 {hours} 小时，超过 {threshold} 小时"},
    "long_run_hours.miss": {Lang.EN: "Run length {hours} h is not more than {threshold} h",
                            Lang.ZH: "单次 {hours} 小时，未超过 {threshold} 小时"},
    "long_run_above.hit": {Lang.EN: "Long run: more than {hours} h (the limit is {threshold} h)",
                           Lang.ZH: "长时任务：超过 {hours} 小时（界限 {threshold} 小时）"},
    "long_run_above.miss": {Lang.EN: "Run length: more than {hours} h, not known to pass {threshold} h",
                            Lang.ZH: "单次超过 {hours} 小时，未确定超过 {threshold} 小时"},
    "long_run_bucket.hit": {Lang.EN: "Long run: answered \"{bucket}\" (more than {threshold} h)",
                            Lang.ZH: "长时任务：回答为“{bucket}”（超过 {threshold} 小时）"},
    "long_run_bucket.miss": {Lang.EN: "Run length answered \"{bucket}\" (not more than {threshold} h)",
                             Lang.ZH: "单次时长回答为“{bucket}”（未超过 {threshold} 小时）"},
    "memory_tight_share.hit": {
        Lang.EN: "Memory tight: peak {peak_gb} GB of {card_gb} GB is {pct}%, above {threshold_pct}%",
        Lang.ZH: "显存紧张：峰值 {peak_gb} GB / {card_gb} GB，占 {pct}%，超过 {threshold_pct}%"},
    "memory_tight_share.miss": {
        Lang.EN: "Memory peak {peak_gb} GB of {card_gb} GB is {pct}%, not above {threshold_pct}%",
        Lang.ZH: "显存峰值 {peak_gb} GB / {card_gb} GB，占 {pct}%，未超过 {threshold_pct}%"},
    "memory_tight_answer.hit": {Lang.EN: "Memory tight: the peak is above {threshold_pct}% of one card",
                                Lang.ZH: "显存紧张：峰值超过单卡显存的 {threshold_pct}%"},
    "memory_tight_answer.miss": {Lang.EN: "Memory peak stays within {threshold_pct}% of one card",
                                 Lang.ZH: "显存峰值不超过单卡显存的 {threshold_pct}%"},
    "model_parallel.hit": {Lang.EN: "Model parallelism across 2+ cards: every step syncs between cards",
                           Lang.ZH: "需要 2 张以上卡做模型并行：每个 step 都要卡间同步"},
    "model_parallel.miss": {Lang.EN: "No model parallelism across cards",
                            Lang.ZH: "不需要多卡模型并行"},
    "no_interruption.hit": {Lang.EN: "Cannot tolerate interruption: a stop means starting over",
                            Lang.ZH: "不能容忍中断：中断后无法快速恢复"},
    "no_interruption.miss": {Lang.EN: "Can resume quickly after an interruption",
                             Lang.ZH: "中断后能快速恢复"},
}

ADVICE: _T = {
    "two_of_four_dedicated": {
        Lang.EN: "{hits} of the 4 dedicated signals fired ({needed} needed): rent dedicated cards.",
        Lang.ZH: "4 项独占指标命中 {hits} 项（需 {needed} 项）：建议租用独占卡。"},
    "two_of_four_shared": {
        Lang.EN: "{hits} of the 4 dedicated signals fired ({needed} needed): a shared card is enough.",
        Lang.ZH: "4 项独占指标命中 {hits} 项（需 {needed} 项）：共享卡即可。"},
    "inference_dedicated": {
        Lang.EN: "Inference at {qps} QPS peak (high from {high_qps}) with a P99 target of {p99_ms} ms "
                 "(strict below {p99_below} ms): dedicated cards keep latency stable.",
        Lang.ZH: "推理峰值 {qps} QPS（{high_qps} 起算高并发），P99 目标 {p99_ms} ms（低于 {p99_below} ms 为严格）："
                 "独占卡才能保证延迟稳定。"},
    "inference_shared": {
        Lang.EN: "Inference at {qps} QPS peak with a P99 target of {p99_ms} ms: dedicated only pays off at "
                 "{high_qps}+ QPS and a P99 below {p99_below} ms, so a shared card is enough.",
        Lang.ZH: "推理峰值 {qps} QPS，P99 目标 {p99_ms} ms：只有 QPS ≥ {high_qps} 且 P99 < {p99_below} ms 时才值得独占，"
                 "共享卡即可。"},
    "inference_needs_qps": {
        Lang.EN: "For inference, give the peak QPS and the P99 target: they decide dedicated vs shared.",
        Lang.ZH: "推理任务请提供峰值 QPS 和 P99 延迟目标：二者决定独占还是共享。"},
    "scenario_pretrain": {
        Lang.EN: "Pre-training and full fine-tuning run for days at >90% utilisation: dedicated cards "
                 "(a 13B full fine-tune needs several 80 GB cards).",
        Lang.ZH: "预训练和全参微调会连续数天以 90% 以上利用率运行：用独占卡（13B 全参微调需要多张 80GB 卡）。"},
    "scenario_lora": {
        Lang.EN: "{workload}: small and medium fine-tunes suit shared slices (a 7B LoRA fits in 20 GB: "
                 "a quarter of an A100 80 GB, at about a quarter of the price).",
        Lang.ZH: "{workload}：中小规模微调适合共享切片（7B LoRA 20GB 即可：A100 80GB 的四分之一，价格约四分之一）。"},
    "scenario_hpo": {
        Lang.EN: "Hyper-parameter search: many small runs in parallel; total throughput matters more than "
                 "single-run speed, so use shared slices.",
        Lang.ZH: "超参数搜索：大量小实验并行，总吞吐比单次速度重要，用共享切片。"},
    "scenario_debug": {
        Lang.EN: "Debugging and small tests leave the GPU idle most of the time: a dedicated card would "
                 "bill for idle hours.",
        Lang.ZH: "调试和小规模测试时 GPU 大部分时间空闲：独占卡会为空闲时间付费。"},
    "scenario_conflict": {
        Lang.EN: "Note: {workload} usually calls for {expected} cards, but your answers say otherwise; "
                 "check them, or measure with a short run.",
        Lang.ZH: "注意：{workload} 通常适合{expected}卡，但你的回答得出相反结论；请核对回答，或先做一次短时实测。"},
    "phase_exploration": {
        Lang.EN: "Exploration phase: use hourly shared cards for fast, cheap trials; don't lock in "
                 "monthly capacity yet.",
        Lang.ZH: "早期探索期：用按小时计费的共享卡快速低成本试验，先不要锁定包月资源。"},
    "phase_stable": {
        Lang.EN: "Stable phase: weigh run length and the cost of an interruption; the two-of-four rule "
                 "decides. Re-profile whenever the load changes.",
        Lang.ZH: "中期稳定期：权衡单次时长和中断代价，以“四中二”规则为准；负载变化时重新评估。"},
    "phase_deployment": {
        Lang.EN: "Deployment phase: the inference rule (peak QPS and P99) decides; re-profile the serving load.",
        Lang.ZH: "后期部署期：由推理规则（峰值 QPS 和 P99）决定；请按线上负载重新评估。"},
    "billing_dedicated_monthly": {
        Lang.EN: "Runs daily: bill dedicated cards by the day or month, not by the hour.",
        Lang.ZH: "高频运行（每天都跑）：独占卡按天或包月计费，比按小时便宜。"},
    "billing_dedicated_hourly": {
        Lang.EN: "Runs a few times a week or less: rent dedicated cards by the hour for each run and "
                 "release them after.",
        Lang.ZH: "低频运行（每周几次或更少）：独占卡按小时租用，跑完即释放。"},
    "billing_shared_hourly": {
        Lang.EN: "Shared cards bill per hour (or second) of use: pay only while the job runs.",
        Lang.ZH: "共享卡按使用时长（小时或秒）计费：只为运行时间付费。"},
    "billing_spot": {
        Lang.EN: "The job can resume from checkpoints: spot/preemptible capacity costs about "
                 "{low_pct}-{high_pct}% of on-demand; good checkpointing can cut training cost by "
                 "{save_low_pct}-{save_high_pct}%.",
        Lang.ZH: "任务可从检查点恢复：抢占式实例约为按需价格的 {low_pct}-{high_pct}%；"
                 "做好检查点可将训练成本降低 {save_low_pct}-{save_high_pct}%。"},
    "checkpoint_first": {
        Lang.EN: "Checkpoint regularly: then spot capacity becomes an option and a node failure costs "
                 "minutes, not hours.",
        Lang.ZH: "请定期保存检查点：这样才能使用抢占式实例，节点故障也只损失几分钟而不是几小时。"},
    "release_when_done": {
        Lang.EN: "Release instances the moment a job ends, and delete images, data sets and intermediate "
                 "files: idle cards and storage keep billing.",
        Lang.ZH: "跑完马上释放实例，并清理镜像、数据集和中间文件：闲置的卡和存储都在计费。"},
    "isolation_mig": {
        Lang.EN: "Smallest MIG slice on {gpu} that holds a {peak_gb} GB peak: {profile} ({slice_gb} GB, "
                 "up to {max_count} per card). MIG gives fixed memory and stable speed.",
        Lang.ZH: "{gpu} 上能容纳 {peak_gb} GB 峰值的最小 MIG 切片：{profile}（{slice_gb} GB，每卡最多 {max_count} 个）。"
                 "MIG 显存和算力固定，速度稳定。"},
    "isolation_whole_card": {
        Lang.EN: "A {peak_gb} GB peak needs the whole {gpu}: no smaller MIG slice holds it.",
        Lang.ZH: "{peak_gb} GB 的峰值需要整张 {gpu}：没有更小的 MIG 切片能容纳。"},
    "isolation_unknown_peak": {
        Lang.EN: "Give the memory peak in GB to find the smallest MIG slice of {gpu} that fits; "
                 "costs below assume half a card.",
        Lang.ZH: "请给出显存峰值（GB），以便找到 {gpu} 上合适的最小 MIG 切片；下方费用按半卡估算。"},
    "isolation_no_mig": {
        Lang.EN: "{gpu} does not support MIG: it is shared by time-slicing or vGPU; costs below assume half a card.",
        Lang.ZH: "{gpu} 不支持 MIG，只能通过时间片轮转或 vGPU 共享；下方费用按半卡估算。"},
    "timeslice_warning": {
        Lang.EN: "Memory-hungry job: avoid time-sliced sharing, which has no memory isolation and risks OOM; "
                 "ask for MIG or vGPU slices with fixed memory.",
        Lang.ZH: "显存饥渴型任务：避免时间片轮转共享（没有显存隔离，容易 OOM），选择显存固定的 MIG 或 vGPU 切片。"},
    "comm_model_parallel": {
        Lang.EN: "Model/pipeline parallel: keep the cards in one node on NVLink/SXM; PCIe cards or cards "
                 "shared with other tenants slow every step.",
        Lang.ZH: "模型/流水线并行：卡要在同一节点并通过 NVLink/SXM 互联；PCIe 卡或与他人共享的卡会拖慢每一步。"},
    "comm_data_parallel": {
        Lang.EN: "Data parallel on {cards} cards with rare syncs: PCIe cards are fine.",
        Lang.ZH: "{cards} 张卡数据并行、同步不频繁：PCIe 卡即可。"},
    "memory_estimate": {
        Lang.EN: "Estimated training peak for a {model_size_b}B {workload}: about {peak_gb} GB "
                 "(a {card_gb} GB card); measure it with a short run to be sure.",
        Lang.ZH: "{model_size_b}B 模型 {workload} 训练的显存峰值估计约 {peak_gb} GB（单卡 {card_gb} GB）；请用短时实测确认。"},
    "rent_not_buy": {
        Lang.EN: "{hours} GPU-hours a year is below {threshold}: renting is cheaper than buying.",
        Lang.ZH: "每年 {hours} GPU 小时，低于 {threshold}：租比买划算。"},
    "consider_buying": {
        Lang.EN: "{hours} GPU-hours a year is at or above {threshold}: price owning cards against renting.",
        Lang.ZH: "每年 {hours} GPU 小时，达到或超过 {threshold}：可以比较买卡与租卡的成本。"},
    "region_inland": {
        Lang.EN: "Latency-insensitive jobs can run in inland data centres (Inner Mongolia, Guizhou), often "
                 "{low_pct}-{high_pct}% cheaper than Beijing/Shanghai/Shenzhen; batch jobs at night cost less.",
        Lang.ZH: "对延迟不敏感的任务可放在内蒙古、贵州等地的数据中心，通常比北上深便宜 {low_pct}-{high_pct}%；"
                 "批量任务可安排在夜间低峰。"},
}


def _fill(template: str, params: dict[str, Param], lang: Lang) -> str:
    words = _WORDS[lang]
    return template.format(**{k: words.get(show(v), show(v)) for k, v in params.items()})


_WORDS = {
    Lang.ZH: {"dedicated": "独占", "shared": "共享", "short": "短", "medium": "中", "long": "长",
              "lora": "LoRA", "qlora": "QLoRA", "pretrain": "预训练", "full-finetune": "全参微调"},
    Lang.EN: {"lora": "LoRA", "qlora": "QLoRA", "pretrain": "pre-training", "full-finetune": "full fine-tuning"},
}


def render(reason: Reason, lang: Lang) -> str:
    if isinstance(reason, Check):
        key = f"{reason.id}.{'hit' if reason.fired else 'miss'}"
        return _fill(CHECKS[key][lang], reason.params, lang)
    return _fill(ADVICE[reason.id][lang], reason.params, lang)


UI: _T = {
    "choice.dedicated": {Lang.EN: "Dedicated card", Lang.ZH: "独占卡"},
    "choice.shared": {Lang.EN: "Shared card (MIG / vGPU slice)", Lang.ZH: "共享卡（MIG / vGPU 切片）"},
    "recommendation": {Lang.EN: "Recommendation", Lang.ZH: "建议"},
    "why": {Lang.EN: "Why", Lang.ZH: "依据"},
    "missing": {Lang.EN: "Not answered (counted as no hit)", Lang.ZH: "未回答（按未命中计）"},
    "topic.decision": {Lang.EN: "Decision", Lang.ZH: "结论"},
    "topic.scenario": {Lang.EN: "Scenario", Lang.ZH: "场景"},
    "topic.phase": {Lang.EN: "Phase", Lang.ZH: "阶段"},
    "topic.billing": {Lang.EN: "Billing", Lang.ZH: "计费"},
    "topic.isolation": {Lang.EN: "Isolation", Lang.ZH: "隔离方式"},
    "topic.communication": {Lang.EN: "Communication", Lang.ZH: "通信"},
    "topic.memory": {Lang.EN: "Memory", Lang.ZH: "显存"},
    "topic.cost": {Lang.EN: "Cost", Lang.ZH: "成本"},
    "question": {Lang.EN: "Question {n}/{total}", Lang.ZH: "问题 {n}/{total}"},
    "usual": {Lang.EN: "Usual answers", Lang.ZH: "常见回答"},
    "or_type": {Lang.EN: "or type an answer, e.g.", Lang.ZH: "也可以直接输入，例如"},
    "optional": {Lang.EN: "optional: press Enter to skip", Lang.ZH: "可选：直接回车跳过"},
    "parse_error": {Lang.EN: "Could not read {text!r}: {problem}. Accepted: {accepted}",
                    Lang.ZH: "无法识别“{text}”：{problem}。可接受的格式：{accepted}"},
}

_PROBLEMS_ZH = {
    "not understood": "无法理解",
    "empty answer": "回答为空",
    "too long for an answer": "回答太长",
    "expected text": "需要文字",
    "a run must last more than zero": "时长必须大于零",
    "longer than a year": "超过一年",
    "memory figures must be above zero": "显存数值必须大于零",
    "no single card has that much memory": "没有单卡有这么大的显存",
    "a percentage must be above 0": "百分比必须大于 0",
    "memory peak must be above zero": "显存峰值必须大于零",
    "a bare number: say GB (70GB) or % (85%)": "只有数字：请写明 GB（70GB）或 %（85%）",
    "the interval must be above zero": "间隔必须大于零",
    "runs must be more than zero": "次数必须大于零",
    "unknown GPU model": "未知的 GPU 型号",
    "size must be above zero": "规模必须大于零",
    "must be above zero": "必须大于零",
    "at most 1024 cards": "最多 1024 张卡",
    "a day has at most 24 hours": "一天最多 24 小时",
    "hours and days must be above zero": "小时数和天数必须大于零",
    "not a MIG profile of this GPU": "不是该 GPU 的 MIG 规格",
    "a share must be above 0 and at most one card": "份额必须大于 0 且不超过一张卡",
}


def ui(key: str, lang: Lang, **params: Param) -> str:
    return UI[key][lang].format(**{k: v if isinstance(v, str) else show(v) for k, v in params.items()})


def parse_error_text(text: str, problem: str | None, accepted: list[str], lang: Lang) -> str:
    why = problem or "not understood"
    if lang is Lang.ZH:
        why = _PROBLEMS_ZH.get(why, why)
    shown = text if len(text) <= 60 else text[:57] + "..."
    return ui("parse_error", lang, text=shown, problem=why, accepted=", ".join(accepted))
