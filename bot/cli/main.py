"""The `gpu-advise` command line: one typer app; every command builds Settings once and passes it down.

Only the invoked command's module is imported and built (COMMANDS): `gpu-advise advise` loads no price,
Slack or state module, and builds no other command's options."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import PolicyOpt, fail, load_effective_policy, load_settings, locale_lang
from bot.text import Lang, t

# Every command: its name, the module and attribute that define it, and whether it is a group of commands.
COMMANDS: dict[str, tuple[str, str, bool]] = {
    "advise": ("bot.cli.advise", "advise_command_in", False),  # built with its help in the terminal's language
    "quote": ("bot.cli.prices", "quote", False),
    "serve": ("bot.cli.serve", "serve", False),
    "prices": ("bot.cli.prices", "prices_app", True),
    "track": ("bot.cli.rentals", "track_app", True),
    "list": ("bot.cli.rentals", "list_rentals", False),
    "release": ("bot.cli.rentals", "release", False),
    "delete-storage": ("bot.cli.rentals", "delete_storage", False),
    "rename": ("bot.cli.rentals", "rename", False),
    "remind": ("bot.cli.remind", "remind", False),
    "agent": ("bot.cli.agent", "agent", False),
    "enroll-token": ("bot.cli.enroll", "enroll_token", False),
    "discover": ("bot.cli.discover", "discover", False),
    "act": ("bot.cli.act", "act", False),
    "budget": ("bot.cli.budget", "budget", False),
    "power": ("bot.cli.metering", "power", False),
    "billing": ("bot.cli.metering", "billing", False),
    "balance": ("bot.cli.metering", "balance", False),
    "report": ("bot.cli.report", "report", False),
    "board": ("bot.cli.board", "board", False),
    "actions": ("bot.cli.act", "actions_list", False),
    "stop": ("bot.cli.stop", "stop", False),
    "idle": ("bot.cli.idle", "idle", False),
    "probe": ("bot.cli.probe", "probe", False),
    "analyze": ("bot.cli.analyze", "analyze", False),
    "policy": ("bot.cli.main", "policy_app", True),
}
HELP = "GPU Advisor: dedicated card, shared slice or spot, and what each costs."
# Each command's summary, as `gpu-advise --help` lists it: the first paragraph of its help (advise's in the terminal's
# language, from the catalogue). The listing is built from these, importing no command's module (issue 50: --help
# imported all twenty-three, the advisor's answer parsers and the policy among them); a test checks each against the
# help its command has.
SUMMARIES: dict[str, str] = {
    "quote": "What dedicated, shared and spot cost for a schedule, from the price cache.",
    "serve": "Run the bot in every chat configured (Slack, Feishu/Lark, DingTalk, WeCom), the board and the "
    "scheduled jobs.",
    "prices": "The price cache: refresh, list, status.",
    "track": "Track what the team rents: an instance, or storage.",
    "list": "List the team's tracked instances and storage.",
    "release": "Mark an instance released (it stops costing); lists the storage it leaves behind.",
    "delete-storage": "Mark storage deleted (it stops costing).",
    "rename": "Rename a running instance or kept storage (its spend, power history and agent token stay its own).",
    "remind": "Send the daily digest: idle instances, storage left behind, spend this month.",
    "agent": "Sample this machine's GPUs and post them to the bot, for the daily reminders' idle judgement.",
    "enroll-token": "Print an enrollment token once, for `gpu-advise agent --enroll` on each GPU box.",
    "discover": "Find GPU instances and unattached disks in the clouds, and keep them as items of the team.",
    "act": "Set what a channel (or one project in it) does about idle instances.",
    "budget": "Set, remove or list monthly budgets, a project's or the whole team's.",
    "power": "Say an instance went on or off (its hourly meter follows), or list when it was on, off and unknown.",
    "billing": "Set how an instance bills, its price, whose it is, its card or when it began; alone, say how.",
    "balance": "Record a provider account's prepaid balance, or list each with how long it lasts at the current rate.",
    "report": "Who and which project left cards idle over a period, and what it cost.",
    "board": "Print a link to the board: what is idle, who billed idle money, budgets, balances, in a browser.",
    "actions": "What was warned, stopped, cancelled or failed, newest first.",
    "stop": "Have an instance stopped now, at a time or once idle (by serve, through its agent or cloud), "
    "or call it off.",
    "idle": "What is idle now, each channel's as its digest would say it (nothing is sent).",
    "probe": "Sample this box's cards (NVML, nvidia-smi or a domestic card's tool) into a CSV for "
    "`gpu-advise analyze`.",
    "analyze": "Utilisation and memory figures of a capture, per GPU and overall, and the flags they imply.",
    "policy": "Show or check the policy (every threshold the rules use).",
}


class _Terminal:
    """The terminal as a place the neutral text reaches: its spans written as words (bot/text/spans.py), so a
    project, a person or a channel reads as it is; everything else passed through to the stream."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from bot.text.spans import OPEN, plain_text

        return int(self._stream.write(plain_text(text) if OPEN in text else text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _group() -> None:
    """The app's callback, before every command: with only the invoked command built, it keeps `gpu-advise` a group
    of commands; and the terminal's streams write the neutral text's spans as words."""
    if not isinstance(sys.stdout, _Terminal):
        sys.stdout = _Terminal(sys.stdout)
    if not isinstance(sys.stderr, _Terminal):
        sys.stderr = _Terminal(sys.stderr)


def _group_explained_in(lang: Lang) -> Any:
    """The callback where the command line asks for help in a language other than the code's: the invoked command
    (and what is under it) is put in `lang` before click reads its --help (bot/cli/help_words.py)."""

    def group(ctx: typer.Context) -> None:
        from bot.cli.help_words import translate

        _group()
        root: Any = ctx.command  # the group of commands, as this callback is its own
        translate(root.get_command(ctx, ctx.invoked_subcommand or ""), lang, ctx)

    return group


def summary(name: str, lang: Lang) -> str:
    """A command's summary in the listing of `gpu-advise --help`, in `lang`."""
    if name == "advise":
        return t("cli.help.advise", lang)
    return _said(SUMMARIES[name], lang)


def _help_of(target: Any, group: bool) -> str:
    """A command's help as typer reads it: a group's given help, else a function's docstring."""
    given = target.info.help if group else None
    return given if isinstance(given, str) else inspect.getdoc(target) or ""


def _said(text: str, lang: Lang) -> str:
    if lang is Lang.EN:
        return text
    from bot.cli.help_words import said

    return said(text, lang)


def _listed() -> None:
    """A command as the listing shows it: never run (a command named on the command line is built for real)."""


def build_app(
    only: str | None = None, lang: Lang | None = None, *, listing: bool = False, explain: bool = False
) -> typer.Typer:
    """The typer app with every command, or with only `only` when it names one (the rest are not imported).
    `lang`: the language of the help typer lets us choose (default: the terminal's). `listing`, where no command is
    named: every command by its summary only, none imported (what `gpu-advise` and `gpu-advise --help` print).
    `explain`: the command line asks for help (explains()), so all of it is said in `lang`."""
    said_in = lang or help_lang([])
    translated = explain and said_in is not Lang.EN
    if explain:
        from bot.cli.help_words import folding

        folding()
    app = typer.Typer(add_completion=False, no_args_is_help=True, help=_said(HELP, said_in if translated else Lang.EN))
    app.callback()(_group_explained_in(said_in) if translated else _group)
    lean = listing and only not in COMMANDS
    # typer lists the groups of commands after the commands: so does the lean listing (a stable sort on `group`)
    for name, (module, attribute, group) in (
        sorted(COMMANDS.items(), key=lambda item: item[1][2]) if lean else COMMANDS.items()
    ):
        if only in COMMANDS and name != only:
            continue
        if lean:
            app.command(name, help=summary(name, said_in))(_listed)
            continue
        target = getattr(importlib.import_module(module), attribute)
        if attribute.endswith("_in"):  # a command built in a language
            target = target(said_in)
        said: dict[str, Any] = {"help": _said(_help_of(target, group), said_in)} if translated else {}
        if group:
            app.add_typer(target, name=name, **said)
        else:  # a command may name its own click settings (balance: -5 is an amount, not an option)
            settings = getattr(importlib.import_module(module), "CONTEXT", {}).get(name)
            app.command(name, context_settings=settings, **said)(target)
    return app


def help_lang(args: list[str]) -> Lang:
    """The terminal's language for help: --lang on the command line, else GPU_ADVISOR_LANG (the environment over
    `.env`, as every command reads it), else the locale. A bad value is the command's to report: help falls back
    to the locale."""
    from bot.settings.environment import setting

    given = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--lang"), None)
    given = given or next((a.split("=", 1)[1] for a in args if a.startswith("--lang=")), None)
    given = given or setting("GPU_ADVISOR_LANG")
    return Lang(given) if given in {str(code) for code in Lang} else locale_lang()


def explains(args: list[str]) -> bool:
    """Whether this command line prints help (so the help is put in the terminal's language first)."""
    from bot.cli.help_words import asks_help

    return asks_help(args, {name for name, (_, _, group) in COMMANDS.items() if group})


def invoked(args: list[str]) -> str | None:
    """The command named on the command line (the first word that is not an option), if any."""
    return next((arg for arg in args if not arg.startswith("-")), None)


policy_app = typer.Typer(no_args_is_help=True, help="Show or check the policy (every threshold the rules use).")


@policy_app.command("show")
def policy_show(policy: PolicyOpt = None) -> None:
    """Print the effective policy as YAML."""
    import yaml

    from rules.policy import policy_json

    settings = load_settings(policy=policy)
    effective = load_effective_policy(settings)
    origin = str(settings.files.policy) if settings.files.policy else "bundled policy"
    sys.stdout.write(f"# effective policy ({origin})\n")
    sys.stdout.write(yaml.safe_dump(policy_json(effective), sort_keys=False, allow_unicode=True))


@policy_app.command("check")
def policy_check(file: Annotated[Path, typer.Argument(help="Policy YAML file to validate.")]) -> None:
    """Validate a policy file and say what is wrong with it."""
    from rules.errors import PolicyError
    from rules.policy import load_policy

    lang = load_settings().files.lang
    try:
        load_policy(file)
    except PolicyError as exc:
        raise fail(t("cli.policy_error", lang, error=str(exc))) from None
    sys.stdout.write(t("cli.policy_ok", lang, file=str(file)) + "\n")


def _click() -> Any:
    """The click typer runs on (its own copy since typer 0.28, click itself before): its exceptions' module."""
    return sys.modules[typer.BadParameter.__module__]


def main(argv: list[str] | None = None) -> None:
    from bot.web.lean_imports import skip_pydantic_plugins, skip_unused_clis

    skip_unused_clis()
    skip_pydantic_plugins()
    click = _click()
    args = sys.argv[1:] if argv is None else argv
    lang = help_lang(args)
    try:
        app = build_app(invoked(args), lang, listing=True, explain=explains(args))
        code = app(args=args, prog_name="gpu-advise", standalone_mode=False)
    except click.UsageError as exc:  # click says these in English only: said in the terminal's language
        sys.stderr.write(usage_said(exc, lang) + "\n")
        raise SystemExit(exc.exit_code) from None
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:  # Ctrl-C or end of input at a prompt (typer's own since 0.28; its click copy has none)
        raise SystemExit(1) from None
    except BrokenPipeError:  # `gpu-advise … | head` closed the pipe: nothing more to say, and no traceback
        _quiet_stdout()
        raise SystemExit(1) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's flush at exit does not raise again on the closed pipe (as
    Python's documentation on SIGPIPE advises)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


# click's own words for a value its types refuse ("'abc' is not a valid float.", "0 is not in the range
# 1<=x<=1024."): the value is read back from them, and the reason said from the parameter's type, in the language
_REFUSED = re.compile(r"'?(?P<given>.*?)'? is not (?:a valid|in the range)")
_EXTRA = re.compile(r"Got unexpected extra argument(?:s|\(s\))? \((?P<args>.*)\)")
_NO_COMMAND = re.compile(r"No such command '(?P<name>[^']*)'")
# the sub-commands of the groups, for a name typed without its group (`gpu-advise status`: `prices status`); checked
# against the groups themselves by tests/cli/test_help_listing.py
NESTED = {"prices": ("list", "refresh", "status"), "track": ("instance", "storage")}


def _value_said(exc: Any, lang: Lang) -> str:
    """Why a value was refused by its option's type (a number, a whole number, a range), in `lang`; click's own
    message for any other refusal (our callbacks' are ours already)."""
    kind = getattr(getattr(exc, "param", None), "type", None)
    found = _REFUSED.match(exc.message)
    name = getattr(kind, "name", "")
    if found is None or name not in ("float", "int", "float range", "int range"):
        return str(exc.message)
    given = found["given"]
    if "is not in the range" not in exc.message:
        return t("cli.usage.not_whole" if name.startswith("int") else "cli.usage.not_a_number", lang, given=given)
    low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    if low is not None and high is not None:
        return t("cli.usage.outside", lang, given=given, low=f"{low:,g}", high=f"{high:,g}")
    key, bound = ("cli.usage.below", low) if low is not None else ("cli.usage.above", high)
    return t(key, lang, given=given, bound=f"{bound:,g}")


def _nearest_command(name: str, lang: Lang) -> str:
    """` did you mean …` for a command typed wrong or without its group (`statsu`, `status`: prices status)."""
    import difflib

    nested = {sub: f"{group} {sub}" for group, subs in NESTED.items() for sub in subs}
    if name in nested:
        return " " + t("cli.usage.did_you_mean", lang, names=nested[name])
    close = difflib.get_close_matches(name, list(dict.fromkeys([*COMMANDS, *nested])), n=2, cutoff=0.7)
    names = ", ".join(found if found in COMMANDS else nested[found] for found in close)  # `lsit`: list
    return " " + t("cli.usage.did_you_mean", lang, names=names) if names else ""


def usage_said(exc: Any, lang: Lang) -> str:
    """A usage error as the terminal's language says it: which option, argument or value was wrong (its own
    words where our code wrote them), and where the help is."""
    click = _click()

    context = exc.ctx
    where = context.command_path if context is not None else "gpu-advise"
    if isinstance(exc, click.NoSuchOption):
        close = ", ".join(sorted(exc.possibilities or ()))
        what = t("cli.usage.no_such_option", lang, name=exc.option_name) + (
            " " + t("cli.usage.did_you_mean", lang, names=close) if close else ""
        )
    elif isinstance(exc, click.BadOptionUsage) and "requires an argument" in exc.message:
        what = t("cli.usage.needs_value", lang, name=exc.option_name)
    elif isinstance(exc, click.MissingParameter):
        what = t("cli.usage.missing", lang, name=exc.param.get_error_hint(context) if exc.param and context else "?")
    elif isinstance(exc, click.BadParameter):
        name = exc.param.get_error_hint(context) if exc.param and context else "?"
        what = t("cli.usage.bad_value", lang, name=name, why=_value_said(exc, lang))
    elif (extra := _EXTRA.match(exc.message)) is not None:  # an unknown option where a command takes "-5" as a value
        what = t("cli.usage.extra", lang, args=extra["args"])
    elif (unknown := _NO_COMMAND.match(exc.message)) is not None:  # click said it in English alone
        what = t("cli.usage.no_such_command", lang, name=unknown["name"]) + _nearest_command(unknown["name"], lang)
    else:
        what = exc.format_message()
    return t("cli.usage.error", lang, what=what.rstrip(".。"), help=f"{where} --help")
