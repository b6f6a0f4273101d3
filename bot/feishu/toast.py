"""What a card press is answered with: a toast Feishu shows to the presser alone (within its 3 seconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Toast:
    """A catalogue key, its kind and its figures."""

    key: str
    kind: str = "success"  # success, info, warning, error
    params: tuple[tuple[str, str], ...] = ()
