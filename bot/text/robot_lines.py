"""The lines every chat robot without threads says alike, for the chats whose sentences live in their folders
(DingTalk, WeCom): what it reads, how a capture is sent, where its help is, and why a capture sent could not be
fetched (with the chat's name in each language, as the catalogue's <chat>.capture_fetch.* are for Slack and
Feishu)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.text.chinese_names import chinese_names
from bot.text.lang import Lang

LINES = {
    "no_profile": {
        Lang.ZH: "要分析采样文件，请先输入 `analyze`，再把文件发给我。",
        Lang.EN: "To read a capture, type `analyze` first, then send me the file.",
    },
    "unread": {
        Lang.ZH: "我只读文字和采样文件（CSV 或文本）：图片和语音请改用文字，输入 `help` 查看用法。",
        Lang.EN: "I read typed words and capture files (CSV or text): say it in words instead of a picture or "
        "voice, or type `help`.",
    },
    "track_form": {
        Lang.ZH: "卡片没有表单：请输入下面这行登记租用的实例（换上它的名称、GPU 型号和价格）：",
        Lang.EN: "Cards here take no form: type this line to track what you rented (with its name, GPU and price):",
    },
    "see_help": {Lang.ZH: "输入 `help` 查看用法。", Lang.EN: "Type `help` to see what I take."},
}

_SAID = {
    "gone": {
        Lang.ZH: "发送的文件已不在{chat}中（在读取前被撤回或已过期）：请重新发送。",
        Lang.EN: "The file sent is gone from {chat} (recalled or expired before I could read it): send it again.",
    },
    "too_large": {
        Lang.ZH: "`{name}` 超过 {limit_mib} MiB，超出下载上限（管理员可调整 GPU_ADVISOR_CAPTURE_MAX_BYTES）；"
        "请每 5 秒采样、共 20 分钟，或截短文件。",
        Lang.EN: "`{name}` is larger than {limit_mib} MiB, the most I download (an admin sets "
        "GPU_ADVISOR_CAPTURE_MAX_BYTES); capture every 5 s for 20 minutes, or cut the file.",
    },
    "http": {
        Lang.ZH: "无法从{chat}下载 `{name}`（{status}）；请稍后重新发送。",
        Lang.EN: "Could not download `{name}` from {chat} ({status}); send it again in a minute.",
    },
    "timeout": {
        Lang.ZH: "从{chat}下载 `{name}` 超过 {seconds} 秒，已停止；请重新发送，或只发送其中一段。",
        Lang.EN: "Downloading `{name}` from {chat} took longer than {seconds} s, so it was stopped; send it again, "
        "or a smaller part of it.",
    },
}


def fetch_words(names: dict[Lang, str]) -> Callable[[str, Lang, dict[str, object]], str]:
    """The sentences (bot/app/capture.py's SentFile.says) of a chat named `names` in each language."""

    def said(code: str, lang: Lang, params: dict[str, object]) -> str:
        fields = {"status": code, "seconds": "", "limit_mib": "", "name": ""} | params | {"chat": names[lang]}
        return _SAID.get(code, _SAID["http"])[lang].format_map(fields)

    return said


@dataclass(frozen=True)
class RobotWords:
    """A threadless chat's own sentences: its help (formatted with the team and the conversation) and its lines,
    each falling back on what every robot says alike (LINES)."""

    help: Mapping[Lang, str]
    lines: Mapping[str, Mapping[Lang, str]]

    def help_text(self, lang: Lang, team: str, channel: str) -> str:
        return self.help[lang].format(team=team, channel=channel, chinese=chinese_names())

    def line(self, key: str, lang: Lang) -> str:
        return (self.lines.get(key) or LINES[key])[lang]
