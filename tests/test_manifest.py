"""manifest.yml, manifest.socket-mode.yml, the Slack docs page and the registered listeners stay in step."""

from __future__ import annotations

import pytest
import yaml

from bot.slack.ids import COMMAND, EVENTS, SCOPES, SubCommand
from bot.slack.routes import ROUTES, Kind
from tests.support.cli import ROOT
from tests.support.docs import page

SLACK_PAGE = page("slack.md")


@pytest.mark.parametrize("name", ["manifest.yml", "manifest.socket-mode.yml"])
def test_manifest_lists_exactly_what_the_app_uses(name: str) -> None:
    manifest = yaml.safe_load((ROOT / name).read_text("utf-8"))
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == [COMMAND]
    assert tuple(manifest["settings"]["event_subscriptions"]["bot_events"]) == EVENTS
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == set(SCOPES)
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is (name == "manifest.socket-mode.yml")


def test_registered_listeners_match_the_subscribed_events() -> None:
    registered = {str(route.match) for route in ROUTES if route.kind is Kind.EVENT}
    assert registered == {event.split(".")[0] for event in EVENTS}
    assert [route.match for route in ROUTES if route.kind is Kind.COMMAND] == [COMMAND]


def test_the_slack_page_documents_the_command_its_subcommands_events_and_scopes() -> None:
    assert COMMAND in SLACK_PAGE
    for sub in SubCommand:
        assert f"{COMMAND} {sub.value}" in SLACK_PAGE, sub
    for event in EVENTS:
        assert f"`{event}`" in SLACK_PAGE, event
    for scope in SCOPES:
        assert f"`{scope}`" in SLACK_PAGE, scope
