"""A decision as plain data: what --json prints and what the Slack templates receive."""

from __future__ import annotations

from typing import Any

from rules.decision import Decision, Topic
from rules.messages import Lang, render, ui
from rules.profile import TaskProfile


def decision_data(profile: TaskProfile, decision: Decision, lang: Lang) -> dict[str, Any]:
    return {
        "choice": decision.choice.value,
        "choice_text": ui(f"choice.{decision.choice.value}", lang),
        "basis": decision.basis.value,
        "hits": [c.rule.value for c in decision.hits],
        "hits_needed": decision.hits_needed,
        "checks": [
            {"rule": c.rule.value, "fired": c.fired, "id": c.id, "params": c.params, "text": render(c, lang)}
            for c in decision.checks
        ],
        "reasons": [render(c, lang) for c in decision.hits]
        + [render(a, lang) for a in decision.advice if a.topic is Topic.DECISION],
        "advice": [
            {"topic": a.topic.value, "id": a.id, "params": a.params, "text": render(a, lang)}
            for a in decision.advice if a.topic is not Topic.DECISION
        ],
        "missing": [q.value for q in decision.missing],
        "gpu": decision.gpu,
        "memory_peak_gb": decision.memory_peak_gb,
        "mig_profile": decision.mig_profile,
        "share_fraction": round(decision.share_fraction, 4),
        "spot_suitable": decision.spot_suitable,
        "profile": profile.model_dump(mode="json", exclude_none=True),
        "lang": lang.value,
    }
