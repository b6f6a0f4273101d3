"""A memory answer stated as a figure (rules/quantity.py): a peak, with its bound or approximation ("70GB", "七十多G",
"不到64G", "more than 64GB", "30-40 GB"), on a card the answer names in either order ("70 GB of 80", "70/80",
"80G的卡只用了40G", "峰值七十多G，卡是80G的", "七十多G/80G", "70多G，卡80G", "seventy-something gigs on an 80G
card"), or a part of the card ("85%", "一半", "most of the card", "80G的卡用了六成", "超过80%", "差不多占满80G").

An interval is judged against the tight line (80% of the card named, else of the default card): wholly above it
is tight, wholly at or below it is not, and one that straddles it is refused naming the line."""

from __future__ import annotations

from rules.errors import ParseError
from rules.patterns import lazy
from rules.profile import MemoryAnswer
from rules.quantity import NUM, Amount, number, read_amount

TIGHT_LINE = 0.8  # the bundled policy's memory_tight_fraction: where a stated interval must not straddle
GB = r"gb|gib|g|gigs?|gigabytes?"
_CARD = lazy(
    rf"(?:^|[\s,;])(?:on|of|in|out of)?\s*(?:an?|the)?\s*(?P<a>{NUM})\s*(?:{GB})?\s*的?\s*(?:卡|card|gpu)(?:上|里|中)?"
    rf"|[\s,;]*(?:卡是|卡有|显卡是|卡|the card (?:is|has)|card is)\s*(?P<b>{NUM})\s*(?:{GB})?\s*的?(?:卡)?"
    # the card's memory first, then what was used of it, no card word: "80G用了70G", "80G显存只用了40G"
    rf"|^(?P<c>{NUM})\s*(?:{GB})\s*的?\s*(?:显存|显卡)?(?=\s*(?:只|就|才)?(?:用了|占了|吃了|用到|跑到|跑了))"
)
_LEAD = lazy(
    r"^(?:(?:显存|显存峰值|峰值显存|峰值|最高|高峰)\s*(?:能到|到|会到|用了?|占了?|是|有)?"
    r"|(?:只|就|才)?(?:用到了?|跑到了?|用了?|占了?|吃了?|占用(?:了|在|是)?)|(?:在|是)(?=\s*\d)"  # 显存占用在60%
    r"|(?:应该|估计|感觉|好像|预计)|(?:需要|要用|要|得|会用到|会到)"  # "应该要70G", "估计要用70多G": a guess
    r"|(?:刚好|正好|恰好)"  # "刚好80G": that much
    r"|(?:peak(?:s| is| of| at)?|peaks? at|it uses|uses|(?:we |i )?use|(?:we're |we are )?using|maybe|only|just"
    r"|it peaks at|memory peak(?: is)?)"
    r")\s*"
)
_TAIL = lazy(
    r"\s*(?:显存|的显存|的样子|吧|of memory|of vram|vram|memory|at peak|used|用"
    r"|就够了?|就够用了?|就行|足够了?|is enough"  # "40G就够": 40 GB
    r"|of (?:the|a|one|each) (?:card|gpu)|of it|的卡|of (?:the )?(?:card|gpu)'?s memory)$"  # "60% of the card": 60%
)
_OF = lazy(
    rf"^(?P<peak>{NUM})\s*(?:{GB})?\s*(?:/|of(?: the)?|out of(?: the)?|of an?|in|共|中的|,)"
    rf"\s*(?P<card>{NUM})\s*(?:{GB})?$"
)
# a peak said with its bound or approximation, then the card: "七十多G/80G", "70多G of 80", "不到64G/80G"
_SAID_OF = lazy(rf"^(?P<peak>.+?)\s*(?:/|of|out of|of an?|共|中的)\s*(?P<card>{NUM})\s*(?:{GB})?$")
_FILLS = lazy(
    rf"^(?:快|几乎|基本)?(?:占满|用满|吃满|fills?|filling)\s*(?:了|up)?\s*(?:an?|the)?\s*(?P<n>{NUM})\s*(?:{GB})?"
    r"\s*的?(?:卡|card)?$"
)
_PARTS = {"一半": 0.5, "半张卡": 0.5, "半卡": 0.5, "half": 0.5, "half the card": 0.5, "half of the card": 0.5,
          "half of it": 0.5, "大半": 0.75, "大部分": 0.75, "most of the card": 0.75, "most of it": 0.75,
          "most": 0.75, "a quarter": 0.25, "quarter": 0.25, "四分之一": 0.25,
          # the greater or lesser part, as said aloud (the text comes with its numerals as digits: 一小半 is 1小半,
          # never matched before): most of it, a bit more than half, a bit under half, a smaller part
          "1大半": 0.75, "多一半": 0.6, "1多半": 0.6, "小一半": 0.45, "1小半": 0.3, "3 quarters": 0.75}  # fmt: skip


_SMALLEST_CARD_GB = 16  # the catalogue's smallest card: "3/4" of a 4 GB card is three quarters of one

_PARTS_LONGEST = sorted(_PARTS, key=len, reverse=True)  # "大半" before "半"...: the longest part word a text ends with


def _card(norm: str) -> tuple[float | None, str]:
    """The card's memory the answer names, and the answer without it."""
    match = _CARD.search(norm)
    if match is None:
        return None, norm
    card = number(match.group("a") or match.group("b") or match.group("c"))
    return card, (norm[: match.start()] + " " + norm[match.end() :]).strip(" ,;")


_PER_CARD = lazy(
    r"^(?:每张卡|每张|每卡|单卡|each card|per card|per gpu)\s*(?:都|大概|大约)?\s*(?:用了?|占了?|要|是)?\s*"
)


