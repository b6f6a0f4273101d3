"""The TLS context every HTTP client of the bot uses, built once per process.

httpx builds a fresh context for each client it makes (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR where
set): 20-50 ms of CPU each time, paid again by every download, balance read and price refresh that made its own
client. An SSLContext is safe to share between clients and threads."""

from __future__ import annotations

import functools
import ssl


@functools.cache
def shared_context() -> ssl.SSLContext:
    import httpx  # on first use: a command that makes no request does not load it (bot/price_book.py)

    return httpx.create_ssl_context()
