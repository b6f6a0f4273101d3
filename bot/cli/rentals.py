"""`gpu-advise track instance|storage`, `list`, `release`, `delete-storage`: what a team rents.

The team is `--team`, else the one the configured bot token belongs to (auth.test). The state
database is opened when a command runs (SQLAlchemy is not loaded to build the CLI).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from bot.cli.common import LangOpt, cards_flag, fail, load_settings, say
from bot.cli.keyed_words import keyed_words
from bot.text import Lang, t
from bot.text.format import money
from bot.text.quote import instance_rate

if TYPE_CHECKING:
    from rich.console import Console

    from bot.fields.rentals import CachedPrice
    from bot.settings import Settings
    from bot.state.rentals import Rentals
    from rules.worth import Worth


class _TrackGroup(TyperGroup):
    """`track 训练机 A800 8卡 每小时60元` is `track instance 训练机 …`, as chat's `track NAME …` is: a word where a
    sub-command goes, and no sub-command's name, is the instance's name (click answered "No such command '训练机'")."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:  # typer's own click: its types are private
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["instance", *args]
        return super().resolve_command(ctx, args)


track_app = typer.Typer(
    cls=_TrackGroup, no_args_is_help=True, help="Track what the team rents: an instance, or storage."
)
TeamOpt = Annotated[
    str | None,
    typer.Option(
        "--team",
        help="The team: a Slack workspace (T…), or another chat's behind its prefix (feishu:<tenant key>, …: "
        "the bot's `help` in that chat shows it); default: the Slack bot token's workspace, else the one team "
        "known here.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def chosen_team(settings: Settings, team: str | None, rentals: Rentals | None = None) -> str:
    """The team a command is about: `--team` (a Slack workspace T…, or another chat's behind its prefix);
    else the one a chat's settings name on their own (the Slack bot token's workspace); else the one team the state
    knows."""
    from bot.chat.port import is_team, team_forms

    if team:
        if not is_team(team):
            raise fail(t("cli.bad_team", settings.files.lang, team=team[:80], forms=team_forms()))
        return team
    from bot.server.chat_setups import chat_setups

    for setup in chat_setups():
        try:
            own = setup.own_team(settings, settings.files.lang)
        except LookupError as exc:
            raise fail(str(exc.args[0])) from None
        if own is not None:
            return own
    from bot.state.teams import known_teams

    known = known_teams((rentals or open_rentals(settings)).store)
    if len(known) == 1:
        return known[0]
    raise fail(
        t(
            "cli.no_team",
            settings.files.lang,
            known=", ".join(known) or t("cli.no_teams_yet", settings.files.lang),
            forms=team_forms(),
        )
    )


CHANNEL_HELP = "The chat its reminders go to: a Slack channel (C…), a Feishu group (oc_…), a DingTalk or WeCom chat."
OWNER_HELP = "Who owns it: a Slack member id (U…), a Feishu open_id (ou_…), a DingTalk or WeCom userid."


ONE_KNOWN_HELP = "Default: the one this team's items have, where they have one."


def whose_place(settings: Settings, team: str, channel: str | None, owner: str | None) -> tuple[str, str]:
    """--channel and --owner, or where one is left out the one the team's items have (said on stderr); exit 2 where
    they have none or several, naming those they have (click said only "missing '--channel'")."""
    from collections import Counter

    if channel is not None and owner is not None:
        return channel, owner
    rentals = open_rentals(settings)
    running, kept = rentals.instances(team, active_only=True), rentals.storage(team, kept_only=True)
    channels = Counter([i.channel for i in running if i.channel] + [s.channel for s in kept if s.channel])
    owners = Counter([i.owner for i in running if i.owner] + [s.owner for s in kept if s.owner])
    chosen = []
    for flag, given, seen in (("--channel", channel, channels), ("--owner", owner, owners)):
        if given is not None:
            chosen.append(given)
            continue
        lang = settings.files.lang
        if not seen:
            raise fail(t("cli.flag_needed_first", lang, flag=flag, what=t(f"cli.flag_what.{flag}", lang)))
        if len(seen) > 1:
            known = ", ".join(f"{value} ({count})" for value, count in seen.most_common(8))
            raise fail(t("cli.flag_needed_several", lang, flag=flag, known=known))
        [(value, _)] = seen.items()
        say(t("cli.flag_defaulted", lang, flag=flag, value=value))
        chosen.append(value)
    return chosen[0], chosen[1]


def checked_channel(settings: Settings, team: str, text: str, flag: str = "--channel") -> str:
    """The channel a flag names, as the team's chat names it (a Feishu chat without its prefix); exit 2 saying
    what a channel looks like when it names none (a mention, a user id, a formula)."""
    from bot.chat.platforms import channel_form, channel_of, platform_of
    from bot.text.catalogue import has

    found = channel_of(team, text)
    if found is None:
        lang, platform, form = settings.files.lang, platform_of(team), channel_form(team)
        if form is not None:  # a chat that registered how its channels look (DingTalk, WeCom)
            named = f"cli.chat_name.{platform}"
            chat = t(named, lang) if has(named) else str(platform)
            raise fail(t("cli.bad_channel", lang, flag=flag, text=text[:80], chat=chat, form=form))
        key = "cli.bad_channel_feishu" if platform == "feishu" else "cli.bad_channel_slack"
        raise fail(t(key, lang, flag=flag, text=text[:80]))
    return found


def checked_owner(settings: Settings, team: str, text: str, flag: str = "--owner") -> str:
    """The person a flag names, as the team's chat names its people (bot/chat/platforms.py's person_of, as chat's
    `owner=` reads it); exit 2 saying how a person of that chat is given when it names none (a name, an email):
    an owner the chat cannot reach is never told of their idle box."""
    from bot.chat.platforms import person_form, person_of, platform_of
    from bot.text.catalogue import has

    platform = platform_of(team)
    found = person_of(platform, text)
    if found is None:
        lang, form = settings.files.lang, person_form(platform)
        if form is None:  # Slack: its message says where a member id is copied from
            raise fail(t("cli.bad_owner_slack", lang, flag=flag, text=text[:80]))
        named = f"cli.chat_name.{platform}"
        chat = t(named, lang) if has(named) else str(platform)
        raise fail(t("cli.bad_owner", lang, flag=flag, text=text[:80], chat=chat, form=form))
    return found


def people(settings: Settings, rentals: Rentals, team: str, users: set[str]) -> dict[str, str]:
    """Each user id as a person reads it in a terminal: their name as the team's chat says it (Slack's users.info,
    Feishu's contacts; once a user a run) when the terminal has that chat's settings, else the bare id. Never a
    `<@U…>` mention."""
    if not users:
        return {}
    from bot.cli.reach import chats

    return chats(settings, rentals.store).names(team, users)


def open_rentals(settings: Settings) -> Rentals:
    from bot.state import Store, StoreUnavailable
    from bot.state.rentals import Rentals

    try:
        return Rentals(Store(settings.files.state_url()))
    except StoreUnavailable as exc:
        raise fail(t("cli.state_unavailable", settings.files.lang, target=exc.target, reason=exc.reason)) from None


def _run(settings: Settings, action: Any) -> Any:
    """Run a rental action; a RentalError exits 2 with its sentence."""
    from bot.state.rentals import RentalError

    try:
        return action()
    except RentalError as exc:
        raise fail(t(f"error.rental.{exc.code}", settings.files.lang, **exc.params)) from None


PAST_HELP = "'yesterday 9:00', 9:00 (the last 9:00), '2h ago' or ISO 8601; default now; no zone: the team's clock"


def past_moment(text: str | None, settings: Settings, now: datetime, flag: str) -> datetime:
    """A past time given to `flag` as people type it (bot/fields/moments.py: 23:30, yesterday 23:30, 2h ago, ISO
    8601; no zone: GPU_ADVISOR_REMIND_TZ, the team's clock, as chat reads it), `now` when not given; exit 2 naming
    the flag for words that are not a time or a time to come. `--at`, `--started` and `--created` read alike."""
    from zoneinfo import ZoneInfo

    from bot.fields.moments import moment_of
    from bot.fields.rentals import FieldError

    if text is None:
        return now
    try:
        return moment_of(text, settings.files.lang, now, ZoneInfo(settings.digest.remind_tz))
    except FieldError as exc:
        raise fail(f"{flag}: {exc.message}") from None


def billed_from(moment: datetime, settings: Settings) -> None:
    """Say from when a box or storage given a start bills, on the team's clock (chat's track says the same)."""
    from zoneinfo import ZoneInfo

    from bot.text.runway import when_said

    say(t("digest.billed_since", settings.files.lang, at=when_said(moment, ZoneInfo(settings.digest.remind_tz))))


def _cached(settings: Settings, gpu: str, cards: int, share: float | None) -> CachedPrice | None:
    """The price cache's price for an instance (the bundled rate card on a fresh machine; no network)."""
    from bot.fields.rentals import price_from_cache
    from bot.price_book import PriceBook, http_client
    from pricing.errors import CacheUnavailable

    try:
        with http_client(settings) as client:
            book = PriceBook.open(settings, None, client)  # offers only: no policy prices them
            return price_from_cache(book.offers(gpu=gpu), cards, share)
    except CacheUnavailable:
        return None


def cached_offers(settings: Settings) -> Any:
    """The price cache's offers of a GPU (none when the cache cannot be read), for items found or enrolled."""
    from bot.price_book import PriceBook, http_client
    from pricing.errors import CacheUnavailable

    def offers(gpu: str) -> list[Any]:
        try:
            with http_client(settings) as client:
                return PriceBook.open(settings, None, client).offers(gpu=gpu)
        except CacheUnavailable:
            return []

    return offers


def _fields(make: Any) -> Any:
    """Read fields with bot/fields/rentals.py; a bad one exits 2 naming its flag."""
    from bot.fields.rentals import FieldError

    try:
        return make()
    except FieldError as exc:
        raise fail(f"--{exc.field}: {exc.message}") from None


@track_app.command("instance")
def track_instance(
    name: Annotated[str, typer.Argument(help="A name, unique in the team.")],
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP + " " + ONE_KNOWN_HELP)] = None,
    owner: Annotated[str | None, typer.Option(help=OWNER_HELP + " " + ONE_KNOWN_HELP)] = None,
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="The GPU, its cards, price, provider and billing as said, instead of their flags: "
            "A800 8卡 每小时60元, H100 '$2.5/h' autodl 包月.",
            show_default=False,
        ),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU model, e.g. A100-80GB (or among the words).")] = None,
    price: Annotated[
        str | None, typer.Option(help="400/day, 14/h or 11500/month (default: a dedicated price from the price cache).")
    ] = None,
    cards: Annotated[str | None, typer.Option(metavar="N", help="Whole cards: 8, 8卡, 八张 (or --share).")] = None,
    share: Annotated[str | None, typer.Option(help="A slice of one card: 1/2, 3g.40gb.")] = None,
    project: Annotated[str | None, typer.Option(help="The project it is billed to.")] = None,
    currency: Annotated[
        str | None,
        typer.Option(
            help="CNY or USD (default: the price's own sign or currency, else the provider's: USD on runpod, lambda, "
            "vastai, aws, gcp, azure; else CNY)."
        ),
    ] = None,
    started: Annotated[str | None, typer.Option(help="When it started, billed from then: " + PAST_HELP + ".")] = None,
    billing: Annotated[
        str | None, typer.Option(help="hourly, day or month (default: from the price's unit, 14/h -> hourly).")
    ] = None,
    stop_billing: Annotated[
        str | None, typer.Option("--stop-billing", help="stops (default) or keeps: a stopped box still bills.")
    ] = None,
    provider: Annotated[str | None, typer.Option(help="The provider account it bills to: autodl, aliyun...")] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Track a rented instance; prints its heartbeat token once (for `gpu-advise agent`)."""
    from bot.fields.metering import PROVIDER_CURRENCY, billing_of, provider_id, provider_of, stop_billing_of
    from bot.fields.rentals import instance_fields

    settings = load_settings(lang=lang)
    given = {"gpu": gpu, "price": price, "cards": cards, "share": share, "billing": billing, "project": project}
    given |= {"stop_billing": stop_billing, "provider": provider, "currency": currency, "started": started}
    gpu, price, cards, share, billing, stop_billing, provider = _worded(words or [], settings.files.lang, given)
    project, currency, started = given["project"], given["currency"], given["started"]  # or keyed among the words
    count = cards_flag(cards, settings.files.lang) if cards is not None else None
    # --currency; None: --price '$2.5/h' says its own (it was kept as ¥2.5), else the provider's (runpod: dollars)
    default = PROVIDER_CURRENCY.get(provider_id(provider or ""), "CNY")
    fields = _fields(
        lambda: instance_fields(gpu, price, count, share, currency, settings.files.lang,
                                cached=lambda g, c, s: _cached(settings, g, c, s), default_currency=default)
    )  # fmt: skip
    source = fields.pop("price_source", None)
    fields |= {"channel": channel, "owner": owner, "project": project}
    fields["started_at"] = past_moment(started, settings, datetime.now(UTC), "--started")
    if billing is not None:
        fields["billing"] = _fields(lambda: billing_of(billing, settings.files.lang))
    if stop_billing is not None:
        fields["stop_billing"] = _fields(lambda: stop_billing_of(stop_billing, settings.files.lang))
    if provider is not None:
        fields["provider"] = _fields(lambda: provider_of(provider, settings.files.lang))
    team = chosen_team(settings, team)
    channel, owner = whose_place(settings, team, channel, owner)
    fields["channel"], fields["owner"] = checked_channel(settings, team, channel), checked_owner(settings, team, owner)
    instance, token = _run(settings, lambda: open_rentals(settings).track_instance(team, name, fields))
    if as_json:
        sys.stdout.write(json.dumps({"name": instance.name, "token": token}) + "\n")
    else:
        sys.stdout.write(t("cli.tracked_instance", settings.files.lang, name=instance.name, token=token) + "\n")
    if started is not None:
        billed_from(instance.started_at, settings)
    if source:
        lang = settings.files.lang
        say(t("cli.price_from_cache", lang, price=instance_rate(instance, lang), source=source))


def _worded(words: list[str], lang: Lang, given: dict[str, str | None]) -> tuple[Any, ...]:
    """track instance's flags with the words after its name read as chat's track reads them (bot/fields/track_words.py),
    each standing for its flag; exit 2 naming a word read as nothing, a flag given twice, or a required one missing
    (--gpu, unless among the words)."""
    from bot.fields.rentals import FieldError
    from bot.fields.track_words import INSTANCE_KEYS, instance_words

    words = keyed_words(words, lang, given, INSTANCE_KEYS, "track")  # `provider=autodl`, `项目=llm`: chat's keys
    try:
        said = instance_words(list(words), lang, "cli.track_words_unread") if words else {}
    except FieldError as exc:
        raise fail(exc.message) from None
    for field, value in said.items():
        if given.get(field) is not None:
            raise fail(t("cli.words_twice", lang, command="track instance", flag=f"--{field.replace('_', '-')}"))
        given[field] = value
    if not given.get("gpu"):
        missing = t("cli.usage.missing", lang, name="'--gpu'")  # as click says a missing option
        raise fail(t("cli.usage.error", lang, what=missing, help="gpu-advise track instance --help"))
    keys = ("gpu", "price", "cards", "share", "billing", "stop_billing", "provider")
    return tuple(given[k] for k in keys)


_STORAGE_FLAGS = {"size": "--size-gb", "price": "--price-gb-month"}  # the flags not named as their fields


@track_app.command("storage")
def track_storage(
    name: Annotated[str, typer.Argument(help="A name, unique in the team.")],
    channel: Annotated[str | None, typer.Option(help=CHANNEL_HELP + " " + ONE_KNOWN_HELP)] = None,
    owner: Annotated[str | None, typer.Option(help=OWNER_HELP + " " + ONE_KNOWN_HELP)] = None,
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="The size and price as said, instead of their flags: 2T 0.35元/GB/月, "
            "1T 每月500元 (the disk's month).",
            show_default=False,
        ),
    ] = None,
    size_gb: Annotated[
        str | None, typer.Option(metavar="GB", help="Size in GB (also 500G, 2T: a T is 1,024 GB).")
    ] = None,
    price_gb_month: Annotated[
        str | None, typer.Option(metavar="PRICE", help="Price per GB-month (also 0.35元/GB/月, 100元/T/月).")
    ] = None,
    instance: Annotated[str | None, typer.Option(help="The tracked instance it belongs to.")] = None,
    project: Annotated[str | None, typer.Option(help="The project it is billed to.")] = None,
    currency: Annotated[
        str | None, typer.Option(help="CNY or USD (default: the price's own sign or currency, else CNY).")
    ] = None,
    created: Annotated[
        str | None,
        typer.Option(
            "--created", help="When it was made, billed from then (storage kept from before): " + PAST_HELP + "."
        ),
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
) -> None:
    """Track rented storage (images, data sets, checkpoints)."""
    from bot.fields.rentals import money_of, read_price_gb_month
    from bot.fields.track_words import STORAGE_KEYS
    from rules.storage_amounts import parse_size_gb

    settings = load_settings(lang=lang)
    said_in = settings.files.lang
    keyed = {"size": size_gb, "price": price_gb_month, "instance": instance, "project": project}
    keyed |= {"currency": currency, "created": created}  # `size=500 price=0.7`: chat's keys, as their flags
    words = keyed_words(words or [], said_in, keyed, STORAGE_KEYS, "track", flags=_STORAGE_FLAGS)
    size_gb, price_gb_month, instance, project, currency, created = keyed.values()
    size_said, price_said, whole = _storage_worded(words, said_in, size_gb, price_gb_month)
    size = _storage_amount(size_said, parse_size_gb, "--size-gb", said_in)
    read_price = partial(read_price_gb_month, size_gb=size if whole else None)  # `1T 每月500元`: the disk's month
    fields = {
        "channel": channel,
        "owner": owner,
        "project": project,
        "size_gb": size,
        "price_gb_month": _storage_amount(price_said, read_price, "--price-gb-month", said_in),
        "currency": _fields(lambda: money_of(price_said, currency, "CNY", settings.files.lang)),
        "created_at": past_moment(created, settings, datetime.now(UTC), "--created"),
    }
    team = chosen_team(settings, team)
    channel, owner = whose_place(settings, team, channel, owner)
    fields["channel"], fields["owner"] = checked_channel(settings, team, channel), checked_owner(settings, team, owner)
    stored = _run(settings, lambda: open_rentals(settings).track_storage(team, name, fields, instance))
    per_month = money(stored.size_gb * stored.price_gb_month, stored.currency)  # as read: `1T 每月500元` is ¥500
    sys.stdout.write(t("cli.tracked_storage", settings.files.lang, name=stored.name, per_month=per_month) + "\n")
    if created is not None:
        billed_from(stored.created_at, settings)


def _storage_worded(words: list[str], lang: Lang, size: str | None, price: str | None) -> tuple[str, str, bool]:
    """track storage's --size-gb and --price-gb-month with the words after its name read as chat's track reads them,
    and whether the price was said among the words (where a month without "a GB" may be the disk's: the flag names
    its unit); exit 2 naming a word read as nothing, a flag given twice, or one missing."""
    from bot.fields.rentals import FieldError
    from bot.fields.track_words import storage_words

    try:
        said = storage_words(list(words), lang, "cli.track_storage_words_unread") if words else {}
    except FieldError as exc:
        raise fail(exc.message) from None
    for field, flag, given in (("size", "--size-gb", size), ("price", "--price-gb-month", price)):
        if field in said and given is not None:
            raise fail(t("cli.words_twice", lang, command="track storage", flag=flag))
    size, price = said.get("size", size), said.get("price", price)
    for flag, value in (("--size-gb", size), ("--price-gb-month", price)):
        if value is None:  # as click says a missing option
            missing = t("cli.usage.missing", lang, name=f"'{flag}'")
            raise fail(t("cli.usage.error", lang, what=missing, help="gpu-advise track storage --help"))
    assert size is not None and price is not None
    return size, price, "price" in said


def _storage_amount(text: str, parse: Any, flag: str, lang: Lang) -> float:
    """A storage flag's figure: a plain number as it always was (in GB, per GB-month), or as chat's `size=` and
    `price=` take it (500G, 2T; 0.35元/GB/月, 100元/T/月), so `--size-gb 2T` is 2,048 GB, not "not a number"."""
    from bot.text.errors import parse_error_text
    from rules.errors import ParseError

    try:
        value = float(text)
    except ValueError:
        value = None
    if value is not None and not value <= 0:  # a plain figure (inf and nan are the state's bounds' to refuse)
        return value
    try:
        amount: float = parse(text)
    except ParseError as exc:
        raise fail(f"{flag}: {parse_error_text(exc, lang)}") from None
    return amount


def _plain(thing: object) -> dict[str, Any]:
    """A row for JSON: times in ISO 8601; an instance's earlier prices as a list of {until, price, unit, currency}."""
    out = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in vars(thing).items()}
    if "earlier_prices" in out:
        out["earlier_prices"] = [_plain(p) for p in out["earlier_prices"]]
    return out


