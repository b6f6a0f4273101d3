"""What a stop came to, as the cloud or the box said after it (issue 49), for `gpu-advise actions --json`: stopped
without charge, stopped but still billed (its money an hour, and that only a release at the provider stops it),
refused (the cloud's reason) or still running (the stop did not take: its reason). "Saved" is only the first."""

from __future__ import annotations

from typing import Any

from bot.state.actions import Warning
from bot.state.rentals import Instance
from bot.text import Lang, t
from rules import metering


def outcome(warning: Warning, inst: Instance | None, lang: Lang) -> dict[str, Any] | None:
    """The verified outcome of a stop that was made or refused; None for a warning still open or cancelled. The
    hint is in `lang`, the terminal's."""
    if warning.status == "stopped":
        if inst is not None and metering.keeps(inst):  # stopped with its meter running (keep-charging, a period item)
            return {
                "outcome": "stopped_still_billed",
                "per_hour": round(metering.per_hour(inst), 2),
                "currency": inst.currency,
                "hint": t("action.release_hint", lang),
            }
        return {"outcome": "stopped_without_charge"}
    if warning.status == "failed":
        refused = bool((warning.figures or {}).get("refused"))
        return {"outcome": "refused" if refused else "still_running", "reason": warning.detail}
    return None
