"""`gpu-advise enroll-token`: printed once, kept as a hash, with its expiry and uses; bad options named."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from bot.state import Store
from bot.state.enrollment import Enrollments
from bot.state.rentals import token_hash
from bot.state.schema import enroll_tokens
from tests.support.cli import run_cli
from tests.support.state_template import migrated_state_db

ENV = {"GPU_ADVISOR_LANG": "en"}


def test_json_gives_the_token_once_with_its_expiry_and_uses(tmp_path: Path) -> None:
    done = run_cli(
        "enroll-token",
        "--channel",
        "C1",
        "--owner",
        "U1",
        "--project",
        "llm",
        "--expires",
        "12h",
        "--uses",
        "3",
        "--team",
        "T1",
        "--json",
        env=ENV,
        tmp=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["uses"] == 3
    expires = datetime.fromisoformat(said["expires_at"])
    assert abs(expires - (datetime.now(UTC) + timedelta(hours=12))) < timedelta(minutes=1)
    store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'advisor.state.db')}")
    grant = Enrollments(store).grant(said["token"], datetime.now(UTC))
    assert (grant.team, grant.channel, grant.owner, grant.project, grant.uses_left) == ("T1", "C1", "U1", "llm", 3)
    with store.reading() as conn:
        kept = [tuple(r) for r in conn.execute(select(enroll_tokens))]
    assert len(kept) == 1 and kept[0][0] == token_hash(said["token"])
    assert said["token"] not in str(kept)


def test_text_shows_the_agent_command_at_the_public_url(tmp_path: Path) -> None:
    done = run_cli(
        "enroll-token",
        "--channel",
        "C1",
        "--owner",
        "U1",
        "--team",
        "T1",
        env=ENV | {"GPU_ADVISOR_PUBLIC_URL": "https://gpu.example.com/"},
        tmp=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    token = done.stdout.splitlines()[1]
    assert f"gpu-advise agent --url https://gpu.example.com --enroll {token}" in done.stdout
    assert "up to 20 boxes" in done.stdout


def test_bad_options_say_what_is_accepted(tmp_path: Path) -> None:
    base = ("enroll-token", "--channel", "C1", "--owner", "U1", "--team", "T1")
    forever = run_cli(*base, "--expires", "400d", env=ENV, tmp=tmp_path)
    assert forever.returncode == 2 and "--expires: 400d is outside" in forever.stderr and "365d" in forever.stderr
    garbled = run_cli(*base, "--expires", "soon", env=ENV, tmp=tmp_path)
    assert garbled.returncode == 2 and "say 30m, 4h, 7d or 2w" in garbled.stderr
    project = run_cli(*base, "--project", "a b", env=ENV, tmp=tmp_path)
    assert project.returncode == 2 and "--project" in project.stderr
    zh = run_cli(*base, "--expires", "soon", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zh.returncode == 2 and "不是时长" in zh.stderr
    # the boxes' digests go to the channel: one that names none was kept, and no digest of theirs would arrive
    nowhere = run_cli("enroll-token", "--channel", "general", "--owner", "U1", "--team", "T1", env=ENV, tmp=tmp_path)
    assert nowhere.returncode == 2 and "--channel 'general' is not a channel" in nowhere.stderr
