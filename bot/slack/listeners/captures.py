"""Captures in Slack: a file uploaded into a profile's thread (after `/gpu-advise analyze`, or at any
question) is read like `gpu-advise analyze`, its figures and chart are posted in the thread, and the
answers it measures (memory always, the run's length when the whole run is in it) are pre-filled."""

from __future__ import annotations

import io
from typing import Any

from bot.capture.chart import draw
from bot.capture.read import CaptureError, read_text
from bot.deps import Deps
from bot.fields.answers import inline_key
from bot.slack import conversation
from bot.slack.capture_files import FetchError, fetch, post_chart
from bot.slack.request import SlackRequest
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.capture import figure_lines
from bot.text.catalogue import tw
from bot.text.errors import capture_error_text
from bot.text.format import escape
from rules.capture import figures, idle_gpus, measured_answers, per_gpu, whole_run_s
from rules.gpus import gpu_model
from rules.questions import steps
from rules.samples import Sample


def _say(request: SlackRequest, convo: Conversation, text: str) -> None:
    request.client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts, text=text)


def _card_mib(convo: Conversation) -> float | None:
    """The card's memory for dmon output (which lacks it): from the GPU answer, when there is one."""
    gpu = conversation.parsed(convo).get("gpu")
    return gpu_model(gpu).memory_gb * 1024 if gpu else None


def _read(deps: Deps, request: SlackRequest, convo: Conversation, file: dict[str, Any]) -> list[Sample] | None:
    """The capture's readings, or None after saying in the thread why it could not be read."""
    lang = Lang(convo.lang)
    name = str(file.get("name") or file.get("id"))
    try:
        upload = fetch(
            request.client, str(file["id"]), deps.settings.capture_max_bytes, deps.settings.capture_timeout_s
        )
        name = upload.name
        try:
            text = upload.data.decode("utf-8")
        except UnicodeDecodeError:
            raise CaptureError(0, "not_text") from None
        return read_text(text, _card_mib(convo))
    except FetchError as exc:
        _say(
            request,
            convo,
            t(
                f"slack.capture_fetch.{exc.code}",
                lang,
                **({"name": escape(name)} | {k: escape(v) if isinstance(v, str) else v for k, v in exc.params.items()}),
            ),
        )
    except CaptureError as exc:
        code = "dmon_no_total_slack" if exc.code == "dmon_no_total" else None
        # what comes from the file (its name, a line of it) is escaped: no <!channel>, no link it did not have
        shown = CaptureError(
            exc.line, exc.code, **{k: escape(v) if isinstance(v, str) else v for k, v in exc.params.items()}
        )
        error = tw(f"error.capture.{code}", lang, "slack") if code else capture_error_text(shown, lang, "slack")
        _say(request, convo, t("slack.capture_unreadable", lang, name=escape(name), error=error))
    return None


def _answers_text(answers: dict[str, str]) -> str:
    return ", ".join(f"`{inline_key(k)}={v}`" for k, v in sorted(answers.items()))


def on_upload(deps: Deps, request: SlackRequest, convo: Conversation, files: list[dict[str, Any]]) -> None:
    """The starter uploaded files into the profile's thread: analyse the first one."""
    lang, client, user = Lang(convo.lang), request.client, convo.user
    if request.inbox_key is not None and convo.last_input == request.inbox_key:
        conversation.take_answer(deps, client, convo, "", None, user, request.inbox_key)  # a redo: finish it
        return
    readings = _read(deps, request, convo, files[0])
    if readings is None:
        return
    tight = deps.policy.two_of_four.memory_tight_fraction
    overall = figures(readings, deps.policy.capture, tight)
    asked = {step.ask.key for step in steps(conversation.parsed(convo))}  # a service is not asked its run length
    implied = measured_answers(overall, whole_run_s(readings, deps.policy.capture), tight)
    measured = {k: v for k, v in implied.items() if k in asked}  # values as measured, not their text read back
    lines = [
        t(
            "slack.capture_title",
            lang,
            name=escape(str(files[0].get("name") or "")),
            samples=overall.samples,
            minutes=round(overall.duration_s / 60, 1),
        ),
        *figure_lines(
            per_gpu(readings, deps.policy.capture, tight), overall, lang, idle_gpus(readings, deps.policy.capture)
        ),
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
    convo.last_input = request.inbox_key
    deps.conversations.save(convo)  # the measured answers are kept before anything is said about them
    _say(request, convo, "\n".join(lines))
    png = io.BytesIO()
    draw(
        readings,
        png,
        busy_pct=deps.policy.capture.busy_pct,
        tight_fraction=tight,
        title=str(files[0].get("name") or ""),
    )
    post_chart(
        client,
        channel=convo.channel,
        thread_ts=str(convo.thread_ts),
        png=png.getvalue(),
        title=t("slack.capture_chart_title", lang),
    )
    if opened:
        key, text = next(iter(opened.items()))
        conversation.take_answer(deps, client, convo, key, text, user, value=measured[key].value)
    elif filled and convo.question_ts is None:
        conversation.ask_next(deps, client, convo)
