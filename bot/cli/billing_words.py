"""`gpu-advise billing 训练机 包月 provider=autodl`: chat's words for `billing NAME …` in the terminal. The
balance's own hint says `billing NAME provider=autodl`, and the terminal refused it ("'provider=autodl' is not a
billing basis"): each of chat's keys (price=, provider=, project=, owner=, gpu=, cards=, started=, and their
Chinese names) is the flag it stands for, a bare word the basis (hourly, 包月…) or whether a stop stops the meter
(stops, 关机不计费). A key given as its flag too is refused naming the flag; a word read as none of them is named
(alone, as no billing basis, as before)."""

from __future__ import annotations

from bot.cli.common import fail
from bot.cli.keyed_words import keyed_words
from bot.fields.metering import BILLING_KEYS, billing_of, reads, stop_billing_of
from bot.text import Lang, t


def billing_flags(words: list[str], lang: Lang, flags: dict[str, str | None]) -> str | None:
    """The basis among `words` (None where none is said); each key=value set in `flags` (in place, by field)."""
    bare = keyed_words(words, lang, flags, BILLING_KEYS, "billing", flags={"stop_billing": "--stop-billing"})
    stop = next((w for w in bare if not reads(billing_of, w, lang) and reads(stop_billing_of, w, lang)), None)
    if stop is not None and flags["stop_billing"] is None:  # `hourly stops`, `关机也计费`
        flags["stop_billing"] = stop
        bare.remove(stop)
    if len(bare) > 1:  # one basis: the other word read as nothing (one word alone is refused as no basis, after)
        left = next((w for w in bare if not reads(billing_of, w, lang)), bare[1])
        raise fail(t("cli.billing_word_left", lang, word=left[:40]))
    return bare[0] if bare else None
