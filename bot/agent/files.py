"""Where the agent keeps its files unless told otherwise: the user's state directory (the XDG base directory
specification's `$XDG_STATE_HOME/gpu-advisor/`, else `~/.local/state/gpu-advisor/`), never the folder it was
started in, so running it from a checkout or a job's folder leaves nothing there."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

STATE_FILE = "agent.json"
BUFFER_FILE = "agent.buffer.jsonl"


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/gpu-advisor`, else `~/.local/state/gpu-advisor` (a relative XDG_STATE_HOME is ignored, as
    the specification says)."""
    given = (os.environ if environ is None else environ).get("XDG_STATE_HOME", "")
    base = Path(given) if given and os.path.isabs(given) else Path.home() / ".local" / "state"
    return base / "gpu-advisor"


def default_path(name: str) -> Path:
    """The agent's file `name` in the state directory, which is made (0700) if it is not there yet. A folder that
    cannot be made is left to the checks that follow (the buffer's, the state file's), which say why."""
    folder = state_dir()
    with contextlib.suppress(OSError):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder / name
