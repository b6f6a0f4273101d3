"""serve's HTTP front door talking to Feishu only: a fake Feishu Open API, a migrated state file, the gateway
on a local port, and a sender of encrypted, signed callbacks."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bot.deps import Deps, build_deps
from bot.digest.due import run_due
from bot.digest.send import Outcome
from bot.feishu.gateway import PATH, FeishuGateway
from bot.server.http import build_server
from bot.settings import Settings
from bot.text import Lang, t
from tests.support.fake_feishu import FakeFeishu, FeishuSender, fake_feishu, ws_server
from tests.support.pending import settled
from tests.support.servers import POLL_S
from tests.support.slack_harness import Clock
from tests.support.state_template import with_migrated_state

ENCRYPT_KEY = "kl2ydVMp7BLRDYVbfBVmZbGnvRaNv1pq"
VERIFICATION_TOKEN = "v-Kd8s9a0ZpQwErTyUiOp1234"


@dataclass
class FeishuHarness:
    fake: FakeFeishu
    send: FeishuSender
    deps: Deps
    gateway: FeishuGateway
    url: str
    clock: Clock

    def run_due(self) -> list[Outcome]:
        """serve's digest job, for Feishu's tenants."""
        return run_due(self.deps, lambda _team: self.gateway.outlet())

    def told(self, user: str, chat: str) -> list[str]:
        """Once the presses' work is done: what cards only `user` saw in `chat` said (Feishu's ephemeral cards)."""
        settled(self.deps)
        return [
            json.dumps(call.body["card"], ensure_ascii=False)
            for call in self.fake.of("ephemeral.send")
            if call.status == 200 and (call.body["open_id"], call.body["chat_id"]) == (user, chat)
        ]


def answered_at_once(answer: httpx.Response) -> bool:
    """A press answered as soon as it was kept: with the toast that says it is being done, in both languages."""
    toast = answer.json().get("toast") or {}
    said = {"zh_cn": t("feishu.toast_working", Lang.ZH), "en_us": t("feishu.toast_working", Lang.EN)}
    return answer.status_code == 200 and toast.get("type") == "info" and toast.get("i18n") == said


@contextmanager
def running_feishu(tmp_path: Path, mode: str = "http", **extra: Any) -> Iterator[FeishuHarness]:
    """`mode` http: callbacks POSTed, encrypted and signed, to /feishu/events; ws: frames over the SDK's long
    connection to a local WebSocket server."""
    with fake_feishu() as fake, ws_server() if mode == "ws" else nullcontext() as ws:
        if ws is not None:
            fake.ws_url = ws.url
        settings = Settings(
            db=tmp_path / "bot.db",
            feishu_app_id="cli_a1b2c3d4e5f6",
            feishu_app_secret=fake.app_secret,
            feishu_encrypt_key=ENCRYPT_KEY,
            feishu_verification_token=VERIFICATION_TOKEN,
            feishu_domain=fake.base_url,
            feishu_mode=mode,
            azure_enabled=False,
            ecb_enabled=False,
            **({"lang": "zh"} | extra),
        )
        with_migrated_state(settings)
        clock = Clock()
        deps = build_deps(settings, now=clock)
        gateway = FeishuGateway(deps)
        gateway.api.backoff_s = 0.01
        gateway.api.forget_token()  # the SDK caches it for the process: each harness's fake hands its own
        server = build_server(deps, "127.0.0.1", 0, doors=[gateway])
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{server.server_address[1]}{PATH}"
        if ws is not None:
            gateway.connect()
            ws.wait_connected()
        sender = FeishuSender(url, ENCRYPT_KEY, VERIFICATION_TOKEN, ws=ws)
        try:
            yield FeishuHarness(fake, sender, deps, gateway, url, clock)
        finally:
            server.shutdown()
            server.server_close()
            gateway.stop()
            deps.shutdown()
