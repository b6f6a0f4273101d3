"""`gpu-advise analyze FILE`: a capture read into the answers to questions 1 and 2."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.common import LangOpt, fail, load_effective_policy, load_settings
from bot.text import t

if TYPE_CHECKING:
    from rules.capture import Figures


def _figures_json(f: Figures) -> dict[str, object]:
    """One GPU's figures, or the whole capture's, under the keys --json documents."""
    return {
        "continuity": f.continuity,
        "memory_tight": f.memory_tight,
        "memory_peak_mib": f.memory_peak_mib,
        "memory_total_mib": f.memory_total_mib,
        "util_mean": f.util_mean,
        "util_p10": f.util_p10,
        "util_p50": f.util_p50,
        "util_share_at_or_above_80": f.util_share_at_or_above,
        "samples": f.samples,
        "duration_s": f.duration_s,
        "longest_gap_s": f.longest_gap_s,
        "total_gap_s": f.total_gap_s,
    }


def analyze(
    file: Annotated[
        Path, typer.Argument(help="The probe's CSV, nvidia-smi --query-gpu CSV output, or nvidia-smi dmon output.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    chart: Annotated[
        Path | None, typer.Option("--chart", help="Draw utilisation and memory over time into this PNG.")
    ] = None,
    card_gb: Annotated[
        float | None,
        typer.Option(
            "--card-gb",
            min=1,
            max=2048,
            metavar="GB",
            help="The card's memory in GB, for nvidia-smi dmon output (which has no total).",
        ),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Utilisation and memory figures of a capture, per GPU and overall, and the flags they imply."""
    from bot.capture.read import CaptureError, read
    from bot.fields.answers import flag
    from bot.text.errors import capture_error_text
    from rules.capture import figures, idle_gpus, implied_answers, per_gpu, whole_run_s

    settings = load_settings(lang=lang)
    policy = load_effective_policy(settings)
    try:
        readings = read(file, None if card_gb is None else card_gb * 1024, settings.samples.capture_max_bytes)
    except CaptureError as exc:
        error = capture_error_text(exc, settings.files.lang)
        raise fail(t("cli.capture_error", settings.files.lang, file=str(file), error=error)) from None
    tight = policy.two_of_four.memory_tight_fraction
    overall, gpus = figures(readings, policy.capture, tight), per_gpu(readings, policy.capture, tight)
    if chart is not None:
        from bot.capture.chart import draw

        try:
            draw(readings, chart, busy_pct=policy.capture.busy_pct, tight_fraction=tight, title=file.name)
        except (OSError, ValueError) as exc:
            raise fail(t("cli.capture_error", settings.files.lang, file=str(chart), error=str(exc))) from None
    run = whole_run_s(readings, policy.capture)
    implied = implied_answers(overall, run, tight)
    flags = " ".join(f"{flag(key)} {shlex.quote(text)}" for key, text in sorted(implied.items()))
    idle = idle_gpus(readings, policy.capture)
    if as_json:
        out = _figures_json(overall) | {
            "suggested_flags": flags,
            "run_duration_s": run,
            "idle_gpus": idle,
            "gpus": {str(g): _figures_json(f) for g, f in gpus.items()},
        }
        sys.stdout.write(json.dumps(out) + "\n")
        return
    from bot.text.capture import figure_lines

    sys.stdout.write("".join(line + "\n" for line in figure_lines(gpus, overall, settings.files.lang, idle)))
    sys.stdout.write(
        t(
            "cli.capture_verdict",
            settings.files.lang,
            continuity=t(f"word.continuity_{overall.continuity}", settings.files.lang),
            tight=t("cli.yes" if overall.memory_tight else "cli.no", settings.files.lang),
            flags=flags,
        )
        + "\n"
    )
    if "duration" not in implied:
        sys.stdout.write(t("capture.no_run", settings.files.lang) + "\n")
