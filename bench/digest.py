"""The daily digest at scale: N instances with a day of one-minute samples each, over M channels.

Prints: the bytes a sample takes in the state database (goal: at most 60), with a week extrapolated
from it; the time to compose every channel's digest (goal: under 1 s) beside the raw SQL reads of the
same figures, run alternately in the same run (goal: at most 1.5x); the time to send them all
against the local fake Slack beside the floor the pacing allows ((channels - 1) x pace; goal: at
most 1.1x); and the fold of that day into hourly maxima (the retention `serve` runs every hour, in
batches) beside one set-based statement folding the same rows on a copy of the database (goal: at
most 1.5x), and what it leaves.

    python bench/digest.py [--instances 2000] [--channels 500] [--hours 24] [--pace 0.02] [--chat slack|feishu]

`--chat feishu` sends the digests to the local fake Feishu through the bot's Open API client at Feishu's own pace
(a message every 1/16 s) and says the most messages the fake received in any second and any minute, beside
Feishu's limits for one app (50 and 1,000).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import delete, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.digest.send import digests, send_digests  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.slack.app import web_client  # noqa: E402
from bot.slack.digest_outlet import SlackOutlet  # noqa: E402
from bot.slack.ui.digest import render  # noqa: E402
from bot.state import Store  # noqa: E402
from bot.state.digest_sends import Sends  # noqa: E402
from bot.state.rentals import Rentals, quiet_query  # noqa: E402
from bot.state.retention import compact, fold_statement  # noqa: E402
from bot.state.schema import gpu_samples, rental_instances, rental_storage  # noqa: E402
from bot.state.windows import window_query  # noqa: E402
from bot.text import Lang  # noqa: E402
from rules.idle import Sample  # noqa: E402
from rules.policy import Idle  # noqa: E402
from tests.support.fake_slack import fake_slack  # noqa: E402

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "owner": "U1",
    "project": "llm",
}


def fill(rentals: Rentals, instances: int, channels: int, hours: float, now: datetime) -> int:
    """Instances spread over channels; a quarter each busy, idle, memory held, and (every 8th) silent."""
    minutes = int(hours * 60)
    count = 0
    for n in range(instances):
        inst, _ = rentals.track_instance(
            "T1",
            f"box-{n:05d}",
            FIELDS
            | {
                "channel": f"C{n % channels:04d}",
                "owner": f"U{n % 40}",
                "started_at": now - timedelta(hours=hours + 1),
            },
        )
        if n % 8 == 7:
            continue  # no agent: "no activity data"
        util = 80.0 if n % 4 == 0 else 0.0
        mem = 30000.0 if n % 4 == 1 else 500.0
        day = [Sample(now - timedelta(minutes=m), 0, util, mem, 81920.0) for m in range(minutes)]
        count += rentals.add_samples(inst.id, day, [60.0] * len(day))  # as the heartbeat endpoint keeps them
    return count


def used_bytes(store: Store) -> int:
    """Pages in use (the file keeps freed pages until VACUUM)."""
    with store.reading() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar() or 0
        free = conn.exec_driver_sql("PRAGMA freelist_count").scalar() or 0
        size = conn.exec_driver_sql("PRAGMA page_size").scalar() or 0
    return int((pages - free) * size)


def raw_reads(store: Store, now: datetime, rules: Idle) -> float:
    """The floor of composing: the same figures read with plain SQL (the statements compiled to text, rows
    fetched as tuples, nothing turned into Python objects): the workspace's instances and storage, each GPU's
    window summary and each quiet stretch's start."""
    with store.reading() as conn:
        ids = [
            r[0]
            for r in conn.execute(
                select(rental_instances.c.id).where(
                    rental_instances.c.team == "T1", rental_instances.c.released_at.is_(None)
                )
            )
        ]

        def text(statement: object) -> str:
            return str(statement.compile(conn, compile_kwargs={"literal_binds": True}))  # type: ignore[attr-defined]

        statements = [
            text(select(rental_instances).where(rental_instances.c.team == "T1")),
            text(select(rental_storage).where(rental_storage.c.team == "T1")),
            text(window_query(ids, now - timedelta(minutes=rules.window_minutes), now)),
            text(quiet_query(conn.dialect.name, ids, now - timedelta(days=1))),
        ]
        started = time.perf_counter()
        for sql in statements:
            conn.exec_driver_sql(sql).all()
        return time.perf_counter() - started


