"""serve's memory at rest: `gpu-advise serve` with Slack and Feishu (HTTP mode) configured against local fakes, the
scheduler on, its work process ready; then each process's memory (the front door, the work process, and
multiprocessing's resource tracker where one runs) is read after `--settle` seconds; twice: the first start on a new
state (it migrates it) and a start on the state then current, as every start is but the first after an upgrade (the
goal is read on that one). `--commands N` has each start answer N Slack commands first (a profile each: the work
process's pages it writes stop being shared with the front door).

Two figures a process (Linux's /proc/PID/smaps_rollup): RSS, every page it maps, shared ones included, so that the
RSS of two processes adds what they share twice; and PSS, each page divided among the processes mapping it, whose
sum over serve's processes is the memory they hold together. serve forks its work process before any other thread
runs (bot/server/work_process.py): the loaded modules are then the two processes' pages at once, and RSS counts them
twice. Goal (issue 50): at most 120 MB for both serve processes together, read on PSS.

    python bench/serve_memory.py [--settle 5] [--commands 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.fake_feishu import fake_feishu  # noqa: E402
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack  # noqa: E402
from tests.support.processes import serve_process  # noqa: E402
from tests.support.slack_harness import SECRET  # noqa: E402


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) in MB."""
    kb = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, rest = line.split(":", 1)
        kb[name] = int(rest.split()[0])
    return kb["Rss"] / 1024, kb["Pss"] / 1024


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settle", type=float, default=5)
    parser.add_argument("--commands", type=int, default=0, help="Slack commands each start answers first")
    args = parser.parse_args()
    with fake_slack() as slack, fake_feishu() as feishu, tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
            "SLACK_BOT_TOKEN": "xoxb-test-token",
            "SLACK_SIGNING_SECRET": SECRET,  # what serve_process's sender signs with
            "SLACK_API_URL": slack.api_url,
            "GPU_ADVISOR_FEISHU_APP_ID": "cli_a1b2c3d4e5f6",
            "GPU_ADVISOR_FEISHU_APP_SECRET": feishu.app_secret,
            "GPU_ADVISOR_FEISHU_DOMAIN": feishu.base_url,
            "GPU_ADVISOR_FEISHU_MODE": "http",
            "GPU_ADVISOR_FEISHU_ENCRYPT_KEY": "k" * 16,
            "GPU_ADVISOR_FEISHU_VERIFICATION_TOKEN": "v" * 16,
            "GPU_ADVISOR_DB": f"{tmp}/bench.db",
            "GPU_ADVISOR_AZURE_ENABLED": "false",
            "GPU_ADVISOR_ECB_ENABLED": "false",
        }
        runs = {}
        for run in ("first start (migrates a new state)", "a start on a current state (every other start)"):
            with serve_process(env, scheduler=True, working=True) as (sender, serve):  # ready: its work process too
                answer(sender, slack, args.commands)
                time.sleep(args.settle)
                found = {"front door": memory_mb(serve.pid)}
                for pid in children(serve.pid):
                    line = Path(f"/proc/{pid}/cmdline").read_text()
                    kind = "work process (forked)" if "spawn_main" not in line else "work process (spawned)"
                    found["resource tracker" if "resource_tracker" in line else kind] = memory_mb(pid)
            runs[run] = found
    for run, found in runs.items():
        print(run + (f", after {args.commands} commands" if args.commands else ""))
        for name, (rss, pss) in found.items():
            print(f"  {name:24} RSS {rss:6.1f} MB  PSS {pss:6.1f} MB")
    work = next((mb for name, mb in found.items() if name.startswith("work")), (0.0, 0.0))
    both = [found["front door"][i] + work[i] for i in (0, 1)]  # the usual start
    verdict = "met" if both[1] <= 120 else "not met"
    print(f"serve's two processes: PSS {both[1]:.1f} MB (goal at most 120 MB: {verdict}); RSS added {both[0]:.1f} MB")


def answer(sender: SlackSender, slack: FakeSlack, commands: int) -> None:
    """`commands` profiles typed at once, each answered by the work process."""
    before = len(slack.of("chat.postMessage"))
    for n in range(commands):
        sender.command("10h mem=70/80 mp=no freq=daily resume=no", user=f"U{n}", response_url=slack.response_url())
    slack.wait_for(lambda: len(slack.of("chat.postMessage")) - before >= commands, timeout=120)


if __name__ == "__main__":
    main()
