"""The board's speed: its page (the team's, and one channel's) against a static file of the same size, both served
by serve's own HTTP server in one process, asked in turn by a client in another, at N tracked instances with a week
of samples (bench/report.py's data: raw samples for the last day, hourly maxima before, power in play).

Prints each one's median and p95, and the board's p95 less the static file's (goal: within 300 ms), and the first
request of each board apart: it adds the figures up, which the following requests within a minute reuse; and the
first request a minute later, when the whole days the first one added up are kept (bot/state/activity_days.py).

The board's month runs to today, so its first request costs more each day of the month: `--day` says which day of
December 2026 it is (7 by default; 28 for the month's end, with samples for the whole month).

    python bench/board.py [--instances 2000] [--channels 500] [--requests 40] [--day 28]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import NOW, fill  # noqa: E402


def serve(target: Path, now: datetime) -> None:
    """The child: serve's HTTP server over the state, plus /static (bytes of the team board's size); prints its
    port and the links' tokens, then serves until killed."""
    from wsgiref.simple_server import make_server

    from bot.board.page import FRESH
    from bot.deps import build_deps
    from bot.server.http import QuietHandler, ThreadingWSGIServer, wsgi_app
    from bot.settings import Settings
    from bot.web.board_links import make_token

    settings = Settings(
        db=target.parent / "prices.db", state_db=target, azure_enabled=False, ecb_enabled=False, lang="en"
    )
    clock = [now]
    deps = build_deps(settings, now=lambda: clock[0])
    team = make_token(deps.store, "T1", None, now, 24)[0]
    channel = make_token(deps.store, "T1", "C0001", now, 24)[0]
    app = wsgi_app(deps)
    static: dict[str, bytes] = {}

    def with_static(environ, start_response):  # type: ignore[no-untyped-def]
        if environ.get("PATH_INFO") == "/static":
            body = static["body"]
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))])
            return [body]
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, with_static, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    cold: dict[str, list[float]] = {"team board": [], "channel board": []}
    for turn in range(2):  # the first request of each: its figures added up; then again a minute on (whole days kept)
        clock[0] = now + turn * (FRESH + timedelta(seconds=1))
        for name, token in (("team board", team), ("channel board", channel)):
            started = time.perf_counter()
            page = urllib.request.urlopen(f"http://127.0.0.1:{port}/board/{token}", timeout=300).read()
            cold[name].append(time.perf_counter() - started)
            if name == "team board":
                static["body"] = b"x" * len(page)
    said = {"port": port, "team": team, "channel": channel, "bytes": len(static["body"]), "cold": cold}
    print(json.dumps(said), flush=True)
    threading.Event().wait()


def measure(port: int, paths: dict[str, str], requests: int) -> dict[str, list[float]]:
    import httpx

    took: dict[str, list[float]] = {name: [] for name in paths}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
        for _ in range(requests):
            for name, path in paths.items():  # in turn: a drift of the machine slows each alike
                started = time.perf_counter()
                answer = client.get(path)
                took[name].append(time.perf_counter() - started)
                assert answer.status_code == 200, (name, answer.status_code)
    return took


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--channels", type=int, default=500)
    parser.add_argument("--raw-hours", type=int, default=24)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument(
        "--day", type=int, default=NOW.day, choices=range(1, 32), metavar="1-31", help="the day of December 2026 it is"
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    now = NOW.replace(day=args.day)
    if args.serve:
        serve(args.serve, now)
        return
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "state.db"
        fill(target, args.instances, args.channels, args.raw_hours, now, sample_days=max(7, args.day))
        command = [sys.executable, __file__, "--serve", str(target), "--day", str(args.day)]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            started = json.loads(child.stdout.readline())
            paths = {
                "static file": "/static",
                "team board": f"/board/{started['team']}",
                "channel board": f"/board/{started['channel']}",
            }
            took = measure(started["port"], paths, args.requests)
        finally:
            child.kill()
    print(
        f"{args.instances} instances in {args.channels} channels, {max(7, args.day)} days of samples, "
        f"now {now:%Y-%m-%d %H:%M} UTC; page {started['bytes']} bytes"
    )
    for name, values in took.items():
        print(f"  {name:14} median {statistics.median(values) * 1000:7.1f} ms, p95 {p95(values) * 1000:7.1f} ms")
    for name in ("team board", "channel board"):
        gap = (p95(took[name]) - p95(took["static file"])) * 1000
        first, later = (seconds * 1000 for seconds in started["cold"][name])
        print(
            f"  {name}: p95 {gap:+.0f} ms beside the static file (goal: within 300 ms); its first request, which "
            f"adds the figures up (kept a minute), {first:.0f} ms; a minute on, the whole days kept, {later:.0f} ms"
        )


if __name__ == "__main__":
    main()
