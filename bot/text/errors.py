"""Domain errors in the user's language: each error carries a code and parameters, never prose to translate."""

from __future__ import annotations

from bot.capture.errors import CaptureError
from bot.text.catalogue import has, t, tw
from bot.text.format import forms, literal
from bot.text.lang import Lang
from pricing.errors import QuoteError
from rules.errors import ParseError, UnknownGPU


def parse_error_text(exc: ParseError, lang: Lang, where: str = "cli", fit: int | None = None) -> str:
    """'Could not read "x": why. Accepted: a, b, c' for an answer that did not parse. In Slack the text
    echoed back is escaped: what someone typed is never posted as a mention or a link. `fit`: the room a form
    leaves under a field; the accepted forms are named first to last while they fit, so none is cut mid-word."""
    shown = exc.text if len(exc.text) <= 60 else exc.text[:57] + "..."
    shown = literal(shown) if where == "chat" else shown
    params = {k: literal(v) if where == "chat" and isinstance(v, str) else v for k, v in exc.params.items()}
    problem = t(f"parse.problem.{exc.problem or 'not_understood'}", lang, **params)
    if not problem.endswith(STOPS):  # a problem ends its own sentence ("…吗？", "…side."), else it is ended here
        problem += "。" if lang is Lang.ZH else "."
    accepted = forms(exc.accepted, lang)
    said = t("ask.parse_error", lang, text=shown, problem=problem, accepted=", ".join(accepted))
    while fit is not None and len(said) > fit and len(accepted) > 1:
        accepted = accepted[:-1]
        said = t("ask.parse_error", lang, text=shown, problem=problem, accepted=", ".join(accepted) + ", …")
    return said


STOPS = ("。", "？", "！", ".", "?", "!")


def error_text(exc: ParseError | UnknownGPU | QuoteError, lang: Lang, *, where: str = "cli") -> str:
    """The sentence a user sees for a bad answer, an unknown GPU, or a quote that cannot be made.

    `where` ("cli" or "chat") picks the way out a quote error offers: a terminal user can run a
    command; a Slack user is told what their admin can do."""
    if isinstance(exc, ParseError):
        return parse_error_text(exc, lang, where)
    if isinstance(exc, UnknownGPU):
        return unknown_gpu_text(exc, lang)
    key = f"error.quote.{exc.code}"
    return t(f"{key}.{where}" if has(f"{key}.{where}") else key, lang, **exc.params)


def unknown_gpu_text(exc: UnknownGPU, lang: Lang) -> str:
    """'unknown GPU model …, known: …', or for a maker's name, which of its cards."""
    return t("error.gpu_maker" if exc.maker else "error.unknown_gpu", lang, gpu=exc.name, known=", ".join(exc.known))


def capture_error_text(exc: CaptureError, lang: Lang, where: str = "cli") -> str:
    """A capture that cannot be read: the line (when there is one) and what was expected."""
    params = dict(exc.params)
    if "expected" in params:
        params["expected"] = t(f"error.capture.expect.{params['expected']}", lang)
    problem = tw(f"error.capture.{exc.code}", lang, where, **params)
    return t("error.capture.line", lang, line=exc.line, problem=problem) if exc.line else problem
