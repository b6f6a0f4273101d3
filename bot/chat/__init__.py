"""The chat port: what the core says (a neutral message), where (a place: platform, team, chat, thread), to and
from whom (an actor), and what any chat must be able to do with it (port.py). The conversation's flow lives here
(conversation.py) and speaks only this port; bot/slack/ and bot/feishu/ render the messages and send them, each
with its platform's SDK. Nothing here imports slack_sdk, slack_bolt or lark_oapi (a test says so)."""
