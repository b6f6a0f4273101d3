"""`gpu-advise prices ...` and `gpu-advise quote`: the price cache and cost quotes from the terminal.

The price side (HTTP client, sources, SQLite cache) and rich's tables are imported inside the
commands, not at the top: every command module is loaded to build the CLI, and `advise --json`
should not pay for them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup

from bot.cli.common import (
    DbOpt,
    LangOpt,
    PolicyOpt,
    cards_flag,
    fail,
    load_effective_policy,
    load_settings,
    text_console,
)
from bot.cli.tables import folded_table, print_table
from bot.text import Lang, t
from bot.text.chinese_names import CHEAPEST_WORDS, currency_code
from bot.text.errors import error_text
from bot.text.quote import age_text, offer_cells, stale_text
from pricing.errors import QuoteError
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu, known_gpu

if TYPE_CHECKING:
    from bot.price_book import PriceBook
    from bot.settings import Settings
    from pricing.quote import QuoteRequest
    from rules.policy import Policy

T = TypeVar("T")


class _PricesGroup(TyperGroup):
    """`prices A100` is `prices list A100`, as chat's `prices A100` is: a GPU where a sub-command goes is the list's
    first GPU (click answered "No such command 'A100'"); any other word is still no such command."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:  # typer's own click: its types are private
        if args and args[0] not in self.commands and not args[0].startswith("-") and known_gpu(args[0]):
            args = ["list", *args]
        return super().resolve_command(ctx, args)


prices_app = typer.Typer(cls=_PricesGroup, no_args_is_help=True, help="The price cache: refresh, list, status.")


@contextmanager
def price_book(settings: Settings, policy: Policy | None = None) -> Iterator[PriceBook]:
    """The sources and the cache (the bundled rate card loaded on first use); exit 2 if the cache is unusable."""
    from bot.price_book import PriceBook, http_client
    from pricing.errors import CacheUnavailable

    with http_client(settings) as client:
        try:
            yield PriceBook.open(settings, policy, client)  # without one, the settings' policy where a quote asks
        except CacheUnavailable as exc:
            raise fail(t("cli.cache_unavailable", settings.files.lang, path=exc.path, reason=exc.reason)) from None


