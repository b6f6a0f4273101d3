"""Settings grouped by area (issue 46): every variable keeps its name, each setting is in exactly one area, and a
setting given by its flat name (Settings(azure_enabled=False), the terminal's flags) wins over the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import AREAS, FLAT, Settings, variable_of


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
