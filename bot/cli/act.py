"""`gpu-advise act CHANNEL off|notify|stop [--grace 4h] [--project P]`: a channel's policy for idle instances
(the terminal is the operator's: no admin check); `gpu-advise actions [--json]`: what was warned, stopped,
cancelled or failed, newest first (the audit); `gpu-advise actions NAME`: one instance's."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from bot.cli.common import LangOpt, fail, load_settings, more_than_taken, say
from bot.cli.rentals import JsonOpt, TeamOpt, checked_channel, chosen_team, open_rentals


def act(
    channel: Annotated[
        str,
        typer.Argument(
            help="The channel: a Slack channel id (C0123), a Feishu group (oc_…), a DingTalk or WeCom chat."
        ),
    ],
    mode: Annotated[str, typer.Argument(help="off, notify or stop.")],
    keyed: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[grace=4h] [project=NAME]", help="chat's keys, as --grace and --project.", show_default=False
        ),
    ] = None,
    grace: Annotated[
        str | None,
        typer.Option("--grace", help="How long after the warning an idle instance is stopped: 1m to 7d (default 4h)."),
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Only this project's instances in the channel.")
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
) -> None:
    """Set what a channel (or one project in it) does about idle instances."""
    from bot.actions.policy import PolicyError, read_grace, read_mode, said
    from bot.state.actions import Actions
    from bot.state.rentals import NAME
    from bot.text import t

    settings = load_settings(lang=lang)
    grace, project = _keyed(keyed or [], grace, project, settings.files.lang)  # `stop grace=2h`, as chat says it
    try:
        chosen, span = read_mode(mode, settings.files.lang), read_grace(grace, settings.files.lang)
    except PolicyError as exc:
        raise fail(str(exc).replace("grace:", "--grace:")) from None
    if project is not None and not NAME.fullmatch(project):
        raise fail(f"--project: {t('error.rental.bad_name', settings.files.lang, name=project)}")
    rentals = open_rentals(settings)
    team, store = chosen_team(settings, team, rentals), rentals.store
    channel = checked_channel(settings, team, channel, "CHANNEL")
    actions = Actions(store)
    actions.set_policy(team, channel, chosen, span, project=project or "", by="terminal", now=store.now())
    policy = actions.policy(team, channel, project)
    sys.stdout.write(said(policy, channel, settings.files.lang).replace("*", "") + "\n")
    _tell(settings, rentals, team, channel, policy)


def _keyed(words: list[str], grace: str | None, project: str | None, lang: Any) -> tuple[str | None, str | None]:
    """--grace and --project, or chat's `grace=2h` and `project=llm` (`宽限=`, `项目=`) among the words; exit 2 for one
    given twice, a key that is neither, or a word without a key."""
    from bot.cli.keyed_words import keyed_words

    given: dict[str, Any] = {"grace": grace, "project": project}
    left = keyed_words(words, lang, given, _KEYS, "act")
    if left:
        raise more_than_taken(left, lang, "act")
    return given["grace"], given["project"]


_KEYS = {"grace": "grace", "宽限": "grace", "宽限期": "grace", "project": "project", "项目": "project"}


def _tell(settings: Any, rentals: Any, team: str, channel: str, policy: Any) -> None:
    """Everyone in the channel is told what will happen to its idle instances, as when it is set in the chat,
    through the channel's chat when the terminal has its settings (else serve's digest says it)."""
    from bot.actions.policy import said
    from bot.chat.port import ChatError
    from bot.cli.reach import teller_or_none
    from bot.cli.remind import channel_lang
    from bot.state.schedules import Schedules
    from bot.text import t
    from bot.text.spans import channel_ref

    teller = teller_or_none(settings, rentals.store, team)
    if teller is None:
        return
    lang = channel_lang(Schedules(rentals.store, settings.digest.default_schedule()), team)(channel)
    try:
        teller.say(channel, said(policy, channel_ref(channel), lang))
    except ChatError as exc:
        say(t("cli.report_not_posted", settings.files.lang, channel=channel, error=exc.code))
        return
    say(t("cli.act_told", settings.files.lang, channel=channel))


def actions_list(
    name: Annotated[str | None, typer.Argument(help="Only this instance's (released or not).")] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What was warned, stopped, cancelled or failed, newest first."""
    from bot.actions.outcome import outcome
    from bot.state.actions import Actions
    from bot.text import t

    settings = load_settings(lang=lang)
    team = chosen_team(settings, team)
    rentals = open_rentals(settings)
    if name is not None and rentals.instance(team, name) is None:
        raise fail(t("error.rental.no_instance", settings.files.lang, name=name))
    rows = Actions(rentals.store).history(team, name=name)
    out = [
        {
            "at": (w.decided_at or w.requested_at or w.warned_at).isoformat(),
            "item": name,
            "kind": "stop",
            "result": w.status,
            "verified": outcome(w, rentals.by_id(w.instance_id), settings.files.lang),
            "detail": w.detail,
            "warned_at": w.warned_at.isoformat(),
            "deadline": w.deadline.isoformat(),
            "channel": w.channel,
            "figures": w.figures,
        }
        for w, name in rows
    ]
    if as_json:
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    if not out:
        none = t("cli.actions_none_for", settings.files.lang, name=name) if name else None
        sys.stdout.write((none or t("cli.actions_none", settings.files.lang, team=team)) + "\n")
    for row in out:
        verified = row["verified"]
        said = verified["outcome"] if isinstance(verified, dict) else row["result"]
        sys.stdout.write(f"{row['at']}\t{row['item']}\t{row['kind']}\t{said}\t{row['detail'] or ''}\n")
