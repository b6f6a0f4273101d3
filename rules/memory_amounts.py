"""A memory answer stated as an amount (rules/quantity.py): a peak with its bound or approximation ("七十多G",
"不到64G", "more than 64GB"), on a card the answer names ("峰值七十多G，卡是80G的", "80G的卡只用了40G",
"seventy-something gigs on an 80G card"), or a part of the card ("80G的卡用了六成", "超过80%", "差不多占满80G").

The interval is judged against the tight line (80% of the card named, else of the default card): wholly above it
is tight, wholly at or below it is not, and one that straddles it is refused naming the line."""

from __future__ import annotations

from rules.errors import ParseError
from rules.patterns import lazy
from rules.profile import MemoryAnswer
from rules.quantity import NUM, Amount, number, read_amount

GB = r"gb|gib|g|gigs?|gigabytes?"
_CARD = lazy(
    rf"(?:^|[\s,;])(?:on|of|in|out of)?\s*(?:an?|the)?\s*(?P<a>{NUM})\s*(?:{GB})?\s*的?\s*(?:卡|card|gpu)(?:上|里|中)?"
    rf"|[\s,;]*(?:卡是|卡有|显卡是|the card (?:is|has)|card is)\s*(?P<b>{NUM})\s*(?:{GB})?\s*的?(?:卡)?"
)
_LEAD = lazy(
    r"^(?:显存|峰值|显存峰值|峰值显存|最高|高峰|peak(?:s| is| of| at)?|memory|it uses|uses|using|maybe)?\s*"
    r"(?:大概|大约|能到|会到|到|是|有|at)?\s*(?:只|就|才|only|just)?\s*(?:用了?|占了?|吃了?|used?)?\s*"
)
_TAIL = lazy(r"\s*(?:显存|的显存|的样子|吧|of memory|of vram|vram|memory|at peak|used|用)?$")
_SHARE = lazy(rf"^(?P<n>{NUM})\s*(?:成|%)$")
_HALF = {"一半": 0.5, "half": 0.5, "half of it": 0.5, "半": 0.5}
_FULL = lazy(r"^(?:快|几乎|基本)?(?:占满|用满|吃满|满了?)$|^(?:almost |nearly )?(?:full|maxed out)$")
_FILLS = lazy(
    rf"^(?:快|几乎|基本)?(?:占满|用满|吃满|fills?|filling)\s*(?:了|up)?\s*(?:an?|the)?\s*(?P<n>{NUM})\s*(?:{GB})?"
    r"\s*的?(?:卡|card)?$"
)
_ONLY_OF = lazy(rf"^(?:only |just )?(?P<peak>{NUM})\s*(?:{GB})?\s*(?:of|out of|/)\s*(?P<card>{NUM})\s*(?:{GB})?$")


def _card(norm: str) -> tuple[float | None, str]:
    """The card's memory the answer names, and the answer without it."""
    match = _CARD.search(norm)
    if match is None:
        return None, norm
    card = number(match.group("a") or match.group("b"))
    rest = (norm[: match.start()] + " " + norm[match.end() :]).strip(" ,;")
    return card, rest


