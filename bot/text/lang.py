"""The languages the product speaks."""

from __future__ import annotations

from enum import StrEnum


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"

    @classmethod
    def named_or(cls, code: str | None, default: Lang) -> Lang:
        """The language a channel's schedule names (zh or en; none: `default`, the team's GPU_ADVISOR_LANG)."""
        return cls(code) if code else default
