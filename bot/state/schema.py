"""The bot's state as SQLAlchemy Core tables: portable SQL for SQLite (the default) and PostgreSQL.

The tables are created and changed only by the Alembic migrations beside this module (run at
start-up); this metadata is what the code queries and what the migrations are checked against.
Times are stored in UTC: ISO-8601 text on SQLite (so they sort as text), `timestamptz` elsewhere; GPU samples'
times, the bulk of the database, as whole Unix seconds (EpochTime: 4-6 bytes a row instead of 32 characters,
and hours and days are integer division in SQL).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    cast,
    false,
    func,
    text,
    type_coerce,
)
from sqlalchemy.types import TypeDecorator, TypeEngine

metadata = MetaData(naming_convention={"ix": "ix_%(table_name)s_%(column_0_N_name)s", "pk": "pk_%(table_name)s"})


class UtcDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime in, an aware UTC datetime out, on every database."""

    impl = String(40)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String(40))
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: the state database stores aware UTC times only")
        value = value.astimezone(UTC)
        return value.isoformat(timespec="microseconds") if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else value
        if parsed.tzinfo is UTC:  # as SQLite's text gives it back: already what is asked
            return parsed
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


class EpochTime(TypeDecorator[datetime]):
    """An aware UTC datetime in and out, stored as whole seconds since 1970 (a sample's fraction of a second is
    dropped: agents sample at most once a second). Comparisons with a datetime bind it the same way."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: the state database stores aware UTC times only")
        return math.floor(value.timestamp())

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return None if value is None else datetime.fromtimestamp(int(value), UTC)

    def coerce_compared_value(self, op: Any, value: Any) -> Any:
        """Arithmetic with a number (`at // 3600`) binds the number as a number, not as a time."""
        return self if isinstance(value, datetime) else BigInteger()


def seconds_of(dialect: str, column: Any) -> Any:
    """A UtcDateTime column as whole Unix seconds, computed by the database (to compare it with sample times)."""
    if dialect == "sqlite":  # ISO text: its first 19 characters are the second
        return cast(func.strftime("%s", func.substr(column, 1, 19)), BigInteger)
    return cast(func.floor(func.extract("epoch", column)), BigInteger)


def as_seconds(column: Any) -> Any:
    """An EpochTime column read as its integer seconds (for hours and days computed in SQL)."""
    return type_coerce(column, BigInteger)


def greater(dialect: str, a: Any, b: Any) -> Any:
    """The larger of two values, a NULL counting as absent (SQLite's two-argument max() is NULL if either is)."""
    if dialect == "postgresql":
        return func.greatest(a, b)  # ignores NULLs
    return func.max(func.coalesce(a, b), func.coalesce(b, a))


def lesser(dialect: str, a: Any, b: Any) -> Any:
    """The smaller of two values, a NULL counting as absent."""
    if dialect == "postgresql":
        return func.least(a, b)
    return func.min(func.coalesce(a, b), func.coalesce(b, a))


def seconds(moment: datetime) -> int:
    """A time as EpochTime stores it, for SQL arithmetic on sample times."""
    return math.floor(moment.timestamp())


# a team, a channel, a person or a message: Slack's ids, or Feishu's (oc_/ou_/om_ + 32, a team behind feishu:)
ID = 64

conversations = Table(
    "advisor_conversations",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("team", String(ID), nullable=False),
    Column("channel", String(ID), nullable=False),
    Column("thread_ts", String(ID)),
    Column("user", String(ID), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("answers", JSON, nullable=False),  # {key: the text given}; "" means skipped
    Column("answer_values", JSON),  # {key: the parsed answer as JSON}: parsed once, when given
    Column("step", Integer, nullable=False, server_default="0"),
    Column("status", String(16), nullable=False, server_default="active"),
    Column("question_ts", String(ID)),
    Column("note", Text),
    Column("warned_others", Boolean, nullable=False, server_default=false()),
    Column("last_input", String(200)),  # the inbox key of the last answer applied
    Column("asking", String(80)),  # the key of the message being posted, until its id is kept (0023)
    Column("asking_at", UtcDateTime),  # when that post began: a redo waits for it to settle (0025)
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Index(None, "team", "channel", "thread_ts"),
)

inbox = Table(
    "advisor_inbox",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("body", JSON, nullable=False),
    Column("received_at", UtcDateTime, nullable=False),
    Column("done_at", UtcDateTime),
    Column("claimed_by", String(80)),  # the replica doing its work (the one that took it, or took it over)
    Column("claimed_at", UtcDateTime),
    Index(None, "done_at", "received_at"),
)

job_runs = Table(  # one row per run of a scheduled job: every replica's scheduler ticks, one claims the slot
    "job_runs",
    metadata,
    Column("job", String(64), primary_key=True),
    Column("slot", String(40), primary_key=True),  # the run's time slot (the interval it belongs to)
    Column("claimed_by", String(80), nullable=False),
    Column("claimed_at", UtcDateTime, nullable=False),
)

locales = Table(
    "advisor_user_locales",
    metadata,
    Column("user", String(ID), primary_key=True),
    Column("locale", String(32)),
    Column("tz", String(64)),
    Column("fetched_at", UtcDateTime, nullable=False),
)

recommendations = Table(
    "advisor_recommendations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team", String(ID)),
    Column("user", String(ID), nullable=False),
    Column("choice", String(16), nullable=False),
    Column("summary", Text, nullable=False),
    Column("data", JSON, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index(None, "user", "created_at"),
)

rental_instances = Table(
    "rental_instances",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team", String(ID), nullable=False),
    Column("name", String(80), nullable=False),
    Column("channel", String(ID), nullable=False),
    Column("owner", String(ID), nullable=False),
    Column("project", String(80)),
    Column("gpu", String(32), nullable=False),
    Column("cards", Integer, nullable=False, server_default="1"),
    Column("share", Float),  # a slice of one card, instead of whole cards
    Column("unit", String(8), nullable=False),  # hour, day or month: how the price is billed
    Column("price", Float),  # NULL: not known (an enrolled card the price cache does not know) (0015)
    Column("currency", String(3), nullable=False),
    Column("token_hash", String(64), nullable=False),  # SHA-256 of the agent's heartbeat token
    Column("started_at", UtcDateTime, nullable=False),
    Column("released_at", UtcDateTime),
    Column("snoozed_until", UtcDateTime),  # "still needed": not news until then
    Column("last_busy_at", UtcDateTime),  # its latest sample above the idle threshold (kept as samples arrive)
    Column("request_key", String(200)),  # the Slack request that tracked it: its redo re-issues the token (0014)
    # where it came from (0015): "track" (typed), "agent" (enrolled itself), "aws", "k8s" (discovered)
    Column("source", String(16), nullable=False, server_default="track"),
    Column("provider_id", String(200)),  # the cloud's id, e.g. aws:i-0abc...: one item per cloud instance
    Column("machine_id", String(64)),  # an enrolled box's /etc/machine-id: enrolling again gets it back
    # what the cloud says (0016): its state (running, stopped, terminated), region, launch time, spot or not
    Column("cloud_state", String(16)),
    Column("provider_region", String(32)),
    Column("launched_at", UtcDateTime),
    Column("spot", Boolean, nullable=False, server_default=false()),
    Column("released_by", String(ID)),  # who released it: a Slack user, "cloud" (gone from the cloud), "bot"
    Column("hidden_by", String(ID)),  # "Not ours": the admin who hid it from digests and lists
    # how it is billed (0022): hourly, day or month (NULL: from `unit`); whether stopping stops an hourly
    # meter: stops or keeps (NULL: stops); the provider account it bills to (aws, autodl, aliyun, ...)
    Column("billing", String(8)),
    Column("stop_billing", String(8)),
    Column("provider", String(32)),
    Column("idle_rule_minutes", Integer),  # the platform stops it by itself after this long idle (0024): DSW's
    Column("idle_rule_threshold_pct", Float),  # the GPU % under which that rule counts it idle (0031), if it has one
    # who set its price by hand (0027; NULL: its source's, which each scan prices again) and since when it holds
    Column("price_by", String(ID)),
    Column("price_since", UtcDateTime),
    # one instance not released per name (0036): a box released, its name is free for the next one rented; the
    # partial unique index is declared in name_indexes(), not here
    Index(None, "token_hash"),
    Index(None, "team", "machine_id"),
    Index(None, "team", "provider_id"),
)

price_history = Table(  # an instance's earlier prices (0027), each until the next began: money billed stays so
    "price_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("instance_id", Integer, nullable=False),
    Column("until", UtcDateTime, nullable=False),
    Column("price", Float),
    Column("unit", String(8), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("billing", String(8)),  # hourly, day, month as it was billed then (0037); NULL: as the item is now
    Index("ix_price_history_instance_id", "instance_id"),
)

enroll_tokens = Table(  # tokens a GPU box enrolls itself with (0015): only the hash is kept
    "enroll_tokens",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("team", String(ID), nullable=False),
    Column("channel", String(ID), nullable=False),
    Column("owner", String(ID), nullable=False),
    Column("project", String(80)),
    Column("uses_left", Integer, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Column("created_by", String(ID), nullable=False),  # a Slack user, or "terminal"
    Column("created_at", UtcDateTime, nullable=False),
    Column("request_key", String(200)),  # the Slack request that made it: its redo replaces it
)

rental_storage = Table(
    "rental_storage",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team", String(ID), nullable=False),
    Column("name", String(80), nullable=False),
    Column("channel", String(ID), nullable=False),
    Column("owner", String(ID), nullable=False),
    Column("project", String(80)),
    Column("size_gb", Float, nullable=False),
    Column("price_gb_month", Float, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("instance_id", Integer, ForeignKey("rental_instances.id")),
    Column("created_at", UtcDateTime, nullable=False),
    Column("deleted_at", UtcDateTime),
    Column("kept_until", UtcDateTime),  # "keep": not news until then
    Column("source", String(16), nullable=False, server_default="track"),  # track, or aws (discovered) (0015)
    Column("provider_id", String(200)),  # the cloud's id, e.g. aws:vol-0abc...
    Column("cloud_state", String(16)),  # available (attached to nothing), in-use (0016)
    Column("provider_region", String(32)),
    Column("hidden_by", String(ID)),  # "Not ours": the admin who hid it from digests and lists
    # one kept storage per name, as instances' (0036): name_indexes()
    Index(None, "team", "provider_id"),
)

gpu_samples = Table(
    "gpu_samples",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), nullable=False),
    Column("at", EpochTime, nullable=False),  # whole Unix seconds (0019)
    Column("gpu", Integer, nullable=False),
    Column("utilization_pct", Float, nullable=False),
    Column("memory_used_mib", Float, nullable=False),
    Column("memory_total_mib", Float, nullable=False),
    Column("power_w", Float),
    # kept once (0013); ordered by time within an instance, so it also serves every time-range read (0019)
    Index("uq_gpu_samples_instance_at_gpu", "instance_id", "at", "gpu", unique=True),
)

power_reports = Table(  # when an instance was on or off, and who said so (0022): rules/power.py reads them
    "power_reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), nullable=False),
    Column("state", String(8), nullable=False),  # on, off
    Column("at", UtcDateTime, nullable=False),
    Column("last_at", UtcDateTime, nullable=False),  # seen so until then (heartbeats and scans extend it)
    Column("source", String(16), nullable=False),  # agent, aws, k8s, person, bot, track
    Column("charging", Boolean),  # off as a cloud said: its meter keeps running (True) or stopped (False)
    Column("by", String(ID)),  # the person, for a person's report
    Index("uq_power_reports_instance_at", "instance_id", "at", "state", "source", unique=True),
)

prepaid_balances = Table(  # a provider account's prepaid balance, as typed or read from its API (0022)
    "prepaid_balances",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team", String(ID), nullable=False),
    Column("provider", String(32), nullable=False),
    Column("amount", Float, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("at", UtcDateTime, nullable=False),  # when the balance was this
    Column("source", String(16), nullable=False),  # typed, or the API that reported it
    Column("recorded_by", String(ID)),
    Column("recorded_at", UtcDateTime, nullable=False),
    Column("alerted_below_h", Float),  # the lowest runway threshold already told for this balance
    Column("request_key", String(200)),  # the chat request that recorded it (a top-up's redo finds it made: 0034)
    Column("alerted_floor", Float),  # the amount alert already told for this balance (0038)
    Index(None, "team", "provider", "at"),
)

balance_floors = Table(  # an amount below which a provider's balance is told (0038); provider "*": every provider's
    "balance_floors",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("provider", String(32), primary_key=True),
    Column("amount", Float, nullable=False),
    Column("currency", String(3)),  # NULL: in each balance's own currency
    Column("channel", String(ID)),  # where it was set: told there too (a provider with no item has no channel)
    Column("set_by", String(ID)),
    Column("set_at", UtcDateTime, nullable=False),
)

disk_reports = Table(
    "disk_reports",
    metadata,
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), primary_key=True),
    Column("path", String(400), primary_key=True),
    Column("size_gb", Float, nullable=False),
    Column("newest_mtime", UtcDateTime),
    Column("reported_at", UtcDateTime, nullable=False),
)

digest_sends = Table(  # a channel's digest of a local day: claimed before posting, so it goes out once
    "digest_sends",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("channel", String(ID), primary_key=True),
    Column("kind", String(16), primary_key=True),  # "digest" (others later: weekly, ...)
    Column("local_date", Date, primary_key=True),
    Column("claimed_at", UtcDateTime, nullable=False),
    Column("sent_at", UtcDateTime),
    Column("ts", String(ID)),  # the Slack message, once posted
    Column("items", Integer, nullable=False, server_default="0"),
)

digest_schedules = Table(  # a channel's digest time; channels without a row use the settings' defaults
    "digest_schedules",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("channel", String(ID), primary_key=True),
    Column("at_time", String(5), nullable=False),  # HH:MM, local
    Column("zone", String(64), nullable=False),  # IANA time zone
    Column("days", String(40), nullable=False),  # mon-fri, mon,wed,fri, ...
    Column("enabled", Boolean, nullable=False),
    Column("set_by", String(ID), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("lang", String(2)),  # zh or en: the channel's language (migration 0012); NULL: the default
    Column("resume_on", Date),  # paused until this local day, the first it is sent again (0035); NULL: not paused
)

project_budgets = Table(  # a project's monthly budget, per team
    "project_budgets",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("project", String(80), primary_key=True),
    Column("amount", Float, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("set_by", String(ID), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

discovery_runs = Table(  # each discovery source's last run (0016): /healthz and `discover` read it
    "discovery_runs",
    metadata,
    Column("source", String(16), primary_key=True),
    Column("last_run_at", UtcDateTime, nullable=False),
    Column("last_ok_at", UtcDateTime),
    Column("found", Integer, nullable=False, server_default="0"),
    Column("error", Text),  # the last run's problem, one line; NULL when it went through
)

act_policies = Table(  # what a channel (or one project in it) does about idle instances (0017)
    "act_policies",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("channel", String(ID), primary_key=True),
    Column("project", String(80), primary_key=True),  # "": the channel's own policy
    Column("mode", String(8), nullable=False),  # off, notify, stop
    Column("grace_s", Integer, nullable=False),
    Column("set_by", String(ID), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

stop_actions = Table(  # a warning that an idle instance will be stopped, and what came of it: the audit (0017)
    "stop_actions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("team", String(ID), nullable=False),
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), nullable=False),
    Column("channel", String(ID), nullable=False),
    Column("message_ts", String(ID)),  # the digest that warned
    Column("lang", String(2)),  # the digest's language: what is said about it later is in the same
    Column("warned_at", UtcDateTime, nullable=False),
    Column("deadline", UtcDateTime, nullable=False),
    # warned -> cancelled | requested (an agent's box) -> stopped | failed; aws: warned -> stopped | failed
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("requested_at", UtcDateTime),  # sent to the agent (with its next heartbeat)
    Column("handed_at", UtcDateTime),  # first carried by a heartbeat's answer (0026)
    Column("decided_at", UtcDateTime),
    Column("detail", Text),  # why, in words: the window judged, the cloud's answer, the agent's
    Column("figures", JSON),  # the window judged: samples, max utilisation, from, to
    Column("asked_by", String(ID)),  # who asked for a stop at the deadline; NULL: the idle policy's warning (0039)
    Index(None, "status", "deadline"),
    Index(None, "instance_id"),
)

report_channels = Table(  # `/gpu-advise report off|on`: a channel's weekly report (no row: on) (0018)
    "report_channels",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("channel", String(ID), primary_key=True),
    Column("enabled", Boolean, nullable=False),
    Column("set_by", String(ID), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

report_charts = Table(  # each channel's last report chart: the Slack file, for App Home (0020)
    "report_charts",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("channel", String(ID), primary_key=True),
    Column("file_id", String(ID), nullable=False),
    Column("period_start", Date, nullable=False),
    Column("period_end", Date, nullable=False),
    Column("posted_at", UtcDateTime, nullable=False),
)

budget_alerts = Table(  # a budget threshold crossed in a month: claimed before the alert goes out, so it goes once
    "budget_alerts",
    metadata,
    Column("team", String(ID), primary_key=True),
    Column("project", String(80), primary_key=True),
    Column("currency", String(3), primary_key=True),
    Column("month", String(7), primary_key=True),  # YYYY-MM, in the reminders' zone
    Column("threshold_pct", Float, primary_key=True),
    Column("claimed_at", UtcDateTime, nullable=False),
    Column("alerted", Boolean, nullable=False),  # False: counted as sent with a higher one crossed at once
)

gpu_samples_hourly = Table(  # the raw samples folded into hourly maxima (bot/state/retention.py), each sample once
    "gpu_samples_hourly",
    metadata,
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), primary_key=True),
    Column("gpu", Integer, primary_key=True),
    Column("hour", EpochTime, primary_key=True),  # the hour's first second, Unix time (0019)
    Column("samples", Integer, nullable=False),
    Column("utilization_max_pct", Float, nullable=False),
    Column("memory_used_max_mib", Float, nullable=False),
    Column("memory_total_mib", Float, nullable=False),
    Column("power_max_w", Float),
    # the hour's first and last sample (0030), so the share of the hour they cover is known as from the raw ones;
    # NULL: an hour folded before 0030, counted as whole
    Column("first_at", EpochTime),
    Column("last_at", EpochTime),
)

activity_days = Table(  # an instance's busy and idle GPU-hours of a whole local day, as the report adds them up from
    # the hourly rows (bot/state/usage.py), kept once added up (0032); the fold deletes the days its samples fall in
    "activity_days",
    metadata,
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), primary_key=True),
    Column("offset_s", Integer, primary_key=True),  # the zone's UTC offset the days are counted in
    Column("busy_above_pct", Float, primary_key=True),  # the threshold a GPU-hour is busy above
    Column("day", Integer, primary_key=True),  # local days since 1970
    Column("busy_hours", Float, nullable=False),  # both 0: a day without samples
    Column("idle_hours", Float, nullable=False),
)

money_days = Table(  # an instance's figures of a whole local day of a report's zone, as rules/report.py makes its Row,
    # kept once the day has ended (0033; bot/state/money_days.py), so a month's report reads them, not makes them
    "money_days",
    metadata,
    Column("instance_id", Integer, ForeignKey("rental_instances.id"), primary_key=True),
    Column("zone", String(64), primary_key=True),  # the report's zone (its days)
    Column("offset_s", Integer, primary_key=True),  # the UTC offset its GPU-hours were counted in (bot/state/usage.py)
    Column("busy_above_pct", Float, primary_key=True),
    Column("day", Integer, primary_key=True),  # local days since 1970
    Column("inputs", String(32), nullable=False),  # a digest of the instance's money fields it was made from
    Column("busy_in", Float, nullable=False),  # the day's busy and idle GPU-hours it was made from
    Column("idle_in", Float, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("accrued", Float),  # a period item's price spread over the day; None for an hourly one
    Column("cost", BigInteger, nullable=False),  # each figure in ten-thousandths (a Row's are rounded to 4 places):
    # added up exactly, by the database as here, in any order
    Column("idle_cost", BigInteger, nullable=False),
    Column("gpu_hours", BigInteger, nullable=False),
    Column("busy_gpu_hours", BigInteger, nullable=False),
    Column("idle_gpu_hours", BigInteger, nullable=False),
    Column("unknown_gpu_hours", BigInteger, nullable=False),
    Column("billed_hours", BigInteger, nullable=False),
    Column("on_hours", BigInteger, nullable=False),
    Column("off_hours", BigInteger, nullable=False),
    Column("unknown_hours", BigInteger, nullable=False),
)

money_epoch = Table(  # moved by every power report that changes a day that may be kept (0033): a report keeps its days
    # only if it has not moved since it read the timelines they were made from
    "money_epoch",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # one row, id 1
    Column("moves", BigInteger, nullable=False),
)

sample_rollup = Table(  # how far the raw samples are folded (0030): every sample of id <= through_id is, no other
    "sample_rollup",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # one row, id 1
    Column("through_id", BigInteger, nullable=False),
)

state_secrets = Table(  # the state's own secrets (0029): the board links' signing key, made once, shared by replicas
    "state_secrets",
    metadata,
    Column("name", String(40), primary_key=True),
    Column("value", String(128), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
)


def slack_tables(target: MetaData | None = None) -> list[Table]:
    """slack_sdk's tables for OAuth installs (slack_installations, slack_bots, slack_oauth_states), from its
    own table builders, so its stores read exactly what the migrations made. Built on demand: importing
    those stores loads SQLAlchemy's asyncio layer (about 0.25 s), which only OAuth mode needs."""
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    into = target if target is not None else MetaData()
    store = SQLAlchemyInstallationStore
    return [
        store.build_installations_table(into, store.default_installations_table_name),
        store.build_bots_table(into, store.default_bots_table_name),
        SQLAlchemyOAuthStateStore.build_oauth_states_table(into, SQLAlchemyOAuthStateStore.default_table_name),
    ]


def name_indexes(into: MetaData) -> None:
    """The partial unique indexes that keep a name one item's while it runs or is kept (0036: `released_at IS NULL`,
    `deleted_at IS NULL`), added to `into`'s two tables. Not declared with the tables: an index's `postgresql_where`
    makes SQLAlchemy import its PostgreSQL dialect (19 modules) in every process that imports this schema, SQLite's
    included (issue 50: a command's start); nothing queries by them, the database enforces them."""
    for table, gone in (("rental_instances", "released_at"), ("rental_storage", "deleted_at")):
        where = text(f"{gone} IS NULL")
        Index(f"uq_{table}_team_name", into.tables[table].c.team, into.tables[table].c.name, unique=True,
              sqlite_where=where, postgresql_where=where)  # fmt: skip


def migrated_metadata() -> MetaData:
    """Every table the migrations make: the bot's own (`metadata`, what the code queries, with its name indexes) and
    slack_sdk's."""
    full = MetaData(naming_convention=metadata.naming_convention)
    for table in metadata.tables.values():
        table.to_metadata(full)
    name_indexes(full)
    slack_tables(full)
    return full
