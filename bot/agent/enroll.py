"""The agent's enrollment: on its first run, `--enroll TOKEN` registers the box (POST /api/enroll) and keeps
the heartbeat token it gets in a state file (mode 0600); later runs read the file, so `--enroll` may stay
in the unit file. The box says its name, machine id, cards and, on EC2, its instance id (read from the
instance metadata service when it answers within a second, unless AWS_EC2_METADATA_DISABLED=true)."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bot.tls import shared_context

log = logging.getLogger(__name__)
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
METADATA_DEFAULT = "http://169.254.169.254"  # botocore's; AWS_EC2_METADATA_SERVICE_ENDPOINT points it elsewhere
METADATA_TIMEOUT_S = 1.0
INSTANCE_ID = re.compile(r"i-[0-9a-f]{8,17}")


class EnrollFailed(RuntimeError):
    """The bot refused the enrollment: `status` (401 token, 409 name, 400 a field) and what it said."""

    def __init__(self, status: int, said: str, reason: str = "", params: dict[str, str] | None = None) -> None:
        super().__init__(f"{status}: {said}")
        self.status, self.said, self.reason, self.params = status, said, reason, params or {}


@dataclass(frozen=True)
class Enrolled:
    instance: str
    token: str


def machine_id() -> str:
    """The box's id across reboots and re-installs of the agent: systemd's machine id, else one made from
    the host name and the first network card's address."""
    for path in MACHINE_ID_FILES:
        try:
            found = path.read_text().strip()
        except OSError:
            continue
        if re.fullmatch(r"[0-9a-f]{32}", found):
            return found
    return uuid.uuid5(uuid.NAMESPACE_DNS, f"{socket.gethostname()}-{uuid.getnode()}").hex


def ec2_instance_id(environ: dict[str, str] | None = None) -> str | None:
    """`aws:i-…` from the EC2 instance metadata service (IMDSv2, then v1), or None off EC2 (or when it does
    not answer within a second). Never asked when AWS_EC2_METADATA_DISABLED is true (botocore's setting)."""
    env = os.environ if environ is None else environ
    if env.get("AWS_EC2_METADATA_DISABLED", "").strip().lower() == "true":
        return None
    base = env.get("AWS_EC2_METADATA_SERVICE_ENDPOINT", METADATA_DEFAULT).rstrip("/")
    try:
        with httpx.Client(timeout=METADATA_TIMEOUT_S, verify=shared_context()) as client:
            headers = {}
            session = client.put(f"{base}/latest/api/token", headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"})
            if session.status_code == 200:
                headers["X-aws-ec2-metadata-token"] = session.text.strip()
            found = client.get(f"{base}/latest/meta-data/instance-id", headers=headers)
    except httpx.HTTPError:
        return None
    text = found.text.strip() if found.status_code == 200 else ""
    return f"aws:{text}" if INSTANCE_ID.fullmatch(text) else None


def read_state(path: Path) -> Enrolled | None:
    """What an earlier enrollment kept, or None when there is no usable state file."""
    try:
        kept = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("the state file %s cannot be read (%s): enrolling again", path, exc)
        return None
    if not isinstance(kept, dict) or not isinstance(kept.get("token"), str) or not kept["token"]:
        log.warning("the state file %s holds no token: enrolling again", path)
        return None
    return Enrolled(str(kept.get("instance", "")), kept["token"])


def write_state(path: Path, enrolled: Enrolled, url: str) -> None:
    """Keep the heartbeat token, readable by this user alone (0600), replaced in one step."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(
            {
                "url": url,
                "instance": enrolled.instance,
                "token": enrolled.token,
                "enrolled_at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            out,
        )
    os.chmod(tmp, 0o600)  # an existing .tmp keeps its mode through O_CREAT
    os.replace(tmp, path)


def enroll(client: httpx.Client, url: str, token: str, about: dict[str, Any]) -> Enrolled:
    """POST /api/enroll. EnrollFailed when the bot refuses; httpx.HTTPError when it cannot be reached."""
    answer = client.post(url.rstrip("/") + "/api/enroll", headers={"Authorization": f"Bearer {token}"}, json=about)
    try:
        body = answer.json()
    except ValueError:
        body = {}
    if answer.status_code != 201 or not isinstance(body, dict) or not body.get("token"):
        said = body.get("error") if isinstance(body, dict) else None
        reason = str(body.get("reason", "")) if isinstance(body, dict) else ""
        params = {k: str(body[k]) for k in ("name", "at") if isinstance(body, dict) and k in body}
        raise EnrollFailed(answer.status_code, str(said or answer.text[:200]), reason, params)
    return Enrolled(str(body.get("instance", about["name"])), str(body["token"]))


def about_box(
    name: str | None, price: str | None, provider_id: str | None, cards: list[dict[str, Any]]
) -> dict[str, Any]:
    """The enrollment body: the name (default: the host name), machine id, cards, and price and provider id
    when known."""
    body: dict[str, Any] = {
        "name": name or socket.gethostname().split(".")[0],
        "machine_id": machine_id(),
        "gpus": cards,
    }
    if price:
        body["price"] = price
    found = provider_id or ec2_instance_id()
    if found:
        body["provider_id"] = found
    return body
