from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def run_cli(*args: str, stdin: str = "", env: dict[str, str] | None = None,
            tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `gpu-advise` in a subprocess, as a user would, with a clean GPU_ADVISOR_* environment and an
    English (C.UTF-8) locale unless `env` gives another."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("GPU_ADVISOR_", "SLACK_", "LC_")) and k != "LANG"} | {"LANG": "C.UTF-8"}
    if tmp is not None:
        base["GPU_ADVISOR_DB"] = str(tmp / "advisor.db")
    base |= {"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"} | (env or {})
    return subprocess.run([sys.executable, "-m", "bot", *args], input=stdin, capture_output=True, text=True,
                          env=base, cwd=tmp or ROOT, timeout=60)
