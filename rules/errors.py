"""Errors raised by the decision logic.

RulesError
├── ParseError    a typed answer that none of a question's accepted forms matches
├── PolicyError   a policy file that is missing, not YAML, or fails validation
└── UnknownGPU    a GPU name that the catalogue does not know
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error this package raises on bad input."""


class ParseError(RulesError, ValueError):
    """An answer could not be read. `accepted` lists the forms the question takes.

    `problem` is a code (`duration_over_a_year`, `bare_number`, ...; None: not understood) that the
    bot's text catalogue turns into a sentence in the user's language (`parse.problem.<code>`), filled
    with `params` (an ambiguous answer's reading and the nearest accepted answer: "did you mean 10 h?")."""

    def __init__(
        self,
        question: str,
        text: str,
        accepted: list[str],
        problem: str | None = None,
        params: dict[str, str | float] | None = None,
    ) -> None:
        self.question = question
        self.text = text
        self.accepted = accepted
        self.problem = problem
        self.params = params or {}  # what the problem's sentence names: what was understood, the nearest answer
        shown = text if len(text) <= 60 else text[:57] + "..."
        why = problem or "not_understood"
        super().__init__(f"{question}: {shown!r}: {why}. Accepted: {', '.join(accepted)}")


# the problems of an answer to a question that needs one more word (`H800或者A800` on the GPU question: which one?):
# the question asks it back, rather than the words being read as another question's answer or a question of their own
NEEDS_ONE_MORE_WORD = frozenset(
    ("which_gpu", "which_finetune", "which_training", "which_model_job", "which_parallel", "ambiguous_bound",
     "ambiguous_overnight", "irregular")
)  # fmt: skip


class PolicyError(RulesError):
    """A policy file could not be used. The message names the file, the field and the problem."""


class UnknownGPU(RulesError, ValueError):
    """A GPU model name not in the catalogue; the message lists the known models."""

    def __init__(self, name: str, known: list[str], *, maker: bool = False) -> None:
        self.name = name
        self.known = known
        self.maker = maker  # the name is a maker's ("海光", "Ascend"): `known` are that maker's models, one to pick
        super().__init__(f"unknown GPU model {name!r}. Known models: {', '.join(known)}")
