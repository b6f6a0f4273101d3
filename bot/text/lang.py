"""The languages the product speaks."""

from __future__ import annotations

from enum import StrEnum


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"
