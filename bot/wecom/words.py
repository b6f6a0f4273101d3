"""WeCom's words: what the catalogue says Slack's way in WeCom's (a workspace is an organisation, 企业; a channel is
a group chat, 群聊; `/gpu-advise …` is typed to the robot as it is; a robot's chat has no threads), by whole
phrases, and the lines only WeCom says (its help, in both languages)."""

from __future__ import annotations

from bot.text import Lang
from bot.text.rewording import rewording
from bot.text.robot_lines import RobotWords, fetch_words

_PHRASES = (
    ("a few questions in this thread", "a few questions here"),
    ("replied in your profile thread", "replied while your profile is open"),
    ("Reply in this thread", "Reply here"),
    ("reply in this thread", "reply here"),
    ("into this thread", "here"),
    ("在本帖", "在这里"),
    ("a workspace admin", "an admin of the organisation"),
    ("workspace admins", "admins of the organisation"),
    ("across the workspace", "across the organisation"),
    ("people of this workspace", "people of this organisation"),
    ("in this workspace", "in this organisation"),
    ("in the workspace", "in the organisation"),
    ("this workspace", "this organisation"),
    ("This channel", "This group chat"),
    ("this channel", "this group chat"),
    ("工作区管理员", "企业管理员"),
    ("本工作区", "本企业"),
    ("整个工作区", "整个企业"),
    ("工作区内", "企业内"),
    ("本频道", "本群"),
    ("此频道", "此群"),
)
said_in_wecom = rewording(_PHRASES)

_HELP = {
    Lang.ZH: (
        "在单聊里直接发给我，或在群聊里 @我 后输入：\n"
        "`advise`（或什么都不输入）：回答五个问题，得到独享、共享或抢占式的建议和费用\n"
        "`10h mem=70/80 mp=no freq=daily resume=no`：一次答完\n"
        "`quote …`、`prices …`、`track …`、`list`、`release 名称`、`delete-storage 名称`、`rename 旧名 新名`、"
        "`budget`、`balance`、"
        "`power 名称 on|off [at=23:30]`、`billing 名称 …`、`report`、`remind at 09:30 Asia/Shanghai`、`board`、"
        "`enroll`、`act …`、`actions [名称]`（停机记录）、"
        "`stop 名称 [at=21:00|闲下来|cancel]`（现在、定时或闲下来就停机，取消）、"
        "`idle [mine|all]`（当前闲置；mine：你负责的，all：全团队）、"
        "`analyze`（之后发来采样文件）、`form`、"
        "`help`（或 `帮助`：本说明；`help en` 为英文；`help 共享|抢占式|切片`：各是什么）\n"
        "子命令也可以用中文：{chinese}\n"
        "也可以直接问：`谁的机器闲着`、`A100和H100哪个划算`、`8张H100跑一周多少钱`、`llm的预算是2万`、`训练机 关机了`、"
        "`7B LoRA 需要什么卡`、`哪个项目花钱最多`、`本月花了多少钱`\n"
        "卡片上的按钮可以直接作答（企业微信一张卡片最多 6 个按钮，其余请输入文字）；群聊里回复请先 @我。\n"
        "在终端里，本机器人写作 `--team {team}`，本会话写作 `--channel {channel}`。"
    ),
    Lang.EN: (
        "Write to me directly, or @mention me in a group chat, then type:\n"
        "`advise` (or nothing): five questions, then a dedicated, shared or spot recommendation with its costs\n"
        "`10h mem=70/80 mp=no freq=daily resume=no`: every answer at once\n"
        "`quote …`, `prices …`, `track …`, `list`, `release NAME`, `delete-storage NAME`, `rename OLD NEW`, "
        "`budget`, `balance`, "
        "`power NAME on|off [at=23:30]`, `billing NAME …`, `report`, `remind at 09:30 Asia/Shanghai`, `board`, "
        "`enroll`, `act …`, `actions [NAME]` (what was stopped), "
        "`stop NAME [at=21:00|once idle|cancel]` (now, at a time or once idle), "
        "`idle [mine|all]` (what is idle now; yours, or the team's), "
        "`analyze` (then send a capture file), `form`, "
        "`help` (or `帮助`: this; `help zh` in Chinese; `help shared|spot|slicing`: what each is)\n"
        "Each sub-command also takes its Chinese name: {chinese}\n"
        "Or ask in words: `what's idle`, `A100 vs H100`, `how much would 8 H100s cost for a week`, "
        "`budget for llm is 20000`, `box1 is off`, `how much memory for a 7B LoRA`, `which project spends the most`, "
        "`how much did we spend this month`\n"
        "Press a card's buttons (WeCom shows at most 6 a card: type the others), or reply in words (in a group "
        "chat, @mention me).\n"
        "In the terminal this robot is `--team {team}` and this conversation `--channel {channel}`."
    ),
}
_LINES = {
    "this_chat": {Lang.ZH: "本会话", Lang.EN: "this conversation"},
    "reply_mention": {
        Lang.ZH: "直接回复文字作答；在群聊里请先 @我。",
        Lang.EN: "Reply in words to answer; in a group chat, @mention me first.",
    },
    "form": {
        Lang.ZH: "企业微信卡片没有表单：请一次输入全部回答，例如 `10h mem=70/80 mp=no freq=daily resume=no`。",
        Lang.EN: "WeCom cards have no forms: type every answer at once, e.g. "
        "`10h mem=70/80 mp=no freq=daily resume=no`.",
    },
    "refused": {
        Lang.ZH: "企业微信没有接受机器人的长连接订阅（{url}：{reason}）。请检查 GPU_ADVISOR_WECOM_BOT_ID 和 "
        "GPU_ADVISOR_WECOM_BOT_SECRET（企业微信管理后台，智能机器人，API 模式，长连接）。",
        Lang.EN: "WeCom did not take the robot's subscription ({url}: {reason}). Check GPU_ADVISOR_WECOM_BOT_ID and "
        "GPU_ADVISOR_WECOM_BOT_SECRET (the WeCom admin console, the intelligent robot's API mode, long connection).",
    },
    "half_set": {
        Lang.ZH: "企业微信需要同时设置 GPU_ADVISOR_WECOM_BOT_ID 和 GPU_ADVISOR_WECOM_BOT_SECRET"
        "（企业微信管理后台，智能机器人，API 模式，长连接）。",
        Lang.EN: "WeCom needs both GPU_ADVISOR_WECOM_BOT_ID and GPU_ADVISOR_WECOM_BOT_SECRET (the WeCom admin "
        "console, the intelligent robot's API mode, long connection).",
    },
}


_WORDS = RobotWords(_HELP, _LINES)
help_text, line = _WORDS.help_text, _WORDS.line  # its own, else what every robot says alike


capture_fetch = fetch_words({Lang.ZH: "企业微信", Lang.EN: "WeCom"})  # why a capture sent here could not be fetched
