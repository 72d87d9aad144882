"""One message a read, as the contest's server frames them.

The contest's server and entries write each message whole, with no terminator (a trailing
NUL is allowed and dropped), and read it with one read of at most 512 characters; every
message but ``alive`` answers one from the other side, so a read never holds two.
"""

from __future__ import annotations

import socket

from subgame.errors import InvalidInput

READ_SIZE = 512


class PeerGone(InvalidInput):
    """The other side closed the connection or did not answer in time."""


class Wire:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send(self, text: str) -> None:
        try:
            self.sock.sendall(text.encode("ascii"))
        except OSError as exc:
            raise PeerGone(f"the peer closed the connection ({exc.strerror or exc})") from None

    def receive(self) -> str:
        try:
            data = self.sock.recv(READ_SIZE)
        except TimeoutError:
            raise PeerGone(f"no message within {self.sock.gettimeout():g} s") from None
        except OSError as exc:
            raise PeerGone(f"the peer closed the connection ({exc.strerror or exc})") from None
        if not data:
            raise PeerGone("the peer closed the connection")
        return data.decode("ascii", errors="replace").rstrip("\0")

    def close(self) -> None:
        self.sock.close()
