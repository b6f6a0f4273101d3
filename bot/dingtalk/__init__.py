"""DingTalk (钉钉): the chat port on DingTalk through its official SDKs: the Stream SDK's long connection
(dingtalk-stream) brings robot messages and card presses without a public address (stream.py), the OpenAPI SDK
(alibabacloud-dingtalk) sends and updates cards (openapi.py, chat.py). Its settings are its own (settings.py); the
runtime knows it by one line in bot/server/chat_setups.py. Only processes that talk to DingTalk import this
package's SDKs."""

from bot.chat.platforms import register_chat

PREFIX = "dingtalk:"  # an organisation in the state: dingtalk:<corpId>
DIRECT = "dm-"  # a person's chat with the robot, as a channel: dm-<userId>
# a group conversation's id (cid… in base64: letters, digits, +, / and =) or a person's chat with the robot
DINGTALK = register_chat(
    "dingtalk",
    PREFIX,
    r"(cid[0-9A-Za-z+/=]{1,120}|dm-[0-9A-Za-z_-]{1,64})",
    team_form="dingtalk:<corpId>",
    channel_form="cid…, dm-<userId>",
    person=r"[0-9A-Za-z_-]{1,64}",  # a userId, as dm- chats carry it
    person_form="<userId>",
)
