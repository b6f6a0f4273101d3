"""Why no card could be read."""

from __future__ import annotations


class NoGPU(RuntimeError):
    """No reader could read a card: why, as a `code` the catalogue words (gpu.<code>) and its `params`, so the
    person is told in their language."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(f"{code}: {params}" if params else code)
        self.code, self.params = code, params
