"""The GPU catalogue: canonical model names, memory, MIG profiles, and the alias table.

MIG profiles are NVIDIA's published ones (domain.md, "Facts from public documentation").
A model with `mig=()` does not support MIG: it can only be shared by time-slicing or vGPU.

Domestic accelerators (seed 004, 坑四: rising on Chinese platforms, compatibility to be checked) carry
the software stack CUDA code must be ported to. Memory from the vendors' published specifications:
Huawei Ascend 910B, 64 GB HBM2e (Ascend product documentation); Cambricon MLU370-X8, 48 GB LPDDR5
(Cambricon's MLU370-X8 product page); Hygon DCU Z100, 32 GB HBM2 (Hygon's DCU product page). The ones rented
today on Chinese platforms (issue 32, from the platforms' own listings): Ascend 910B2 and 910B3, 64 GB (AutoDL's
list, 2026-09/10); Hygon K100-AI, 64 GB (SCNet's list, 2026-09); Moore Threads MTT S4000, 48 GB (AutoDL's list);
Kunlunxin P800, 96 GB (Baidu AI Cloud's product page); Ascend 910B1 64 GB and 910B4 32 GB, as `npu-smi info`
prints their HBM total on such boxes (65536 and 32768 MB; listings that give the 910B4 64 GB are wrong for it).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rules.errors import UnknownGPU
from rules.numbers import chinese_int
from rules.patterns import lazy


@dataclass(frozen=True)
class MigProfile:
    name: str  # e.g. "3g.40gb"
    compute_slices: int  # of 7
    memory_gb: float
    max_count: int


@dataclass(frozen=True)
class VnpuTemplate:
    """An Ascend virtual-instance template: a vNPU the driver carves out of one NPU (hard partition)."""

    name: str  # e.g. "vir05_1c_16g"
    ai_cores: int
    memory_gb: float


@dataclass(frozen=True)
class GPUModel:
    name: str  # canonical, e.g. "A100-80GB"
    memory_gb: float
    mig: tuple[MigProfile, ...] = ()
    stack: str | None = None  # a domestic accelerator's software stack (CUDA code needs porting); None: CUDA
    vnpu: tuple[VnpuTemplate, ...] = ()  # Ascend virtual-instance templates, smallest first
    ai_cores: int | None = None  # an Ascend NPU's AI Cores, which its vNPU templates divide

    @property
    def domestic(self) -> bool:
        return self.stack is not None


def _profiles(*rows: tuple[str, int, float, int]) -> tuple[MigProfile, ...]:
    return tuple(MigProfile(name, g, mem, n) for name, g, mem, n in rows)


# Ascend 910B virtual-instance templates (npu-smi's create-vnpu help in Huawei's driver source, and HAMi's
# Ascend device configuration, charts/hami device-configmap, v2.5): 910B2 (24 AI Cores, 64 GB) vir03_1c_8g,
# vir06_1c_16g, vir12_3c_32g; 910B3 (20, 64 GB) vir05_1c_16g, vir10_3c_32g; 910B4 (20, 32 GB) vir05_1c_8g,
# vir10_3c_16g. (vir02/04/08/16 are the first-generation Ascend 910's, 30 or 32 AI Cores and 32 GB.) A "910B"
# without its variant is given 910B3's, the two templates every 64 GB 910B board lists; 910B1 is left without.
_VNPU_910B2 = (
    VnpuTemplate("vir03_1c_8g", 3, 8),
    VnpuTemplate("vir06_1c_16g", 6, 16),
    VnpuTemplate("vir12_3c_32g", 12, 32),
)
_VNPU_910B3 = (VnpuTemplate("vir05_1c_16g", 5, 16), VnpuTemplate("vir10_3c_32g", 10, 32))
_VNPU_910B4 = (VnpuTemplate("vir05_1c_8g", 5, 8), VnpuTemplate("vir10_3c_16g", 10, 16))

_MIG_80 = _profiles(
    ("1g.10gb", 1, 10, 7),
    ("1g.20gb", 1, 20, 4),
    ("2g.20gb", 2, 20, 3),
    ("3g.40gb", 3, 40, 2),
    ("4g.40gb", 4, 40, 1),
    ("7g.80gb", 7, 80, 1),
)
_MIG_40 = _profiles(
    ("1g.5gb", 1, 5, 7),
    ("1g.10gb", 1, 10, 4),
    ("2g.10gb", 2, 10, 3),
    ("3g.20gb", 3, 20, 2),
    ("4g.20gb", 4, 20, 1),
    ("7g.40gb", 7, 40, 1),
)
_MIG_94 = _profiles(
    ("1g.12gb", 1, 12, 7),
    ("1g.24gb", 1, 24, 4),
    ("2g.24gb", 2, 24, 3),
    ("3g.47gb", 3, 47, 2),
    ("4g.47gb", 4, 47, 1),
    ("7g.94gb", 7, 94, 1),
)
# H20 (Hopper GH100, 96 GB, up to 7 instances: NVIDIA's MIG user guide, "Supported GPUs"); its profile names are
# the 96 GB Hopper set that HAMi v2.10's MIG allowlist gives H20 and H100 on GH200 alike (charts/hami
# device-configmap), at the counts of every Hopper board's geometry (the MIG guide's H100 tables)
_MIG_96 = _profiles(
    ("1g.12gb", 1, 12, 7),
    ("2g.24gb", 2, 24, 3),
    ("3g.48gb", 3, 48, 2),
    ("7g.96gb", 7, 96, 1),
)
_MIG_141 = _profiles(
    ("1g.18gb", 1, 18, 7),
    ("1g.35gb", 1, 35, 4),
    ("2g.35gb", 2, 35, 3),
    ("3g.71gb", 3, 71, 2),
    ("4g.71gb", 4, 71, 1),
    ("7g.141gb", 7, 141, 1),
)

ASCEND = "CANN (PyTorch through torch_npu; its transfer_to_npu maps most CUDA calls)"
HYGON = "Hygon DTK (ROCm/HIP; PyTorch built for DTK)"

CATALOGUE: dict[str, GPUModel] = {
    m.name: m
    for m in (
        GPUModel("A100-80GB", 80, _MIG_80),
        GPUModel("A100-40GB", 40, _MIG_40),
        GPUModel("A800-80GB", 80, _MIG_80),
        GPUModel("H100-80GB", 80, _MIG_80),
        GPUModel("H800-80GB", 80, _MIG_80),
        GPUModel("H100-94GB", 94, _MIG_94),  # H100 NVL
        GPUModel("H200-141GB", 141, _MIG_141),
        GPUModel("H20-96GB", 96, _MIG_96),  # the Hopper card sold in China, rented there widely
        GPUModel("L40S-48GB", 48),
        GPUModel("L20-48GB", 48),
        GPUModel("L4-24GB", 24),
        GPUModel("A10-24GB", 24),
        GPUModel("RTX4090-24GB", 24),
        GPUModel(
            "RTX4090D-24GB", 24
        ),  # GeForce RTX 4090 D, 24 GB GDDR6X (NVIDIA's China product page): AutoDL rents it
        GPUModel("RTX3090-24GB", 24),  # GeForce RTX 3090, 24 GB GDDR6X (NVIDIA's product page); marketplaces rent it
        GPUModel("V100-32GB", 32),
        GPUModel("T4-16GB", 16),
        GPUModel("Ascend-910B-64GB", 64, stack=ASCEND, vnpu=_VNPU_910B3, ai_cores=20),
        GPUModel("Ascend-910B2-64GB", 64, stack=ASCEND, vnpu=_VNPU_910B2, ai_cores=24),
        GPUModel("Ascend-910B3-64GB", 64, stack=ASCEND, vnpu=_VNPU_910B3, ai_cores=20),
        GPUModel("Ascend-910B1-64GB", 64, stack=ASCEND),
        GPUModel("Ascend-910B4-32GB", 32, stack=ASCEND, vnpu=_VNPU_910B4, ai_cores=20),
        GPUModel("MLU370-X8-48GB", 48, stack="Cambricon Neuware (PyTorch through torch_mlu)"),
        GPUModel("DCU-Z100-32GB", 32, stack=HYGON),
        GPUModel("K100-AI-64GB", 64, stack=HYGON),
        GPUModel("MTT-S4000-48GB", 48, stack="Moore Threads MUSA (PyTorch through torch_musa)"),
        GPUModel("P800-96GB", 96, stack="Kunlunxin XPU SDK (PyTorch through Kunlunxin's own build)"),
    )
}

DEFAULT_GPU = "A100-80GB"

# A family people name without its variant ("910B") and the variants platforms sell: a quote for the family with
# no price of its own is priced from its variants' (the same memory; AutoDL lists 910B2).
VARIANTS: dict[str, tuple[str, ...]] = {"Ascend-910B-64GB": ("Ascend-910B2-64GB", "Ascend-910B3-64GB")}

# Extra spellings, after normalisation (see _key), that do not follow "<model><memory>G".
_EXTRA_ALIASES = {
    "A100": "A100-80GB",
    "A800": "A800-80GB",
    "H100": "H100-80GB",
    "H800": "H800-80GB",
    "H200": "H200-141GB",
    "H20": "H20-96GB",
    "L40S": "L40S-48GB",
    "L20": "L20-48GB",
    "L4": "L4-24GB",
    "A10": "A10-24GB",
    "A10G": "A10-24GB",  # AWS's A10 (g5): the same GA102 with 24 GB (AWS's G5 instance page)
    "4090": "RTX4090-24GB",
    "RTX4090": "RTX4090-24GB",
    "4090D": "RTX4090D-24GB",
    "RTX4090D": "RTX4090D-24GB",
    "3090": "RTX3090-24GB",
    "RTX3090": "RTX3090-24GB",
    "V100": "V100-32GB",
    "T4": "T4-16GB",
    "ASCEND910B": "Ascend-910B-64GB",
    "910B": "Ascend-910B-64GB",
    "HUAWEIASCEND910B": "Ascend-910B-64GB",
    "MLU370X8": "MLU370-X8-48GB",
    "CAMBRICONMLU370X8": "MLU370-X8-48GB",
    "MLU370": "MLU370-X8-48GB",
    "DCUZ100": "DCU-Z100-32GB",
    "HYGONDCUZ100": "DCU-Z100-32GB",
    "Z100": "DCU-Z100-32GB",
    "910B2": "Ascend-910B2-64GB",
    "ASCEND910B2": "Ascend-910B2-64GB",
    "HUAWEIASCEND910B2": "Ascend-910B2-64GB",
    "910B3": "Ascend-910B3-64GB",
    "ASCEND910B3": "Ascend-910B3-64GB",
    "HUAWEIASCEND910B3": "Ascend-910B3-64GB",
    "910B1": "Ascend-910B1-64GB",
    "ASCEND910B1": "Ascend-910B1-64GB",
    "910B4": "Ascend-910B4-32GB",
    "ASCEND910B4": "Ascend-910B4-32GB",
    "910B2C": "Ascend-910B2-64GB",
    "ASCEND910B2C": "Ascend-910B2-64GB",
    "K100": "K100-AI-64GB",
    "K100AI": "K100-AI-64GB",
    "HYGONK100": "K100-AI-64GB",
    "HYGONK100AI": "K100-AI-64GB",
    "DCUK100": "K100-AI-64GB",
    "DCUK100AI": "K100-AI-64GB",
    "S4000": "MTT-S4000-48GB",
    "MTTS4000": "MTT-S4000-48GB",
    "MOORETHREADSMTTS4000": "MTT-S4000-48GB",
    "P800": "P800-96GB",
    "KUNLUNXINP800": "P800-96GB",
    "KUNLUNP800": "P800-96GB",
    "P800OAM": "P800-96GB",  # as xpu-smi names the OAM module
    "KUNLUNXINP800OAM": "P800-96GB",
}

# A maker's name alone ("海光", "昇腾", "Ascend"): which of its cards is asked, never guessed (their memory differs,
# or the catalogue holds one of several the maker sells). Matched on the name before _key drops what is not Latin.
MAKERS: dict[str, tuple[str, ...]] = {
    "海光|hygon|dcu": ("DCU-Z100-32GB", "K100-AI-64GB"),
    "昇腾|华为|huawei|ascend|npu": tuple(n for n in CATALOGUE if n.startswith("Ascend-")),
    "寒武纪|cambricon|mlu": ("MLU370-X8-48GB",),
    "摩尔线程|moore ?threads|mtt": ("MTT-S4000-48GB",),
    "昆仑芯?|kunlun(?:xin)?": ("P800-96GB",),
    "英伟达|nvidia|tesla|geforce|rtx": tuple(n for n in CATALOGUE if CATALOGUE[n].stack is None),
}
_MAKER = lazy(
    rf"^\s*(?:{'|'.join(f'({m})' for m in MAKERS)})\s*(?:的?(?:卡|显卡|gpu|npu|芯片|cards?|gpus?))?\s*$", re.I
)

_NOISE = lazy(r"NVIDIA|TESLA|GEFORCE|SXM\d?|PCIE|NVL|HBM\d?E?|[^A-Z0-9]")


@functools.lru_cache(maxsize=4096)  # the same few dozen spellings, asked for every offer of every price source
def _key(name: str) -> str:
    said = _CN_MEMORY.sub(lambda m: str(chinese_int(m.group(1))), name.upper())  # A100八十G, 4090二十四G
    key = _NOISE.sub("", said)
    return re.sub(r"(\d+)GB?$", r"\1G", key)


_CN_MEMORY = lazy(r"([零一二两三四五六七八九十百]+)\s*(?=G)")  # a memory said in Chinese numerals


ALIASES: dict[str, str] = {_key(name): name for name in CATALOGUE} | _EXTRA_ALIASES
# a short name with its card's memory after it (4090 24G, 910B 64G): the card the short name is
ALIASES |= {f"{alias}{CATALOGUE[name].memory_gb:g}G": name for alias, name in _EXTRA_ALIASES.items()} | ALIASES


def canonical_gpu(name: str) -> str:
    """Map a vendor or user spelling ("A100 80GB PCIe", "h100-sxm5-80gb", "4090") to a canonical name."""
    found = ALIASES.get(_key(name))
    if found is None:
        maker = _MAKER.match(name)
        if maker is not None:
            said = next(i for i, group in enumerate(maker.groups()) if group is not None)
            raise UnknownGPU(name, list(MAKERS[list(MAKERS)[said]]), maker=True)
        raise UnknownGPU(name, sorted(CATALOGUE))
    return found


def card_model(name: str, memory_mib: float | None = None) -> str | None:
    """The canonical model of a card as the driver names it ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 NVL"),
    with the memory it reports choosing between a model's memory sizes (81920 MiB: the 80 GB one);
    None when the card is not in the catalogue (the caller keeps the driver's name)."""
    try:
        named = CATALOGUE[canonical_gpu(name)]
    except UnknownGPU:
        return None
    if not memory_mib:
        return named.name
    family = named.name.rsplit("-", 1)[0]
    sizes = [m for m in CATALOGUE.values() if m.name.rsplit("-", 1)[0] == family]
    closest = min(sizes, key=lambda m: abs(m.memory_gb - memory_mib / 1024))
    return closest.name if abs(closest.memory_gb - memory_mib / 1024) <= 0.1 * closest.memory_gb else named.name


_COUNTED = (
    lazy(r"^\s*(?P<n>\d{1,4})\s*(?:x|\*|×|卡|张|块)\s*(?P<name>\S.*?)\s*$", re.I),  # 8xA100, 8卡A100
    lazy(r"^\s*(?P<name>\S.*?)\s*(?:x|\*|×)\s*(?P<n>\d{1,4})\s*(?:卡|张|块)?\s*$", re.I),  # A100*8, 4090 x2
)


_MEMORY_APART = lazy(r"(?:\d+|[零一二两三四五六七八九十百]+)\s*(?:g|gb)", re.IGNORECASE)  # "A100 40G": typed apart


def known_gpu(name: str) -> bool:
    """Whether the catalogue knows `name` as a GPU (`A100`, `4090`, `910B`), said alone."""
    try:
        canonical_gpu(name)
    except UnknownGPU:
        return False
    return True


def _is_gpu(said: str) -> bool:
    try:
        canonical_gpu(counted_gpu(said)[0])
    except UnknownGPU:
        return False
    return True


_OTHER_HAN = lazy(r"[^\x00-\x7f卡张块台零一二两三四五六七八九十百]")  # more than a count or a memory in Chinese
_ASCII_RUN = lazy(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_COUNT_BEFORE = lazy(r"\d{1,4}\s*[x*×卡张块台]\s*$", re.IGNORECASE)  # 8张H100, 8xH100
_MEMORY_AFTER = lazy(r"^\s*(?:\d+|[零一二两三四五六七八九十百]+)\s*(?:gb|g)(?![a-z])", re.IGNORECASE)
_COUNT_AFTER = lazy(r"^\s*[x*×]\s*\d{1,4}\s*[卡张块]?", re.IGNORECASE)  # H100*8


# a word shaped as an accelerator's model code (MI300X, B200, GB200, RTX5090, A6000, Gaudi3): letters then digits,
# perhaps a letter or two after; a count with a unit (4x14, 8卡) or a price is no such word
_PERCENTILE = lazy(r"^p(?:50|75|90|95|99|999|9999)$", re.I)
_MODEL_CODE = lazy(r"^(?:rtx|tesla|instinct|gaudi)?[a-z]{1,3}-?\d{2,4}[a-z]{0,2}$|^gaudi\s*\d$", re.I)


def unknown_model(word: str) -> bool:
    """Whether `word` looks like a GPU's model code the catalogue does not know (`MI300X`, `B200`): read as an unknown
    GPU, named with the known ones, not as "a word not read" (`quote A100 MI300X 4x14`), nor left out unsaid
    (`A100和MI300X跑一周分别多少钱` priced the A100 alone)."""
    if not _MODEL_CODE.match(word.strip()) or (word[-1:] in "sS" and _is_gpu(word[:-1])):  # H100s: H100's plural
        return False
    if _PERCENTILE.match(word.strip()):  # `P99 要小于50ms`: a latency, not a card (the Tesla P100 is one)
        return False
    try:
        canonical_gpu(word)
    except UnknownGPU:
        return True
    return False


def gpu_words(words: list[str]) -> list[str]:
    """Words with the GPU in them made words of their own, as people type them: glued to Chinese (`8张H100跑一周`:
    `8张H100`, `跑一周`), plural (`H100s`), or after their count (`8 H100s`: `8xH100`). The readers after it find a
    GPU only as a word of its own."""
    out: list[str] = []
    for word in words:
        if not _is_gpu(word) and word[-1:] in "sS" and _is_gpu(word[:-1]):
            word = word[:-1]  # H100s, 4090s (L40S is a card of its own: kept)
        counts = out and out[-1].isdigit() and len(out[-1]) <= 4 and not _is_gpu(out[-1])  # 4090 is a card
        if counts and _is_gpu(word) and counted_gpu(word)[1] is None:
            out[-1] = f"{out[-1]}x{word}"  # 8 H100s
            continue
        out += _unglued(word)
    return out


def _unglued(word: str) -> list[str]:
    """A word with a GPU glued to other (Chinese) words in it, as its parts; the word itself otherwise."""
    if word.isascii() or (_is_gpu(word) and not _OTHER_HAN.search(word)):
        return [word]
    for run in _ASCII_RUN.finditer(word):
        if not _is_gpu(run.group(0)) or (run.group(0).isdigit() and len(run.group(0)) < 3):
            continue
        before, after = word[: run.start()], word[run.end() :]
        count = _COUNT_BEFORE.search(before)
        start = run.start() - (len(count.group(0)) if count else 0)
        tail = _COUNT_AFTER.match(after) or _MEMORY_AFTER.match(after)  # H100*8跑3天, a100八十G多少钱
        end = run.end() + (len(tail.group(0)) if tail else 0)
        return [part for part in (word[:start], word[start:end], *_unglued(word[end:])) if part.strip()]
    return [word]


def gpu_at(words: list[str], start: int = 0) -> tuple[int, int] | None:
    """Where the first GPU is said in `words` from `start`, as (start, end): a name the catalogue knows (with its count:
    `8卡A100`), with its memory typed apart after it (`A100 40G`, `A100 四十G`: the 40 GB card, not the name alone's
    80 GB one, and not a word left over); a maker's name alone too (`海光`: the caller refuses it asking which card)."""
    for i in range(start, len(words)):
        apart = i + 1 < len(words) and _MEMORY_APART.fullmatch(words[i + 1])
        for end in (i + 2, i + 1) if apart else (i + 1,):
            try:
                canonical_gpu(counted_gpu(" ".join(words[i:end]))[0])
                return i, end
            except UnknownGPU as exc:
                if exc.maker:
                    return i, end
    return None


def gpus_in(words: list[str], *, whole: bool = False) -> list[str]:
    """The GPUs `words` name, in the order said, once each (`A100 和 H100`, `A100 40G 4090`, `8张H100跑一周`), a maker
    alone left out. `whole`: the words are GPUs and nothing else; UnknownGPU names the first that is none (or the
    maker said alone)."""
    words, found, start = gpu_words(words), list[str](), 0
    while start < len(words):
        at = gpu_at(words, start)
        if at is None or (whole and at[0] != start):
            if whole:  # `prices list A100 哈哈`: 哈哈 named
                unread = " ".join(words[start : at[0] if at else None])
                canonical_gpu(unread)
                raise UnknownGPU(unread, sorted(CATALOGUE))
            break
        try:
            found.append(canonical_gpu(counted_gpu(" ".join(words[at[0] : at[1]]))[0]))
        except UnknownGPU:  # a maker alone: which card is its own question
            if whole:
                raise
        start = at[1]
    return list(dict.fromkeys(found))


def counted_gpu(name: str) -> tuple[str, int | None]:
    """A GPU said with its count, as platforms list a machine ("A100*8", "8xA100", "8卡A100", "4090 x2"): the model's
    name and the count; (name, None) for a name the catalogue knows whole ("MLU370-X8"), one with no count, or one
    whose parts name no card (the caller's error then names what was typed)."""
    if _key(name) in ALIASES:
        return name, None
    for pattern in _COUNTED:
        said = pattern.match(name)
        if said is not None and int(said["n"]) > 0 and _key(said["name"]) in ALIASES:
            return said["name"], int(said["n"])
    return name, None


def gpu_model(name: str) -> GPUModel:
    return CATALOGUE[canonical_gpu(name)]


def smallest_mig_profile(gpu: GPUModel, memory_gb: float) -> MigProfile | None:
    """The MIG profile with the least memory (then fewest compute slices) that holds `memory_gb`."""
    fitting = [p for p in gpu.mig if p.memory_gb >= memory_gb]
    if not fitting:
        return None
    return min(fitting, key=lambda p: (p.memory_gb, p.compute_slices))