def fold_floor(db: Path, now: datetime) -> float:
    """One set-based statement folding every sample, and one delete of those past the cutoff, on a copy of the
    database."""
    copy = db.with_name("floor.db")
    shutil.copy(db, copy)
    store = Store(copy)
    cutoff = now - timedelta(days=2)
    started = time.perf_counter()
    with store.writing() as conn:
        conn.execute(fold_statement(conn.dialect.name, 0, 2**62))
        conn.execute(delete(gpu_samples).where(gpu_samples.c.at < cutoff))
    spent = time.perf_counter() - started
    store.close()
    copy.unlink()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--channels", type=int, default=500)
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between posts (serve's default is 1)")
    parser.add_argument(
        "--chat",
        choices=("slack", "feishu"),
        default="slack",
        help="where the digests are sent: the fake Slack at --pace, or the fake Feishu at Feishu's own pace",
    )
    args = parser.parse_args()
    now = datetime.now(UTC).replace(microsecond=0)
    rules = Idle()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "state.db"
        store = Store(db)
        rentals = Rentals(store)
        started = time.perf_counter()
        samples = fill(rentals, args.instances, args.channels, args.hours, now)
        print(
            f"filled {args.instances} instances, {samples:,} samples over {args.channels} channels "
            f"in {time.perf_counter() - started:.1f} s"
        )
        size = used_bytes(store)
        print(
            f"state database after {args.hours:g} h: {size / 1e6:.1f} MB, {size / max(samples, 1):.0f} bytes a "
            f"sample (goal <= 60); a week at this rate: {size * 7 * 24 / args.hours / 1e9:.2f} GB without retention"
        )

        channels = [f"C{c:04d}" for c in range(args.channels)]
        composes, floors = [], []
        for _ in range(3):  # alternately, so that drift enters both
            started = time.perf_counter()
            made = digests(rentals, "T1", channels, now, rules)
            composes.append(time.perf_counter() - started)
            floors.append(raw_reads(store, now, rules))
        composed, floor_read = statistics.median(composes), statistics.median(floors)
        started = time.perf_counter()
        for digest in made.values():
            render(digest, Lang.ZH, ZoneInfo("Asia/Shanghai"))
        rendered = time.perf_counter() - started
        items = sum(len(d.instances) + len(d.storage) for d in made.values())
        print(
            f"compose all {args.channels} digests: {composed:.2f} s (goal < 1 s); raw SQL reads of the same "
            f"figures {floor_read:.2f} s: {composed / floor_read:.2f}x (goal <= 1.5x); render: {rendered:.2f} s; "
            f"{items} items"
        )

        if args.chat == "feishu":
            outcomes, sent_s, pace, said = send_in_feishu(rentals, Sends(store), channels, now, rules)
        else:
            with fake_slack() as fake:
                settings = Settings(slack_bot_token="xoxb-bench", slack_api_url=fake.api_url)
                outlet = SlackOutlet(web_client(settings), render)
                outcomes, sent_s = timed_send(rentals, Sends(store), outlet, channels, now, rules, args.pace)
            pace, said = args.pace, ""
        sent = sum(o.status == "sent" for o in outcomes)
        floor = pace * (sent - 1)
        ratio = sent_s / floor if floor else float("nan")
        one_statement = fold_floor(db, now + timedelta(days=2))
        started = time.perf_counter()
        folded = compact(store, now + timedelta(days=2), raw_days=2, hourly_days=90)  # the day, two days on
        fold_s = time.perf_counter() - started
        used = used_bytes(store)
        print(
            f"retention: folded {folded.folded:,} samples into {folded.hours:,} hourly rows in {fold_s:.1f} s, "
            f"one set-based statement {one_statement:.1f} s: {fold_s / one_statement:.2f}x (goal <= 1.5x); "
            f"{used / 1e6:.1f} MB in use after (a day of hourly maxima for {args.instances} instances); "
            f"bound with the defaults (2 raw days, 90 hourly days): about "
            f"{(2 * size + 90 * used) * 24 / args.hours / 1e9:.2f} GB"
        )
        print(
            f"send ({args.chat}): {sent} of {len(outcomes)} digests in {sent_s:.2f} s; pacing floor {floor:.2f} s; "
            f"{ratio:.2f}x (goal <= 1.1x){said}"
        )


def timed_send(
    rentals: Rentals,
    sends: Sends,
    outlet: Any,
    channels: list[str],
    now: datetime,
    rules: Idle,
    pace_s: float = 1.0,
) -> tuple[list[Any], float]:
    """Every channel's digest sent through `outlet` (at `pace_s`, unless the outlet has a pace of its own): the
    outcomes and the seconds they took."""
    started = time.perf_counter()
    outcomes = send_digests(
        rentals,
        sends,
        outlet,
        team="T1",
        channels=channels,
        now=lambda: now,
        rules=rules,
        lang=Lang.ZH,
        zone=ZoneInfo("Asia/Shanghai"),
        pace_s=pace_s,
    )
    return outcomes, time.perf_counter() - started


def send_in_feishu(
    rentals: Rentals, sends: Sends, channels: list[str], now: datetime, rules: Idle
) -> tuple[list[Any], float, float, str]:
    """Every channel's digest sent to the fake Feishu through the bot's Open API client, at Feishu's own pace
    (bot/feishu/digest_outlet.py): the outcomes, the seconds they took, the pace, and the most messages the fake
    received within any second and any minute, beside Feishu's limits for one app (50 a second, 1,000 a minute)."""
    from bot.feishu.chat import FeishuChat
    from bot.feishu.digest_outlet import PACE_S, FeishuOutlet
    from bot.feishu.sdk import OpenApi
    from tests.support.fake_feishu import fake_feishu

    with fake_feishu() as fake:
        outlet = FeishuOutlet(FeishuChat(OpenApi("cli_bench", fake.app_secret, fake.base_url), Lang.ZH))
        outcomes, sent_s = timed_send(rentals, sends, outlet, channels, now, rules)  # the outlet's own pace
        stamps = sorted(call.at for call in fake.of("messages.create"))
    most = {
        window: max((sum(1 for s in stamps if a <= s < a + window) for a in stamps), default=0) for window in (1, 60)
    }
    said = f"; at most {most[1]} messages in any second (Feishu: 50) and {most[60]} in any minute (Feishu: 1,000)"
    return outcomes, sent_s, PACE_S, said


if __name__ == "__main__":
    main()
