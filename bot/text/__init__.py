"""The text catalogue (zh and en, keyed by id) and the helpers that build sentences from it."""

from bot.text.catalogue import t
from bot.text.lang import Lang

__all__ = ["Lang", "t"]
