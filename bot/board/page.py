"""GET /board/<token> (HTML) and /board/<token>.json: the board a signed link names, served by `serve`.

Nothing is shown without a link this state signed: none is 401, an expired one 401 with a page saying to ask the
bot for a new link, a forged or changed one 403; none of these holds a figure. A link names one team (and maybe
one channel): the page reads that team's items only. The page is rendered on the server (jinja2, every value
escaped), has no script, and is sent with a Content-Security-Policy that allows none, `nosniff`, no referrer
and no caching. serve logs no request line, so the token is never in its log."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from bot.deps import Deps
from bot.text import Lang, t
from bot.text.format import money, show
from bot.web.answer import StartResponse, reply
from bot.web.board_links import PATH, Expired, Forged, read_token

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
CSP += "frame-ancestors 'none'"  # no script at all; the page's own <style> only
HEADERS = [
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
]


@cache
def _template() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    folder = Path(__file__).parent / "templates"
    escaped = select_autoescape(default=True, default_for_string=True)
    env = Environment(loader=FileSystemLoader(folder), autoescape=escaped)
    return env.get_template("board.html.j2")


def _answer(start_response: StartResponse, status: int, body: bytes, kind: str) -> list[bytes]:
    return reply(start_response, status, body, kind, HEADERS)


def _notice(start_response: StartResponse, status: int, title: str, text: str, lang: Lang) -> list[bytes]:
    """A page with no figure: why the board is not shown, and how to get a link that shows it."""
    from html import escape

    page = (
        f'<!doctype html><html lang="{"zh-CN" if lang is Lang.ZH else "en"}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" '
        f'content="no-referrer"><title>{escape(title)}</title></head><body><h1>{escape(title)}</h1>'
        f"<p>{escape(text)}</p></body></html>"
    )
    return _answer(start_response, status, page.encode(), "text/html; charset=utf-8")


FRESH = timedelta(seconds=60)  # a board's figures are shown again for this long, with the moment they are of
FORGOTTEN = timedelta(minutes=10)  # kept figures older than this are dropped, so the boards held stay few


class Kept:
    """Each board's figures, computed once for everyone who opens it within FRESH of their moment: a team of
    thousands of instances takes seconds to add up (bench/board.py), and a digest's link is opened by many people
    at once. Two who open it together wait for one computation."""

    def __init__(self) -> None:
        self._boards: dict[tuple[str, str | None], Any] = {}
        self._locks: dict[tuple[str, str | None], threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, team: str, channel: str | None, now: datetime, compute: Callable[[], Any]) -> Any:
        key = (team, channel)
        with self._guard:
            for old in [k for k, made in self._boards.items() if made.now + FORGOTTEN <= now and k != key]:
                del self._boards[old]  # a board nobody opened for a while is not held
                self._locks.pop(old, None)
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            found = self._boards.get(key)
            if found is None or not (found.now <= now < found.now + FRESH):
                found = self._boards[key] = compute()
            return found


def board_app(deps: Deps, names: Callable[[str, set[str]], dict[str, str]]) -> Callable[..., Iterable[bytes]]:
    """The WSGI app for paths under /board/. `names`: how each owner id reads (the team's chat says it)."""

    kept = Kept()

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        from bot.board.figures import board

        default = deps.settings.files.lang
        token = str(environ.get("PATH_INFO") or "")[len(PATH) :]
        as_json = token.endswith(".json")
        token = token.removesuffix(".json")
        asked = (parse_qs(str(environ.get("QUERY_STRING") or "")).get("lang") or [""])[0]
        if asked and asked not in ("zh", "en"):
            said = t("board.bad_lang", default, lang=asked[:20])
            return _answer(start_response, 400, said.encode(), "text/plain; charset=utf-8")
        lang = Lang(asked) if asked else None
        shown = lang or default
        if not token:
            title, text = t("board.title", shown), t("board.missing", shown)
            return _notice(start_response, 401, title, text, shown)
        now = deps.now()
        try:
            link = read_token(deps.store, token, now)
        except Expired:
            title, text = t("board.expired_title", shown), t("board.expired", shown)
            return _notice(start_response, 401, title, text, shown)
        except Forged:
            title, text = t("board.forged_title", shown), t("board.forged", shown)
            return _notice(start_response, 403, title, text, shown)
        made = kept.get(link.team, link.channel, now, lambda: board(deps, link.team, link.channel, now, names))
        made = replace(made, lang=lang) if lang is not None else made
        if as_json:
            body = json.dumps(made.as_json() | {"expires_at": link.expires_at.isoformat()}, ensure_ascii=False)
            return _answer(start_response, 200, body.encode(), "application/json; charset=utf-8")
        return _answer(start_response, 200, render(made, link.expires_at).encode(), "text/html; charset=utf-8")

    return app


def render(made: Any, expires: datetime) -> str:
    """The board's HTML in its language, times in its zone."""
    from bot.board.chart import HEIGHT, WIDTH, bars

    lang, zone = made.lang, made.zone

    def when(moment: datetime) -> str:
        return f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"

    def when_text(text: str | None) -> str:
        return when(datetime.fromisoformat(text)) if text else "-"

    def amounts(by_currency: dict[str, float]) -> str:
        return " + ".join(money(a, c) for c, a in sorted(by_currency.items())) or money(0, made.currency)

    scope = t("board.page_channel", lang, channel=made.channel) if made.channel else t("board.page_team", lang)
    return str(
        _template().render(
            board=made,
            expires=expires,
            scope=scope,
            html_lang="zh-CN" if lang is Lang.ZH else "en",
            other_lang="en" if lang is Lang.ZH else "zh",
            periods=[("board.week", made.week), ("board.month", made.month)],
            bars=bars(made.days),
            width=WIDTH,
            height=HEIGHT,
            t=lambda key, **params: t(key, lang, **params),
            money=money,
            number=lambda v: show(round(v, 1)),
            amounts=amounts,
            when=when,
            when_text=when_text,
            person=lambda user: made.names.get(user, user) if user else "",
        )
    )


NAMES_KEPT_S = 3600.0  # how long an owner's name, as the chat said it, is shown without asking again


def remembered(
    names: Callable[[str, set[str]], dict[str, str]], clock: Callable[[], float]
) -> Callable[[str, set[str]], dict[str, str]]:
    """`names`, each person asked of the chat once an hour at most: a page shows in milliseconds, not after a call
    to Slack's users.info or Feishu's contacts per owner."""
    kept: dict[tuple[str, str], tuple[float, str]] = {}

    def lookup(team: str, users: set[str]) -> dict[str, str]:
        now = clock()
        fresh = {u for u in users if (team, u) in kept and now - kept[(team, u)][0] < NAMES_KEPT_S}
        asked = names(team, users - fresh) if users - fresh else {}
        for user, name in asked.items():
            kept[(team, user)] = (now, name)
        return {u: kept[(team, u)][1] if u in fresh else asked.get(u, u) for u in users}

    return lookup
