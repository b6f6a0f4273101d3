"""The terminal wing: `gpu-advise` (advise, quote, prices, policy, serve). Importing it loads no Slack
or scheduler module: serve imports them when it runs."""

from bot.cli.main import app, main

__all__ = ["app", "main"]
