"""Every sub-command, in one table that every chat dispatches through: the words typed after `/gpu-advise` in
Slack, or to the bot in Feishu, read once (bot/chat/inline.py) and run here. A reader finds what happens when
someone types X in one hop: SUBCOMMANDS[X].

Nothing typed: a profile's five questions in a thread; answers typed at once (`10h mem=70/80 …`): the
recommendation at once; anything else: a specific error naming the word, answered to the person."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from bot.app import (
    act,
    actions_said,
    answers,
    board,
    budget,
    cloud_asked,
    enroll,
    idle,
    item_names,
    item_said,
    item_unknown,
    memory_asked,
    metering,
    profile_outside,
    quote,
    rename,
    rentals,
    report,
    stop_asked,
    task_said,
    track,
)
from bot.app.bug_said import bug_said
from bot.app.free_words import AUTO_STOP, free_words
from bot.app.invocation import CommandError, Form, Invocation
from bot.app.switches_said import policy_asked
from bot.chat import conversation, inline
from bot.chat.ids import SubCommand
from bot.chat.message import plain
from bot.chat.port import Place
from bot.fields.metering import PROVIDER_NAMES
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.chinese_names import CHINESE_NAMES
from bot.text.format import literal
from bot.text.spans import mention
from rules.errors import UnknownGPU
from rules.gpus import gpus_in, known_gpu
from rules.patterns import has_han, lazy

MAX_TEXT = 4000  # longer than any set of answers; the text is not even split beyond it
START_WORDS = ("advise", "start", "开始", "建议")  # a profile, as typing nothing starts one

Handler = Callable[[Invocation, list[str]], None]


def start(inv: Invocation) -> Conversation:
    """A profile: its root in the channel (a direct message when the bot may not post there), questions in its
    thread."""
    convo = conversation.start(inv.deps, inv.chat, team=inv.team, channel=inv.channel, user=inv.user, lang=inv.lang)
    if convo.note:  # moved to a direct message: say so where the command was typed
        inv.answer(plain(t("slack.moved_to_dm", inv.lang), inv.lang))
    return convo


def analyze(inv: Invocation, args: list[str]) -> None:
    """A profile whose thread waits for a capture upload (it answers questions 1 and 2 when it comes). It takes no
    words: `分析 训练机` (a tracked machine's use, which list and report give) was a profile that dropped them."""
    if args:
        raise CommandError(t("error.analyze_words", inv.lang, words=literal(" ".join(args)[:40])))
    convo = start(inv)
    prompt = t("slack.analyze_prompt", inv.lang, user=mention(inv.user))
    thread = Place(inv.chat.platform, inv.team, convo.channel, convo.thread_ts)
    inv.chat.post(thread, lambda each: plain(prompt, each), inv.lang)


def advise(inv: Invocation, args: list[str]) -> None:
    """A profile. Words after the word are answers (they were dropped): all of them at once as typed without it
    (`advise 10h mem=70/80 …`, also with the kind of work first: `advise lora 10h …`), or else the first question's
    (`建议 做lora`: the kind of work), the rest then asked."""
    if args and inline.is_inline(args):
        _inline(inv, args)
        return
    if len(args) > 1 and inline.is_inline(args[1:]):  # `advise lora 10h mem=70/80 …`: the kind of work first
        _inline(inv, [f"workload={args[0]}", *args[1:]])
        return
    convo = start(inv)
    if args:
        conversation.typed_answer(inv.deps, inv.chat, convo, " ".join(args), inv.user, inv.request_key)


# the kinds of rental `help` explains, by their words in either language (`help spot`, `帮助 抢占式`)
CONCEPTS = (
    dict.fromkeys(("shared", "dedicated", "共享", "共享卡", "独占", "独占卡"), "shared")
    | dict.fromkeys(("spot", "preemptible", "抢占式", "竞价"), "spot")
    | dict.fromkeys(("slicing", "mig", "vgpu", "qgpu", "时间片", "显存切片", "切片"), "slicing")
)


def help_(inv: Invocation, args: list[str]) -> None:
    """The chat's help, in the line's language, or in the one named (`help en`, `help 中文`); `help budget`
    (`帮助 预算`, and a how-to question: `怎么设置预算`) the lines of it that name that sub-command, and where the rest
    is."""
    named = Lang.named(args[0]) if args else None
    lang = named or inv.lang
    word = CHINESE_NAMES.get(args[0], args[0].lower()) if args and named is None else ""
    if (topic := CONCEPTS.get(word)) is not None:  # `help shared`, 共享卡和独占卡有什么区别: what it is, explained
        inv.answer(plain("\n".join([t(f"concept.{topic}", lang), t("help.rest", lang)]), lang))
        return
    lines = [line for line in inv.help_text(lang).splitlines() if f"`{word}" in line] if word in SUBCOMMANDS else []
    if lines:
        inv.answer(plain("\n".join([*lines, t("help.rest", lang)]), lang))
        return
    inv.answer(plain(inv.help_text(lang), lang))


def form(inv: Invocation, args: list[str]) -> None:
    if args:  # they were dropped; answers typed in one line are `advise ...`
        raise CommandError(t("error.form_words", inv.lang, words=literal(" ".join(args)[:40])))
    inv.open_form(Form.PROFILE, {})


def prices(inv: Invocation, args: list[str]) -> None:
    inv.answer(plain("\n".join(answers.price_lines(inv.deps, args, inv.lang)), inv.lang))


SUBCOMMANDS: dict[str, Handler] = {
    SubCommand.HELP: help_,
    SubCommand.ANALYZE: analyze,
    SubCommand.FORM: form,
    SubCommand.PRICES: prices,
    SubCommand.QUOTE: quote.quote,
    SubCommand.LIST: rentals.list_items,
    SubCommand.RELEASE: rentals.release,
    SubCommand.DELETE_STORAGE: rentals.delete_storage,
    SubCommand.RENAME: rename.rename,
    SubCommand.BUDGET: budget.budget,
    SubCommand.POWER: metering.power,
    SubCommand.BILLING: metering.billing,
    SubCommand.BALANCE: metering.balance,
    SubCommand.REMIND: rentals.remind,
    SubCommand.TRACK: track.track,
    SubCommand.ENROLL: enroll.enroll,
    SubCommand.ACT: act.act,
    SubCommand.REPORT: report.report,
    SubCommand.BOARD: board.board,
    SubCommand.ACTIONS: actions_said.actions,
    SubCommand.IDLE: idle.idle,
    SubCommand.STOP: stop_asked.stop,
    "?": help_,
    "？": help_,
    **dict.fromkeys(START_WORDS, advise),
}
SUBCOMMANDS |= {name: SUBCOMMANDS[word] for name, word in CHINESE_NAMES.items()}  # `报价 A100 4x14`, `列表`


def _switched(state: str) -> Handler:
    """`关机 box1 [昨晚11点]`, `开机 box1`: power said as the one word a Chinese team says it (it was an unknown
    sub-command)."""
    return lambda inv, args: metering.power(inv, [*args[:1], state, *args[1:]] if args else [])


SUBCOMMANDS |= {"开机": _switched("on"), "关机": _switched("off")}


def typed_lang(text: str, default: Lang) -> Lang:
    """The language to answer a typed line in, where the chat tells a bot no one's language (Feishu, DingTalk,
    WeCom): Chinese when it has Chinese. A sub-command (`list`, `help`, `track box1 gpu=A100`) or answers typed at
    once (`10h mem=70/80 …`) with no Chinese are the bot's own words, whoever types them: the team's language
    (`default`, GPU_ADVISOR_LANG). Other Latin words are an answer written in English."""
    if has_han(text):
        return Lang.ZH
    tokens = text.split()
    if not tokens or tokens[0].lower() in SUBCOMMANDS or inline.is_inline(tokens) or _near(tokens[0]):
        return default  # a sub-command, misspelt or not ("lsit"), is the bot's own word
    return Lang.EN if any(not _named(token) for token in tokens) else default


# a figure and its unit, or a sign: 500, 40G, 1TB, 14/h, x8, 2k, vs
_NEUTRAL = lazy(r"[\d.,/¥$€%+*:=()-]*(?:g|gb|gib|t|tb|tib|m|mb|h|x|k|w|vs)?[\d.,/%*()-]*", re.IGNORECASE)


def _named(token: str) -> bool:
    """Whether a word is written in no language: a figure (with a unit's letter or two), a provider (`autodl 500`,
    a balance) or a GPU (`A100 H100`): a line of those is answered in the team's language, as a sub-command is."""
    if not any("a" <= ch.lower() <= "z" for ch in token):  # no Latin letter: 👍, ？, 42
        return True
    if _NEUTRAL.fullmatch(token) or token.lower() in PROVIDER_NAMES:
        return True
    try:
        return bool(gpus_in([token], whole=True))
    except UnknownGPU:
        return False


def run(inv: Invocation, text: str) -> None:
    """Run what `text` asks. CommandError (in the person's language) for bad input; the wing says it to them
    with where its help is."""
    if len(text) > MAX_TEXT:
        raise CommandError(t("error.text_too_long", inv.lang, limit=MAX_TEXT))
    try:
        _run(inv, inline.split(text))
    except inline.InlineError as exc:
        raise CommandError(t(f"error.inline.{exc.code}", inv.lang, **exc.params)) from None


def run_answered(inv: Invocation, text: str, see_help: str) -> None:
    """`run` for a chat whose work is redone when it fails (Feishu, DingTalk, WeCom; Slack's errors go to bolt's
    handler): bad input is said with `see_help`, where the help is; a bug with an id the log has (bot/app/bug_said.py:
    an unknown GPU among quote's words was left to be redone and never answered)."""
    with bug_said(lambda said: inv.answer(plain(said, inv.lang)), inv.lang, "a sub-command"):
        try:
            run(inv, text)
        except CommandError as exc:
            inv.answer(plain(f"{exc}\n{see_help}", inv.lang))


_POLITE_BEFORE = frozenset(("please", "pls", "plz", "kindly", "请", "麻烦", "帮我", "帮忙"))
# asking for an answer before the question (帮我算一下, 请问, 想问一下): the question is what follows it
_ASKING = lazy(
    r"(?:请|麻烦|能不能|可以)?(?:帮我|帮忙|给我|你)?(?:算一下|算算|估算一下|估一下|查一下|查查|看一下|看看)"
    r"|(?:我)?想(?:问一下|问问|知道)|请问(?:一下)?|问一下"
)
_ASKING_EN = lazy(
    r"(?:please\s+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?|please\s+)"
    r"(?:work\s+out|calculate|figure\s+out|check|tell\s+me|estimate|show\s+me|let\s+me\s+know)\s+"
    r"(?:(?:the\s+)?(?:cost|price)\s+(?:of|for)\s+(?:an?\s+|the\s+)?)?",
    re.IGNORECASE,
)
_POLITE_AFTER = frozenset(("please", "pls", "plz", "thanks", "thx", "ty", "谢谢", "谢谢啦", "多谢"))


# thanks or an acknowledgement said to the bot on its own (谢谢, thanks, 好的, ok, 👍): "unknown sub-command" before
_ACK = lazy(
    r"(?:(?P<thanks>谢谢(?:啦|了|你|您)?|多谢|感谢|thanks?(?: you)?|thx|ty|cheers)"
    r"|好的|好|行|收到|了解|明白了?|知道了|嗯+|ok(?:ay)?|got it|cool|great|nice|👍|🙏|👌)[\s!！。.~～]*",
    re.IGNORECASE,
)


def _courteous(tokens: list[str]) -> list[str]:
    """The words without the courtesy around them: `please release box1`, `release box1 please` (which looked for
    an instance named "please"), `请 list`, `list 谢谢`; typed glued to a Chinese sub-command's name, too
    (`帮我登记一台机器 …`, `把提醒改到每天早上10点`: unknown sub-commands before)."""
    while len(tokens) > 1 and tokens[0].lower().rstrip(",，") in _POLITE_BEFORE:
        tokens = tokens[1:]
    if tokens and (asked := _ASKING.match(tokens[0])) is not None:  # `帮我算一下4张4090跑一周多少钱`
        rest = tokens[0][asked.end() :].lstrip(",，:：")
        tokens = [rest, *tokens[1:]] if rest else tokens[1:] or tokens
    said = " ".join(tokens)
    if (asked := _ASKING_EN.match(said)) is not None and said[asked.end() :].strip():
        tokens = said[asked.end() :].split()  # `can you work out the cost of an A100 for 3 days`
    glued = next((p for p in _GLUED_BEFORE if tokens and tokens[0].startswith(p) and len(tokens[0]) > len(p)), None)
    if glued is not None and _names_a_subcommand(tokens[0][len(glued) :]):
        tokens = [tokens[0][len(glued) :], *tokens[1:]]
    while len(tokens) > 1 and tokens[-1].lower().strip(",，.。!！") in _POLITE_AFTER:
        tokens = tokens[:-1]
    return tokens


_GLUED_BEFORE = ("帮我把", "请帮我", "帮我", "帮忙", "麻烦", "请", "把")


def _names_a_subcommand(word: str) -> bool:
    return word.lower() in SUBCOMMANDS or glued_name(word) is not None


def _run(inv: Invocation, tokens: list[str]) -> None:
    tokens = _courteous(tokens)
    if not tokens:
        start(inv)
        return
    handler = SUBCOMMANDS.get(tokens[0].lower())
    if handler is stop_asked.stop and _stop_in_words(inv, tokens):  # `stop the reminders please`: no box's name
        handler = None
    if handler is None and (AUTO_STOP.search(" ".join(tokens)) or policy_asked(" ".join(tokens))):
        # 闲置超过2小时自动关机 (not `idle`'s words), what happens to idle boxes here
        act.asked(inv)  # the policy and how `act stop` works: a stop policy is never set from words
        return
    if handler is None and (glued := glued_name(tokens[0])) is not None:  # `报价A100 4x14`: typed without a space
        tokens = [*glued, *tokens[1:]]
        handler = SUBCOMMANDS[glued[0]]
    if handler is not None:
        handler(inv, tokens[1:])
    elif inline.is_inline(tokens):  # `十来个小时` alone, with a profile open here: its answer, not a new profile's
        if len(tokens) > 1 or not profile_outside.took_outside(inv, tokens[0]):
            _inline(inv, tokens)
    elif (ack := _ACK.fullmatch(" ".join(tokens).strip())) is not None:  # 谢谢, ok: answered, not refused
        inv.answer(plain(t("chat.thanks" if ack["thanks"] else "chat.ack", inv.lang), inv.lang))
    elif item_said.said_of_item(inv, " ".join(tokens)):  # `训练机 关机了`: power, or the release asked back
        return  # before the free words: `训练机 花了多少` is that item's month, not a period named 训练机
    elif memory_asked.said_of_memory(inv, " ".join(tokens)) or cloud_asked.said_of_cloud(inv, " ".join(tokens)):
        return  # `7B LoRA 需要什么卡`: the estimate; `怎么接入阿里云`: discovery's settings for that cloud
    elif profile_outside.took_outside(inv, " ".join(tokens)):  # `每天都跑` below the profile's thread, not in it
        return  # (before the free words: `A100` at its GPU question is that answer, not the price asked)
    elif (meant := free_words(" ".join(tokens))) not in (None, ("advise", [])):  # `你好`, `A100多少钱`
        SUBCOMMANDS[meant[0]](inv, meant[1])
    elif task_said.said_of_task(inv, " ".join(tokens)):  # `7B LoRA, 3小时, 能中断`: a profile with those kept
        return
    elif meant is not None:  # `我想租卡`, `帮我选卡`: the profile
        SUBCOMMANDS[meant[0]](inv, meant[1])
    elif (name := item_names.named_first(inv.deps.store, inv.team, tokens[0])) == tokens[0]:
        if len(tokens) == 1:  # `训练机`: how it is, as `power 训练机` says (on or off, this month's stretches)
            metering.power(inv, [name])
            return
        raise CommandError(t("item.words_not_read", inv.lang, name=name, words=literal(" ".join(tokens[1:])[:40])))
    elif len(tokens) > 1 and tokens[0] in item_names.kept_names(inv.deps.store, inv.team):  # `数据盘 还要用吗`
        words = literal(" ".join(tokens[1:])[:40])
        raise CommandError(t("item.storage_words_not_read", inv.lang, name=tokens[0], words=words))
    else:
        near = _near(tokens[0])  # "lsit", "qoute", "报个价"
        # `disk9 还在吗`: no item goes by that name (it read as a sub-command named disk9); one released: its line
        if near is None and item_unknown.refuse_unknown(inv, " ".join(tokens)):
            return
        if near is None and _sentence(tokens):  # `how long does it take to train…`: not the name of a sub-command
            said = " ".join(tokens)
            raise CommandError(t("error.not_understood", inv.lang, said=said if len(said) <= 40 else said[:39] + "…"))
        if near is None and known_gpu(tokens[0]):  # `4090 在autodl和openrelay哪个划算`: a card, then words not read
            raise CommandError(t("error.gpu_then_unread", inv.lang, gpu=tokens[0], words=" ".join(tokens[1:])[:40]))
        said = t("error.unknown_subcommand", inv.lang, name=tokens[0])
        raise CommandError(said + (t("error.did_you_mean", inv.lang, name=near) if near else ""))


_GLUED = sorted((n for n in SUBCOMMANDS if has_han(n)), key=len, reverse=True)  # 删除存储 before 删除


def glued_name(word: str) -> list[str] | None:
    """A Chinese sub-command's name typed with its first word and no space between (`报价A100`, `列表llm`,
    `余额autodl`), as the name and that word; None for any other word. Chinese is typed without spaces: it was an
    unknown sub-command."""
    name = next((n for n in _GLUED if word.startswith(n) and len(word) > len(n)), None)
    return [name, word[len(name) :]] if name is not None else None


def _inline(inv: Invocation, tokens: list[str]) -> None:
    """Every answer typed in one line (`10h mem=70/80 …`): the recommendation at once."""
    convo = answers.inline_profile(
        inv.deps,
        inv.chat,
        team=inv.team,
        channel=inv.channel,
        user=inv.user,
        tokens=tokens,
        lang=inv.lang,
        thread=inv.reply_to,
    )
    if convo.note:
        inv.answer(plain(t("slack.moved_to_dm", inv.lang), inv.lang))


def _stop_in_words(inv: Invocation, tokens: list[str]) -> bool:
    """`stop` followed by words the free words read (`stop the reminders please`, `stop reminding me`) rather than a
    tracked instance's name: those words, not a stop of an instance named "the"."""
    from bot.state.rentals import Rentals

    if len(tokens) < 2 or free_words(" ".join(tokens)) is None:
        return False
    return Rentals(inv.deps.store).instance(inv.team, tokens[1]) is None


def _sentence(tokens: list[str]) -> bool:
    """Words that say something rather than name a sub-command: three words or more, or four Chinese characters
    and more in one (`帮我看看`, `用昇腾910B训练一个7B模型要多久`). They were "unknown sub-command 'how'"."""
    return len(tokens) >= 3 or (has_han(tokens[0]) and len(tokens[0]) >= 4)


def _near(word: str) -> str | None:
    """The sub-command a misspelt word most likely meant, if one is close."""
    found = difflib.get_close_matches(word.lower(), list(SUBCOMMANDS), n=1, cutoff=0.7)
    return found[0] if found else None
