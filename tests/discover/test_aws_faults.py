"""AWS failing as it does on a bad day: access denied, throttling (once: retried through; always: said), an
endpoint that is not there, no credentials. Each is one line, never a traceback, and a failed run changes
nothing already known. The errors come from a local server answering in EC2's documented XML error format,
in front of moto's server."""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.discover.run import discover
from bot.settings import Settings
from bot.state import Store
from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from bot.tls import shared_context
from tests.support.aws import ec2, launch, moto_server, volume
from tests.support.cli import run_cli
from tests.support.servers import Request, fetch, serve
from tests.support.state_template import migrated_state_db

DENIED = (403, "UnauthorizedOperation", "You are not authorized to perform this operation.")
THROTTLED = (503, "RequestLimitExceeded", "Request limit exceeded.")


def ec2_error(status: int, code: str, message: str) -> tuple[int, dict[str, str], bytes]:
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>{code}</Code>'
        f"<Message>{message}</Message></Error></Errors><RequestID>req-1</RequestID></Response>"
    )
    return status, {"Content-Type": "text/xml;charset=UTF-8"}, body.encode()


def failing(upstream: str, error: tuple[int, str, str], times: int) -> Callable[[Request], Any]:
    """The first `times` calls answer `error`; the rest go on to moto."""
    left = [times]

    def route(request: Request) -> tuple[int, dict[str, str], bytes]:
        if left[0] > 0:
            left[0] -= 1
            return ec2_error(*error)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        answer = httpx.post(
            upstream + request.path, content=request.body, headers=headers, timeout=30, verify=shared_context()
        )
        return answer.status_code, {"Content-Type": answer.headers.get("content-type", "text/xml")}, answer.content

    return route


def run(tmp_path: Path, url: str, store: Store):  # type: ignore[no-untyped-def]
    settings = Settings(
        db=tmp_path / "bot.db", aws_regions="us-east-1", aws_endpoint_url=url, azure_enabled=False, ecb_enabled=False
    )
    return discover(settings, store, "T1", datetime.now(UTC), offers=lambda gpu: [])


def known(store: Store) -> list[tuple[str | None, object, object]]:
    rentals = Rentals(store)
    return [(i.provider_id, i.released_at, i.cloud_state) for i in rentals.instances("T1")] + [
        (s.provider_id, s.deleted_at, s.cloud_state) for s in rentals.storage("T1")
    ]


def test_access_denied_is_one_line_and_changes_nothing_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        launch(client, "g5.xlarge")
        volume(client, 100)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        run(tmp_path, url, store)
        before = known(store)
        client.terminate_instances(InstanceIds=[p.split(":")[1] for p, _, _ in before if p and ":i-" in p])
        with serve({"/": failing(url, DENIED, 100)}) as denied:
            report = run(tmp_path, denied.base_url, store)
        assert list(report.problems) == ["us-east-1"]
        assert report.problems["us-east-1"].startswith("access denied (UnauthorizedOperation)")
        assert "\n" not in report.problems["us-east-1"]
        assert known(store) == before  # the instance is not released on a run that could not see it
        run_state = Discovered(store).runs()["aws"]
        assert run_state.error.startswith("us-east-1: access denied") and run_state.last_ok_at is not None


def test_throttling_once_is_retried_through_and_always_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
        box = launch(ec2(url), "g5.xlarge")
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        with serve({"/": failing(url, THROTTLED, 1)}) as once:
            report = run(tmp_path, once.base_url, store)
        assert report.problems == {} and [i.provider_id for i in Rentals(store).instances("T1")] == [f"aws:{box}"]
        with serve({"/": failing(url, THROTTLED, 100)}) as always:
            report = run(tmp_path, always.base_url, store)
            assert len(always.requests) == 2  # the call and its one retry (AWS_MAX_ATTEMPTS)
        assert report.problems["us-east-1"].startswith("throttled by AWS (RequestLimitExceeded)")
        assert Rentals(store).instances("T1")[0].released_at is None


def test_no_endpoint_and_no_credentials_are_said_in_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with moto_server(monkeypatch):
        monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            nobody = f"http://127.0.0.1:{sock.getsockname()[1]}"
            env = {
                "GPU_ADVISOR_AWS_REGIONS": "us-east-1",
                "GPU_ADVISOR_AWS_ENDPOINT_URL": nobody,
                "GPU_ADVISOR_DISCOVER_TEAM": "T1",
                "GPU_ADVISOR_LANG": "en",
            }
            down = run_cli("discover", env=env, tmp=tmp_path)
        assert down.returncode == 1 and "us-east-1: AWS unreachable or refused" in down.stderr
        assert "Traceback" not in down.stderr + down.stdout and len(down.stderr.strip().splitlines()) == 1
        for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
            monkeypatch.delenv(key)
        bare = run_cli("discover", env=env, tmp=tmp_path)
        assert bare.returncode == 1 and "us-east-1: no AWS credentials" in bare.stderr


def test_serve_runs_discovery_as_a_job_and_healthz_says_when_aws_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from bot.server.jobs import jobs_of
    from tests.support.slack_harness import running_app

    with moto_server(monkeypatch) as url, serve({"/": failing(url, DENIED, 100)}) as denied:
        launch(ec2(url), "g5.xlarge")
        with running_app(tmp_path, aws_regions="us-east-1", aws_endpoint_url=url, discover_every_minutes=30) as h:
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aws"]
            assert job.at_start and job.shared is not None and job.shared.total_seconds() == 1800
            job.work()  # the bot token's workspace (auth.test): T1
            [found] = Rentals(h.deps.store).instances("T1")
            assert found.source == "aws"
            health = json.loads(fetch(h.base_url + "/healthz"))
            assert health["checks"]["discovery"] == {"aws": "ok"}
            metrics = fetch(h.base_url + "/metrics").decode()
            assert 'gpu_advisor_discovered_items{source="aws"} 1.0' in metrics
            h.settings.discovery.aws_endpoint_url = denied.base_url
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aws"]
            job.work()
            health = json.loads(fetch(h.base_url + "/healthz"))
            assert health["status"] == "degraded"
            assert health["checks"]["discovery"]["aws"].startswith("degraded: us-east-1: access denied")
            assert Rentals(h.deps.store).instances("T1")[0].released_at is None
