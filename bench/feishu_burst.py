"""Feishu sends in a burst: N messages back to back through the bot's Open API client (lark-oapi's IM service on
a pooled session, bot/feishu/sdk.py), beside the same client with the SDK's transport as it ships (a new
session and connection for every call), and a floor: a bare pooled `requests.Session` posting the same body to
the same path. Against the local fake Open API in another process at the lowest priority (it stands for Feishu's
servers, which do not share our CPUs). Rounds alternate the three; medians per call.

    python bench/feishu_burst.py [--messages 40] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FAKE = """
import os, sys, time, threading
sys.path.insert(0, {root!r})
os.nice(19)
from tests.support.fake_feishu import fake_feishu
with fake_feishu() as fake:
    print(fake.base_url, fake.app_secret, flush=True)
    threading.Event().wait()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    fake = subprocess.Popen([sys.executable, "-c", FAKE.format(root=str(ROOT))], stdout=subprocess.PIPE, text=True)
    try:
        assert fake.stdout is not None
        base_url, secret = fake.stdout.readline().split()
        took = run(base_url, secret, args.messages, args.rounds)
    finally:
        fake.kill()
    floor = statistics.median(took["floor"])
    print(f"{args.messages} messages back to back, {args.rounds} rounds; median a message:")
    for name, values in took.items():
        median = statistics.median(values)
        print(f"  {name:22} {median * 1000:7.2f} ms  ({median / floor:.1f}x the floor)")


def run(base_url: str, secret: str, messages: int, rounds: int) -> dict[str, list[float]]:
    import requests

    from bot.feishu.chat import FeishuChat
    from bot.feishu.sdk import OpenApi, _Pooled
    from bot.text import Lang

    api = OpenApi("cli_a1b2c3d4e5f6", secret, base_url)
    chat = FeishuChat(api, Lang.EN)
    from lark_oapi.core.http import transport

    pooled = transport.requests
    assert isinstance(pooled, _Pooled)
    card = {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": "GPU rentals: 1 to look at"}]}}
    token = api.tenant_token()
    floor = requests.Session()
    body = json.dumps({"receive_id": "oc_g1", "msg_type": "interactive", "content": json.dumps(card)})

    def bot_pooled() -> None:
        transport.requests = pooled
        chat.send("chat_id", "oc_g1", card)

    def sdk_as_shipped() -> None:
        transport.requests = requests  # the SDK's own: requests.request, a new session each call
        chat.send("chat_id", "oc_g1", card)

    def bare() -> None:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        url = f"{base_url}/open-apis/im/v1/messages"
        answer = floor.post(url, params={"receive_id_type": "chat_id"}, data=body, headers=headers)
        assert answer.status_code == 200

    ways = {"bot (pooled)": bot_pooled, "SDK as shipped": sdk_as_shipped, "floor": bare}
    took: dict[str, list[float]] = {name: [] for name in ways}
    for n in range(rounds):
        order = list(ways.items())
        order = order[n % 3 :] + order[: n % 3]  # who goes first rotates
        for name, send in order:
            for _ in range(messages):
                started = time.perf_counter()
                send()
                took[name].append(time.perf_counter() - started)
    transport.requests = pooled
    return took


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
