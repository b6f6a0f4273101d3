"""Installing into many workspaces through OAuth, against the local fake Slack (oauth.v2.access): tokens
encrypted at rest, each workspace reached with its own token, nothing of one visible in the other, and
an uninstall forgetting the tokens."""

from __future__ import annotations

import re
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select

from bot.digest.due import run_due
from bot.server.http import build_server
from bot.settings import Settings
from bot.slack.app import MissingSlackSettings, check_tokens, create_app, slack_deps
from bot.slack.digest_outlet import slack_outlets
from bot.slack.door import SlackDoor
from bot.slack.ui.digest import render
from bot.state.rentals import Rentals
from bot.state.schema import migrated_metadata
from rules.samples import Sample
from tests.support.cli import run_cli
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack
from tests.support.servers import POLL_S
from tests.support.slack_harness import SECRET
from tests.support.state_template import with_migrated_state

KEY = Fernet.generate_key().decode()
# A Wednesday, 10:00 in Asia/Shanghai: past the default 09:30 digest on a working day, whatever the real hour.
NOW = datetime(2026, 11, 25, 2, 0, tzinfo=UTC)


def oauth_settings(tmp_path: Path, fake: FakeSlack, **extra: object) -> Settings:
    values = {
        "db": tmp_path / "bot.db",
        "slack_signing_secret": SECRET,
        "slack_client_id": "111.222",
        "slack_client_secret": "client-secret",
        "encryption_key": KEY,
        "slack_api_url": fake.api_url,
        "azure_enabled": False,
        "ecb_enabled": False,
        "lang": "en",
        "remind_pace_s": 0,
    } | extra
    return with_migrated_state(Settings(**values))  # type: ignore[arg-type]  # migrations: tests/state


@contextmanager
def oauth_app(tmp_path: Path, url: str | None) -> Iterator[tuple[FakeSlack, SlackSender, str, object]]:
    with fake_slack() as fake:
        deps = slack_deps(oauth_settings(tmp_path, fake, database_url=url), now=lambda: NOW)
        app = create_app(deps)
        server = build_server(deps, "127.0.0.1", 0, doors=[SlackDoor(app, deps)])
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield fake, SlackSender(f"{base}/slack/events", SECRET), base, (deps, app)
        finally:
            server.shutdown()
            server.server_close()
            deps.store.close()


def install(base: str, team: str) -> str:
    """Through the install page and Slack's redirect, as a browser would; returns the success page."""
    with urllib.request.urlopen(f"{base}/slack/install", timeout=10) as page:
        html = page.read().decode()
        cookie = page.headers["Set-Cookie"].split(";")[0]
    state = re.search(r"state=([\w-]+)", html)
    assert state is not None and "slack.com/oauth/v2/authorize" in html, html
    back = urllib.request.Request(
        f"{base}/slack/oauth_redirect?code=code-{team}&state={state.group(1)}", headers={"Cookie": cookie}
    )
    with urllib.request.urlopen(back, timeout=10) as done:
        return done.read().decode()


