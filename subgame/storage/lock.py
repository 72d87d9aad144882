"""One run at a time per computation: a lock object inside the computation's group.

The lock records who holds it (host, pid) and a heartbeat that a background thread
refreshes. A lock is stale when its holder is provably gone: same host and the pid is not
alive, or the heartbeat is older than ``STALE_AFTER`` seconds (holders on other hosts).
A stale lock is taken over; a live one refuses the run with a clear message.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid

import fsspec

from subgame.errors import InvalidInput, StoreLocked

HEARTBEAT_EVERY = 30.0
STALE_AFTER = 300.0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class StoreLock:
    def __init__(self, url: str, group_path: str):
        self.fs, root = fsspec.core.url_to_fs(url)
        self.path = f"{root.rstrip('/')}/{group_path}/.lock"
        self.token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _record(self) -> dict:
        return {"host": socket.gethostname(), "pid": os.getpid(), "token": self.token,
                "heartbeat": time.time()}

    def _write(self, exclusive: bool) -> None:
        data = json.dumps(self._record()).encode()
        if exclusive and self.fs.protocol in ("file", ("file", "local")):
            # O_EXCL makes creation atomic on local disks: two starters cannot both win.
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        else:
            self.fs.pipe_file(self.path, data)

    def holder(self) -> dict | None:
        try:
            return json.loads(self.fs.cat_file(self.path))
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError):
            return {}  # torn write by a killed holder: treat as stale

    @staticmethod
    def is_stale(record: dict) -> bool:
        if not record:
            return True
        if record.get("host") == socket.gethostname():
            return not _pid_alive(int(record.get("pid", -1)))
        return time.time() - float(record.get("heartbeat", 0)) > STALE_AFTER

    def check(self) -> dict | None:
        """Raise StoreLocked if a live run holds the lock; return a stale holder's record."""
        record = self.holder()
        if record is not None and not self.is_stale(record):
            raise StoreLocked(
                f"another run (host {record.get('host')}, pid {record.get('pid')}) is "
                f"computing this; wait for it or stop it (its lock: {self.path})")
        return record

    def acquire(self) -> None:
        try:
            self.fs.makedirs(self.path.rsplit("/", 1)[0], exist_ok=True)
        except OSError as exc:
            raise InvalidInput(f"cannot create the store's lock {self.path}: "
                               f"{exc.strerror or exc}") from exc
        if self.check() is not None:
            self.fs.rm_file(self.path)  # stale: its holder is gone
        try:
            self._write(exclusive=True)
        except FileExistsError as exc:
            raise StoreLocked(f"another run took the lock {self.path} just now") from exc
        if self.holder().get("token") != self.token:
            raise StoreLocked(f"another run took the lock {self.path} just now")
        self._thread = threading.Thread(target=self._beat, daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_EVERY):
            self._write(exclusive=False)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        record = self.holder()
        if record and record.get("token") == self.token:
            self.fs.rm_file(self.path)

    def __enter__(self) -> "StoreLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
