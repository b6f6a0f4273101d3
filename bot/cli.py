"""The `gpu-advise` command line. Every command builds Settings once and passes it down."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.console import Console

from bot.cli_advise import emit, run_advise
from bot.cli_common import DbOpt, LangOpt, PolicyOpt, fail, load_effective_policy, load_settings
from bot.cli_prices import prices_app, print_quote, quote, quote_decision
from bot.serve import serve
from rules.errors import PolicyError
from rules.policy import load_policy

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="GPU Advisor: dedicated card, shared slice or spot, and what each costs.")
policy_app = typer.Typer(no_args_is_help=True, help="Show or check the policy (every threshold the rules use).")
app.add_typer(policy_app, name="policy")
app.add_typer(prices_app, name="prices")
app.command()(quote)
app.command()(serve)

HELP = {
    "duration": "Single-run duration: 10h, 45 min, 3天, short/medium/long.",
    "memory_peak": "Memory peak vs one card: yes/no, 70/80, 70 GB of 80, 85%.",
    "model_parallel": "Needs 2+ cards of model parallelism: yes/no, 是/否.",
    "frequency": "Run frequency: daily, 3 times a week, 每周两次, high/low.",
    "can_resume": "Can resume quickly after an interruption: yes/no, 能/不能.",
    "workload": "pretrain, full-finetune, lora, qlora, hpo, inference, debug, other.",
    "phase": "exploration, stable or deployment.",
    "qps": "Inference: peak QPS.",
    "p99_ms": "Inference: P99 latency target, e.g. 40ms.",
    "checkpointing": "Does the job checkpoint: yes/no.",
    "model_size": "Model size: 7b, 13B, 70亿.",
    "gpu": "GPU model (default A100-80GB).",
    "cards": "Number of cards (default 1).",
    "schedule": "Hours a day x days, e.g. 4x14.",
    "yearly_gpu_hours": "GPU-hours a year, for rent vs buy.",
}


@app.command()
def advise(
    duration: Annotated[str | None, typer.Option(help=HELP["duration"])] = None,
    memory_peak: Annotated[str | None, typer.Option(help=HELP["memory_peak"])] = None,
    model_parallel: Annotated[str | None, typer.Option(help=HELP["model_parallel"])] = None,
    frequency: Annotated[str | None, typer.Option(help=HELP["frequency"])] = None,
    can_resume: Annotated[str | None, typer.Option(help=HELP["can_resume"])] = None,
    workload: Annotated[str | None, typer.Option(help=HELP["workload"])] = None,
    phase: Annotated[str | None, typer.Option(help=HELP["phase"])] = None,
    qps: Annotated[str | None, typer.Option(help=HELP["qps"])] = None,
    p99_ms: Annotated[str | None, typer.Option(help=HELP["p99_ms"])] = None,
    checkpointing: Annotated[str | None, typer.Option(help=HELP["checkpointing"])] = None,
    model_size: Annotated[str | None, typer.Option(help=HELP["model_size"])] = None,
    gpu: Annotated[str | None, typer.Option(help=HELP["gpu"])] = None,
    cards: Annotated[str | None, typer.Option(help=HELP["cards"])] = None,
    schedule: Annotated[str | None, typer.Option(help=HELP["schedule"])] = None,
    yearly_gpu_hours: Annotated[str | None, typer.Option(help=HELP["yearly_gpu_hours"])] = None,
    lang: LangOpt = None,
    policy: PolicyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the decision as one JSON object.")] = False,
    with_quote: Annotated[bool, typer.Option("--quote", help="Add each option's cost (needs --schedule).")] = False,
    currency: Annotated[str | None, typer.Option(help="CNY or USD, for --quote.")] = None,
    db: DbOpt = None,
    interactive: Annotated[bool | None, typer.Option(
        "--interactive/--no-interactive",
        help="Ask for missing answers (default: only when stdin is a terminal).")] = None,
) -> None:
    """Recommend a dedicated card or a shared slice for a training or inference job."""
    settings = load_settings(lang=lang, policy=policy, db=db)
    effective = load_effective_policy(settings)
    raw = {"duration": duration, "memory": memory_peak, "model_parallel": model_parallel, "frequency": frequency,
           "can_resume": can_resume, "workload": workload, "phase": phase, "qps": qps, "p99_ms": p99_ms,
           "checkpointing": checkpointing, "model_size_b": model_size, "gpu": gpu, "cards": cards,
           "schedule": schedule, "yearly_gpu_hours": yearly_gpu_hours}
    ask = sys.stdin.isatty() if interactive is None else interactive
    console = Console(stderr=as_json)  # questions go to stderr when stdout carries JSON
    code, data = run_advise(raw, policy=effective, lang=settings.lang, as_json=as_json, interactive=ask,
                            console=console, err=Console(stderr=True, soft_wrap=True))
    if data is None:
        raise typer.Exit(code)
    if ask and data["profile"].get("schedule"):
        with_quote = True  # a schedule given at the prompt asks for the costs
    if not with_quote:
        emit(data, as_json=as_json, lang=settings.lang, console=Console())
        return
    result = quote_decision(settings, effective, data, currency)
    if as_json:
        emit(data | {"quote": result.model_dump(mode="json")}, as_json=True, lang=settings.lang, console=Console())
        return
    emit(data, as_json=False, lang=settings.lang, console=Console())
    print_quote(result, effective, settings.lang, Console())


@policy_app.command("show")
def policy_show(policy: PolicyOpt = None) -> None:
    """Print the effective policy as YAML."""
    settings = load_settings(policy=policy)
    effective = load_effective_policy(settings)
    origin = str(settings.policy) if settings.policy else "bundled policy"
    sys.stdout.write(f"# effective policy ({origin})\n")
    sys.stdout.write(yaml.safe_dump(effective.model_dump(mode="json"), sort_keys=False, allow_unicode=True))


@policy_app.command("check")
def policy_check(file: Annotated[Path, typer.Argument(help="Policy YAML file to validate.")]) -> None:
    """Validate a policy file and say what is wrong with it."""
    try:
        load_policy(file)
    except PolicyError as exc:
        raise fail(f"policy error: {exc}") from None
    sys.stdout.write(f"{file}: ok\n")


def main() -> None:
    app()
