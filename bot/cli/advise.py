"""`gpu-advise advise`: the terminal advisor, interactive or from flags.

Its answer flags come from the one table of fields (bot/fields/answers.py): one option per field, taking
what that field's parser takes. The price cache is opened only for `--quote`, so a plain answer
loads no HTTP client, database or Slack module.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import (
    DbOpt,
    LangOpt,
    PolicyOpt,
    TerminalSettings,
    fail,
    load_effective_policy,
    load_settings,
    say,
    terminal_settings,
    text_console,
)
from bot.fields.answers import FIELDS, flag
from bot.text import Lang, t
from bot.text.catalogue import has
from bot.text.errors import parse_error_text
from bot.text.format import forms
from bot.text.readings import echo
from rules.answers import (
    AnswersError,
    answer_in_context,
    derived,
    model_said,
    offered_for,
    parse_answers,
    with_model_offered,
)
from rules.errors import ParseError
from rules.policy import Policy
from rules.questions import Step, is_inference, missing, skips, steps

if TYPE_CHECKING:
    from rich.console import Console

    from bot.advice import Advice


class InputEnded(Exception):
    """Standard input closed before every required question was answered."""


def _ask(console: Console, step: Step, lang: Lang, values: dict[str, Any]) -> Any:
    from rich.text import Text

    ask = step.ask
    number = t("ask.question", lang, n=step.number, total=step.total) if step.required else "+"
    console.print(Text.assemble("\n", (number, "bold"), " ", t(f"question.{ask.key}", lang)))
    if ask.options:
        labels = [(value, t(f"answer.{ask.key}.{value}", lang)) for value in ask.options]
        usual = " · ".join(f"{value} ({label})" if value != label else value for value, label in labels)
        console.print(f"  {t('ask.usual', lang)}: {usual}", style="dim")
    console.print(f"  {t('ask.or_type', lang)} {', '.join(forms(ask.accepted(), lang)[:6])}", style="dim")
    service = is_inference(values)
    hint = f"question.{ask.key}.hint" + ("_service" if service and has(f"question.{ask.key}.hint_service") else "")
    if has(hint):
        console.print(f"  {t(hint, lang)}", style="dim")
    if step.model:  # the model the kind of work named (做lora微调 qwen2-7b): Enter takes it, as chat's button does
        console.print(f"  ({t('ask.enter_model', lang, model=step.model)})", style="dim")
    elif not step.required:
        console.print(f"  ({t('ask.optional', lang)})", style="dim")
    while True:
        try:
            text = console.input("> ")
        except EOFError:
            raise InputEnded(ask.key) from None
        if step.model and not text.strip():
            text = step.model
        text = offered_for(step, text)  # "不知道": the model the kind of work named, estimated
        if not step.required and (not text.strip() or skips(text)):  # Enter, 跳过, 还没定, no idea honestly
            return None
        try:
            return answer_in_context(ask.key, text, values), text  # "7B" after the kind of work: that job's
        except ParseError as exc:
            console.print(f"  {parse_error_text(exc, lang)}", style="red")  # it quotes what was typed, as typed


def _interview(console: Console, parsed: dict[str, Any], lang: Lang, said: dict[str, str | None]) -> None:
    """Ask, in the conversation's order (the kind of work first), every question the flags did not answer (`said`:
    the answers as typed, the flags' and then the interview's)."""
    skipped: set[str] = set()
    while True:
        step = next((s for s in steps(parsed) if s.ask.key not in parsed and s.ask.key not in skipped), None)
        if step is None:
            return
        step = with_model_offered(step, said.get("workload") or "", parsed)
        answer = _ask(console, step, lang, parsed)
        if answer is None:
            skipped.add(step.ask.key)
            continue
        value, text = answer
        said[step.ask.key] = text
        parsed[step.ask.key] = value
        parsed |= derived(step.ask.key, text)  # "yes, 4 cards": the 4, as parse_answers keeps it
        cards = parsed.get("model_parallel_cards") if step.ask.key == "model_parallel" else None
        read = echo(step.ask.key, text, value, lang, cards, parsed.get("gpu"))
        if read:
            console.print("  " + t("cli.read_as_answer", lang, reading=read), style="dim")


def _read_back(raw: dict[str, str | None], parsed: dict[str, Any], lang: Lang) -> None:
    """Say on stderr what each answer that needed reading was read as: "--duration: 10 h (from “十来个小时”)"."""
    for key, text in raw.items():
        if text and key in parsed:
            cards = parsed.get("model_parallel_cards") if key == "model_parallel" else None
            read = echo(key, text, parsed[key], lang, cards, parsed.get("gpu"))
            if read:
                say(t("cli.read_as", lang, flag=flag(key), reading=read))


def read_answers(raw: dict[str, str | None], lang: Lang, *, console: Console | None) -> dict[str, Any] | None:
    """Parse the flags, ask for what is missing (when given a console to ask on), check the required set.
    None: exit 2 (what was wrong is already on stderr)."""
    try:
        parsed = parse_answers(raw)
    except AnswersError as exc:
        for key, error in exc.errors.items():
            say(f"{flag(key)}: {parse_error_text(error, lang)}")
        return None
    _read_back(raw, parsed, lang)
    if console is not None:
        try:
            _interview(console, parsed, lang, dict(raw))
        except InputEnded as exc:
            say(t("cli.input_ended", lang, flag=flag(str(exc))))
            return None
    absent = missing(parsed)
    if absent:
        names = ", ".join(f"{flag(k)} ({t(f'unanswered.{k}', lang)})" for k in absent)  # as people name them
        say(t("cli.missing_answers", lang, names=names))
        model = model_said(raw.get("workload") or "", parsed) if "memory" in absent else None
        if model:  # `--workload "做lora微调 qwen2-7b"`: the memory's answer is one flag away
            say(t("cli.memory_from_workload", lang, flag=flag("memory"), model=model))
        return None
    return parsed


PIPED_ORDER = ("duration", "memory", "model_parallel", "frequency", "can_resume")  # the README's five, in order


def piped(answers: dict[str, str | None], text: str) -> dict[str, str | None]:
    """The five answers piped in, a line each in the README's order (`printf '10h\\n70/80\\nno\\ndaily\\nno\\n' |
    gpu-advise advise`); a flag given wins over its line, and an empty line leaves that answer to a flag."""
    lines = [line.strip() for line in text.splitlines()]
    out = dict(answers)
    for key, line in zip(PIPED_ORDER, lines, strict=False):
        if line and not out.get(key):
            out[key] = line
    return out


def _priced(
    light: TerminalSettings, policy: Policy, parsed: dict[str, Any], currency: str | None, db: Path | None
) -> Advice:
    """The decision and its quote from the price cache (settings and prices loaded here only: the plain
    path stays light)."""
    from bot.advice import advise
    from bot.cli.prices import price_book, quote_currency

    settings = load_settings(lang=light.files.lang, policy=light.files.policy, db=db)

    with price_book(settings, policy) as book:  # no --schedule: assumed from the answers, as in Slack
        advice = advise(
            parsed, policy, quoter=book.quote, currency=quote_currency(currency, settings), assume_schedule=True
        )
    if advice.quote_error is not None:
        from bot.text.errors import error_text

        raise fail(
            t("cli.cannot_quote", settings.files.lang, error=error_text(advice.quote_error, settings.files.lang))
        )
    return advice


def typed_words(answers: dict[str, str | None], words: list[str], lang: Lang) -> dict[str, str | None]:
    """Answers typed after `advise` as chat takes them (`gpu-advise advise 10h mem=70/80 mp=no freq=daily resume=no`,
    the kind of work first: `advise lora 10h …`), each as its flag; exit 2 naming words that are no answers, a key
    not known, or an answer given by its flag as well."""
    from bot.chat import inline

    tokens = list(words)
    if not inline.is_inline(tokens) and inline.is_inline(tokens[1:]):  # `advise lora 10h …`: the kind of work first
        tokens = [f"workload={tokens[0]}", *tokens[1:]]
    if not inline.is_inline(tokens):
        raw = _described(" ".join(words), lang)
    else:
        try:
            raw, _typed = inline.answers_of(tokens)
        except inline.InlineError as exc:
            raise fail(t(f"error.inline.{exc.code}", lang, **exc.params)) from None
    out = dict(answers)
    for key, value in raw.items():
        if out.get(key):
            raise fail(t("cli.advise_words_twice", lang, flag=flag(key)))
        out[key] = value
    return out


def _described(text: str, lang: Lang) -> dict[str, str]:
    """The job described, a clause each answer, as chat reads it (`advise "7B LoRA，3小时，能中断"`: rules/clauses.py);
    exit 2 naming the clauses no question reads (a bare yes or no among them)."""
    from rules.clauses import answers_in, clauses

    found = answers_in(text)
    unread = [part for part in clauses(text) if part not in found.values()]
    if not found or unread:
        raise fail(t("cli.advise_words", lang, words=("，".join(unread) or text)[:60]))
    return found


def run(
    answers: dict[str, str | None],
    *,
    words: list[str] | None = None,
    lang: Lang | None,
    policy: Path | None,
    as_json: bool,
    with_quote: bool,
    currency: str | None,
    db: Path | None,
    interactive: bool | None,
) -> None:
    settings = terminal_settings(lang=lang, policy=policy)
    if words:
        answers = typed_words(answers, words, settings.files.lang)
    effective = load_effective_policy(settings)
    ask = sys.stdin.isatty() if interactive is None else interactive
    console = None
    if ask:
        console = text_console(stderr=as_json)  # questions go to stderr when stdout carries JSON
    if not ask and not sys.stdin.isatty():  # piped: the five answers a line each, in the README's order
        answers = piped(answers, sys.stdin.read())
    parsed = read_answers(answers, settings.files.lang, console=console)
    if parsed is None:
        raise typer.Exit(2)
    with_quote = with_quote or (ask and "schedule" in parsed)  # a schedule given at the prompt asks for costs
    from bot.advice import advise

    advice = _priced(settings, effective, parsed, currency, db) if with_quote else advise(parsed, effective)
    if as_json:
        sys.stdout.write(json.dumps(advice.to_json(settings.files.lang), ensure_ascii=False, indent=2) + "\n")
        return
    from bot.cli.terminal import print_advice  # rich loads here, for a person reading

    print_advice(advice, effective, settings.files.lang)


def _options(
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="Answers typed as in chat, instead of the flags: 10h mem=70/80 mp=no freq=daily resume=no "
            "(the kind of work may come first: lora 10h mem=70/80 ...).",
            show_default=False,
        ),
    ] = None,
    lang: LangOpt = None,
    policy: PolicyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the decision as one JSON object.")] = False,
    with_quote: Annotated[bool, typer.Option("--quote", help="Add each option's cost (needs --schedule).")] = False,
    currency: Annotated[
        str | None, typer.Option(help="CNY, USD, EUR or any currency the ECB publishes, for --quote.")
    ] = None,
    db: DbOpt = None,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive",
            help="Ask for missing answers (default: only when stdin is a terminal; --no-interactive: never).",
        ),
    ] = False,
    # its own flag, not typer's --interactive/--no-interactive pair: the pair's second name took a column of its own in
    # the help's table, 18 of 80, and left the help text so narrow that typer cut its Chinese
    no_interactive: Annotated[bool, typer.Option("--no-interactive", hidden=True)] = False,
) -> None:
    """The options of `advise` beside the answer flags (a template: only its signature is used)."""


def _answer_options(lang: Lang) -> list[inspect.Parameter]:
    """One option per answer field, its help the question in `lang` with the usual answers."""
    params = []
    for field in FIELDS:
        examples = ", ".join(forms(field.ask.accepted(), lang)[:5])
        help_text = t("cli.help.answer", lang, question=t(f"question.{field.key}", lang), examples=examples)
        params.append(
            inspect.Parameter(
                field.option_name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[str | None, typer.Option(field.flag, help=help_text)],
            )
        )
    return params


def advise_command_in(lang: Lang) -> Callable[..., None]:
    """`advise`, its help in `lang` (the terminal's language: --lang, else GPU_ADVISOR_LANG, else the locale)
    where typer lets the text be chosen: the command's summary and every answer's option."""

    def advise_command(**options: Any) -> None:
        answers = {field.key: options.pop(field.option_name) for field in FIELDS}
        asked, never = options.pop("interactive"), options.pop("no_interactive")
        run(answers, **options, interactive=False if never else (True if asked else None))

    advise_command.__doc__ = t("cli.help.advise", lang)
    advise_command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        _answer_options(lang)
        + [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in inspect.signature(_options, eval_str=True).parameters.values()
        ]
    )
    return advise_command
