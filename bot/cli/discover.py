"""`gpu-advise discover [--source aws] [--json]`: find what the team rents in the cloud, once (serve does it
every GPU_ADVISOR_DISCOVER_EVERY_MINUTES). Exit 0: every region answered; 1: some did not (what they did
not answer changed nothing); 2: discovery is not set up."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from bot.cli.common import LangOpt, fail, load_settings, say
from bot.cli.rentals import JsonOpt, open_rentals, workspace_of
from bot.text import t

SOURCES = ("aws",)


def discover(
    source: Annotated[str, typer.Option("--source", help="Where to look: aws.")] = "aws",
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find GPU instances and unattached volumes in the cloud, and keep them as items of the workspace."""
    from bot.cli.rentals import cached_offers
    from bot.discover.run import discover as run_discovery

    settings = load_settings(lang=lang)
    if source not in SOURCES:
        raise fail(t("cli.discover_bad_source", settings.lang, source=source, known=", ".join(SOURCES)))
    if not settings.aws_region_list():
        raise fail(t("cli.discover_off", settings.lang))
    team = workspace_of(settings, settings.discover_team)
    store = open_rentals(settings).store
    report = run_discovery(settings, store, team, store.now(), offers=cached_offers(settings), client=_slack(settings))
    for where, problem in report.problems.items():
        say(t("cli.discover_problem", settings.lang, where=where, problem=problem))
    if as_json:
        out = {"found": len(report.items), "items": [_item(i) for i in report.items]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        for item in report.items:
            row = _item(item)
            sys.stdout.write(
                "\t".join(
                    str(row[k] if row[k] is not None else "-")
                    for k in ("key", "kind", "name", "gpu", "cards", "owner", "channel", "state")
                )
                + "\n"
            )
        sys.stdout.write(
            t(
                "cli.discover_done",
                settings.lang,
                found=len(report.items),
                new=len(report.applied.new),
                released=len(report.applied.released),
                deleted=len(report.applied.deleted),
            )
            + "\n"
        )
    if report.problems:
        raise typer.Exit(1)


def _item(item: Any) -> dict[str, Any]:
    from bot.state.rentals import Instance

    instance = isinstance(item, Instance)
    return {
        "key": item.provider_id,
        "source": "aws",
        "kind": "instance" if instance else "storage",
        "name": item.name,
        "gpu": item.gpu if instance else None,
        "cards": item.cards if instance else None,
        "owner": item.owner or None,
        "channel": item.channel or None,
        "project": item.project,
        "state": item.cloud_state,
        "size_gb": None if instance else item.size_gb,
    }


def _slack(settings: Any) -> Any:
    """The bot token's client, to look owner emails up (users.lookupByEmail); None without a token."""
    if settings.slack_bot_token is None:
        return None
    from slack_sdk import WebClient

    return WebClient(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url)
