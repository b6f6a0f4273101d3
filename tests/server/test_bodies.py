"""read_body's deadline is the body's alone: the socket's own timeout is given back for the reply."""

from __future__ import annotations

import io
import socket

import pytest

from bot.web.bodies import SOCKET_KEY, BodyTimeout, read_body


def test_the_socket_timeout_is_given_back_after_the_body_and_after_a_timeout() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.settimeout(60.0)
        theirs.sendall(b"hello")
        stream = ours.makefile("rb")
        assert read_body({"CONTENT_LENGTH": "5", "wsgi.input": stream, SOCKET_KEY: ours}, 2.0) == b"hello"
        assert ours.gettimeout() == 60.0
        with pytest.raises(BodyTimeout):  # promised 5 bytes, none come
            read_body({"CONTENT_LENGTH": "5", "wsgi.input": stream, SOCKET_KEY: ours}, 0.1)
        assert ours.gettimeout() == 60.0


def test_without_a_socket_the_stream_is_read_whole() -> None:
    assert read_body({"CONTENT_LENGTH": "3", "wsgi.input": io.BytesIO(b"abcdef")}, 1.0) == b"abc"
