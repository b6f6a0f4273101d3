"""The chats this build talks to, each a folder of bot/ with a setup.py (its SETUP, for the runtime:
bot/server/chat_setups.py), optionally a settings.py (its own area of Settings: bot/settings/model.py) and, where it
is not built in, the line in its package that registers it (bot/chat/platforms.py register_chat). Adding a chat is a
folder and its line here. Importing this loads nothing."""

from __future__ import annotations

CHATS = ("bot.slack", "bot.feishu", "bot.dingtalk", "bot.wecom")  # a new chat adds its folder here


def chat_packages() -> list[str]:
    return list(CHATS)
