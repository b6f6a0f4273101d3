"""`gpu-advise prices ...` and `gpu-advise quote`: the price cache and cost quotes from the terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn
from rich.table import Table
from sqlite_utils import Database

from bot import quote_view
from bot.cli_common import DbOpt, LangOpt, PolicyOpt, fail, load_effective_policy, load_settings
from bot.settings import Settings
from bot.texts import age_text, t
from bot.wiring import build_sources, configured_fx, freshness, http_client, open_cache
from pricing import cache
from pricing.book import quote_from_cache
from pricing.errors import CacheUnavailable, QuoteError
from pricing.offers import as_offers
from pricing.quote import Quote, QuoteRequest
from pricing.refresh import refresh
from pricing.sources import Source
from pricing.status import source_status
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu
from rules.messages import Lang
from rules.parsing import parse_share
from rules.policy import Policy

prices_app = typer.Typer(no_args_is_help=True, help="The price cache: refresh, list, status.")


@contextmanager
def _session(db: Path | None, **overrides: object) -> Iterator[tuple[Settings, list[Source], Database]]:
    """Settings, the price sources and the cache (the bundled rate card loaded on first use)."""
    settings = load_settings(db=db, **overrides)
    with http_client(settings) as client:
        sources = build_sources(settings, client)
        try:
            database = open_cache(settings, sources)
        except CacheUnavailable as exc:
            raise fail(str(exc)) from None
        try:
            yield settings, sources, database
        finally:
            database.close()


@prices_app.command("refresh")
def prices_refresh(
    source: Annotated[str | None, typer.Option("--source", help="Refresh only this source.")] = None,
    db: DbOpt = None,
) -> None:
    """Fetch prices from each source into the cache (a failed source keeps its previous prices)."""
    with _session(db) as (_settings, sources, database):
        chosen = [s for s in sources if source in (None, s.name)]
        if not chosen:
            raise fail(f"unknown source {source!r}. Configured sources: {', '.join(s.name for s in sources)}")
        console = Console(stderr=True)
        results = []
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=console, transient=True) as bar:
            for item in chosen:
                task = bar.add_task(f"refreshing {item.name} ({item.description})", total=None)
                results.append(refresh(database, item))
                bar.remove_task(task)
        out = Console(soft_wrap=True)
        for result in results:
            if result.ok:
                out.print(f"[green]✔[/green] {result.source}: {result.rows} rows")
            else:
                out.print(f"[red]✘[/red] {result.source}: failed after {result.attempts} attempt(s): "
                          f"{result.error} (previous prices kept)", highlight=False)
        if not all(r.ok for r in results):
            raise typer.Exit(1)


@prices_app.command("list")
def prices_list(
    gpu: Annotated[str | None, typer.Option("--gpu", help="Only this GPU model, e.g. A100-80GB.")] = None,
    source: Annotated[str | None, typer.Option("--source", help="Only this source.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """List cached prices with their source and age."""
    try:
        wanted = canonical_gpu(gpu) if gpu else None
    except UnknownGPU as exc:
        raise fail(f"--gpu: {exc}") from None
    with _session(db) as (_settings, sources, database):
        offers = as_offers(cache.load_prices(database, gpu=wanted, source=source), freshness(sources),
                           datetime.now(UTC))
    if as_json:
        data = [o.record.model_dump(mode="json") | {"per_gpu_hour": round(o.record.per_gpu_hour, 4),
                                                     "as_of": o.as_of.isoformat(), "age_days": o.age_days,
                                                     "stale": o.stale} for o in offers]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table("GPU", "offer", "sharing", "model", "price", "per GPU-h", "region", "source", "as of", "age")
    for o in offers:
        r = o.record
        table.add_row(r.gpu, r.instance_type, r.sharing + (f" {r.mig_profile}" if r.mig_profile else ""),
                      r.pricing_model, f"{r.amount:g} {r.currency}/{r.unit}", f"{r.per_gpu_hour:.3g}", r.region,
                      r.source, o.as_of.date().isoformat(),
                      age_text(o.age_days, Lang.EN) + (" [red]stale[/red]" if o.stale else ""))
    Console().print(table if offers else "no cached prices match; run `gpu-advise prices refresh`")


@prices_app.command("status")
def prices_status(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """Each source: last success, rows, age, last error."""
    with _session(db) as (_settings, sources, database):
        states = source_status(database, sources, datetime.now(UTC))
    if as_json:
        sys.stdout.write(json.dumps([s.model_dump(mode="json") for s in states], indent=2) + "\n")
        return
    table = Table("source", "rows", "last success", "age", "TTL", "state", "last error")
    for s in states:
        state = "[red]stale[/red]" if s.stale else "[green]fresh[/green]"
        if s.last_success is None:
            state = "[yellow]never loaded[/yellow]"
        table.add_row(s.source, str(s.rows), s.last_success.isoformat(timespec="seconds") if s.last_success else "-",
                      age_text(s.age_days, Lang.EN) if s.age_days is not None else "-",
                      f"{s.ttl_hours:g} h", state, s.last_error or "")
    Console().print(table)


def make_quote(settings: Settings, sources: list[Source], database: Any, policy: Policy, req_fields: dict[str, Any],
               default_share: float = 0.5) -> Quote:
    try:
        req = QuoteRequest.model_validate(req_fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'schedule'}: {e['msg']}" for e in exc.errors())
        raise fail(f"bad quote request: {problems}") from None
    try:
        return quote_from_cache(database, req, policy, freshness(sources), configured_fx=configured_fx(settings),
                                default_share=default_share)
    except QuoteError as exc:
        raise fail(f"cannot quote: {exc}") from None


def print_quote(quote: Quote, policy: Policy, lang: Lang, console: Console) -> None:
    view_rows = quote_view.rows(quote, policy, lang)
    table = Table(title=quote_view.title(quote, lang), title_justify="left", show_lines=True)
    for key in ("col.option", "col.cost", "col.billing", "col.source"):
        table.add_column(t(key, lang), overflow="fold")
    for row in view_rows:
        table.add_row(row.option, row.cost, row.billing, row.source, style="yellow" if row.stale else None)
    console.print(table)
    for line in quote_view.notes(quote, lang):
        console.print(f"• {line}", highlight=False)


def quote(
    gpu: Annotated[str, typer.Option(help="GPU model, e.g. A100-80GB, H100, 4090.")] = "A100-80GB",
    hours_per_day: Annotated[float | None, typer.Option(help="Hours of use a day.")] = None,
    days: Annotated[float | None, typer.Option(help="Days in the period.")] = None,
    gpu_hours: Annotated[float | None, typer.Option(help="Total GPU-hours, instead of hours a day x days.")] = None,
    cards: Annotated[str, typer.Option(help="Whole cards (use --share for a slice).")] = "1",
    share: Annotated[str | None, typer.Option(help="Shared slice: 1/2, 0.25, 3g.40gb.")] = None,
    region: Annotated[str | None, typer.Option(help="Region name or class (tier1, inland, cloud).")] = None,
    currency: Annotated[str | None, typer.Option(help="CNY or USD (default: GPU_ADVISOR_CURRENCY).")] = None,
    lang: LangOpt = None,
    policy: PolicyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the quote as JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """What dedicated, shared and spot cost for a schedule, from the price cache."""
    try:
        whole = int(cards)
        if str(whole) != cards.strip():
            raise ValueError
    except ValueError:
        raise fail(f"--cards: {cards!r} is not a whole number of cards; use --share 1/2 for a slice") from None
    fields: dict[str, Any] = {"gpu": gpu, "cards": whole, "hours_per_day": hours_per_day, "days": days,
                              "gpu_hours": gpu_hours, "region": region}
    with _session(db, lang=lang, policy=policy) as (settings, sources, database):
        fields["currency"] = (currency or settings.currency).upper()
        if share is not None:
            try:
                fields["share"] = parse_share(share, gpu)
            except ParseError as exc:
                raise fail(f"--share: {exc}") from None
        effective = load_effective_policy(settings)
        result = make_quote(settings, sources, database, effective, fields)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        print_quote(result, effective, settings.lang, Console())


def quote_decision(settings: Settings, policy: Policy, data: dict[str, Any], currency: str | None) -> Quote:
    """The quote for an `advise` decision: its GPU, cards, schedule and the slice it recommends."""
    schedule = data["profile"].get("schedule")
    if not schedule:
        raise fail("--quote needs the schedule: add --schedule 4x14 (hours a day x days)")
    fields: dict[str, Any] = {
        "gpu": data["gpu"], "cards": data["profile"].get("cards", 1), "share": data["share_fraction"],
        "hours_per_day": schedule["hours_per_day"], "days": schedule["days"],
        "currency": (currency or settings.currency).upper(),
    }
    if data["choice"] == "dedicated":
        fields["share"] = 0.5  # compare against the usual half-card slice
    with _session(settings.db) as (_settings, sources, database):
        return make_quote(settings, sources, database, policy, fields)
