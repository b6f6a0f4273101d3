"""A capture sent into a profile's thread (after `analyze`, or at any question), the same on every chat: read like
`gpu-advise analyze`, its figures said in the thread and its chart uploaded there, and the answers it measures
(memory always, the run's length when the whole run is in it) filled in. Each chat's wing fetches the file
(Slack: files.info and its private download; Feishu: the message-resource API), within the same size and time
limits (GPU_ADVISOR_CAPTURE_MAX_BYTES, GPU_ADVISOR_CAPTURE_TIMEOUT_S)."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.capture.chart import draw
from bot.capture.read import CaptureError, read_text
from bot.chat import conversation
from bot.chat.message import plain
from bot.chat.port import Chat, ChatError, Teller
from bot.deps import Deps
from bot.fields.answers import inline_key
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.capture import figure_lines
from bot.text.catalogue import tw
from bot.text.errors import capture_error_text
from bot.text.format import literal
from rules.capture import figures, idle_gpus, measured_answers, per_gpu, whole_run_s
from rules.gpus import gpu_model
from rules.questions import steps
from rules.samples import Sample

log = logging.getLogger(__name__)


class FetchError(Exception):
    """The capture could not be fetched: `code` (gone, too_large, not_slack, login_page, http, timeout) and
    its parameters."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


@dataclass(frozen=True)
class SentFile:
    """A file sent into a thread, as its chat names it, and how to fetch it: `fetch(max_bytes, deadline_s)`
    (FetchError when it is gone, too big, refused or too slow)."""

    name: str
    fetch: Callable[[int, float], Upload]
    chat: str = "slack"  # whose words say why it could not be fetched (the catalogue's <chat>.capture_fetch.*)
    # or the chat's own words for it (a chat whose sentences live in its folder): (code, lang, params) -> text
    says: Callable[[str, Lang, dict[str, object]], str] | None = None


def _say(chat: Chat, convo: Conversation, text: str) -> None:
    chat.post(conversation.place_of(chat, convo), lambda _: plain(text, Lang(convo.lang)), Lang(convo.lang))


def _card_mib(convo: Conversation) -> float | None:
    """The card's memory for dmon output (which lacks it): from the GPU answer, when there is one."""
    gpu = conversation.parsed(convo).get("gpu")
    return gpu_model(gpu).memory_gb * 1024 if gpu else None


def _escaped(params: dict[str, object]) -> dict[str, object]:
    # what comes from the file (its name, a line of it) is escaped: no <!channel>, no link it did not have
    return {k: literal(v) if isinstance(v, str) else v for k, v in params.items()}


def _read(deps: Deps, chat: Chat, convo: Conversation, sent: SentFile) -> list[Sample] | None:
    """The capture's readings, or None after saying in the thread why it could not be read."""
    lang, name = Lang(convo.lang), sent.name
    try:
        upload = sent.fetch(deps.settings.samples.capture_max_bytes, deps.settings.samples.capture_timeout_s)
        name = upload.name
        try:
            text = upload.data.decode("utf-8")
        except UnicodeDecodeError:
            raise CaptureError(0, "not_text") from None
        return read_text(text, _card_mib(convo))
    except FetchError as exc:
        params = {"name": literal(name)} | _escaped(exc.params)
        if sent.says is not None:
            said = sent.says(exc.code, lang, params)
        else:
            said = t(f"{sent.chat}.capture_fetch.{exc.code}", lang, **params)
        _say(chat, convo, said)
    except CaptureError as exc:
        code = "dmon_no_total_slack" if exc.code == "dmon_no_total" else None
        shown = CaptureError(exc.line, exc.code, **_escaped(exc.params))
        error = tw(f"error.capture.{code}", lang, "chat") if code else capture_error_text(shown, lang, "chat")
        _say(chat, convo, t("slack.capture_unreadable", lang, name=literal(name), error=error))
    return None


def _upload_chart(
    teller: Teller,
    convo: Conversation,
    readings: list[Sample],
    name: str,
    busy_pct: float,
    tight: float,
    lang: Lang,
) -> None:
    png = io.BytesIO()
    draw(readings, png, busy_pct=busy_pct, tight_fraction=tight, title=name)
    try:
        teller.upload(
            convo.channel, str(convo.thread_ts), "gpu-capture.png", png.getvalue(), t("slack.capture_chart_title", lang)
        )
    except ChatError as exc:  # the figures are said; the chart is a bonus (the upload scope may be missing)
        log.warning("capture chart not uploaded in %s: %s", convo.channel, exc.code)


def _answers_text(answers: dict[str, str]) -> str:
    return ", ".join(f"`{inline_key(k)}={v}`" for k, v in sorted(answers.items()))


def on_upload(
    deps: Deps, chat: Chat, teller: Teller, convo: Conversation, sent: SentFile, request_key: str | None
) -> None:
    """The starter sent a file into the profile's thread: analyse it, say what it measured, fill those in."""
    lang, user = Lang(convo.lang), convo.user
    if request_key is not None and convo.last_input == request_key:
        conversation.take_answer(deps, chat, convo, "", None, user, request_key)  # a redo: finish it
        return
    readings = _read(deps, chat, convo, sent)
    if readings is None:
        return
    tight, rules = deps.policy.two_of_four.memory_tight_fraction, deps.policy.capture
    overall = figures(readings, rules, tight)
    asked = {step.ask.key for step in steps(conversation.parsed(convo))}  # a service is not asked its run length
    implied = measured_answers(overall, whole_run_s(readings, rules), tight)
    measured = {k: v for k, v in implied.items() if k in asked}  # values as measured, not their text read back
    lines = [
        t(
            "slack.capture_title",
            lang,
            name=literal(sent.name),
            samples=overall.samples,
            minutes=round(overall.duration_s / 60, 1),
        ),
        *figure_lines(per_gpu(readings, rules, tight), overall, lang, idle_gpus(readings, rules)),
        t(
            "slack.capture_verdict",
            lang,
            continuity=t(f"word.continuity_{overall.continuity}", lang),
            tight=t("cli.yes" if overall.memory_tight else "cli.no", lang),
        ),
    ]
    if "duration" in asked and "duration" not in measured:
        lines.append(t("capture.no_run", lang))
    open_step = conversation.current(convo) if convo.status == "active" else None
    filled = conversation.prefill(convo, measured) if convo.status == "active" else {}
    opened = {k: m.text for k, m in measured.items() if open_step is not None and open_step.ask.key == k}
    kept = {k: m.text for k, m in measured.items() if k not in filled and k not in opened}
    if filled or opened:
        lines.append(t("slack.capture_prefilled", lang, answers=_answers_text(filled | opened)))
    if kept:
        lines.append(t("slack.capture_kept", lang, answers=_answers_text(kept)))
    convo.last_input = request_key
    deps.conversations.save(convo)  # the measured answers are kept before anything is said about them
    _say(chat, convo, "\n".join(lines))
    if teller.takes_files:  # drawn only where it can be sent
        _upload_chart(teller, convo, readings, sent.name, rules.busy_pct, tight, lang)
    if opened:
        key, text = next(iter(opened.items()))
        conversation.take_answer(deps, chat, convo, key, text, user, value=measured[key].value)
    elif filled and convo.question_ts is None:
        conversation.ask_next(deps, chat, convo)
