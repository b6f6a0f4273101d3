"""The terminal wing: `gpu-advise` (advise, quote, prices, policy, serve, ...). Importing it loads no Slack
or scheduler module, and a run imports only the invoked command's module: serve imports Slack when it runs."""

from typing import Any

from bot.cli.main import main


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole command line, built when asked for
        from bot.cli.main import build_app

        return build_app()
    raise AttributeError(name)


__all__ = ["main"]