def list_rentals(
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
    everything: Annotated[bool, typer.Option("--all", help="Also what an admin marked Not ours.")] = False,
    dearest: Annotated[
        bool, typer.Option("--dearest", help="The most spent this month first (chat: `list dearest`, 哪台机器最贵).")
    ] = False,
) -> None:
    """List the team's tracked instances and storage."""
    settings = load_settings(lang=lang)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    instances = [i for i in rentals.instances(team) if everything or not i.hidden_by]
    storage = [s for s in rentals.storage(team) if everything or not s.hidden_by]
    billed, stored = _billed(rentals, instances, storage, settings, team)
    if dearest:  # dollars and yuan on the team's currency, only for the order (as chat's `list dearest`)
        from bot.settings.worth import team_worth

        worth = team_worth(settings)
        instances, billed = _by_spend(instances, billed, worth)
        storage, stored = _by_spend(storage, stored, worth)
    if as_json:
        sys.stdout.write(json.dumps({"instances": billed, "storage": stored}, ensure_ascii=False, indent=2) + "\n")
        return
    lang = settings.files.lang
    if not instances and not storage:
        sys.stdout.write(t("cli.nothing_tracked", lang, team=team) + "\n")
        return
    owners = {i.owner for i in instances if i.owner} | {s.owner for s in storage if s.owner}
    names = people(settings, rentals, team, owners)
    names[""] = t("cli.no_owner", lang)  # found in the cloud, not claimed yet
    # in a terminal the table says its words in the reader's language, its price as the chats' `list` does; through a
    # pipe the cells stay what scripts have read from the start (hourly, on, 400 CNY/day)
    from bot.cli.common import text_console

    console = text_console()
    human = console.is_terminal
    rows: list[list[str]] = []
    for i, bill in zip(instances, billed, strict=True):  # in order: a name released may be a new box's too
        state = t("cli.released", lang) if i.released_at else t("cli.running", lang)
        power, basis = bill["power"], bill["billing"]
        if human:
            power, basis = t(f"cli.list_power.{power}", lang), t(f"cli.list_billing.{basis}", lang)
        if bill["schedule_hours_a_day"]:  # a slice on its daily pattern: said as such, not as off
            power = t("cli.on_a_schedule", lang, hours=bill["schedule_hours_a_day"], power=power)
        gpus, hours = f"{i.gpu} × {i.share or i.cards}", f"{bill['billed_hours_this_month']:g} h"
        spent = money(bill["spent_this_month"], i.currency)
        price = instance_rate(i, lang) if human else _rate(i, lang)
        rows.append([i.name, gpus, price, names[i.owner], state, i.source, basis, power, hours, spent])
    kept = []
    boxes = rentals.box_names(team, storage) if human else {}
    for s, bill in zip(storage, stored, strict=True):
        state = t("cli.deleted", lang) if s.deleted_at else t("cli.kept", lang)
        price = f"{s.price_gb_month:g} {s.currency}/GB-month"
        spent = money(bill["spent_this_month"], s.currency)
        on = t("cli.storage_on", lang, box=boxes[s.instance_id]) if human and s.instance_id in boxes else ""
        size = f"{s.size_gb:g} GB" + on  # the box it is on, as chat's `list` says it; a pipe's cells stay as they were
        kept.append([s.name, size, price, names[s.owner], state, s.source, spent])
    _print_rows([("cli.list_columns", rows), ("cli.storage_columns", kept)], lang, console)


