"""The agent's memory on a user's GPU box: `gpu-advise agent` posting a heartbeat every 5 s (its shortest
interval) to a local stand-in of /api/heartbeat (202, as the bot answers), its samples from a stand-in
`nvidia-smi` (NVML absent, as on a box without it), beside a floor: a plain Python loop doing the same work (run
nvidia-smi, post its rows as JSON with urllib). Each runs in its own process for `--seconds`; their resident
memory (VmRSS) is read at the end. Goal (issue 50): at most 1.5x the floor.

    python bench/agent_memory.py [--seconds 12]
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMI = (
    "2026/11/30 01:00:00.123, 0, NVIDIA A100-SXM4-80GB, 3, 1200, 81920, 61.20\n"
    "2026/11/30 01:00:00.125, 1, NVIDIA A100-SXM4-80GB, 0, 30000, 81920, 60.10\n"
)
FLOOR = """
import json, subprocess, sys, time, urllib.request
url = sys.argv[1]
while True:
    rows = subprocess.run(["nvidia-smi", "--query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,"
                           "power.draw", "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout
    body = json.dumps({"samples": [line.split(", ") for line in rows.splitlines()]}).encode()
    request = urllib.request.Request(url + "/api/heartbeat", data=body, method="POST",
                                     headers={"Authorization": "Bearer t", "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()
    time.sleep(5)
"""


class Heartbeats(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"kept": 2}).encode()
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=12)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Heartbeats)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        smi = Path(tmp) / "nvidia-smi"
        smi.write_text(f"#!/bin/sh\ncat <<'EOF'\n{SMI}EOF\n")
        smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}
        env |= {"PATH": f"{tmp}{os.pathsep}{env.get('PATH', '')}", "GPU_ADVISOR_AGENT_TOKEN": "t", "HOME": tmp}
        agent = [sys.executable, "-m", "bot", "agent", "--url", url, "--interval", "5",
                 "--buffer", f"{tmp}/buffer.jsonl", "--state-file", f"{tmp}/state.json"]  # fmt: skip
        found = {}
        for name, command in (("floor (a Python polling loop)", [sys.executable, "-c", FLOOR, url]), ("agent", agent)):
            process = subprocess.Popen(command, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(args.seconds)
            if process.poll() is not None:
                raise RuntimeError(f"{name} ended: {process.stderr.read().decode()[-2000:] if process.stderr else ''}")
            found[name] = rss_mb(process.pid)
            process.kill()
            process.wait()
    server.shutdown()
    floor = found["floor (a Python polling loop)"]
    for name, mb in found.items():
        print(f"{name:32} {mb:6.1f} MB  ({mb / floor:.2f}x the floor)")
    print(f"goal: the agent at most 1.5x: {'met' if found['agent'] <= 1.5 * floor else 'not met'}")


if __name__ == "__main__":
    main()
