"""serve's memory at rest: `gpu-advise serve` with Slack and Feishu (HTTP mode) configured against local fakes, the
scheduler on, its work process ready; then each process's resident memory (VmRSS: the front door, the work
process, multiprocessing's resource tracker) is read after `--settle` seconds; twice: the first start on a new state
(it migrates it) and a start on the state then current, as every start is but the first after an upgrade (the goal
is read on that one). Goal (issue 50): at most 120 MB for both serve processes together.

    python bench/serve_memory.py [--settle 5]
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
from tests.support.fake_slack import fake_slack  # noqa: E402
from tests.support.processes import serve_process  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settle", type=float, default=5)
    args = parser.parse_args()
    with fake_slack() as slack, fake_feishu() as feishu, tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
            "SLACK_BOT_TOKEN": "xoxb-test-token",
            "SLACK_SIGNING_SECRET": "s" * 32,
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
            with serve_process(env, scheduler=True, working=True) as (_sender, serve):  # ready: its work process too
                time.sleep(args.settle)
                found = {"front door": rss_mb(serve.pid)}
                for pid in children(serve.pid):
                    line = Path(f"/proc/{pid}/cmdline").read_text()
                    found["resource tracker" if "resource_tracker" in line else "work process"] = rss_mb(pid)
            runs[run] = found
    for run, found in runs.items():
        print(run)
        for name, mb in found.items():
            print(f"  {name:18} {mb:6.1f} MB")
    both = found["front door"] + found.get("work process", 0.0)  # the usual start
    print(f"serve's two processes: {both:.1f} MB (goal at most 120 MB: {'met' if both <= 120 else 'not met'})")


if __name__ == "__main__":
    main()
