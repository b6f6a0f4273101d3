"""A decision's reasons as sentences: the engine gives (id, params), the catalogue gives the words."""

from __future__ import annotations

from bot.text.catalogue import has, t
from bot.text.format import show
from bot.text.lang import Lang
from rules.decision import Check, Choice, Decision, Reason
from rules.fit import FitKind
from rules.profile import Question


def render(reason: Reason, lang: Lang, where: str = "cli") -> str:
    """A reason in `lang`; `where` ("cli" or "chat") picks a sentence's variant for that front end, where
    it has one (the Slack way of doing a thing rather than a terminal command)."""
    if isinstance(reason, Check):
        return t(f"check.{reason.id}.{'hit' if reason.fired else 'miss'}", lang, **reason.params)
    key = f"advice.{reason.id}"
    if reason.params.get("cards") == 1 and has(f"{key}.one_card"):  # not "3,640 for each of 1 cards"
        key = f"{key}.one_card"
    return t(f"{key}.{where}" if has(f"{key}.{where}") else key, lang, **reason.params)


def headline(decision: Decision, lang: Lang) -> str:
    """The choice in a few words, naming what it rents: "Shared: MIG 3g.40gb of an A100-80GB (40 GB)"."""
    if decision.choice is Choice.DEDICATED:
        if decision.cards > 1:
            return t("headline.dedicated_cards", lang, cards=decision.cards, gpu=decision.gpu)
        return t("headline.dedicated", lang, gpu=decision.gpu)
    option = decision.shared
    if option is None:  # the engine never shares without an option that holds the peak
        return t("choice.shared", lang)
    params = {
        "gpu": option.gpu,
        "memory_gb": option.memory_gb,
        "profile": option.mig_profile or "",
        "share_pct": round(option.share * 100),
    }
    if option.bound_gb is not None:  # a bare "not above 80%": the slice holds it only if the peak stays under it
        return t(
            "headline.shared.bounded" if option.mig_profile else "headline.shared.bounded_fraction", lang, **params
        )
    if option.kind is FitKind.VNPU:
        return t(
            "headline.shared.vnpu",
            lang,
            **params,
            template=option.template or "",
            compute_pct=show(option.compute_pct or 0),
        )
    if option.kind is FitKind.PARTITION:  # qGPU, HAMi: memory and compute limits of their own
        return t(f"headline.shared.{option.sharing}", lang, **params, compute_pct=show(option.compute_pct or 0))
    if option.kind is FitKind.FRACTION and option.sharing == "time-slicing":
        return t("headline.shared.time_slicing", lang, **params)
    if option.kind is FitKind.ASSUMED and not option.mig_profile:
        return t("headline.shared.fraction", lang, **params)
    kind = "slice" if option.kind is FitKind.ASSUMED else option.kind.value
    return t(f"headline.shared.{kind}", lang, **params)


def unanswered(questions: list[Question], lang: Lang) -> str:
    """The questions a decision counted as no hit, as people name them (`duration, can_resume` was shown as the
    keys): "Not answered (counted as no hit): run length, resuming after an interruption"."""
    return f"{t('missing', lang)}: {', '.join(t(f'unanswered.{q.value}', lang) for q in questions)}"
