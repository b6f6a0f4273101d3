"""One reading of every GPU: NVML first (nvidia-ml-py; NVIDIA recommends it over parsing nvidia-smi,
whose output format is not guaranteed), else `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`."""

from __future__ import annotations

import math
import shutil
import subprocess
from datetime import UTC, datetime
from typing import Any

# The query, with power.draw added for the heartbeat's optional power_w.
QUERY = "timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw"
SMI_TIMEOUT_S = 30


class NoGPU(RuntimeError):
    """Neither NVML nor nvidia-smi could read a GPU: why, as a `code` the catalogue words (gpu.<code>) and
    its `params`, so the person is told in their language."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(f"{code}: {params}" if params else code)
        self.code, self.params = code, params


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


def sample(now: datetime | None = None) -> list[dict[str, Any]]:
    """Every GPU's utilisation, memory and power now, as /api/heartbeat takes them."""
    return [{k: v for k, v in reading.items() if k != "name"} for reading in _read(now or datetime.now(UTC))]


def cards() -> list[dict[str, Any]]:
    """Every GPU's index, name and memory, as /api/enroll takes them ("NVIDIA A100-SXM4-80GB", 81920)."""
    return [
        {"index": r["gpu"], "name": r["name"], "memory_total_mib": r["memory_total_mib"]}
        for r in _read(datetime.now(UTC))
    ]


def _read(moment: datetime) -> list[dict[str, Any]]:
    try:
        import pynvml
    except ImportError:
        return _nvidia_smi(moment)
    try:
        return _nvml(moment)
    except pynvml.NVMLError:  # no driver, no device: nvidia-smi may still say why
        return _nvidia_smi(moment)
