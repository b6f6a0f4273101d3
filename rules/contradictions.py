"""Answers that contradict each other, flagged beside the decision rather than silently combined: a run
that cannot be interrupted and lasts longer than the day's schedule, runs that add up to more than 24 hours a
day, a memory answer about another card than the one asked about, a peak above the card the answer itself
names."""

from __future__ import annotations

from rules.decision import Advice, Param, Topic
from rules.gpus import GPUModel
from rules.profile import TaskProfile


def contradictions(profile: TaskProfile, card: GPUModel) -> list[Advice]:
    out: list[Advice] = []
    hours = profile.duration.hours if profile.duration is not None else None
    schedule = profile.schedule
    if hours is not None and schedule is not None and profile.can_resume is False and hours > schedule.hours_per_day:
        # a 48 h run that must not stop, on 8 h a day: the card runs 48 h at a stretch or the run stops daily
        params: dict[str, Param] = {"hours": hours, "per_day": schedule.hours_per_day}
        out.append(Advice(topic=Topic.WARNING, id="run_longer_than_schedule_day", params=params))
    runs = profile.frequency.runs_per_week if profile.frequency is not None else None
    if hours is not None and runs is not None and runs / 7 > 1 and hours * runs / 7 > 24:
        # "10-hour runs, two to three times a day": 30 hours a day; one of the two answers is not what happens (a
        # run longer than a day started daily is continuous use, which the yearly hours already count as such)
        per_day: dict[str, Param] = {"hours": hours, "runs": round(runs / 7, 2), "total": round(hours * runs / 7, 1)}
        out.append(Advice(topic=Topic.WARNING, id="runs_longer_than_a_day", params=per_day))
    answer = profile.memory
    if answer is not None and answer.card_gb is not None:
        if answer.card_gb != card.memory_gb:
            other: dict[str, Param] = {"card_gb": answer.card_gb, "gpu": card.name, "gpu_gb": card.memory_gb}
            out.append(Advice(topic=Topic.WARNING, id="memory_answer_other_card", params=other))
        if answer.peak_gb is not None and answer.peak_gb > answer.card_gb:
            above: dict[str, Param] = {"peak_gb": answer.peak_gb, "card_gb": answer.card_gb}
            out.append(Advice(topic=Topic.WARNING, id="memory_peak_above_named_card", params=above))
    return out
