"""`act off|notify|stop [grace=4h] [project=P]`: this channel's policy for idle instances (and `act` alone: what
it is). `stop` is an admin's choice; changing a policy someone else set needs them or an admin. The answer goes
to the channel: everyone there is told what will happen."""

from __future__ import annotations

from bot.actions.policy import PolicyError, read_grace, read_mode, said
from bot.app.invocation import CommandError, Invocation
from bot.chat import inline
from bot.chat.message import plain
from bot.state.actions import Actions
from bot.state.rentals import NAME
from bot.text import t
from bot.text.format import mention, who

KEYS = {"grace": "grace", "project": "project", "宽限": "grace", "项目": "project"}


def _keyed(words: list[str]) -> list[str]:
    """`act`'s words with the grace given its key where it was said without: `宽限4小时`, `宽限 4小时`, `grace 4h`, or a
    length alone (`act notify 4h`: the only length act takes)."""
    out: list[str] = []
    for word in words:
        if out and out[-1].lower() in ("grace", "宽限"):
            out[-1] += "=" + word
        elif word.startswith("宽限") and len(word) > 2 and "=" not in word:
            out.append("宽限=" + word.removeprefix("宽限"))
        elif "=" not in word and not any("=" in w for w in out) and word[:1].isdigit() | _spoken(word):
            out.append("grace=" + word)
        else:
            out.append(word)
    return out


def _spoken(word: str) -> bool:
    """A length said in Chinese numerals (两小时, 半小时, 一个半小时)."""
    return word[:1] in "一二两三四五六七八九十半" and word.endswith(("小时", "分钟", "天"))


def asked(inv: Invocation) -> None:
    """Idle boxes stopped by themselves, asked for in words (开启自动关机, 闲置超过2小时自动关机): this channel's policy
    as `act` says it, and how `act stop` works and who chooses it. Never a policy set from words: it stops boxes."""
    policy = said(Actions(inv.deps.store).policy(inv.team, inv.channel), inv.channel_name, inv.lang)
    minutes = f"{inv.deps.policy.idle.window_minutes:g}"
    inv.answer(plain("\n".join([policy, t("act.how", inv.lang, minutes=minutes)]), inv.lang))


def act(inv: Invocation, args: list[str]) -> None:
    user, channel, team, lang = inv.user, inv.channel, inv.team, inv.lang
    actions = Actions(inv.deps.store)
    if not args:
        inv.answer(plain(said(actions.policy(team, channel), inv.channel_name, lang), lang))
        return
    try:
        mode = read_mode(args[0], lang)
        raw = inline.parse_pairs(_keyed(args[1:]), KEYS, words=True)[0]  # grace=two hours: its words unquoted
        grace = read_grace(raw.get("grace"), lang)
    except PolicyError as exc:
        raise CommandError(str(exc)) from None
    project = raw.get("project", "")
    if project and not NAME.fullmatch(project):
        raise CommandError(f"`project`: {t('error.rental.bad_name', lang, name=project)}")
    current = actions.policy(team, channel, project)
    mine = current.set_by is None or current.set_by == user or current.project != project
    admin = (mode == "stop" or not mine) and inv.is_admin()
    if mode == "stop" and not admin:
        raise CommandError(t("action.stop_admins_only", lang))
    if not mine and not admin:
        raise CommandError(t("action.not_yours", lang, who=who(current.set_by, lang)))
    actions.set_policy(team, channel, mode, grace, project=project, by=user, now=inv.deps.now())
    inv.announce(
        plain(mention(user) + ": " + said(actions.policy(team, channel, project), inv.channel_name, lang), lang)
    )
