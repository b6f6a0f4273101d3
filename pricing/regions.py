"""Region names as people write them, in Chinese, English and pinyin, each with its class: the first-tier cities
(Beijing, Shanghai, Shenzhen, ... cost more) and the inland data-centre regions that can be 20-30% cheaper for
latency-insensitive jobs (Inner Mongolia, Guizhou; the articles, domain.md "Regions"; the other "东数西算" hubs,
Ningxia and Gansu, are the same kind). A public cloud's own region names (eastus, us-east-1) pass as they are."""

from __future__ import annotations

from pricing.records import RegionClass

# canonical name -> (its class, the names people use for it)
NAMED: dict[str, tuple[RegionClass, tuple[str, ...]]] = {
    "beijing": (RegionClass.TIER1, ("北京", "peking")),
    "shanghai": (RegionClass.TIER1, ("上海",)),
    "shenzhen": (RegionClass.TIER1, ("深圳",)),
    "guangzhou": (RegionClass.TIER1, ("广州", "canton")),
    "hangzhou": (RegionClass.TIER1, ("杭州",)),
    "guizhou": (RegionClass.INLAND, ("贵州", "贵阳", "guiyang", "gui-an", "贵安")),
    "inner-mongolia": (
        RegionClass.INLAND,
        (
            "内蒙古",
            "内蒙",
            "inner mongolia",
            "innermongolia",
            "neimenggu",
            "nei mongol",
            "乌兰察布",
            "ulanqab",
            "呼和浩特",
        ),
    ),
    "ningxia": (RegionClass.INLAND, ("宁夏", "中卫", "zhongwei")),
    "gansu": (RegionClass.INLAND, ("甘肃", "庆阳", "qingyang")),
}
CLASSES = {c.value: c for c in RegionClass} | {
    "一线": RegionClass.TIER1,
    "一线城市": RegionClass.TIER1,
    "内地": RegionClass.INLAND,
    "西部": RegionClass.INLAND,
    "东数西算": RegionClass.INLAND,
}
_ALIASES = {alias.lower(): name for name, (_, aliases) in NAMED.items() for alias in (name, *aliases)}


def resolve(text: str) -> tuple[str | None, RegionClass | None]:
    """(a named region's canonical name, its class), (None, a class) for a class, or (the text, None) for a name
    the table does not know (a cloud's region, matched as written)."""
    key = " ".join(text.strip().lower().replace("_", " ").split())
    if key in CLASSES:
        return None, CLASSES[key]
    name = _ALIASES.get(key) or _ALIASES.get(key.replace(" ", "-")) or _ALIASES.get(key.replace(" ", ""))
    if name is not None:
        return name, NAMED[name][0]
    return key, None


def accepted() -> str:
    """The names and classes, as an error lists them."""
    named = ", ".join(f"{name} ({aliases[0]})" for name, (_, aliases) in NAMED.items())
    return f"{', '.join(c.value for c in RegionClass)}; {named}"


def region_class(text: str | None) -> RegionClass | None:
    """The class a region name or class belongs to (None: unknown, or no region)."""
    return resolve(text)[1] if text else None