def test_two_workspaces_install_and_neither_sees_the_other(tmp_path: Path, db_target: str) -> None:
    url = db_target if "://" in db_target else None  # the installs in SQLite, and in PostgreSQL
    with oauth_app(tmp_path, url) as (fake, send, base, (deps, app)):
        for team in ("T1", "T2"):
            install(base, team)
        assert [c["code"] for c in fake.of("oauth.v2.access")] == ["code-T1", "code-T2"]
        tables = migrated_metadata().tables
        bots, installs = tables["slack_bots"], tables["slack_installations"]
        with deps.store.reading() as conn:  # type: ignore[attr-defined]
            stored = conn.execute(select(bots.c.team_id, bots.c.bot_token)).all()
            stored += conn.execute(select(installs.c.team_id, installs.c.bot_token)).all()
        assert {row.team_id for row in stored} == {"T1", "T2"}
        assert all(row.bot_token.startswith("enc1:") and "xoxb" not in row.bot_token for row in stored)

        for team in ("T1", "T2"):  # each workspace's requests are answered with its own token
            assert (
                send.command("", team=team, user=f"U{team}", channel=f"C{team}", response_url=fake.response_url(team))[
                    0
                ]
                == 200
            )
        roots = fake.wait_for(
            lambda: len(r := [p for p in fake.of("chat.postMessage") if "thread_ts" not in p]) >= 2 and r
        )
        assert {(p["channel"], p["_auth"]) for p in roots} == {
            ("CT1", "Bearer xoxb-T1-bot-token"),
            ("CT2", "Bearer xoxb-T2-bot-token"),
        }
        t1_thread = next(p["_ts"] for p in roots if p["channel"] == "CT1")
        before = len(fake.of("chat.postMessage"))
        # a T2 user replying into T1's thread (same channel and ts, another workspace): nothing happens
        send.event(
            {
                "type": "message",
                "channel": "CT1",
                "user": "UT1",
                "text": "skip",
                "ts": "1700000300.1",
                "thread_ts": t1_thread,
            },
            event_id="EvX1",
            team="T2",
        )
        fake.wait_for(lambda: deps.inbox.pending(timedelta(hours=1)) == [])  # type: ignore[attr-defined]
        t1 = deps.conversations.by_thread("T1", "CT1", t1_thread)  # type: ignore[attr-defined]
        assert t1 is not None and t1.answers == {} and deps.conversations.by_thread("T2", "CT1", t1_thread) is None  # type: ignore[attr-defined]
        rentals = Rentals(deps.store)  # type: ignore[attr-defined]
        now = deps.now()
        fields = {
            "gpu": "A100-80GB",
            "cards": 1,
            "share": None,
            "unit": "day",
            "price": 400.0,
            "currency": "CNY",
            "channel": "CT1",
            "owner": "UT1",
            "project": None,
            "started_at": now - timedelta(hours=3),
        }
        inst, _ = rentals.track_instance("T1", "t1-box", fields)
        quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
        rentals.add_samples(inst.id, quiet, [None] * len(quiet))
        send.command("list", team="T2", user="UT2", channel="CT2", response_url=fake.response_url("list2"))
        listed = fake.wait_for(lambda: [c for c in fake.of("response_url") if c["_path"].endswith("list2")])[0]
        assert "t1-box" not in str(listed)
        run_due(deps, slack_outlets(deps, app.client, render))  # type: ignore[arg-type, attr-defined]
        digests = [p for p in fake.of("chat.postMessage")[before:] if "t1-box" in str(p.get("blocks"))]
        assert [(p["channel"], p["_auth"]) for p in digests] == [("CT1", "Bearer xoxb-T1-bot-token")]

        status, _ = send.event({"type": "app_uninstalled"}, event_id="EvU2", team="T2")
        assert status == 200
        fake.wait_for(lambda: _gone(deps, "T2"))
        with deps.store.reading() as conn:  # type: ignore[attr-defined]
            assert {row.team_id for row in conn.execute(select(bots.c.team_id))} == {"T1"}
        posted = len(fake.of("chat.postMessage"))
        send.command("", team="T2", user="UT2", channel="CT2", response_url=fake.response_url("after"))
        send.command("", team="T1", user="UT1", channel="CT1", response_url=fake.response_url("t1"))
        # T1's profile starts: its root message, then its first question (waited for, or it could land among the
        # digest's posts counted below)
        fake.wait_for(
            lambda: any(
                b.get("block_id") == "question"
                for p in fake.of("chat.postMessage")[posted:]
                for b in p.get("blocks") or []
            )
        )
        assert {p["channel"] for p in fake.of("chat.postMessage")[posted:]} == {"CT1"}

        env = {
            "GPU_ADVISOR_DB": str(tmp_path / "bot.db"),
            "SLACK_CLIENT_ID": "111.222",
            "SLACK_CLIENT_SECRET": "s",
            "GPU_ADVISOR_ENCRYPTION_KEY": KEY,
            "SLACK_API_URL": fake.api_url,
            "GPU_ADVISOR_REMIND_PACE_S": "0",
            **({"GPU_ADVISOR_DATABASE_URL": url} if url else {}),
        }
        gone = run_cli("remind", "--now", "--team", "T2", env=env | {"GPU_ADVISOR_LANG": "en"})
        assert gone.returncode == 2 and "cannot send to workspace T2" in gone.stderr
        before = len(fake.of("chat.postMessage"))
        again = run_cli("remind", "--now", "--team", "T1", "--force", env=env)
        assert again.returncode == 0, again.stderr
        assert [p["_auth"] for p in fake.of("chat.postMessage")[before:]] == ["Bearer xoxb-T1-bot-token"]


def _gone(deps: object, team: str) -> bool:
    try:
        deps.client_of(team, None)  # type: ignore[attr-defined]
    except LookupError:
        return True
    return False


def test_oauth_mode_refuses_to_start_without_a_usable_encryption_key(tmp_path: Path) -> None:
    with fake_slack() as fake:
        for key, said in ((None, "GPU_ADVISOR_ENCRYPTION_KEY is not set"), ("short", "is not a Fernet key")):
            with pytest.raises(MissingSlackSettings) as refused:
                check_tokens(oauth_settings(tmp_path, fake, encryption_key=key))
            assert said in str(refused.value) and "Fernet.generate_key()" in str(refused.value)
        check_tokens(oauth_settings(tmp_path, fake))  # a key: ready
        with pytest.raises(MissingSlackSettings, match="HTTP mode"):
            check_tokens(oauth_settings(tmp_path, fake, slack_app_token="xapp-1"))


def test_a_changed_key_refuses_to_start_and_a_rotation_reencrypts_every_install(tmp_path: Path) -> None:
    """Issue 20.13: with another GPU_ADVISOR_ENCRYPTION_KEY serve started and every installed workspace
    got 500. Now it refuses with what to do; NEW,OLD re-encrypts the installs with NEW at start-up."""
    with oauth_app(tmp_path, None) as (fake, _send, base, _):
        install(base, "T1")
        new = Fernet.generate_key().decode()
        with pytest.raises(MissingSlackSettings, match="GPU_ADVISOR_ENCRYPTION_KEY=NEW,OLD"):
            create_app(slack_deps(oauth_settings(tmp_path, fake, encryption_key=new)))
        rotated = slack_deps(oauth_settings(tmp_path, fake, encryption_key=f"{new},{KEY}"))
        create_app(rotated)  # starts, and encrypts the stored tokens again with the new key
        rotated.store.close()
        only_new = slack_deps(oauth_settings(tmp_path, fake, encryption_key=new))
        create_app(only_new)  # the old key is no longer needed
        assert only_new.client_of("T1", None).token == "xoxb-T1-bot-token"  # type: ignore[arg-type]
        only_new.store.close()