@prices_app.command("refresh")
def prices_refresh(
    source: Annotated[
        str | None, typer.Option("--source", help="Refresh only this source (gpuhunt: every gpuhunt:PROVIDER).")
    ] = None,
    db: DbOpt = None,
    lang: LangOpt = None,
) -> None:
    """Fetch prices from each source into the cache (a failed source keeps its previous prices)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn
    from rich.text import Text

    from pricing.refresh import refresh

    settings = load_settings(db=db, lang=lang)
    lang = settings.files.lang
    with price_book(settings) as book:
        chosen = [s for s in book.sources if source in (None, s.name) or s.name.startswith(f"{source}:")]
        if not chosen:
            raise fail(
                t("cli.unknown_source", lang, source=source or "", sources=", ".join(s.name for s in book.sources))
            )
        results = []
        database = book.db()
        try:
            with Progress(
                SpinnerColumn(),
                TextColumn("{task.description}", markup=False),
                console=text_console(stderr=True),
                transient=True,
            ) as bar:
                for item in chosen:
                    task = bar.add_task(t("cli.refreshing", lang, source=item.name, what=item.description))
                    results.append(refresh(database, item))
                    bar.remove_task(task)
            from pricing import cache

            kept = {r.source: cache.count_prices(database, r.source) for r in results if not r.ok}
        finally:
            database.close()
    out = text_console(soft_wrap=True)
    for result in results:
        if result.ok:
            done = t("cli.refreshed", lang, source=result.source, rows=result.rows)
            out.print(Text.assemble(("✔", "green"), " ", done))
        else:
            key = "cli.refresh_failed" if kept.get(result.source) else "cli.refresh_failed_none"
            out.print(
                Text.assemble(("✘", "red"), " ")
                + t(
                    key,
                    lang,
                    source=result.source,
                    attempts=result.attempts,
                    error=result.error or "",
                    rows=kept.get(result.source, 0),
                ),
                highlight=False,
            )
    if not all(r.ok for r in results):
        raise typer.Exit(1)


@prices_app.command("list")
def prices_list(
    named: Annotated[
        list[str] | None,
        typer.Argument(
            help="Only these GPUs, as said: A100, 'A100 40G', 4090, or several: A100 H100 (or --gpu).",
            show_default=False,
        ),
    ] = None,
    gpu: Annotated[str | None, typer.Option("--gpu", help="Only this GPU model, e.g. A100-80GB.")] = None,
    source: Annotated[
        str | None, typer.Option("--source", help="Only this source (gpuhunt: every gpuhunt:PROVIDER).")
    ] = None,
    cheapest: Annotated[
        bool,
        typer.Option(
            "--cheapest",
            help="First the cheapest whole card (a GPU-hour) and slice (its hour), in GPU_ADVISOR_CURRENCY.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
    lang: LangOpt = None,
) -> None:
    """List cached prices with their source and age."""
    from rich.text import Text

    settings = load_settings(db=db, lang=lang)
    lang = settings.files.lang
    said = [word for word in named or [] if word.lower() not in CHEAPEST_WORDS]
    cheapest, named = cheapest or len(said) < len(named or []), said  # `prices list 4090 最便宜`, as chat says it
    if named and gpu:
        raise fail(t("cli.words_twice", lang, command="prices list", flag="--gpu"))
    try:  # `prices list A100 40G`: one GPU, its memory typed apart; `prices list A100 H100`: each one's
        wanted = _named_gpus(named, lang) if named else [canonical_gpu(gpu)] if gpu else [None]
    except UnknownGPU as exc:
        raise fail(f"--gpu: {error_text(exc, lang)}" if not named else error_text(exc, lang)) from None
    with price_book(settings) as book:
        offers = [offer for each in wanted for offer in book.offers(gpu=each, source=source)]
        to_team = book.money(currency_code(settings.files.currency)) if cheapest and offers else None
    if as_json:
        data = [
            o.record.model_dump(mode="json")
            | {
                "per_gpu_hour": round(o.record.per_gpu_hour, 4),
                "as_of": o.as_of.isoformat(),
                "age_days": o.age_days,
                "stale": o.stale,
            }
            for o in offers
        ]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    if to_team is not None:
        from bot.text.cheapest import cheapest_lines

        for gpu_name in dict.fromkeys(o.record.gpu for o in offers):  # each GPU's own, `prices list A100 H100`
            lines = cheapest_lines([o for o in offers if o.record.gpu == gpu_name], to_team, lang)
            text_console().print("\n".join(f"{gpu_name}: {line}" for line in lines).replace("*", ""))
    table = folded_table(t("cli.prices_columns", lang))
    stale = (" " + t("stale", lang), "red")
    for o in offers:
        *cells, age = offer_cells(o, lang)
        table.add_row(*cells, Text.assemble(age, stale if o.stale else ""))
    if offers:
        print_table(table)
    elif wanted != [None] and source is None:  # --gpu H800: the GPUs that have a price, as quote says
        with price_book(settings) as book:
            priced = ", ".join(book.priced_gpus()) or "-"
        asked = ", ".join(str(each) for each in wanted)
        text_console().print(t("error.quote.no_price.cli", lang, gpu=asked, priced=priced))
    else:
        text_console().print(t("cli.no_prices", lang))


@prices_app.command("status")
def prices_status(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
    lang: LangOpt = None,
) -> None:
    """Each source: last success, rows, age, last error."""
    from rich.text import Text

    settings = load_settings(db=db, lang=lang)
    lang = settings.files.lang
    with price_book(settings) as book:
        states = book.status()
    if as_json:
        sys.stdout.write(json.dumps([s.model_dump(mode="json") for s in states], indent=2) + "\n")
        return
    table = folded_table(t("cli.status_columns", lang))
    for s in states:
        state = Text(stale_text(s, lang), "red") if s.stale else Text(t("slack.fresh", lang), "green")
        if s.last_success is None:
            state = Text(t("cli.never_loaded", lang), "yellow")
        table.add_row(
            s.source,
            str(s.rows),
            s.last_success.isoformat(timespec="seconds") if s.last_success else "-",
            age_text(s.age_days, lang) if s.age_days is not None else "-",
            f"{s.ttl_hours:g} h",
            state,
            s.last_error or s.note or "",
        )
    print_table(table)


def _request(settings: Settings, fields: dict[str, Any], share: str | None) -> QuoteRequest:
    from pydantic import ValidationError

    from pricing.quote import QuoteRequest, quoted_gpu

    lang = settings.files.lang
    try:  # the GPU first: `--gpu 哈哈` without a schedule asked for the schedule, then refused the GPU
        quoted_gpu(fields["gpu"])
    except QuoteError as exc:
        raise fail(t("cli.cannot_quote", lang, error=error_text(exc, lang))) from None
    if share is not None:
        try:
            from rules.parsing import parse_share

            fields["share"] = parse_share(share, fields["gpu"])
        except ParseError as exc:
            raise fail(f"--share: {error_text(exc, lang)}") from None
    try:
        return QuoteRequest.model_validate(fields)
    except ValidationError as exc:
        from bot.text.request_errors import request_problems

        def flag(field: str, given: str) -> str:  # each field is the flag of its name: hours_per_day, --hours-per-day
            return t("cli.request_schedule", lang) if field == "schedule" else f"--{field.replace('_', '-')} {given}"

        raise fail(t("cli.bad_quote_request", lang, problems=request_problems(exc, lang, flag))) from None


def _schedule(said: str | None, hours_per_day: float | None, days: float | None, lang: Lang) -> dict[str, float]:
    """--schedule read as chat's `hours=` is (rules/parsing.py; a period alone, `一个月`, is the card rented for it);
    with either of the two flags it says the same twice, which is refused."""
    if said is None:
        return {}
    if hours_per_day is not None or days is not None:
        raise fail(t("cli.schedule_twice", lang))
    from rules.parsing import parse_rental_schedule

    try:
        read = parse_rental_schedule(said)
    except ParseError as exc:
        raise fail(f"--schedule: {error_text(exc, lang)}") from None
    return {"hours_per_day": read.hours_per_day, "days": read.days}


def quote(
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="The GPU and the schedule as people say them, instead of the flags: H100 4x14, A100 8卡 包月, "
            "4090 每天4小时 14天, H100 100 gpu hours, H100 10h (one run).",
            show_default=False,
        ),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU model, e.g. A100-80GB, H100, 4090 (default A100-80GB).")] = None,
    hours_per_day: Annotated[float | None, typer.Option(help="Hours of use a day.")] = None,
    days: Annotated[float | None, typer.Option(help="Days in the period.")] = None,
    gpu_hours: Annotated[float | None, typer.Option(help="Total GPU-hours, instead of hours a day x days.")] = None,
    schedule: Annotated[
        str | None,
        typer.Option(help="Hours a day and days in words, instead of the two flags: 4x14, '4h x 14d', 每天4小时14天."),
    ] = None,
    cards: Annotated[str, typer.Option(help="Whole cards: 8, 8卡, 八张 (use --share for a slice).")] = "1",
    share: Annotated[str | None, typer.Option(help="Shared slice: 1/2, 0.25, 3g.40gb.")] = None,
    region: Annotated[str | None, typer.Option(help="Region name or class (tier1, inland, cloud).")] = None,
    currency: Annotated[
        str | None,
        typer.Option(help="CNY, USD, EUR or any currency the ECB publishes (default: GPU_ADVISOR_CURRENCY)."),
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            help="Only this provider's prices (aws, runpod, lambdalabs, ...); cheapest: every "
            "provider's, the cheapest of them (the default).",
        ),
    ] = None,
    compare: Annotated[
        bool,
        typer.Option(
            "--compare", help="The schedule at each provider: cheapest dedicated, shared and spot, sorted by total."
        ),
    ] = False,
    storage_gb: Annotated[float, typer.Option(help="GB kept in storage over the period.")] = 0,
    storage_price: Annotated[
        float | None, typer.Option(help="Storage price per GB-month (default: the price cache's).")
    ] = None,
    egress_gb: Annotated[float, typer.Option(help="GB of traffic sent out.")] = 0,
    egress_price: Annotated[
        float | None, typer.Option(help="Traffic price per GB (default: the price cache's).")
    ] = None,
    lang: LangOpt = None,
    policy: PolicyOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the quote as JSON.")] = False,
    db: DbOpt = None,
) -> None:
    """What dedicated, shared and spot cost for a schedule, from the price cache.

    With storage and traffic: the total cost of the run."""
    settings = load_settings(db=db, lang=lang, policy=policy)
    given: dict[str, Any] = {"gpu": gpu, "cards": cards, "share": share, "currency": currency, "schedule": schedule}
    given |= {"gpu_hours": gpu_hours, "hours_per_day": hours_per_day, "days": days}
    effective = load_effective_policy(settings)
    extras: dict[str, Any] = {"region": region, "storage_gb": storage_gb, "storage_price": storage_price}
    extras |= {"egress_gb": egress_gb, "egress_price": egress_price}
    extras["provider"] = None if (provider or "").strip().lower() in ("", "cheapest") else provider
    if words and any("=" in word for word in words):  # `quote gpu=A100 hours=4x14`: chat's keys, as their flags
        words, compare = _keyed(words, settings.files.lang, given, extras, compare)
    words = _as_asked(words, settings.files.lang) if words else words
    if words and given["gpu"] is None and len((named := _gpus_said(words))[0]) > 1:  # `quote A100 H100 4x14`
        return _side_by_side(settings, effective, given, named, extras, as_json)
    if words:  # `gpu-advise quote H100 4x14`: read as chat's quote reads its words, each a flag of its own
        given |= _words(words, settings.files.lang, given)
        _provider_among(given, extras, settings.files.lang)
    request = _request(settings, _run_fields(settings, given) | extras, given["share"])
    if compare:
        _compare(settings, effective, request, as_json)
        return
    result = _priced(settings, effective, lambda book: book.quote(request))
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    from bot.cli.quote_print import print_quote

    print_quote(result, effective, settings.files.lang, text_console())


def _provider_among(given: dict[str, Any], extras: dict[str, Any], lang: Lang) -> None:
    """A provider among the words (`quote H100 4x14 on runpod`, `在autodl上`) as --provider; exit 2 beside the flag."""
    said_on = given.pop("provider", None)
    if said_on is not None and extras["provider"] is not None:
        raise fail(t("cli.words_twice", lang, command="quote", flag="--provider"))
    extras["provider"] = extras["provider"] or said_on


def _keyed(
    words: list[str], lang: Lang, given: dict[str, Any], extras: dict[str, Any], compare: bool
) -> tuple[list[str], bool]:
    from bot.cli.quote_keys import keyed

    return keyed(words, lang, given, extras, compare)


def _as_asked(words: list[str], lang: Lang) -> list[str]:
    """The words, or where they do not read as they are, the run a question asks the price of as chat reads it
    (`quote 8张H100跑一周多少钱`, `quote how much is an H100 for a week`: the question's words around it); a question
    of a GPU's prices alone (`quote A100多少钱`) is refused with `prices` to send; of anything else keeps its words
    (refused naming what is not read)."""
    from bot.fields.quote_words import bare_words

    if not bare_words(words)[0]:
        return words
    from bot.app.price_asked import price_asked

    asked = price_asked(" ".join(words))
    gpus = " ".join(w for w in asked[1] if known_gpu(w)) if asked is not None else ""  # no `cheapest`, no provider
    if asked is not None and asked[0] == "prices" and gpus:  # `quote A100多少钱`: its prices, asked with no run
        raise fail(t("cli.quote_prices_asked", lang, said=" ".join(words)[:40], gpus=gpus))
    return asked[1] if asked is not None and asked[0] == "quote" else words


def _gpus_said(words: list[str]) -> tuple[list[str], list[str]]:
    from bot.fields.quote_words import gpus_said

    return gpus_said(words)


def _side_by_side(
    settings: Settings,
    policy: Policy,
    given: dict[str, Any],
    named: tuple[list[str], list[str]],
    extras: dict[str, Any],
    as_json: bool,
) -> None:
    """One run quoted on each GPU the words name (`named`: the GPUs and the other words; at most 4, as chat's), a
    row each: every option's total, from one opening of the price book; `extras`: the region, provider, storage and
    traffic flags, the same for each."""
    from bot.fields.quote_words import MOST_GPUS

    gpus, rest = named
    requests = []
    for gpu in gpus[:MOST_GPUS]:
        fields = _run_fields(settings, given | _words([gpu, *rest], settings.files.lang, given)) | extras
        requests.append(_request(settings, fields, given["share"]))
    quotes = _priced(settings, policy, lambda book: [book.quote(request) for request in requests])
    if as_json:
        dumped = [q.model_dump(mode="json") for q in quotes]
        sys.stdout.write(json.dumps({"quotes": dumped}, ensure_ascii=False, indent=2) + "\n")
        return
    from bot.cli.quote_print import print_side_by_side

    print_side_by_side(quotes, settings.files.lang, text_console())


def _run_fields(settings: Settings, given: dict[str, Any]) -> dict[str, Any]:
    """The request's GPU, cards, schedule and currency from the flags (or the words standing for them)."""
    lang = settings.files.lang
    cards, hours_per_day, days = given["cards"], given["hours_per_day"], given["days"]
    return {
        "gpu": given["gpu"] or "A100-80GB",
        # a figure as typed, for the quote's own range check (as chat's cards=); 8卡, 八张 read as chat reads them
        "cards": int(cards) if cards.strip().isdigit() else cards_flag(cards, lang),
        "hours_per_day": hours_per_day,
        "days": days,
        **_schedule(given["schedule"], hours_per_day, days, lang),
        "gpu_hours": given["gpu_hours"],
        "currency": quote_currency(given["currency"], settings),
    }


def _words(words: list[str], lang: Lang, flags: dict[str, Any]) -> dict[str, Any]:
    """quote's words (bot/fields/quote_words.py) as the flags they stand for; exit 2 naming a word read as nothing
    (chat's key=value pairs are read before, bot/cli/quote_keys.py), or a flag given as well (a schedule among the words
    beside --schedule, --gpu-hours, --hours-per-day or --days)."""
    from bot.fields.quote_words import bare_words
    from bot.fields.rentals import FieldError, machine

    left, found = bare_words(words)
    if left:
        raise fail(t("cli.quote_words_left", lang, words=" ".join(left)))
    given = flags | {"cards": None if flags["cards"] == "1" else flags["cards"]}
    for field in ("gpu", "cards", "share", "currency"):
        if field in found and given[field] is not None:
            raise fail(t("cli.words_twice", lang, command="quote", flag=f"--{field}"))
    when = ("schedule", "gpu_hours", "hours_per_day", "days")
    if any(k in found for k in when) and any(given[k] is not None for k in when):
        raise fail(t("cli.words_twice", lang, command="quote", flag="--schedule"))
    if "gpu" in found:  # "A100*8", "8卡A100": the cards with it
        try:
            name, counted = machine(found["gpu"], None, lang)
        except FieldError as exc:
            raise fail(exc.message) from None
        found["gpu"] = name
        if counted is not None:
            if "cards" in found or given["cards"] is not None:
                raise fail(t("cli.words_twice", lang, command="quote", flag="--cards"))
            found["cards"] = str(counted)
    return found | ({"gpu_hours": float(found["gpu_hours"])} if "gpu_hours" in found else {})


def _priced(settings: Settings, policy: Policy, ask: Callable[[PriceBook], T]) -> T:
    """What `ask` gets from the price book; exit 2 saying why when no quote can be made."""
    with price_book(settings, policy) as book:
        try:
            return ask(book)
        except QuoteError as exc:
            raise fail(t("cli.cannot_quote", settings.files.lang, error=error_text(exc, settings.files.lang))) from None


def _compare(settings: Settings, policy: Policy, request: QuoteRequest, as_json: bool) -> None:
    rows = _priced(settings, policy, lambda book: book.compare(request))
    if as_json:
        sys.stdout.write(
            json.dumps({"offers": [r.model_dump(mode="json") for r in rows]}, ensure_ascii=False, indent=2) + "\n"
        )
        return
    from bot.cli.quote_print import print_compare

    print_compare(rows, request, settings.files.lang, text_console())


def _named_gpus(words: list[str], lang: Lang) -> list[str | None]:
    """The GPUs `prices list`'s words name, in the order said (`A100 H100`, `A100 40G`); UnknownGPU for a word
    that names none."""
    from rules.gpus import gpus_in

    return list(gpus_in(words, whole=True))  # a word that is no GPU: refused naming it, as --gpu is


def quote_currency(given: str | None, settings: Settings) -> str:
    """--currency (else GPU_ADVISOR_CURRENCY) as its code (usd, 美元: USD); exit 2 naming the currencies quotes
    take."""
    from pricing.fx import ECB_CURRENCIES

    code = currency_code(given or settings.files.currency)  # USD, 美元
    if code not in ECB_CURRENCIES:
        raise fail(
            t("cli.bad_currency", settings.files.lang, currency=code, accepted=", ".join(sorted(ECB_CURRENCIES)))
        )
    return code
