"""`gpu-advise serve` as a real process with DingTalk and WeCom configured and no other chat: each chat's long
connection to its local fake, /healthz listing each chat's state, each answering a message, and /metrics counting
each one's requests under its platform's label."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.fake_dingtalk import CLIENT_ID, CLIENT_SECRET, fake_dingtalk
from tests.support.fake_wecom import BOT_ID, BOT_SECRET, fake_wecom
from tests.support.processes import serve_process

pytestmark = pytest.mark.e2e  # starts serve


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return str(answer.read().decode())


def test_serve_talks_to_dingtalk_and_wecom_alone(tmp_path: Path) -> None:
    with fake_dingtalk() as dingtalk, fake_wecom() as wecom:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
            "GPU_ADVISOR_DINGTALK_CLIENT_ID": CLIENT_ID,
            "GPU_ADVISOR_DINGTALK_CLIENT_SECRET": CLIENT_SECRET,
            "GPU_ADVISOR_DINGTALK_API_URL": dingtalk.base_url,
            "GPU_ADVISOR_WECOM_BOT_ID": BOT_ID,
            "GPU_ADVISOR_WECOM_BOT_SECRET": BOT_SECRET,
            "GPU_ADVISOR_WECOM_WS_URL": wecom.url,
            "GPU_ADVISOR_DB": str(tmp_path / "bot.db"),
            "GPU_ADVISOR_AZURE_ENABLED": "false",
            "GPU_ADVISOR_ECB_ENABLED": "false",
            "GPU_ADVISOR_LANG": "en",
        }
        with serve_process(env) as (slack, _proc):
            base = slack.url.rsplit("/slack/", 1)[0]
            deadline = time.monotonic() + 20
            while True:
                chats = json.loads(_get(f"{base}/healthz"))["checks"]["chats"]
                if {chats[c]["state"] for c in ("dingtalk", "wecom")} == {"connected"} or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert set(chats) == {"dingtalk", "wecom"} and chats["dingtalk"]["state"] == "connected", chats
            assert chats["wecom"]["state"] == "connected", chats
            dingtalk.wait_connected()
            dingtalk.message("help", "manager4521")
            wecom.wait_for(lambda: wecom.connections)
            wecom.message("help", "ana.li")
            dingtalk.wait_for(lambda: dingtalk.cards)
            wecom.wait_for(lambda: wecom.sent)
            assert "dingtalk:" in next(iter(dingtalk.cards.values())).params["markdown"]  # the help names --team
            assert f"wecom:{BOT_ID}" in wecom.sent[0].text
            metrics = _get(f"{base}/metrics")
            assert 'platform="dingtalk"' in metrics and 'platform="wecom"' in metrics
