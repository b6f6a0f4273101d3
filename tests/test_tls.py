"""The TLS context of every HTTP client of the bot: built once per process, and still the one httpx would
build, so a team behind a proxy with its own CA (SSL_CERT_FILE) is trusted as before."""

from __future__ import annotations

import ast
import ssl
from pathlib import Path

import certifi
import pytest

from bot.tls import shared_context
from tests.support.sources import parsed, sources


def test_ssl_cert_file_names_the_authorities_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = Path(certifi.where()).read_text()
    one = bundle[bundle.index("-----BEGIN CERTIFICATE-----") :]
    one = one[: one.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")] + "\n"
    (tmp_path / "team-ca.pem").write_text(one)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "team-ca.pem"))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = shared_context.__wrapped__()  # built afresh (the process's is cached)
    assert isinstance(context, ssl.SSLContext) and len(context.get_ca_certs()) == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    assert len(shared_context.__wrapped__().get_ca_certs()) == bundle.count("-----BEGIN CERTIFICATE-----")


def test_the_context_is_made_once_a_process() -> None:
    assert shared_context() is shared_context()


def test_every_client_the_bot_makes_takes_the_shared_context() -> None:
    """A client made without it builds its own context again (20-50 ms of CPU, each download and each read)."""
    root = Path(__file__).resolve().parents[1] / "bot"
    made = []
    for path in sources("bot"):
        for node in ast.walk(parsed(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "httpx"
                and node.func.attr in ("Client", "stream", "get", "post", "request")
            ):
                made.append((f"{path.relative_to(root)}:{node.lineno}", {k.arg for k in node.keywords}))
    assert made, "no httpx client found: the test looks in the wrong place"
    assert [where for where, keywords in made if "verify" not in keywords] == []


def test_the_price_client_is_made_on_its_first_request_once_and_closed_with_its_block() -> None:
    """The price sources' client (bot/price_book.py) is made when a source first asks, so a quote or a list never
    loads httpx; it is the same client for every request, sends the bot's User-Agent, and is closed by `with`."""
    from concurrent.futures import ThreadPoolExecutor

    from bot.price_book import USER_AGENT, http_client
    from bot.settings import Settings
    from tests.support.servers import serve

    with serve({"/p": (200, {"Content-Type": "application/json"}, b"{}")}) as server:
        with http_client(Settings()) as client:
            with ThreadPoolExecutor(4) as pool:  # four threads asking first at once still make one client
                made = set(pool.map(lambda _: id(client.headers), range(8)))  # each client has its own headers
                answers = list(pool.map(lambda _: client.get(f"{server.base_url}/p").status_code, range(8)))
            assert len(made) == 1 and answers == [200] * 8
            assert {r.headers["User-Agent"] for r in server.hits("/p")} == {USER_AGENT}
        with pytest.raises(RuntimeError, match="closed"):
            client.get(f"{server.base_url}/p")
