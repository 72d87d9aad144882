"""One run at a time per computation: a lock object inside the computation's group.

On a local (or NFS-mounted) store the lock is the kernel's: an exclusive ``flock`` on the
file ``.lock``, which the kernel releases the moment its holder exits, however it exits.
There is no stale state to take over, so two starters can never both win; the file also
records who holds it (host, pid) for the refusal message.

On an object store (s3://, gs://) there is no such primitive: the lock file records its
holder and a heartbeat that a background thread refreshes, and a lock is stale when the
heartbeat is older than ``STALE_AFTER`` seconds (or its pid is gone on this host). Taking
over a stale object-store lock is not atomic (no exclusive create there); two runs started
in the same second against a stale lock could both proceed.
"""

from __future__ import annotations

import fcntl
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
        self.local = self.fs.protocol in ("file", ("file", "local"))
        self.token = uuid.uuid4().hex
        self._fd: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _record(self) -> bytes:
        return json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                           "token": self.token, "heartbeat": time.time()}).encode()

    def holder(self) -> dict | None:
        try:
            return json.loads(self.fs.cat_file(self.path))
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError):
            return {}  # torn write by a killed holder

    def _refuse(self, record: dict | None) -> StoreLocked:
        record = record or {}
        return StoreLocked(
            f"another run (host {record.get('host')}, pid {record.get('pid')}) is "
            f"computing this; wait for it or stop it (its lock: {self.path})")

    # -- local stores: the kernel's lock ------------------------------------------------
    def _try_flock(self) -> int | None:
        """An open descriptor holding the exclusive lock on the file the path names now,
        or None if a live process holds it."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)  # its holder unlinked it as we opened it: lock the new file

    # -- both ---------------------------------------------------------------------------
    @staticmethod
    def is_stale(record: dict) -> bool:
        """Object stores: the holder is provably gone (or silent for STALE_AFTER)."""
        if not record:
            return True
        if record.get("host") == socket.gethostname():
            return not _pid_alive(int(record.get("pid", -1)))
        return time.time() - float(record.get("heartbeat", 0)) > STALE_AFTER

    def check(self) -> None:
        """Raise StoreLocked if a live run holds the lock (read-only where it can be)."""
        if self.local:
            if not os.path.exists(self.path):
                return
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                return
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refuse(self.holder()) from None
            finally:
                os.close(fd)
            return
        record = self.holder()
        if record is not None and not self.is_stale(record):
            raise self._refuse(record)

    def acquire(self) -> None:
        try:
            self.fs.makedirs(self.path.rsplit("/", 1)[0], exist_ok=True)
        except OSError as exc:
            raise InvalidInput(f"cannot create the store's lock {self.path}: "
                               f"{exc.strerror or exc}") from exc
        if self.local:
            fd = self._try_flock()
            if fd is None:
                raise self._refuse(self.holder())
            os.ftruncate(fd, 0)
            os.write(fd, self._record())
            self._fd = fd
            return
        self.check()
        self.fs.pipe_file(self.path, self._record())
        if (self.holder() or {}).get("token") != self.token:
            raise StoreLocked(f"another run took the lock {self.path} just now")
        self._thread = threading.Thread(target=self._beat, daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_EVERY):
            self.fs.pipe_file(self.path, self._record())

    def release(self) -> None:
        if self._fd is not None:
            # Unlink while still holding it; a starter that opened the old file notices
            # (inode check) and locks a new one.
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            os.close(self._fd)
            self._fd = None
            return
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
