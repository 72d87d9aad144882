"""A Speed Clue tournament's results: one JSON line a game, and the win shares.

The file's first line names the tournament (the agents' identifiers and launch lines and
the seed); a rerun with the same tournament resumes after the last recorded game, another
tournament is refused (``ConfigurationClash``).  A line cut short by a kill is dropped on
reading, and its game is played again.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from subgame.errors import ConfigurationClash, InvalidInput
from subgame.intervals import wilson

from .host import Agent, GameRecord


class ResultFile:
    """``path`` None keeps the results in memory only."""

    def __init__(self, path: str | None, agents: list[Agent], seed: int):
        self.path = None if path is None else Path(path)
        self.header = {"speedclue": 1, "agents": [asdict(a) for a in agents], "seed": seed}
        self.records = self._read()

    def _read(self) -> list[GameRecord]:
        try:
            lines = self.path.read_text().splitlines() \
                if self.path is not None and self.path.exists() else []
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read the results {str(self.path)!r}: {exc}") from None
        if not lines:
            return []
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            raise InvalidInput(f"{self.path} is not a Speed Clue results file") from None
        if header != self.header:
            raise ConfigurationClash(f"{self.path} holds another tournament (agents "
                                     f"{[a['identifier'] for a in header.get('agents', [])]}, "
                                     f"seed {header.get('seed')}); give another --store")
        records = []
        for line in lines[1:]:
            try:
                records.append(GameRecord(**{**json.loads(line),
                                             "order": tuple(json.loads(line)["order"])}))
            except (json.JSONDecodeError, TypeError, KeyError):
                break   # the last line, cut short by a kill
        return records

    def start(self) -> None:
        """Write the header (or rewrite the file without a cut line)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(x) + "\n" for x in
                       [self.header, *({**asdict(r), "order": list(r.order)} for r in self.records)])
        self.path.write_text(text)

    def append(self, record: GameRecord) -> None:
        self.records.append(record)
        if self.path is None:
            return
        with self.path.open("a") as f:
            f.write(json.dumps({**asdict(record), "order": list(record.order)}) + "\n")
            f.flush()
            os.fsync(f.fileno())


def win_shares(records: list[GameRecord]) -> dict[str, Any]:
    """Games, and per agent its games, wins and win share with its 95 % Wilson interval."""
    agents = sorted({n for r in records for n in r.order})
    table = {}
    for name in agents:
        played = [r for r in records if name in r.order]
        wins = sum(r.order[r.winner] == name for r in played)
        low, high = wilson(wins, len(played))
        table[name] = {"games": len(played), "wins": wins,
                       "share": wins / len(played) if played else None,
                       "share_low": low, "share_high": high}
    return {"games": len(records), "agents": table}
