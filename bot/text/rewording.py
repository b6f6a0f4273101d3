"""A chat's own words for what the catalogue says Slack's way: its phrases put for Slack's, whole phrases only
(item and project names are letters, digits, ".", "-" and "_", so no name is ever changed), and each
`/gpu-advise …` command as it is typed to a bot that takes the words alone (`/gpu-advise` alone is `advise`)."""

from __future__ import annotations

import re
from collections.abc import Callable


def rewording(phrases: tuple[tuple[str, str], ...]) -> Callable[[str], str]:
    """What says a text in these words; `phrases` (Slack's, the chat's) longest first where one holds another."""
    pattern = re.compile("|".join(re.escape(old) for old, _ in phrases))
    new = dict(phrases)

    def said(text: str) -> str:
        text = text.replace("`/gpu-advise ", "`").replace("`/gpu-advise`", "`advise`")
        return pattern.sub(lambda found: new[found.group(0)], text)

    return said
