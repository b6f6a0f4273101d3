"""What a piece of code imports, run in a fresh interpreter: for the tests that keep heavy modules off a path."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.cli import ROOT

_REPORT = "import atexit, json, sys\natexit.register(lambda: print('\\n' + json.dumps(sorted(sys.modules))))\n"


def imported_by(code: str, *prefixes: str) -> tuple[list[str], str]:
    """Run `code` from the repository's root in a new process: the modules starting with one of `prefixes` it had
    imported when it ended (at exit: a SystemExit of the code still reports), and what it printed before. An error
    of the code fails the calling test with its traceback's end."""
    result = subprocess.run([sys.executable, "-c", _REPORT + code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    said, _, report = result.stdout.rstrip().rpartition("\n")
    return [name for name in json.loads(report) if name.startswith(prefixes)], said
