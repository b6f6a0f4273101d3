"""Who said a stretch of an instance's power, in the reader's words (`登记时`, `its agent`, `aliyun scan`): chat's
`power NAME` and the terminal's say it alike."""

from __future__ import annotations

from bot.text import Lang, t

SOURCES = ("", "track", "person", "agent", "bot")  # who says a stretch, besides a cloud's scan (aws, aliyun, k8s)


def source_said(source: str | None, lang: Lang) -> str:
    if (source or "") in SOURCES:
        return t(f"meter.source.{source or 'none'}", lang)
    return t("meter.source.scan", lang, cloud=source)
