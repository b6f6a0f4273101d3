"""`gpu-advise probe`: sample every GPU every `--interval` seconds for `--duration`, into a CSV that
`analyze` reads (the articles' step 2: run the job 20 minutes, sample every 5 seconds).

Rows are written and flushed as they come, so Ctrl-C keeps what was sampled.
"""

from __future__ import annotations

import csv
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.agent import SourceOpt
from bot.cli.common import LangOpt, fail, load_settings
from bot.text import t

# the card's name last: a reader of the capture finds its model there (an Ascend 910B2, an A100-SXM4-80GB)
COLUMNS = ("timestamp", "gpu", "utilization_pct", "memory_used_mib", "memory_total_mib", "power_w", "name")
UNITS = {"s": 1, "m": 60, "h": 3600, "": 1}


def parse_seconds(text: str) -> float | None:
    """'30s', '20m', '1h', '1.5h' or bare seconds -> seconds; None when it is none of those."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|h|)\s*", text.lower())
    return float(found[1]) * UNITS[found[2]] if found else None


def probe(
    interval: Annotated[
        float, typer.Option("--interval", min=0.1, max=3600, metavar="SECONDS", help="Seconds between samples.")
    ] = 5,
    duration: Annotated[str, typer.Option("--duration", help="How long: 30s, 20m, 1h.")] = "20m",
    output: Annotated[
        Path | None, typer.Option("--output", help="The CSV to write (default gpu-probe-<time>.csv).")
    ] = None,
    source: SourceOpt = None,
    lang: LangOpt = None,
) -> None:
    """Sample this box's cards (NVML, nvidia-smi or a domestic card's tool) into a CSV for `gpu-advise analyze`."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from bot.agent.sampler import NoGPU, sample

    settings = load_settings(lang=lang)
    seconds = parse_seconds(duration)
    if seconds is None or not 1 <= seconds <= 7 * 86400:
        raise fail(t("cli.probe_bad_duration", settings.files.lang, text=duration))
    path = output or Path(f"gpu-probe-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.csv")
    try:
        first = sample(source=source, named=True)
    except NoGPU as exc:
        reason = t(f"gpu.{exc.code}", settings.files.lang, **exc.params)
        # the NVIDIA hint only where NVIDIA's driver or nvidia-smi was what failed; a domestic card's tool is named
        key = "cli.probe_no_gpu" if exc.code.startswith(("smi_", "no_driver", "no_card")) else "cli.no_card_read"
        raise fail(t(key, settings.files.lang, reason=reason)) from None
    rows = 0
    try:
        handle = path.open("w", newline="", encoding="utf-8")
    except OSError as exc:  # a folder, a missing folder, /proc, a name too long, no permission
        raise fail(
            t("cli.probe_cannot_write", settings.files.lang, path=str(path), reason=exc.strerror or type(exc).__name__)
        ) from None
    with (
        handle,
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TimeRemainingColumn(),
            transient=True,
            console=None,
            disable=not sys.stderr.isatty(),
        ) as bar,
    ):
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        task = bar.add_task("", total=seconds)
        start = time.monotonic()
        batch = first
        try:
            while True:
                for s in batch:
                    writer.writerow(
                        {
                            "timestamp": s["ts"],
                            "gpu": s["gpu"],
                            "utilization_pct": s["utilization_pct"],
                            "memory_used_mib": round(s["memory_used_mib"], 1),
                            "memory_total_mib": round(s["memory_total_mib"], 1),
                            "power_w": s["power_w"],
                            "name": s.get("name") or "",
                        }
                    )
                    rows += 1
                handle.flush()
                live = " · ".join(
                    f"GPU{s['gpu']} {s['utilization_pct']:.0f}% "
                    f"{s['memory_used_mib'] / 1024:.1f}/{s['memory_total_mib'] / 1024:.0f} GiB"
                    for s in batch
                )
                bar.update(task, completed=min(time.monotonic() - start, seconds), description=live)
                if time.monotonic() - start + interval > seconds:
                    break
                time.sleep(interval)
                batch = sample(source=source, named=True)
        except KeyboardInterrupt:
            pass  # Ctrl-C ends the capture early: every row written so far is kept (and flushed)
    sys.stdout.write(t("cli.probe_done", settings.files.lang, rows=rows, path=str(path)) + "\n")
