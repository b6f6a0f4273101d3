"""One reading of every card: NVML first (nvidia-ml-py; NVIDIA recommends it over parsing nvidia-smi,
whose output format is not guaranteed), else `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, else
the first domestic card tool the box has: Huawei Ascend's `npu-smi info`, Hygon's `hy-smi`, Cambricon's `cnmon`,
Moore Threads' `mthreads-gmi`, Kunlunxin's `xpu-smi` (a module each in bot/agent/). `--source` forces one of
READERS."""

from __future__ import annotations

import functools
import importlib
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from bot.agent.errors import NoGPU

__all__ = ["READERS", "NoGPU", "cards", "sample"]

# The query, with power.draw added for the heartbeat's optional power_w.
QUERY = "timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw"
SMI_TIMEOUT_S = 30


def _number(text: str) -> float | None:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return None  # "[N/A]", "[Not Supported]"
    return value if math.isfinite(value) else None  # inf and nan are no reading


def _nvml(now: datetime) -> list[dict[str, Any]]:
    import pynvml  # nvidia-ml-py

    pynvml.nvmlInit()
    try:
        out = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            try:
                power: float | None = pynvml.nvmlDeviceGetPowerUsage(handle) / 1000  # milliwatts
            except pynvml.NVMLError:
                power = None
            name = pynvml.nvmlDeviceGetName(handle)
            out.append(
                {
                    "ts": now.isoformat(),
                    "gpu": index,
                    "name": name.decode() if isinstance(name, bytes) else str(name),
                    "utilization_pct": float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu),
                    "memory_used_mib": memory.used / 2**20,
                    "memory_total_mib": memory.total / 2**20,
                    "power_w": power,
                }
            )
        return out
    finally:
        pynvml.nvmlShutdown()


def _nvidia_smi(now: datetime) -> list[dict[str, Any]]:
    binary = shutil.which("nvidia-smi")
    if binary is None:
        raise NoGPU("no_driver")
    try:
        done = subprocess.run(
            [binary, f"--query-gpu={QUERY}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            errors="replace",  # a stray byte is a line the reader refuses (smi_line), never a traceback
            timeout=SMI_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:  # a hung driver: say so, rather than wait for ever
        raise NoGPU("smi_timeout", seconds=SMI_TIMEOUT_S) from None
    if done.returncode != 0:
        raise NoGPU("smi_failed", exit_code=done.returncode, output=(done.stderr or done.stdout).strip()[:200])
    out = []
    for line_no, line in enumerate(done.stdout.splitlines(), start=1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        numbers = [_number(c) for c in cells[1:2] + cells[3:]]  # timestamp and name are not numbers
        if len(cells) != 7 or any(n is None for n in numbers[:4]):
            raise NoGPU("smi_line", line=line_no, expected=QUERY, text=line.strip()[:120])
        index, util, used, total, power = numbers
        assert index is not None and util is not None and used is not None and total is not None
        out.append(
            {
                "ts": now.isoformat(),
                "gpu": int(index),
                "name": cells[2],
                "utilization_pct": util,
                "memory_used_mib": used,
                "memory_total_mib": total,
                "power_w": power,
            }
        )
    if not out:
        raise NoGPU("smi_empty")
    return out


def sample(now: datetime | None = None, source: str | None = None, *, named: bool = False) -> list[dict[str, Any]]:
    """Every card's utilisation, memory and power now, as /api/heartbeat takes them (`named`: with the card's
    name too, as the probe's capture keeps it). `source`: one reader (READERS) instead of finding which the box
    has."""
    read = _read(now or datetime.now(UTC), source)
    return read if named else [{k: v for k, v in r.items() if k != "name"} for r in read]


def cards(source: str | None = None) -> list[dict[str, Any]]:
    """Every card's index, name and memory, as /api/enroll takes them ("NVIDIA A100-SXM4-80GB", 81920)."""
    return [
        {"index": r["gpu"], "name": r["name"], "memory_total_mib": r["memory_total_mib"]}
        for r in _read(datetime.now(UTC), source)
    ]


def _domestic(tool: str) -> Callable[[datetime], list[dict[str, Any]]]:
    """The reader of a domestic card's tool, its module imported when first used."""

    def read(moment: datetime) -> list[dict[str, Any]]:
        module = importlib.import_module(f"bot.agent.{tool.replace('-', '_')}")
        return cast(list[dict[str, Any]], module.read(moment))

    return read


# The domestic cards' tools, in the order a box without NVIDIA's is tried.
DOMESTIC = ("npu-smi", "hy-smi", "cnmon", "mthreads-gmi", "xpu-smi")
READERS: dict[str, Callable[[datetime], list[dict[str, Any]]]] = {
    "nvml": _nvml,
    "nvidia-smi": _nvidia_smi,
    **{tool: _domestic(tool) for tool in DOMESTIC},
}


MAX_CARDS = 64  # more cards than any one box holds (16 is the most a node carries today): a tool's output gone wrong


def _read(moment: datetime, source: str | None = None) -> list[dict[str, Any]]:
    """Every card's reading, at most MAX_CARDS of them (NoGPU too_many_cards: one line, nothing buffered)."""
    found = _read_any(moment, source)
    cards = {r["gpu"] for r in found}
    if len(found) > MAX_CARDS or len(cards) > MAX_CARDS:
        raise NoGPU("too_many_cards", count=len(found), most=MAX_CARDS)
    return found


def _read_any(moment: datetime, source: str | None = None) -> list[dict[str, Any]]:
    """The forced reader, else NVML, else nvidia-smi, else the first domestic tool on PATH (a box with Ascend,
    Hygon, Cambricon, Moore Threads or Kunlunxin cards has no NVIDIA tool)."""
    if source is not None:
        if source == "nvml":
            try:
                import pynvml
            except ImportError:
                raise NoGPU("no_tool", tool="nvml (pip install nvidia-ml-py)") from None
            try:
                return _nvml(moment)
            except pynvml.NVMLError as exc:
                raise NoGPU("tool_failed", tool="nvml", exit_code="-", output=str(exc)[:200]) from None
        return READERS[source](moment)
    try:
        return _nvidia(moment)
    except NoGPU as nvidia:
        tool = next((t for t in DOMESTIC if shutil.which(t) is not None), None)
        if nvidia.code != "no_driver":
            raise
        if tool is None:  # nothing of any maker's: say every tool looked for, not only NVIDIA's
            raise NoGPU("no_card_tool", tools=", ".join(("nvidia-smi", *DOMESTIC))) from None
        return READERS[tool](moment)


@functools.cache
def _no_nvml_library() -> bool:
    """On Linux, whether NVML's library is absent (no NVIDIA driver, or a container without it), asked of the dynamic
    loader before pynvml is imported: pynvml's module is 4 MB of the agent's memory on a box whose memory is the
    user's, for nothing where nvidia-smi or a domestic card's tool answers. Elsewhere pynvml is asked."""
    if sys.platform != "linux":
        return False
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")  # the name pynvml loads
    except OSError:
        return True
    return False


def _nvidia(moment: datetime) -> list[dict[str, Any]]:
    if _no_nvml_library():
        return _nvidia_smi(moment)
    try:
        import pynvml
    except ImportError:
        return _nvidia_smi(moment)
    try:
        return _nvml(moment)
    except pynvml.NVMLError:  # no driver, no device: nvidia-smi may still say why
        return _nvidia_smi(moment)
