"""Cambricon MLU cards through `cnmon info -u -m -p` (utilisation, memory and power), a block a card:

    Card 0
        Product Name                   : MLU370-X8
        Utilization
            MLU Average                : 37 %
        Physical Memory Usage
            Total                      : 24576 MiB
            Used                       : 8950 MiB
        Virtual Memory Usage
            Total                      : 1048576 MiB
        Power
            Usage                      : 61 W

A card begins at its "Card N" line; a line without a value ("Physical Memory Usage", or one ending in a bare
colon) opens a section, so the physical memory is read, never the virtual one. A card without its MLU Average or
physical memory is one error naming what is missing; a line that is neither a card, a section nor `key : value`
is one error naming the line.

On the box, each card also has its device node, `/dev/cambricon_dev<N>` (the path Cambricon's Kubernetes device
plugin mounts: cambricon-k8s-device-plugin, device-plugin/pkg/mlu/const.go). Output cut short between two cards
reads whole cards only, so `read` compares the cards read with the nodes and names the ones cnmon left out
(gpu.tool_missing: "cnmon printed 1 of the 2 cards this box has …: Card 1 missing") rather than report half a
box."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.tool_run import in_mib, output_of, reading

TOOL = "cnmon"
_CARD = re.compile(r"^Card\s*:?\s*(\d+)$", re.IGNORECASE)
_PAIR = re.compile(r"^([A-Za-z][^:]*?)\s*:\s*(.*)$")
_AMOUNT = re.compile(r"^(\d+(?:\.\d+)?)\s*([A-Za-z%]*)")
_SECTION = re.compile(r"^[A-Za-z][A-Za-z0-9 /()-]*$")


DEVICES = Path("/dev")
_NODE = re.compile(r"^cambricon_dev(\d+)$")


def read(now: datetime, devices: Path = DEVICES) -> list[dict[str, Any]]:
    cards = parse(output_of(TOOL, "info", "-u", "-m", "-p"), now)
    missing = sorted(nodes(devices) - {card["gpu"] for card in cards})
    if missing:
        said = ", ".join(f"Card {n}" for n in missing)
        raise NoGPU("tool_missing", tool=TOOL, read=len(cards), of=len(cards) + len(missing), missing=said)
    return cards


def nodes(devices: Path) -> set[int]:
    """The card numbers of the box's `cambricon_dev<N>` nodes (none where the folder cannot be listed)."""
    try:
        return {int(m.group(1)) for entry in devices.iterdir() if (m := _NODE.match(entry.name))}
    except OSError:
        return set()


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    section = ""
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or set(stripped) <= set("-=+*"):
            continue
        if found := _CARD.match(stripped):
            cards.append({"gpu": int(found.group(1)), "line": line_no})
            section = ""
            continue
        pair = _PAIR.match(stripped)
        if not cards:
            continue  # what cnmon prints before the first card (its version, the time)
        if pair is None and not _SECTION.match(stripped):
            raise NoGPU("tool_line", tool=TOOL, line=line_no, text=stripped[:120])
        if pair is None or not pair.group(2).strip():
            section = (pair.group(1) if pair else stripped).strip().lower()
            continue
        _take(cards[-1], section, pair.group(1).strip().lower(), pair.group(2).strip())
    if not cards:
        raise NoGPU("tool_empty", tool=TOOL)
    return [_reading(card, now) for card in cards]


def _take(card: dict[str, Any], section: str, key: str, value: str) -> None:
    amount = _AMOUNT.match(value)
    if key == "product name":
        card["name"] = value
    elif key == "mlu average" and amount:
        card["utilization"] = float(amount.group(1))
    elif section.startswith("physical memory") and key in ("total", "used") and amount:
        card[key] = in_mib(float(amount.group(1)), amount.group(2) or "MiB")
    elif section.startswith("power") and key == "usage" and amount and amount.group(2).upper() == "W":
        card["power"] = float(amount.group(1))


def _reading(card: dict[str, Any], now: datetime) -> dict[str, Any]:
    label = f"Card {card['gpu']}"
    if "utilization" not in card:
        raise NoGPU("tool_field", tool=TOOL, card=label, field="Utilization / MLU Average")
    used, total = card.get("used"), card.get("total")
    if used is None or not total:
        raise NoGPU("tool_field", tool=TOOL, card=label, field="Physical Memory Usage / Total, Used")
    name = f"Cambricon {card.get('name', 'MLU')}"
    return reading(now.isoformat(), card["gpu"], name, card["utilization"], used, total, card.get("power"))
