"""Running a vendor's card tool (npu-smi, hy-smi, cnmon, mthreads-gmi, xpu-smi) the same way for every reader:
found on PATH, bounded in time, its failure said as NoGPU with the tool's own exit code and words."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from bot.agent.errors import NoGPU

TIMEOUT_S = 30


def output_of(tool: str, *args: str) -> str:
    """What `tool args` printed on stdout (NoGPU no_tool, tool_timeout or tool_failed otherwise)."""
    binary = shutil.which(tool)
    if binary is None:
        raise NoGPU("no_tool", tool=tool)
    try:
        done = subprocess.run([binary, *args], capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise NoGPU("tool_timeout", tool=tool, seconds=TIMEOUT_S) from None
    if done.returncode != 0:
        said = decoded(done.stderr or done.stdout, tool, strict=False)
        raise NoGPU("tool_failed", tool=tool, exit_code=done.returncode, output=said.strip()[:200])
    return decoded(done.stdout, tool)


def decoded(raw: bytes, tool: str, *, strict: bool = True) -> str:
    """A tool's output as text: UTF-8, else GB18030 (a tool localised for Chinese prints GBK); neither is NoGPU
    tool_encoding naming the first byte neither reads (`strict` False: what cannot be read shown as \ufffd)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        try:
            return raw.decode("gb18030")
        except UnicodeDecodeError:
            if not strict:
                return raw.decode("utf-8", errors="replace")
            raise NoGPU("tool_encoding", tool=tool, offset=exc.start, byte=f"0x{raw[exc.start]:02x}") from None


def on_path(tool: str) -> bool:
    return shutil.which(tool) is not None


_TO_MIB = {"B": 1 / 1048576, "KIB": 1 / 1024, "KB": 1 / 1024, "MIB": 1.0, "MB": 1.0, "GIB": 1024.0, "GB": 1024.0}


def in_mib(amount: float, unit: str) -> float | None:
    """`amount` of `unit` (B, KiB, MiB, GiB; the tools' MB meaning MiB) in MiB, or None for a unit not known."""
    factor = _TO_MIB.get(unit.strip().upper())
    return None if factor is None else amount * factor


def reading(
    now_iso: str, gpu: int, name: str, utilization: float, used_mib: float, total_mib: float, power_w: float | None
) -> dict[str, object]:
    """One card's reading in the shape every reader gives (the heartbeat's sample, with the card's name)."""
    return {
        "ts": now_iso,
        "gpu": gpu,
        "name": name,
        "utilization_pct": min(max(utilization, 0.0), 100.0),
        "memory_used_mib": used_mib,
        "memory_total_mib": total_mib,
        "power_w": power_w,
    }


def json_of(text: str, tool: str) -> dict[str, Any]:
    """The JSON object a tool printed (after any warning lines before it); NoGPU tool_line naming the line where
    it is not one."""
    start = text.find("{")
    try:
        document = json.loads(text[start:]) if start >= 0 else None
    except (json.JSONDecodeError, RecursionError) as exc:
        line = text[:start].count("\n") + getattr(exc, "lineno", 1)
        lines = text.splitlines()
        shown = lines[line - 1][:120] if 0 < line <= len(lines) else "(the output ends there)"
        raise NoGPU("tool_line", tool=tool, line=line, text=shown) from None
    if not isinstance(document, dict):
        raise NoGPU("tool_line", tool=tool, line=1, text=(text.strip().splitlines() or [""])[0][:120])
    return document