def _by_spend(items: list[Any], bills: list[dict[str, Any]], worth: Worth) -> tuple[list[Any], list[dict[str, Any]]]:
    """Items and their bills, the most spent this month first (on the team's currency: rules/worth.py)."""
    pairs = sorted(
        zip(items, bills, strict=True), key=lambda pair: -worth.one(pair[1]["spent_this_month"], pair[1]["currency"])
    )
    return [item for item, _ in pairs], [bill for _, bill in pairs]


def _print_rows(tables: list[tuple[str, list[list[str]]]], lang: Lang, console: Console) -> None:
    """Each non-empty table: in a terminal with its columns named (cells wrap, never cut); elsewhere (a pipe, a
    file) a row a line, its cells between tabs, no header, as scripts have read `list` from the start."""
    from bot.cli.tables import folded_table, print_table

    if not console.is_terminal:
        sys.stdout.write("".join("\t".join(row) + "\n" for _, rows in tables for row in rows))
        return
    for key, rows in (table for table in tables if table[1]):
        table = folded_table(t(key, lang))
        for row in rows:
            table.add_row(*row)
        print_table(table, console)


def _billed(
    rentals: Any, instances: list[Any], storage: list[Any], settings: Settings, team: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The instances and the storage as JSON with their money this month, at one moment, each item's month from
    midnight in its channel's digest zone (as the chats' `list`, budgets, App Home and the digest count it)."""
    from bot.state.schedules import Schedules
    from rules.digest import stored_this_month

    now = datetime.now(UTC)
    channels = {i.channel for i in instances} | {s.channel for s in storage}
    zones = Schedules(rentals.store, settings.digest.default_schedule()).zones(team, channels)
    stored = [
        _plain(s) | {"spent_this_month": round(stored_this_month(s, now.astimezone(zones[s.channel])), 2)}
        for s in storage
    ]
    return _metered(rentals, instances, zones, now), stored


def _metered(rentals: Any, instances: list[Any], zones: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    """Each instance as JSON with how it bills: its basis, stop mode, power now, and its hours billed and money
    spent this month (from midnight in its channel's zone, `zones`)."""
    from bot.state.actions import Actions
    from bot.state.power import PowerLog
    from rules import metering
    from rules.digest import month_start, spent_this_month
    from rules.power import state_at

    timelines = PowerLog(rentals.store).this_month(instances, now)
    stops = Actions(rentals.store).asked_for([i.id for i in instances if i.released_at is None])
    out = []
    for i in instances:
        stretches = timelines[i.id]
        stop = stops.get(i.id)
        local = now.astimezone(zones[i.channel])
        month = month_start(local)
        out.append(
            _plain(i)
            | {
                "billing": metering.basis(i).value,
                "stop_billing": i.stop_billing or "stops",
                "power": state_at(stretches, now).value if i.released_at is None else "off",
                "billed_hours_this_month": round(metering.billed_hours(i, stretches, month, now), 2),
                "spent_this_month": round(spent_this_month(i, local, timelines), 2),
                "schedule_hours_a_day": metering.on_a_schedule(i, stretches, now) if i.released_at is None else None,
                "stop_asked_for": stop.deadline.isoformat() if stop is not None else None,  # `stop NAME --at`
            }
        )
    return out


def _rate(instance: Any, lang: Lang) -> str:
    unknown = t("digest.no_price", lang)
    return unknown if instance.price is None else f"{instance.price:g} {instance.currency}/{instance.unit}"


def release(
    name: Annotated[str, typer.Argument(help="The instance to release.")], team: TeamOpt = None, lang: LangOpt = None
) -> None:
    """Mark an instance released (it stops costing); lists the storage it leaves behind."""
    settings = load_settings(lang=lang)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    released = _run(settings, lambda: rentals.release(team, name, datetime.now(UTC), "terminal"))
    sys.stdout.write(t("cli.released_instance", settings.files.lang, name=released.name) + "\n")
    for left in rentals.storage(team, instance_id=released.id, kept_only=True):
        say(t("cli.storage_left", settings.files.lang, name=left.name, size=left.size_gb))


def delete_storage(
    name: Annotated[str, typer.Argument(help="The storage to mark deleted.")],
    team: TeamOpt = None,
    lang: LangOpt = None,
) -> None:
    """Mark storage deleted (it stops costing)."""
    settings = load_settings(lang=lang)
    team = chosen_team(settings, team)
    gone = _run(settings, lambda: open_rentals(settings).delete_storage(team, name, datetime.now(UTC)))
    sys.stdout.write(t("cli.deleted_storage", settings.files.lang, name=gone.name) + "\n")


def rename(
    name: Annotated[str, typer.Argument(help="The running instance or kept storage to rename.")],
    new: Annotated[str, typer.Argument(help="Its name from now on (a cloud scan keeps it).")],
    team: TeamOpt = None,
    lang: LangOpt = None,
) -> None:
    """Rename a running instance or kept storage (its spend, power history and agent token stay its own)."""
    settings = load_settings(lang=lang)
    team = chosen_team(settings, team)
    _run(settings, lambda: open_rentals(settings).rename(team, name, new))
    sys.stdout.write(t("cli.renamed", settings.files.lang, old=name, new=new) + "\n")
