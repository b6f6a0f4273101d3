"""Settings grouped by area (issue 46): every variable keeps its name, each setting is in exactly one area, and a
setting given by its flat name (Settings(azure_enabled=False), the terminal's flags) wins over the environment."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import AREAS, FLAT, Settings, variable_of
from bot.settings.areas import Slack


def test_every_setting_is_in_one_area_and_named_once() -> None:
    placed = [(area, name) for area, model in AREAS.items() for name in model.model_fields]
    assert sorted(placed) == sorted(FLAT.values()) and len(set(FLAT.values())) == len(FLAT)


def test_the_variables_keep_their_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("gpu_advisor_feishu_app_id", "cli_1")  # names in any case, as before
    monkeypatch.setenv("GPU_ADVISOR_AZURE_ENABLED", "false")
    monkeypatch.setenv("GPU_ADVISOR_REMIND_TZ", "Europe/Berlin")
    monkeypatch.setenv("GPU_ADVISOR_SAMPLES_RAW_DAYS", "3")
    settings = Settings()
    assert settings.slack.bot_token is not None and settings.slack.bot_token.get_secret_value() == "xoxb-1"
    assert (settings.feishu.app_id, settings.prices.azure_enabled) == ("cli_1", False)
    assert (settings.digest.remind_tz, settings.samples.samples_raw_days) == ("Europe/Berlin", 3.0)
    given = Settings(azure_enabled=True, remind_tz="Asia/Tokyo")  # a flat name wins over the environment
    assert (given.prices.azure_enabled, given.digest.remind_tz, given.feishu.app_id) == (True, "Asia/Tokyo", "cli_1")
    assert given.with_flat(lang="en").files.lang == "en" and given.files.lang == "zh"


def test_a_bad_value_names_its_variable() -> None:
    assert variable_of(("feishu", "domain")) == "GPU_ADVISOR_FEISHU_DOMAIN"
    assert variable_of(("slack", "bot_token")) == "SLACK_BOT_TOKEN"


def test_every_bad_value_is_refused_when_made_each_named_by_its_area(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Settings checks what it is given and what the environment sets when it is made, all areas at once (an
    area nothing was given for is made later, from its defaults only)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GPU_ADVISOR_REMIND_AT", "99:99")
    with pytest.raises(ValidationError) as caught:
        Settings(feishu_domain="ftp://example.com", http_timeout_s="soon", dingtalk_api_url="http://example.com")
    places = sorted(variable_of(error["loc"]) for error in caught.value.errors())
    assert places == [
        "GPU_ADVISOR_DINGTALK_API_URL",
        "GPU_ADVISOR_FEISHU_DOMAIN",
        "GPU_ADVISOR_HTTP_TIMEOUT_S",
        "GPU_ADVISOR_REMIND_AT",
    ]
    assert "9点半" in str(caught.value)  # each area's own message, as its model says it


def test_an_area_nobody_reads_is_made_when_first_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A command reading two areas builds two models, not ten (bench/cli_startup.py: quote's start); an area nothing
    was given for is made from its defaults when first read, once."""
    monkeypatch.chdir(tmp_path)
    made: list[str] = []

    class Counted(Slack):
        def model_post_init(self, context: object) -> None:
            made.append("slack")

    monkeypatch.setitem(AREAS, "slack", Counted)
    settings = Settings(lang="en")
    assert made == [] and settings.files.lang == "en"
    assert settings.slack.api_url == "https://slack.com/api/" and settings.slack is settings.slack
    assert made == ["slack"]
    monkeypatch.setenv("SLACK_API_URL", "http://127.0.0.1:1/api/")  # a value set: made, and checked, at once
    assert Settings().slack.api_url == "http://127.0.0.1:1/api/" and made == ["slack", "slack"]


def test_settings_travel_to_another_process_as_they_are() -> None:
    """serve hands its settings to the work process (pickled): the areas read and the ones not yet read."""
    settings = Settings(lang="en", azure_enabled=False).with_flat(remind_tz="Asia/Tokyo")
    again = pickle.loads(pickle.dumps(settings))
    assert (again.files.lang, again.prices.azure_enabled, again.digest.remind_tz) == ("en", False, "Asia/Tokyo")
    assert again.serve == Settings().serve
