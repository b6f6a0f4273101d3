"""Moore Threads cards through `mthreads-gmi -q` (its full query): as JSON where the build takes `--json`, else
as the text every build prints. The JSON form:

    {"Driver Version": "2.7.0", "GPU": [{"Index": "0", "Product Name": "MTT S4000",
      "FB Memory Usage": {"Total": "49152MiB", "Used": "3MiB"}, "Utilization": {"Gpu": "0%"},
      "Power Readings": {"Power Draw": "75.00W"}}]}

The text form prints the same keys as indented `Key : Value` lines under section headers (read by
bot/agent/query_text.py into the same mapping). Sources for both layouts: a recorded `mthreads-gmi --query
--json` of eight MTT S5000 (a public Go collector's test data: "Driver Version" at the top, "Power Draw " with
a trailing space, "MiB", "%", "C" and "W" suffixes); Moore Threads' own scripts reading the text form
(MooreThreads/torch_musa's build scripts: `mthreads-gmi -q -i 0 | grep "Product Name" | awk -F:` giving
"MTT S4000"; their musa_deploy checker's tests: lines "Driver Version: 1.0.0", "MTBios Version: 3.4.3",
"Total: 49152MiB", "Product Name: MTT S4000", and "Error: No MT GPU device found." on a box without a card).

Keys are matched without their surrounding spaces. Output that is neither form, or a card without its
utilisation or memory, is one error naming what is missing. A build that refuses `--json` is asked the text
form from then on."""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.query_text import as_tree
from bot.agent.tool_run import in_mib, json_of, output_of, reading

TOOL = "mthreads-gmi"
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")


_NO_CARD = re.compile(r"^\s*Error\s*:\s*No MT GPU device found", re.IGNORECASE | re.MULTILINE)
_TEXT_ONLY: set[str] = set()  # the builds (by path) that refused --json: asked `-q` alone from then on


def read(now: datetime) -> list[dict[str, Any]]:
    binary = shutil.which(TOOL) or TOOL
    if binary not in _TEXT_ONLY:
        try:
            return parse(output_of(TOOL, "-q", "--json"), now)
        except NoGPU as exc:
            if exc.code != "tool_failed":
                raise
            _TEXT_ONLY.add(binary)  # an older build: "unknown option --json"; its text form holds the same
    return parse(output_of(TOOL, "-q"), now)


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    """The cards of one full query, in either form (a capture may hold either)."""
    if _NO_CARD.search(text):
        raise NoGPU("tool_empty", tool=TOOL)
    is_json = any(line.lstrip().startswith("{") for line in text.splitlines())  # no text line starts so
    document = json_of(text, TOOL) if is_json else as_tree(text)
    gpus = _field(document, "GPU")
    if gpus is None and not is_json:
        gpus = _one_card(document)
    if isinstance(gpus, dict):
        gpus = [gpus]  # one card: some builds print the object itself
    if not isinstance(gpus, list):
        raise NoGPU("tool_line", tool=TOOL, line=1, text=(text.strip().splitlines() or [""])[0][:120])
    out = [_card(position, gpu, now) for position, gpu in enumerate(gpus) if isinstance(gpu, dict)]
    if not out:
        raise NoGPU("tool_empty", tool=TOOL)
    return out


def _one_card(tree: dict[str, Any]) -> dict[str, Any] | None:
    """A query of one card printed without a `GPU …` header: its keys at the top."""
    return tree if _field(tree, "FB Memory Usage") is not None else None


def _card(position: int, gpu: dict[str, Any], now: datetime) -> dict[str, Any]:
    index = _field(gpu, "Index")
    card = str(index if index is not None else position)
    utilization = _percent(_field(_field(gpu, "Utilization"), "Gpu"))
    if utilization is None:
        raise NoGPU("tool_field", tool=TOOL, card=card, field="Utilization / Gpu")
    memory = _field(gpu, "FB Memory Usage")
    used, total = _mib(_field(memory, "Used")), _mib(_field(memory, "Total"))
    if used is None or total is None or total <= 0:
        raise NoGPU("tool_field", tool=TOOL, card=card, field="FB Memory Usage / Total, Used")
    power = _amount(_field(_field(gpu, "Power Readings"), "Power Draw"))
    name = str(_field(gpu, "Product Name") or "Moore Threads GPU").strip()
    gpu_index = int(card) if card.isdigit() else position
    return reading(now.isoformat(), gpu_index, name, utilization, used, total, power[0] if power else None)


def _field(value: Any, name: str) -> Any:
    if not isinstance(value, dict):
        return None
    return next((v for k, v in value.items() if str(k).strip().lower() == name.lower()), None)


def _amount(value: Any) -> tuple[float, str] | None:
    found = _AMOUNT.match(str(value)) if value is not None else None
    return (float(found.group(1)), found.group(2)) if found else None


def _mib(value: Any) -> float | None:
    amount = _amount(value)
    return in_mib(amount[0], amount[1] or "MiB") if amount else None


def _percent(value: Any) -> float | None:
    found = _PERCENT.match(str(value)) if value is not None else None
    return float(found.group(1)) if found else None
