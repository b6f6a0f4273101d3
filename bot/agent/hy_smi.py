"""Hygon DCU cards through `hy-smi` (Hygon's build of rocm-smi, in the DTK), asked for JSON:

    hy-smi --showuse --showmemuse --showmeminfo vram --showpower --showproductname --json

answers one object per card, `{"card0": {"DCU use (%)": "92", "vram Total Memory (MiB)": "65520",
"vram Total Used Memory (MiB)": "12", "Average Graphics Package Power (W)": "132.0", "Card Series": "K100_AI"}}`.
The memory's unit is in its key (MiB in DTK 24.04, bytes, "(B)", in older builds), so it is read from the key;
HCU is what some builds call the compute unit ("HCU use (%)"). Keys other than cardN (a "system" entry) are
not cards. Output that is no JSON, or a card without its use or memory, is one error naming what is missing."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.tool_run import in_mib, json_of, output_of, reading

TOOL = "hy-smi"
ARGS = ("--showuse", "--showmemuse", "--showmeminfo", "vram", "--showpower", "--showproductname", "--json")
_CARD = re.compile(r"^card(\d+)$")
_USE = re.compile(r"^[DHG]CU use \(%\)$", re.IGNORECASE)
_USED = re.compile(r"^vram Total Used Memory \((\w+)\)$", re.IGNORECASE)
_TOTAL = re.compile(r"^vram Total Memory \((\w+)\)$", re.IGNORECASE)
_POWER = re.compile(r"^(?:Average|Current Socket) Graphics Package Power \(W\)$", re.IGNORECASE)
_NAMES = ("Card Series", "Card series", "Card SKU", "Card model")


def read(now: datetime) -> list[dict[str, Any]]:
    return parse(output_of(TOOL, *ARGS), now)


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    cards = json_of(text, TOOL)
    out = []
    for key, fields in cards.items():
        found = _CARD.match(key)
        if found is None or not isinstance(fields, dict):
            continue
        out.append(_card(int(found.group(1)), key, fields, now))
    if not out:
        raise NoGPU("tool_empty", tool=TOOL)
    return sorted(out, key=lambda r: r["gpu"])


def _card(index: int, key: str, fields: dict[str, Any], now: datetime) -> dict[str, Any]:
    use = _number(fields, _USE)
    used, total = _memory(fields, _USED), _memory(fields, _TOTAL)
    if use is None:
        raise NoGPU("tool_field", tool=TOOL, card=key, field="DCU use (%)")
    if used is None or total is None or total <= 0:
        raise NoGPU("tool_field", tool=TOOL, card=key, field="vram Total Memory / vram Total Used Memory")
    series = next((str(fields[n]).strip() for n in _NAMES if str(fields.get(n, "")).strip()), "DCU")
    return reading(now.isoformat(), index, f"Hygon {series}", use, used, total, _number(fields, _POWER))


def _field(fields: dict[str, Any], key: re.Pattern[str]) -> tuple[re.Match[str], float] | None:
    """The first field whose name matches `key`, and its value as a number (None: no such field, or no number)."""
    for name, value in fields.items():
        if found := key.match(name.strip()):
            try:
                return found, float(str(value).strip().rstrip("%W").strip())
            except ValueError:
                return None
    return None


def _number(fields: dict[str, Any], key: re.Pattern[str]) -> float | None:
    got = _field(fields, key)
    return got[1] if got else None


def _memory(fields: dict[str, Any], key: re.Pattern[str]) -> float | None:
    """A memory field in MiB, its unit read from its name ("vram Total Memory (B)")."""
    got = _field(fields, key)
    return in_mib(got[1], got[0].group(1)) if got else None
