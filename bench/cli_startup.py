"""Start-up benchmark: `gpu-advise advise ... --json` beside importing the CLI's own libraries.

Each round runs, in fresh processes and in turn, the baseline `python -c "import typer, pydantic,
yaml, jinja2, rich"`; a floor that also defines two pydantic models and builds one of each
(what a CLI on those libraries pays before its own code); a typer floor, a typer command with
advise's 25 options that does nothing (its own cost of running that command: typer 0.29 built a
pydantic TypeAdapter for every option at each run, 1.1-1.4x the baseline by itself, hence
pyproject's typer<0.29); and the advisor answering from flags as JSON. Bytecode is written by the
warm-up run, as a wheel install has it. The figure is the median of the per-round ratios (advise /
baseline), so a noisy moment slows both sides of a pair. Goal: at most 1.5x.

With --others, each other command is also set beside the floor that does what it must do besides its own work
(like for like, as issue 50 asks of every floor): a command that reads the settings and the price cache builds
pydantic models (the pydantic floor), one that reads the team's state also opens it through SQLAlchemy Core, as the
project's rules have it (the state floor: the pydantic floor, then SQLAlchemy imported, a SQLite engine made, a
table declared and one select run); `--help` and `discover --help` read neither (the baseline).

    python bench/cli_startup.py [--rounds 30] [--others]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
GOAL = 1.5
BASELINE = "import typer, pydantic, yaml, jinja2, rich"
PYDANTIC_FLOOR = (
    BASELINE + "\nfrom pydantic import BaseModel\n"
    "class Answer(BaseModel):\n    hours: float\n"
    "class Settings(BaseModel):\n    lang: str = 'zh'\nSettings(); Answer(hours=3)"
)
TYPER_FLOOR = (
    "import typer\nfrom typing import Annotated\napp = typer.Typer()\n@app.callback()\n"
    "def main() -> None: pass\n@app.command()\ndef advise("
    + ", ".join(f"o{i}: Annotated[str | None, typer.Option()] = None" for i in range(24))
    + ", j: Annotated[bool, typer.Option('--json')] = False) -> None: pass\n"
    "app(['advise', '--o1', '3h', '--o2', 'no', '--json'])"
)
STATE_FLOOR = (
    PYDANTIC_FLOOR + "\nimport sqlalchemy as sa, sys\nmeta = sa.MetaData()\n"
    "items = sa.Table('items', meta, sa.Column('id', sa.Integer, primary_key=True), sa.Column('team', sa.Text))\n"
    "engine = sa.create_engine('sqlite:///' + sys.argv[1])\nmeta.create_all(engine)\n"
    "with engine.connect() as c:\n    c.execute(sa.select(items).where(items.c.team == 'T1')).all()"
)
ADVISE = [
    "-m",
    "bot",
    "advise",
    "--duration",
    "3h",
    "--memory-peak",
    "no",
    "--model-parallel",
    "no",
    "--frequency",
    "daily",
    "--can-resume",
    "yes",
    "--workload",
    "lora",
    "--json",
]

# the other commands whose start people wait for (issue 50): help, a quote from the bundled rate card, the lists;
# each with its like-for-like floor (the module's docstring)
OTHERS = {
    "--help": (["-m", "bot", "--help"], "baseline"),
    "quote": (
        ["-m", "bot", "quote", "--gpu", "A100-80GB", "--hours-per-day", "4", "--days", "14", "--share", "1/2"],
        "pydantic",
    ),
    "list": (["-m", "bot", "list", "--team", "T1"], "state"),
    "report": (["-m", "bot", "report", "--team", "T1", "--json"], "state"),
    "discover --help": (["-m", "bot", "discover", "--help"], "baseline"),
    "prices list": (["-m", "bot", "prices", "list"], "pydantic"),
}


def timed(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--others", action="store_true", help="also --help, quote, list, report, prices list, ...")
    args = parser.parse_args()
    rounds = args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        # PYTHONDONTWRITEBYTECODE (set on some machines) would make every run compile our sources again, which
        # an installed wheel never does: the warm-up below writes the bytecode, as pip does at install time
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GPU_ADVISOR_", "SLACK_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        env["GPU_ADVISOR_DB"] = str(Path(tmp) / "bench.db")
        timed(ADVISE, env)  # warm the file cache and write the bytecode once, outside the figures
        base, floor, typer_floor, state_floor, advise = [], [], [], [], []
        others: dict[str, list[float]] = {name: [] for name in OTHERS} if args.others else {}
        state = ["-c", STATE_FLOOR, str(Path(tmp) / "floor.db")]
        for command in others:
            timed(OTHERS[command][0], env)  # their bytecode and the state written once, outside the figures
        if others:
            timed(state, env)
        for _ in range(rounds):
            base.append(timed(["-c", BASELINE], env))
            floor.append(timed(["-c", PYDANTIC_FLOOR], env))
            typer_floor.append(timed(["-c", TYPER_FLOOR], env))
            if others:
                state_floor.append(timed(state, env))
            advise.append(timed(ADVISE, env))
            for command, took in others.items():
                took.append(timed(OTHERS[command][0], env))
    ratios = [a / b for a, b in zip(advise, base, strict=True)]
    floor_ratios = [f / b for f, b in zip(floor, base, strict=True)]
    typer_ratios = [f / b for f, b in zip(typer_floor, base, strict=True)]
    ratio = statistics.median(ratios)
    print(f"rounds: {rounds}")
    print(f"baseline  ({BASELINE}): median {statistics.median(base) * 1000:.0f} ms")
    print(
        f"floor     (+ two pydantic models built): median "
        f"{statistics.median(floor) * 1000:.0f} ms, {statistics.median(floor_ratios):.2f}x the baseline"
    )
    print(
        f"typer     (a command with advise's 25 options, doing nothing): median "
        f"{statistics.median(typer_floor) * 1000:.0f} ms, {statistics.median(typer_ratios):.2f}x the baseline"
    )
    print(
        f"advise --json: median {statistics.median(advise) * 1000:.0f} ms, {ratio:.2f}x the baseline "
        f"(goal at most {GOAL}x: {'met' if ratio <= GOAL else 'not met'})"
    )
    if others:
        state_ratios = [f / b for f, b in zip(state_floor, base, strict=True)]
        print(
            f"state     (the pydantic floor + SQLAlchemy, a SQLite engine, one select): median "
            f"{statistics.median(state_floor) * 1000:.0f} ms, {statistics.median(state_ratios):.2f}x the baseline"
        )
    floors = {"baseline": base, "pydantic": floor, "state": state_floor}
    for command, took in others.items():
        each = statistics.median([a / b for a, b in zip(took, base, strict=True)])
        name = OTHERS[command][1]
        alike = statistics.median([a / b for a, b in zip(took, floors[name], strict=True)])
        print(
            f"{command}: median {statistics.median(took) * 1000:.0f} ms, {each:.2f}x the baseline, "
            f"{alike:.2f}x its like-for-like floor ({name}; goal at most {GOAL}x: "
            f"{'met' if alike <= GOAL else 'not met'})"
        )


if __name__ == "__main__":
    main()
