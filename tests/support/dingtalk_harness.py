"""serve's DingTalk door talking to a fake DingTalk: a migrated state, the gateway with its Stream connection (the
official SDK's client) connected to the fake's WebSocket, the OpenAPI SDK pointed at the fake."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.deps import Deps, build_deps
from bot.digest.due import run_due
from bot.digest.send import Outcome
from bot.dingtalk.gateway import DingTalkGateway
from bot.settings import Settings
from tests.support.fake_dingtalk import CLIENT_ID, CLIENT_SECRET, FakeDingTalk, fake_dingtalk
from tests.support.pending import settled
from tests.support.slack_harness import Clock
from tests.support.state_template import with_migrated_state


@dataclass
class DingTalkHarness:
    fake: FakeDingTalk
    deps: Deps
    gateway: DingTalkGateway
    clock: Clock

    def run_due(self) -> list[Outcome]:
        """serve's digest job, for DingTalk's organisations."""
        wing = self.gateway.wing()
        return run_due(self.deps, wing.outlet)

    def settled(self) -> None:
        """Every frame's work done (a frame is kept before DingTalk has its acknowledgement)."""
        settled(self.deps)


def settings_for(tmp_path: Path, fake: FakeDingTalk, **extra: Any) -> Settings:
    return Settings(
        db=tmp_path / "bot.db",
        dingtalk_client_id=CLIENT_ID,
        dingtalk_client_secret=CLIENT_SECRET,
        dingtalk_api_url=fake.base_url,
        azure_enabled=False,
        ecb_enabled=False,
        **({"lang": "zh"} | extra),
    )


@contextmanager
def running_dingtalk(tmp_path: Path, **extra: Any) -> Iterator[DingTalkHarness]:
    with fake_dingtalk() as fake:
        settings = settings_for(tmp_path, fake, **extra)
        with_migrated_state(settings)
        clock = Clock()
        deps = build_deps(settings, now=clock)
        gateway = DingTalkGateway(deps)
        gateway.api.backoff_s = (0.01, 0.02, 0.04)
        gateway.start()
        try:
            fake.wait_connected()
            yield DingTalkHarness(fake, deps, gateway, clock)
        finally:
            gateway.stop()
