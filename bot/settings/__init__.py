"""Configuration: one Settings object, built at start-up from the environment (and .env), passed down, its
settings grouped by area (bot/settings/model.py). What this package exports is loaded when first asked for
(PEP 562), so that a command that only reads the environment (bot/settings/environment.py: `--help`'s language,
`advise`) never imports pydantic and the settings' models, about 0.1 s of its start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.settings.model import AREAS, FLAT, Settings, default_db_path, state_db_beside, variable_of, variables

__all__ = ["AREAS", "FLAT", "Settings", "default_db_path", "state_db_beside", "variable_of", "variables"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from bot.settings import model

        return getattr(model, name)
    raise AttributeError(f"module 'bot.settings' has no attribute {name!r}")
