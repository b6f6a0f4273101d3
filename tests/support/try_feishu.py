"""Try the bot on Feishu with the fake Open API standing in (docs/feishu.md): starts the fake, prints the settings
for serve, then sends what you type to serve's /feishu/events as Feishu would (encrypted and signed) and prints
every card the bot sends.

    python -m tests.support.try_feishu            # then, in another terminal, the printed `serve` command
    > advise                                       # a direct message to the bot
    > about 10 hours                               # a reply in the profile's thread (the last root message)
    > press 1                                      # press the first button of the last card
    > group remind at 09:30 Asia/Shanghai          # the same, typed in a group chat, mentioning the bot
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from tests.support.fake_feishu import Call, FakeFeishu, FeishuSender, buttons, fake_feishu
from tests.support.feishu_harness import ENCRYPT_KEY, VERIFICATION_TOKEN


def show(call: Call) -> str:
    card = call.card if call.body.get("msg_type") == "interactive" else {}
    texts = [e.get("content", "") for e in card.get("body", {}).get("elements", []) if e.get("tag") == "markdown"]
    labels = [b["text"]["content"] for b in buttons(card)] if card else []
    title = card.get("header", {}).get("title", {}).get("content", "")
    lines = [f"[{call.method} {call.body.get('_message_id', '')}] {title}".rstrip(), *texts]
    if labels:
        lines.append("buttons: " + " | ".join(f"{i}. {label}" for i, label in enumerate(labels, 1)))
    return "\n  ".join(lines)


def run(fake: FakeFeishu, send: FeishuSender) -> None:
    shown, root, last_card, last_id = 0, None, None, ""
    for line in sys.stdin:
        words = line.strip()
        if words.startswith("press ") and last_card is not None:
            send.press(buttons(last_card)[int(words.split()[1]) - 1], message_id=last_id)
        elif words.startswith("group "):
            mention = [{"key": "@_user_1", "id": {"open_id": "ou_bot"}, "name": "GPU Advisor"}]
            send.message("@_user_1 " + words[6:], chat="oc_group", chat_type="group", mentions=mention)
        elif words:
            send.message(words, root=root if words.split()[0].lower() not in ("advise", "help") else None)
        time.sleep(1.0)
        for call in fake.calls[shown:]:
            if call.method in ("messages.create", "messages.reply", "messages.patch"):
                print(show(call), flush=True)
                if call.method == "messages.create" and call.body.get("receive_id", "").startswith("oc_dm"):
                    root = call.body.get("_message_id", root)
                if call.body.get("msg_type") == "interactive" or call.method == "messages.patch":
                    last_card, last_id = call.card, str(call.body.get("_message_id") or call.path.rsplit("/", 1)[1])
        shown = len(fake.calls)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8801, help="the fake Open API's port")
    parser.add_argument("--serve", default="http://127.0.0.1:8080", help="where `gpu-advise serve` listens")
    args = parser.parse_args(argv)
    with fake_feishu(args.port) as fake:
        env: dict[str, Any] = {
            "GPU_ADVISOR_FEISHU_APP_ID": "cli_a1b2c3d4e5f6",
            "GPU_ADVISOR_FEISHU_APP_SECRET": fake.app_secret,
            "GPU_ADVISOR_FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
            "GPU_ADVISOR_FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
            "GPU_ADVISOR_FEISHU_DOMAIN": fake.base_url,
            "GPU_ADVISOR_FEISHU_MODE": "http",
        }
        port = args.serve.rsplit(":", 1)[1]
        print(" ".join(f"{k}={json.dumps(v)}" for k, v in env.items()), f".venv/bin/gpu-advise serve --port {port}")
        print("type `advise`, a reply, `press N` or `group remind at 09:30 Asia/Shanghai` (Ctrl-D ends)", flush=True)
        run(fake, FeishuSender(f"{args.serve}/feishu/events", ENCRYPT_KEY, VERIFICATION_TOKEN))


if __name__ == "__main__":
    main()
