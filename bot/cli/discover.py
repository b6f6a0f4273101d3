"""`gpu-advise discover [--source aws|aliyun|aliyun-dsw|tencent|tencent-hai|volcengine|volcengine-mlp|huawei|
huawei-modelarts|autodl] [--json]`: find what the team rents in the clouds, once (serve does it every
GPU_ADVISOR_DISCOVER_EVERY_MINUTES). Without --source, every cloud turned on, one after another. Exit 0: every region
answered; 1: some did not (what they did not answer changed nothing); 2: discovery is not set up."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from bot.cli.common import LangOpt, fail, load_settings, say
from bot.cli.rentals import JsonOpt, TeamOpt, chosen_team, open_rentals
from bot.text import t
from bot.text.format import show
from bot.text.problem import said
from rules.sources import CLOUD_SOURCES

SOURCES = CLOUD_SOURCES


def discover(
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Where to look: aws, aliyun (with aliyun-dsw), tencent (with tencent-hai), volcengine (with "
            "volcengine-mlp), huawei (with huawei-modelarts) or autodl; "
            "default: all on.",
        ),
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find GPU instances and unattached disks in the clouds, and keep them as items of the team."""
    from bot.cli.rentals import cached_offers
    from bot.discover.registry import clouds
    from bot.discover.run import Report
    from bot.discover.run import discover as run_discovery

    settings = load_settings(lang=lang)
    if source is not None and source not in SOURCES:
        raise fail(t("cli.discover_bad_source", settings.files.lang, source=source, known=", ".join(SOURCES)))
    on = clouds(settings)
    if source is not None and source not in on:
        raise fail(t(f"cli.discover_off_{source}", settings.files.lang))
    if not on:
        raise fail(t("cli.discover_off", settings.files.lang))
    rentals = open_rentals(settings)
    # --team, as every command of the team's items takes it; else GPU_ADVISOR_DISCOVER_TEAM, as serve's scans use
    team, store = chosen_team(settings, team or settings.discovery.discover_team, rentals), rentals.store
    offers, owner = cached_offers(settings), _owner_lookup(settings, store, team)
    reports: list[Report] = []
    for name, make in on.items():
        if source is None or name == source or name.startswith(f"{source}-"):  # aliyun: with aliyun-dsw
            cloud = make()
            reports.append(
                run_discovery(settings, store, team, store.now(), offers=offers, find_owner=owner, cloud=cloud)
            )
    problems = _problems(reports, source)
    for where, problem in problems.items():
        say(t("cli.discover_problem", settings.files.lang, where=where, problem=said(problem, settings.files.lang)))
    items = [(r.source, i) for r in reports for i in r.items]
    if as_json:
        out = {"found": len(items), "items": [_item(i, where) for where, i in items]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        for where, item in items:
            row = _item(item, where)
            cells = [str(row[k] if row[k] is not None else "-") for k in COLUMNS]
            rule = row.get(
                "idle_shutdown_minutes"
            )  # a notebook's own idle rule (0: off), with its GPU %, if it has one
            if rule is not None:
                below = row.get("idle_threshold_pct")
                key = "cli.discover_idle_rule_off" if rule <= 0 else "cli.discover_idle_rule"
                key = f"{key}_below" if rule > 0 and below is not None else key
                cells.append(t(key, settings.files.lang, minutes=rule, pct=show(below) if below is not None else ""))
            sys.stdout.write("\t".join(cells) + "\n")
        sys.stdout.write(
            t(
                "cli.discover_done",
                settings.files.lang,
                found=len(items),
                new=sum(len(r.applied.new) for r in reports),
                released=sum(len(r.applied.released) for r in reports),
                deleted=sum(len(r.applied.deleted) for r in reports),
            )
            + "\n"
        )
    if problems:
        raise typer.Exit(1)


def _problems(reports: list[Any], source: str | None) -> dict[str, str]:
    """Each region's problem, named by its cloud where several were read; within the one asked for (aliyun, read
    with aliyun-dsw after it), a problem its head already said for that region (no credentials) is said once."""
    out: dict[str, str] = {}
    for report in reports:
        head = len(reports) == 1 or report.source == source
        for region, problem in report.problems.items():
            if not head and source is not None and out.get(region) == problem:
                continue
            out[region if head else f"{report.source} {region}"] = problem
    return out


COLUMNS = ("key", "kind", "name", "gpu", "cards", "owner", "channel", "state")


def _item(item: Any, source: str) -> dict[str, Any]:
    from bot.state.rentals import Instance

    instance = isinstance(item, Instance)
    return {
        "idle_shutdown_minutes": item.idle_rule_minutes if instance else None,  # kept by the scan (a DSW notebook)
        "idle_threshold_pct": item.idle_rule_threshold_pct if instance else None,  # that rule's GPU %, if it has one
        "key": item.provider_id,
        "source": source,
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


def _owner_lookup(settings: Any, store: Any, team: str) -> Any:
    """Owner tags' addresses looked up in the team's chat (Slack's users.lookupByEmail, Feishu's contacts), when
    the terminal has that chat's settings; else None (items found by address stay unowned until claimed)."""
    from bot.cli.reach import chats

    found = chats(settings, store)
    return (lambda email: found.person(team, email)) if found.wings else None
