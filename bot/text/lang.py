"""The languages the product speaks."""

from __future__ import annotations

from enum import StrEnum


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"

    @classmethod
    def named(cls, said: str) -> Lang | None:
        """The language a person names: its code (zh, en) or its name in either (中文, Chinese, 英文, English)."""
        return NAMES.get(said.strip().lower())

    @classmethod
    def named_or(cls, code: str | None, default: Lang) -> Lang:
        """The language a channel's schedule names (zh or en; none: `default`, the team's GPU_ADVISOR_LANG)."""
        return cls(code) if code else default


NAMES = {"zh": Lang.ZH, "中文": Lang.ZH, "汉语": Lang.ZH, "chinese": Lang.ZH, "cn": Lang.ZH,
         "en": Lang.EN, "英文": Lang.EN, "英语": Lang.EN, "english": Lang.EN}  # fmt: skip
