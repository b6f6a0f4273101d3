"""The one error a capture reader raises: the line it is about, a code and its parameters; the sentence
is looked up in the user's language (`error.capture.<code>`)."""

from __future__ import annotations


class CaptureError(ValueError):
    def __init__(self, line: int, code: str, **params: object) -> None:
        super().__init__(f"line {line}: {code} {params}")
        self.line = line
        self.code = code
        self.params = params