def _strip(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _TAIL.sub("", _LEAD.sub("", text).strip(" ,;")).strip(" ,;")
    return text


def read_memory_amount(question: str, text: str, norm: str, accepted: list[str]) -> MemoryAnswer | None:
    """The memory answer `norm` states as an amount; None when it is not one (the other forms are tried then)."""
    fills = _FILLS.match(norm)
    if fills:  # "差不多占满80G": the whole of that card
        return MemoryAnswer(peak_gb=number(fills["n"]), card_gb=number(fills["n"]))
    card, rest = _card(norm)
    said = _strip(rest)
    if card is not None and (_FULL.match(said) or not said):
        return MemoryAnswer(peak_gb=card, card_gb=card) if _FULL.match(said) else None  # "差不多占满80G"
    only = _ONLY_OF.match(said)
    if only:  # "only 40 of 80"
        peak = number(only["peak"])
        return _judged(question, text, Amount(peak, peak), number(only["card"]), accepted)
    share = _share(said)
    if share is not None:
        if card is not None and share.exact is not None:  # "80G的卡用了六成": the peak in GB of that card
            return MemoryAnswer(peak_gb=round(share.exact * card, 2), card_gb=card)
        return _share_answer(question, text, share, accepted)
    read = read_amount(said, GB)
    if read is None:
        return None
    amount, unit = read
    if unit is None and card is None:
        return None  # a bare number is not a peak in GB (the question's own "bare_number" problem says so)
    return _judged(question, text, amount, card, accepted)


def _share(said: str) -> Amount | None:
    if said in _HALF:
        return Amount(0.5, 0.5)
    read = read_amount(said, r"成|%")
    if read is None or read[1] is None:
        return None
    amount, unit = read
    return amount.scaled(0.1 if unit == "成" else 0.01)


def _share_answer(question: str, text: str, share: Amount, accepted: list[str]) -> MemoryAnswer:
    from rules.parsing import TIGHT_LINE

    if share.planned <= 0 or share.planned > 10:
        raise ParseError(question, text, accepted, "percent_not_positive")
    if share.exact is not None:
        return MemoryAnswer(fraction=share.exact)
    line = round(TIGHT_LINE * 100)
    if share.side(TIGHT_LINE) is None:
        raise ParseError(question, text, accepted, "ambiguous_bound", {"said": text.strip(), "line": f"{line}%"})
    if share.above_only:
        return MemoryAnswer(fraction=share.low, bound="above")
    return MemoryAnswer(fraction=share.planned, bound="below" if share.below_only else None)  # a range: its upper end


def _judged(question: str, text: str, amount: Amount, card: float | None, accepted: list[str]) -> MemoryAnswer:
    """The peak interval against the tight line of the card named, else of the default card."""
    from rules.gpus import DEFAULT_GPU, gpu_model
    from rules.parsing import TIGHT_LINE

    if amount.planned <= 0 or amount.planned > 4096 or (card is not None and not 0 < card <= 4096):
        raise ParseError(question, text, accepted, "peak_not_positive")
    if amount.exact is not None:
        return MemoryAnswer(peak_gb=amount.exact, card_gb=card)
    card_gb = card or gpu_model(DEFAULT_GPU).memory_gb
    line = round(TIGHT_LINE * card_gb, 2)
    if amount.side(line) is None:
        gpu = f"{card:g} GB" if card else gpu_model(DEFAULT_GPU).name
        params: dict[str, str | float] = {"said": text.strip(), "line": f"{line:g} GB", "gpu": gpu}
        params["pct"] = round(TIGHT_LINE * 100)
        raise ParseError(question, text, accepted, "ambiguous_memory_bound", params)
    if amount.above_only:
        return MemoryAnswer(peak_gb=amount.low, card_gb=card, bound="above")
    low = amount.low if amount.low else None
    return MemoryAnswer(peak_gb=amount.planned, card_gb=card, low_gb=low, bound="below" if low is None else None)


def tight_on(answer: MemoryAnswer, gpu: str | None) -> bool | None:
    """How the tight rule reads a stated peak or share on the card named (else the answer's own card, else the
    default one): the same comparison rules/memory.memory_need makes. None when the answer has no figure."""
    from rules.gpus import DEFAULT_GPU, gpu_model
    from rules.parsing import TIGHT_LINE

    card_gb = answer.card_gb or gpu_model(gpu or DEFAULT_GPU).memory_gb
    figure = answer.peak_gb if answer.peak_gb is not None else None
    if figure is None and answer.fraction is not None:
        figure = answer.fraction * card_gb
    if figure is None:
        return None
    share = figure / card_gb
    return share > TIGHT_LINE or (answer.bound == "above" and share >= TIGHT_LINE)
