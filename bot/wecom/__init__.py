"""WeCom (企业微信): the chat port on WeCom's intelligent robots through the official AI-bot SDK
(wecom-aibot-python-sdk): a long connection the bot opens itself, no public address (connection.py); messages and
template-card clicks come over it, cards and messages go back over it. Its settings are its own (settings.py); the
runtime knows it by one line in bot/settings/chats.py."""

from bot.chat.platforms import register_chat

PREFIX = "wecom:"  # a robot's organisation in the state: wecom:<the robot's aibotid, as its frames carry it>
# a group chat's id or a person's userid (a person's chat with the robot is sent to by their userid)
WECOM = register_chat(
    "wecom",
    PREFIX,
    r"[0-9A-Za-z_@.-]{1,64}",
    team_form="wecom:<Bot ID>",
    channel_form="<chatid>, <userid>",
    person=r"[0-9A-Za-z_@.-]{1,64}",  # a userid
    person_form="<userid>",
)
