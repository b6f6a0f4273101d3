"""The price sources' TLS context: built once per process, and still the one httpx would build, so a team
behind a proxy with its own CA (SSL_CERT_FILE) is trusted as before."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi
import pytest

from bot.price_book import _tls


def test_ssl_cert_file_names_the_authorities_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = Path(certifi.where()).read_text()
    one = bundle[bundle.index("-----BEGIN CERTIFICATE-----") :]
    one = one[: one.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")] + "\n"
    (tmp_path / "team-ca.pem").write_text(one)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "team-ca.pem"))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = _tls.__wrapped__()  # built afresh (the process's is cached)
    assert isinstance(context, ssl.SSLContext) and len(context.get_ca_certs()) == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    assert len(_tls.__wrapped__().get_ca_certs()) == bundle.count("-----BEGIN CERTIFICATE-----")


def test_the_context_is_made_once_a_process() -> None:
    assert _tls() is _tls()