def stripped(norm: str) -> str:
    """The answer without the words around its figure: "显存用了65个g" -> "65个g", "peak 70 gigs" -> "70 gigs"."""
    previous = None
    while previous != norm:
        previous = norm
        norm = _TAIL.sub("", _LEAD.sub("", norm).strip(" ,;")).strip(" ,;")
    return norm


def read_memory_amount(question: str, text: str, norm: str, accepted: list[str]) -> MemoryAnswer | None:
    """The memory answer `norm` states as a figure; None when it is not one (a model, a yes or no)."""
    norm = _PER_CARD.sub("", norm)  # 每张卡72G左右: a card's peak, not a card of 72 GB
    fills = _FILLS.match(norm)
    if fills:  # "差不多占满80G": the whole of that card
        return MemoryAnswer(peak_gb=number(fills["n"]), card_gb=number(fills["n"]))
    card, rest = _card(norm)
    said = stripped(rest)
    of = _OF.match(said)
    # "3/4": no card holds 4 GB, so three quarters of the card (it was a 3 GB peak of a 4 GB card)
    part = of is not None and 0 < number(of["card"]) < _SMALLEST_CARD_GB and number(of["peak"]) <= number(of["card"])
    if of and part:
        said = f"{number(of['peak']) / number(of['card']) * 100:g}%"
    elif of:  # "70 GB of 80", "70/80", "only 40 of 80"
        card = number(of["card"])
        said = of["peak"] + "gb"
    elif (approx := _SAID_OF.match(said)) and (read_amount(approx["peak"], GB) or _share(approx["peak"])):
        card, said = number(approx["card"]), approx["peak"]  # "七十多G/80G", "6成/80G"
    share = _share(said) or _share(said.replace(" ", ""))
    if share is not None:
        if card is not None and share.exact is not None:  # "80G的卡用了六成": the peak in GB of that card
            return MemoryAnswer(peak_gb=round(share.exact * card, 2), card_gb=card)
        return _share_answer(question, text, share, accepted)
    read = read_amount(said, GB)
    if read is None or (read[1] is None and card is None):
        return None  # a bare number is not a peak in GB (the question's own "bare_number" problem says so)
    return _judged(question, text, read[0].at_most_is_the_peak(), card, accepted)  # "最多70G": a peak of 70


def _share(said: str) -> Amount | None:
    if said in _PARTS:
        return Amount(_PARTS[said], _PARTS[said])
    part = next((word for word in _PARTS_LONGEST if said.endswith(word) and said != word), None)
    if part is not None:  # "不到一半", "超过一半", "more than half": the part as its percentage, the bound kept
        said = f"{said.removesuffix(part)} {_PARTS[part] * 100:g}%".strip()
    read = read_amount(said, r"成|%")
    if read is None or read[1] is None:
        return None
    return read[0].scaled(0.1 if read[1] == "成" else 0.01)


def _share_answer(question: str, text: str, share: Amount, accepted: list[str]) -> MemoryAnswer:
    if not 0 < share.planned <= 10:
        problem = "percent_not_positive" if share.planned <= 0 else "percent_too_large"
        raise ParseError(question, text, accepted, problem)
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

    if card is not None and card > 4096:
        raise ParseError(question, text, accepted, "card_too_large")
    if amount.planned <= 0 or (card is not None and card <= 0):
        raise ParseError(question, text, accepted, "memory_not_positive" if card else "peak_not_positive")
    if amount.planned > 4096:  # per card: more than any card holds
        raise ParseError(question, text, accepted, "peak_too_large")
    if amount.exact is not None:
        return MemoryAnswer(peak_gb=amount.exact, card_gb=card)
    gpu = f"{card:g} GB" if card else gpu_model(DEFAULT_GPU).name
    line = round(TIGHT_LINE * (card or gpu_model(DEFAULT_GPU).memory_gb), 2)
    if amount.side(line) is None:
        params: dict[str, str | float] = {"said": text.strip(), "line": f"{line:g} GB", "gpu": gpu}
        if amount.low is not None and amount.high is not None and not amount.low_open:  # "60-70 GB": a range
            params |= {"low": amount.low, "high": amount.high, "line": line, "card": f"{card:g}" if card else ""}
            problem = "ambiguous_card_range" if card else "ambiguous_range"  # the card said, or the default assumed
            raise ParseError(question, text, accepted, problem, params)
        params["pct"] = round(TIGHT_LINE * 100)
        raise ParseError(question, text, accepted, "ambiguous_memory_bound", params)
    if amount.above_only:
        return MemoryAnswer(peak_gb=amount.low, card_gb=card, bound="above")
    if amount.below_only:
        return MemoryAnswer(peak_gb=amount.planned, card_gb=card, bound="below")
    low = amount.low if amount.low_open else None  # "七十多G": 70-80; a range ("30-40 GB") reads as its upper end
    return MemoryAnswer(peak_gb=amount.planned, card_gb=card, low_gb=low)


def tight_on(answer: MemoryAnswer, gpu: str | None) -> bool | None:
    """How the tight rule reads a stated peak or share on the card named (else the answer's own card, else the
    default one): the same comparison rules/memory.memory_need makes. None when the answer has no figure."""
    from rules.gpus import DEFAULT_GPU, gpu_model

    card_gb = answer.card_gb or gpu_model(gpu or DEFAULT_GPU).memory_gb
    figure = answer.peak_gb
    if figure is None and answer.fraction is not None:
        figure = answer.fraction * card_gb
    if figure is None:
        return None
    from rules.memory import over_line

    return over_line(figure / card_gb, TIGHT_LINE, answer.bound)
