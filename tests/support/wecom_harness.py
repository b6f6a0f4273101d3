"""serve's WeCom door talking to a fake WeCom: a migrated state, the gateway with the official SDK's long
connection subscribed to the fake."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.deps import Deps, build_deps
from bot.digest.due import run_due
from bot.digest.send import Outcome
from bot.settings import Settings
from bot.wecom.gateway import WeComGateway
from tests.support.fake_wecom import BOT_ID, BOT_SECRET, FakeWeCom, fake_wecom
from tests.support.pending import settled
from tests.support.slack_harness import Clock
from tests.support.state_template import with_migrated_state


@dataclass
class WeComHarness:
    fake: FakeWeCom
    deps: Deps
    gateway: WeComGateway
    clock: Clock

    def run_due(self) -> list[Outcome]:
        return run_due(self.deps, self.gateway.wing().outlet)

    def settled(self, msgid: str | None = None, timeout: float = 10.0) -> None:
        """Every frame's work done; with `msgid`, once that frame was taken (WeCom's frames have no receipt)."""
        deadline = time.monotonic() + timeout
        while msgid is not None and not self.deps.inbox.known([f"wecom:{msgid}"]):
            assert time.monotonic() < deadline, f"frame {msgid} never taken"
            time.sleep(0.01)
        settled(self.deps, timeout)


def wecom_settings(tmp_path: Path, fake: FakeWeCom, **extra: Any) -> Settings:
    return Settings(
        db=tmp_path / "bot.db",
        wecom_bot_id=BOT_ID,
        wecom_bot_secret=BOT_SECRET,
        wecom_ws_url=fake.url,
        azure_enabled=False,
        ecb_enabled=False,
        **({"lang": "zh"} | extra),
    )


@contextmanager
def running_wecom(tmp_path: Path, **extra: Any) -> Iterator[WeComHarness]:
    with fake_wecom() as fake:
        settings = wecom_settings(tmp_path, fake, **extra)
        with_migrated_state(settings)
        clock = Clock()
        deps = build_deps(settings, now=clock)
        gateway = WeComGateway(deps)
        gateway.start()
        try:
            assert gateway.connection.authenticated.wait(10), "the robot's connection never subscribed"
            yield WeComHarness(fake, deps, gateway, clock)
        finally:
            gateway.stop()
