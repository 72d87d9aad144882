"""A finished store as a release: what `subgame publish` adds, and checking a copy against it.

Publishing writes, at the store's root, beside ``zarr.json`` (whose consolidated metadata
it refreshes, so that xarray opens any group in one read):

- ``PROVENANCE.json``: per computation, what the store recorded of its runs (its options
  and identity, the family's kernel version where it has one, each step's wall and CPU
  seconds and when it finished), and who published it (subgame's version and source
  commit, the machine, its operating system kernel, Python, the date);
- ``CITATION.cff``: how to cite the data (Citation File Format 1.2.0);
- ``MANIFEST.json``, last: the size and SHA-256 of every other file of the store.

A copy (a local folder or any fsspec URL: a static HTTP server, an object store) is checked
by hashing every file the manifest lists and listing the copy for files it does not; a run
lock (``.lock``, `subgame.storage.lock`) is the machine's, not the release's, and is left
out of both.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
import subprocess
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fsspec

from subgame.errors import InvalidInput, NotComputed
from subgame.storage.location import publish_metadata, reaching

MANIFEST = "MANIFEST.json"
PROVENANCE = "PROVENANCE.json"
CITATION = "CITATION.cff"
LOCK_NAME = ".lock"
READ_BLOCK = 8 << 20
PARALLEL_READS = 8  # files hashed at once: over HTTP each is a round trip or more


@dataclass(frozen=True)
class Mismatch:
    """One file of a copy that is not as its manifest says."""

    path: str
    problem: str

    def describe(self) -> str:
        return f"{self.path}: {self.problem}"


def _files(url: str) -> tuple[Any, str, dict[str, str]]:
    """The store's file system, its root, and relative path -> full path of every file
    (an HTTP server's listing gives links, percent-encoded: named here as stored)."""
    with reaching(url):
        fs, root = fsspec.core.url_to_fs(url)
        root = root.rstrip("/")
        found = fs.find(root)
    over_http = fs.protocol in ("http", "https") or "http" in fs.protocol
    files = {}
    for full in found:
        relative = full[len(root) + 1:]
        if over_http:
            relative = urllib.parse.unquote(relative)
        if relative and relative.rsplit("/", 1)[-1] != LOCK_NAME:
            files[relative] = full
    return fs, root, files


def _digest(fs: Any, path: str) -> tuple[int, str]:
    """Size and SHA-256 of one file, read in blocks."""
    sha, size = hashlib.sha256(), 0
    with fs.open(path, "rb", block_size=READ_BLOCK) as stream:
        while block := stream.read(READ_BLOCK):
            sha.update(block)
            size += len(block)
    return size, sha.hexdigest()


def _digests(fs: Any, paths: dict[str, str]) -> dict[str, tuple[int, str] | None]:
    """Relative path -> (size, SHA-256), None for a file that cannot be read."""
    def one(full: str) -> tuple[int, str] | None:
        try:
            return _digest(fs, full)
        except (FileNotFoundError, OSError):
            return None

    with ThreadPoolExecutor(PARALLEL_READS) as pool:
        return dict(zip(paths, pool.map(one, paths.values())))


def source_commit() -> str | None:
    """The git commit of subgame's source tree, None where it is not a git checkout."""
    folder = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def provenance(url: str) -> dict[str, Any]:
    """What the store recorded of each computation, and who publishes it (see the module)."""
    from subgame import __version__
    from subgame.storage.computation import find_computations

    computations = {}
    for store in find_computations(url):
        attrs = dict(store.group.attrs)
        if not attrs.get("complete"):
            raise NotComputed(f"{store.group_path} is not finished: run it to its end "
                              f"before publishing (`subgame status --store {url}`)")
        done = attrs.get("steps_done") or {}
        finished = [step["finished_at"] for step in done.values() if "finished_at" in step]
        computations[store.group_path] = {
            "family": attrs.get("family"), "options": attrs.get("identity"),
            "extent": attrs.get("extent"),
            "kernel_version": (attrs.get("identity") or {}).get("kernel_version"),
            "steps": len(attrs.get("steps") or []),
            "wall_seconds": round(sum(step.get("seconds", 0) for step in done.values()), 3),
            "cpu_seconds": round(sum(step.get("cpu_seconds", 0) for step in done.values()), 3),
            "cpu_seconds_in_shards": round(sum(
                (step.get("computed") or {}).get("shard_cpu_seconds", 0)
                for step in done.values()), 3),
            "first_step_finished": _date(min(finished)) if finished else None,
            "last_step_finished": _date(max(finished)) if finished else None}
    if not computations:
        raise NotComputed(f"{url!r} holds no computation to publish")
    return {"computations": computations, "published": {
        "subgame": __version__, "commit": source_commit(), "machine": platform.node(),
        "architecture": platform.machine(), "system": platform.system(),
        "kernel": platform.release(), "python": platform.python_version(),
        "date": _date(datetime.datetime.now(datetime.timezone.utc).timestamp())}}


def _date(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(
        timespec="seconds")


def citation(title: str, authors: list[str], record: dict[str, Any]) -> str:
    """CITATION.cff (Citation File Format 1.2.0) for the published data."""
    lines = ["cff-version: 1.2.0",
             "message: If you use these results, please cite them as below.",
             "type: dataset", f"title: {json.dumps(title)}", "authors:"]
    lines += [f"  - name: {json.dumps(author)}" for author in authors]
    lines += [f"version: {json.dumps(record['published']['subgame'])}",
              f"date-released: {record['published']['date'][:10]}",
              "keywords:"]
    lines += [f"  - {json.dumps(path)}" for path in record["computations"]]
    lines += ["references:", "  - type: software", '    title: "subgame"',
              "    authors:", '      - name: "subgame contributors"',
              f"    version: {json.dumps(record['published']['subgame'])}"]
    if record["published"]["commit"]:
        lines.append(f"    commit: {json.dumps(record['published']['commit'])}")
    return "\n".join(lines) + "\n"


def publish(url: str, title: str | None, authors: list[str]) -> dict[str, Any]:
    """Write the release files of a finished store (see the module); returns the manifest's
    summary: files and bytes."""
    record = provenance(url)  # refuses an unfinished store before writing anything
    if any(not author.strip() for author in authors):
        raise InvalidInput("--author must name someone")
    title = title or "subgame results: " + ", ".join(record["computations"])
    publish_metadata(url)
    fs, root, _ = _files(url)
    fs.pipe_file(f"{root}/{PROVENANCE}", (json.dumps(record, indent=2) + "\n").encode())
    fs.pipe_file(f"{root}/{CITATION}",
                 citation(title, authors or ["subgame contributors"], record).encode())
    fs, root, files = _files(url)
    files.pop(MANIFEST, None)
    digests = _digests(fs, files)
    manifest = {"format": 1, "algorithm": "sha256",
                "files": {path: {"size": size, "sha256": sha}
                          for path, (size, sha) in sorted(digests.items())}}
    fs.pipe_file(f"{root}/{MANIFEST}", (json.dumps(manifest, indent=1) + "\n").encode())
    return {"store": url, "files": len(digests),
            "bytes": sum(size for size, _ in digests.values()),
            "written": [PROVENANCE, CITATION, MANIFEST]}


def read_manifest(url: str) -> dict[str, Any] | None:
    """The store's manifest, None where it has none."""
    with reaching(url):
        fs, root = fsspec.core.url_to_fs(url)
        try:
            text = fs.cat_file(f"{root.rstrip('/')}/{MANIFEST}")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
    try:
        manifest = json.loads(text)
        files = manifest["files"]
        if not all(isinstance(entry["size"], int) and isinstance(entry["sha256"], str)
                   for entry in files.values()):
            raise TypeError
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InvalidInput(f"the manifest of {url!r} ({MANIFEST}) is unreadable") from None
    return manifest


def check_manifest(url: str, manifest: dict[str, Any]) -> list[Mismatch]:
    """Every file of the copy at ``url`` that is not as ``manifest`` says: missing, of
    another size or content, or not listed in it."""
    fs, root, found = _files(url)
    found.pop(MANIFEST, None)
    listed = manifest["files"]
    paths = {path: found.get(path, f"{root}/{path}") for path in listed}
    digests = _digests(fs, paths)
    mismatches = []
    for path, entry in sorted(listed.items()):
        got = digests[path]
        if got is None:
            mismatches.append(Mismatch(path, "missing"))
        elif got[0] != entry["size"]:
            mismatches.append(Mismatch(path, f"{got[0]} bytes, the manifest says "
                                             f"{entry['size']}"))
        elif got[1] != entry["sha256"]:
            mismatches.append(Mismatch(path, "its SHA-256 is not the manifest's (same size: "
                                             "its bytes changed)"))
    mismatches += [Mismatch(path, "not in the manifest") for path in sorted(found)
                   if path not in listed]
    return mismatches
