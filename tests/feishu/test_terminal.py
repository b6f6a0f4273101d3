"""The terminal for a Feishu-only team: no Slack token anywhere. `--team feishu:<tenant key>` (or no --team, with
one tenant known), `remind --now` sends the Feishu digest card, a budget crossed from the terminal alerts the
Feishu group, `report --post` posts there, `act` tells the group; a --team that names no tenant is refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from rules.remind_schedule import RemindSchedule
from rules.samples import Sample
from tests.digest.test_schedule import FIELDS
from tests.support.cli import run_cli
from tests.support.fake_feishu import FakeFeishu, fake_feishu

TEAM, GROUP = "feishu:2ed263bf32cf1651", "oc_" + "5ad1" * 8
OWNER = "ou_" + "7d8a" * 8


def env_of(fake: FakeFeishu, tmp: Path) -> dict[str, str]:
    return {
        "GPU_ADVISOR_LANG": "en",
        "GPU_ADVISOR_FEISHU_APP_ID": "cli_a1b2c3d4e5f6",
        "GPU_ADVISOR_FEISHU_APP_SECRET": fake.app_secret,
        "GPU_ADVISOR_FEISHU_DOMAIN": fake.base_url,
        "GPU_ADVISOR_DB": str(tmp / "advisor.db"),
    }


def idle_box(tmp: Path) -> None:
    """What the group rents: a box idle all day (the state file the terminal opens, made by a first command)."""
    run_cli("list", "--team", TEAM, env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp)
    store = Store(f"sqlite:///{tmp / 'advisor.state.db'}")
    rentals = Rentals(store)
    now = datetime.now(UTC)
    fields = FIELDS | {"owner": OWNER, "channel": GROUP, "started_at": now - timedelta(hours=30), "price": 30.0}
    inst, _ = rentals.track_instance(TEAM, "train-1", fields)
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(600, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    every_day = RemindSchedule(time(0, 0), "Asia/Shanghai", frozenset(range(7)), lang="en")
    Schedules(store, every_day).put(TEAM, GROUP, every_day, OWNER, now)


def cards_to(fake: FakeFeishu, chat: str) -> list[dict[str, Any]]:
    return [c.card for c in fake.sent() if c.body.get("receive_id") == chat]


def test_remind_now_sends_the_feishu_digest_without_a_slack_token(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        idle_box(tmp_path)
        env = env_of(fake, tmp_path)
        sent = run_cli("remind", "--now", "--team", TEAM, env=env, tmp=tmp_path)
        assert sent.returncode == 0, sent.stderr + sent.stdout
        [card] = cards_to(fake, GROUP)
        assert "train-1" in json.dumps(card, ensure_ascii=False)
        again = run_cli("remind", "--now", env=env, tmp=tmp_path)  # one tenant known: the default
        assert again.returncode == 0 and len(cards_to(fake, GROUP)) == 1  # once a day


def test_a_team_that_names_no_tenant_is_refused_with_the_forms(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        bad = run_cli("remind", "--now", "--team", "oc_group", env=env_of(fake, tmp_path), tmp=tmp_path)
        assert bad.returncode == 2 and "feishu:<tenant key>" in bad.stderr and fake.sent() == []
        none = run_cli("list", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)  # nothing known yet: which tenant?
        assert none.returncode == 2 and "--team" in none.stderr and "none yet" in none.stderr


def test_a_budget_report_and_act_from_the_terminal_reach_the_feishu_group(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        idle_box(tmp_path)
        env = env_of(fake, tmp_path)
        run_cli("track", "instance", "llm-1", "--gpu", "A100", "--price", "30/h", "--project", "llm",
                "--channel", GROUP, "--owner", OWNER, "--team", TEAM, env=env, tmp=tmp_path)  # fmt: skip
        budget = run_cli("budget", "llm", "1", "--team", TEAM, env=env, tmp=tmp_path)
        assert budget.returncode == 0, budget.stderr
        alerts = [c for c in cards_to(fake, GROUP) if "Budget alert" in json.dumps(c, ensure_ascii=False)]
        assert alerts, [json.dumps(c)[:300] for c in cards_to(fake, GROUP)]
        posted = run_cli("report", "--post", "--channel", GROUP, "--team", TEAM, env=env, tmp=tmp_path)
        assert posted.returncode == 0 and "Posted the report" in posted.stderr + posted.stdout
        charts = [c for c in fake.of("messages.reply") if c.body.get("msg_type") == "image"]
        assert charts  # the report's chart, as an image in its thread
        act = run_cli("act", GROUP, "notify", "--team", TEAM, env=env, tmp=tmp_path)
        assert act.returncode == 0 and "Told" in act.stderr + act.stdout
        told = json.dumps(cards_to(fake, GROUP)[-1], ensure_ascii=False)
        assert "this chat" in told and "<#" not in told
        needs = run_cli("report", "--post", "--team", TEAM, env=env, tmp=tmp_path)
        assert needs.returncode == 2 and "--channel" in needs.stderr


def test_list_names_owners_as_feishu_contacts_name_them(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        idle_box(tmp_path)
        fake.users[OWNER] = {"open_id": OWNER, "name": "Ana Li"}
        listed = run_cli("list", "--team", TEAM, env=env_of(fake, tmp_path), tmp=tmp_path)
        assert listed.returncode == 0 and "train-1" in listed.stdout
        assert "Ana Li" in listed.stdout and OWNER not in listed.stdout
        bare = run_cli("list", "--team", TEAM, env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)  # no Feishu settings
        assert OWNER in bare.stdout  # the id, as without a chat to ask
