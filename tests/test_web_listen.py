"""The oracle's socket: every connection it accepts sends at once (Nagle's algorithm off),
so an answer's body never waits for the client's delayed ACK of its headers."""

from __future__ import annotations

import socket

import pytest

from subgame.errors import InvalidInput
from subgame.web.command import listen


def test_accepted_connections_have_nagle_off():
    with listen("127.0.0.1", 0) as listening:
        with socket.create_connection(listening.getsockname()):
            accepted, _ = listening.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_a_taken_port_is_refused_in_one_line():
    with listen("127.0.0.1", 0) as listening:
        with pytest.raises(InvalidInput, match=r"cannot listen on 127\.0\.0\.1:\d+"):
            listen("127.0.0.1", listening.getsockname()[1])
