"""Storage as people type it in chat: a size (`500`, `500G`, `2T`, `1.5 TiB`) and a price per GB-month (`0.35`,
`0.35元/GB/月`, `¥0.35 per GB-month`, `100元/T/月`, and what it is per said first: `每GB每月0.3元`).

A T is 1,024 GB: the clouds size and bill disks in GiB (a "2T" data disk is 2,048 GiB in Alibaba's, Tencent's and
AutoDL's consoles), and this project counts storage in those units throughout (`size_gb`, `price_gb_month`).
The terminal's flags name their unit (`--size-gb`, `--price-gb-month`) and take a plain number."""

from __future__ import annotations

import re
import unicodedata

from rules.errors import ParseError
from rules.numbers import FIGURES_APART, money_value

SIZE_ACCEPTED = ["500", "500G", "500GB", "2T", "1.5TB"]
PRICE_ACCEPTED = ["0.35", "0.35元/GB/月", "0.35/GB/month", "100元/T/月", "三毛五一个G一个月"]
_PER_T = 1024.0
_SIZE = re.compile(r"(?P<n>-?\d+(?:\.\d+)?)(?P<unit>g|gb|gib|t|tb|tib)?")
_PRICE = re.compile(
    r"(?P<n>[^/每]+?)"  # the money: 0.35, 0.35元, 三毛五 (money_value says which are)
    r"(?:(?:/|每个?|per|a|an|一个?)(?P<unit>g|gb|gib|t|tb|tib))?"  # 三毛五一个G一个月, 0.35每个G每月
    r"(?:(?:/|每|per|-|a|an|一个?)?(?:月|month|mo))?"
)

_UNIT = r"gib|gb|g|tib|tb|t"  # the longest first: "gb0.3" is no g and "b0.3"
_PER_FIRST = re.compile(rf"(?:每个?(?P<u1>{_UNIT})每个?月|每个?月每个?(?P<u2>{_UNIT}))(?P<n>.+)")
_MONTH_FIRST = re.compile(r"(?:每个?月|一个?月|月租|包月)(?P<n>[^/每]+)")  # 每月500元: a month, said first
_MONTH_FIRST_PER = re.compile(rf"(?:每个?月|一个?月)(?P<n>[^/每]+?)(?:/|每个?)(?P<u>{_UNIT})")  # 每月0.7元/G
_WHOLE = re.compile(r"^(?:整盘|整块盘?|总价|总共|一共|合计|total|whole(?:disk)?)|(?:整盘|整块盘?|total)$")

# What a disk costs a GB-month, at the extremes of the clouds' list prices this project keeps (bot/discover/
# catalog.py: AWS sc1 0.015 USD; bot/discover/tencent.py: Tencent's enhanced SSD 1.50 CNY). A month's price said
# without "a GB" (`1T 每月500元`) is the whole disk's where a GB could not cost that much (more than twice the
# dearest) and the disk's GB-month is not below the cheapest; otherwise it is asked, not guessed.
_DEAREST_GB_MONTH = 1.5
_CHEAPEST_GB_MONTH = 0.01


def _said(text: str, field: str, accepted: list[str]) -> str:
    """The text without spaces: refused where they part two figures ("500 0.35" is no 5000.35)."""
    said = unicodedata.normalize("NFKC", text).strip().lower()
    if FIGURES_APART.search(said):
        raise ParseError(field, text, accepted)
    return re.sub(r"\s+", "", said).replace(",", "")


def parse_size_gb(text: str) -> float:
    """A size in GB: a plain number is GB; G/GB/GiB and T/TB/TiB (1,024 GB) may follow."""
    match = _SIZE.fullmatch(_said(text, "size", SIZE_ACCEPTED))
    if match is None:
        raise ParseError("size", text, SIZE_ACCEPTED)
    value = float(match.group("n")) * (_PER_T if (match.group("unit") or "g").startswith("t") else 1.0)
    if not 0 < value < 1e9:
        raise ParseError("size", text, SIZE_ACCEPTED, "not_positive")
    return value


def parse_price_gb_month(text: str, size_gb: float | None = None) -> float:
    """A storage price per GB-month: a plain amount is per GB-month; 元/¥ and "/GB/月" may be said, and a price per T
    is divided into GB. A month's price without "a GB" ("500/月", "每月500元") is the whole disk's, given its size
    (`size_gb`), where said so (整盘每月2元, total 2/month) or no GB costs that much (above); else it is refused
    asking, not guessed (500 GB at 350 a GB is 175,000 a month; 2 a month is a GB's dear disk or a 100 GB disk's
    cheap one)."""
    said = _said(text, "price", PRICE_ACCEPTED).lstrip("¥$").replace("cny", "").replace("rmb", "").replace("usd", "")
    said = said.replace("·", "/").replace("・", "/")  # 0.7元/GB·月, as consoles write it
    said, whole = _WHOLE.sub("", said).lstrip("¥$"), bool(_WHOLE.search(said))  # 整盘每月2元: the disk's, said so
    if leading := _PER_FIRST.fullmatch(said):  # 每GB每月0.3元, 每月每G 0.3: what it is per said first
        said = f"{leading['n'].lstrip('¥$')}/{leading['u1'] or leading['u2']}/月"
    elif leading := _MONTH_FIRST_PER.fullmatch(said):  # 每月0.7元/G: the month first, a GB after the amount
        said = f"{leading['n'].lstrip('¥$')}/{leading['u']}/月"
    elif leading := _MONTH_FIRST.fullmatch(said):
        said = f"{leading['n'].lstrip('¥$')}/月"
    match = _PRICE.fullmatch(said.removeprefix("-"))
    amount = money_value(match.group("n")) if match else None
    if amount is not None and said.startswith("-"):
        amount = -amount
    if match is None or amount is None:
        raise ParseError("price", text, PRICE_ACCEPTED)
    if not 0 < amount < 1e9:
        raise ParseError("price", text, PRICE_ACCEPTED, "not_positive")
    if whole and size_gb and match.group("unit") is None:
        return amount / size_gb
    if (match.group("unit") is None and match.group(0) != match.group("n")) or whole:  # "350/月": whose month?
        if size_gb and amount > 2 * _DEAREST_GB_MONTH and amount / size_gb >= _CHEAPEST_GB_MONTH:
            return amount / size_gb
        raise ParseError("price", text, PRICE_ACCEPTED, "storage_price_per_gb")
    return amount / (_PER_T if (match.group("unit") or "g").startswith("t") else 1.0)
