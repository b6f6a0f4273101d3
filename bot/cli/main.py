"""The `gpu-advise` command line: one typer app; every command builds Settings once and passes it down."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
import yaml

from bot.cli.advise import advise_command
from bot.cli.agent import agent
from bot.cli.analyze import analyze
from bot.cli.common import PolicyOpt, fail, load_effective_policy, load_settings
from bot.cli.prices import prices_app, quote
from bot.cli.probe import probe
from bot.cli.remind import remind
from bot.cli.rentals import delete_storage, list_rentals, release, track_app
from bot.cli.serve import serve
from bot.text import t
from rules.errors import PolicyError
from rules.policy import load_policy

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="GPU Advisor: dedicated card, shared slice or spot, and what each costs.")


@app.callback()
def _quiet_logs() -> None:
    """A command prints what a person needs to know; the libraries' logs are for `serve` (which sets its own)."""
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
policy_app = typer.Typer(no_args_is_help=True, help="Show or check the policy (every threshold the rules use).")
app.command("advise")(advise_command)
app.command()(quote)
app.command()(serve)
app.add_typer(prices_app, name="prices")
app.add_typer(track_app, name="track")
app.command("list")(list_rentals)
app.command("release")(release)
app.command("delete-storage")(delete_storage)
app.command("remind")(remind)
app.command("agent")(agent)
app.command("probe")(probe)
app.command("analyze")(analyze)
app.add_typer(policy_app, name="policy")


@policy_app.command("show")
def policy_show(policy: PolicyOpt = None) -> None:
    """Print the effective policy as YAML."""
    settings = load_settings(policy=policy)
    effective = load_effective_policy(settings)
    origin = str(settings.policy) if settings.policy else "bundled policy"
    sys.stdout.write(f"# effective policy ({origin})\n")
    sys.stdout.write(yaml.safe_dump(effective.model_dump(mode="json"), sort_keys=False, allow_unicode=True))


@policy_app.command("check")
def policy_check(file: Annotated[Path, typer.Argument(help="Policy YAML file to validate.")]) -> None:
    """Validate a policy file and say what is wrong with it."""
    lang = load_settings().lang
    try:
        load_policy(file)
    except PolicyError as exc:
        raise fail(t("cli.policy_error", lang, error=str(exc))) from None
    sys.stdout.write(t("cli.policy_ok", lang, file=str(file)) + "\n")


def main() -> None:
    app()
