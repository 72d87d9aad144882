"""subgame's standard-game players against the Speed Clue contest's entries, in the
contest's own server (sadakatsu/SpeedClueContest, built outside the project).

    python bench/clue_field.py --contest /work/ext/speedclue --games-per-order 8 \
        --entrants subgame-exact,SpockAI,InferencePlayer [--out DIR]
    python bench/clue_field.py --contest /work/ext/speedclue --players 6 --out DIR \
        --entrants subgame-exact,SpockAI,InferencePlayer,SimpleCluedoPlayer,subgame-core,RandomAI
    python bench/clue_field.py --transcripts DIR/matchTranscripts.txt   # tabulate a run again
    python bench/clue_field.py --host-results results.jsonl   # a `subgame clue host --store` file

``--contest`` is a clone of the contest's repository in which ``build.sh`` (kept beside it,
outside the project) compiled the server into build/core, SpockAI into build/spock and
Peter Taylor's players into build/taylor with Debian's OpenJDK.  The contest's server
(``ContestServer launchFile gamesPerPermutation``) plays every combination of 3 to
min(6, n) of the n entrants, every seat order of each, ``--games-per-order`` games each,
and writes matchTranscripts.txt when it ends.  With ``--players P`` the games are those of
exactly P players only (every combination of P of the entrants, every seat order), played
by bench/ContestOrders.java through the contest's own launcher, protocol and referee (its
EntryScript, Player and Match classes), which appends each game to matchTranscripts.txt as
it ends: a rerun with the same ``--out`` goes on after the last recorded game.  This script
prints, per player count, every entrant's games, wins and win share with its 95 % Wilson
interval, the baseline share 1/p, and every subgame player's share against SpockAI's (the
best first): their ratio, and the paired difference of wins over the games both played,
with its 95 % normal interval.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from subgame.intervals import wilson  # noqa: E402

SUBGAME = ("subgame-exact", "subgame-core", "subgame-exact-0.5", "subgame-random")


def launch_line(name: str, contest: Path, out: Path) -> str:
    build = contest / "build"
    if name in SUBGAME:
        return f"subgame clue connect --identifier {{{name}}} --port %% --player {name[8:]}"
    java = {
        "SpockAI": f"-cp {build}/spock:{build}/core com.sadakatsu.clue.ai.SpockAI",
        "RandomAI": f"-cp {build}/core com.sadakatsu.clue.ai.RandomAI",
        "InferencePlayer": f"-Djava.io.tmpdir={out} -cp {build}/taylor "
                           "org.cheddarmonk.cluedoai.InferencePlayer",
        "SimpleCluedoPlayer": f"-Djava.io.tmpdir={out} -cp {build}/taylor "
                              "org.cheddarmonk.cluedoai.SimpleCluedoPlayer",
    }
    if name in java:
        return f"java {java[name]} {{{name}}} %%"
    if name == "ray-01":
        return f"python3 {contest}/entries/ray/ai01.py {{{name}}} %%"
    raise SystemExit(f"unknown entrant {name!r}")


def read_transcripts(path: Path) -> list[tuple[int, int, list[str]]]:
    """(players, winner's seat, identifiers by seat) per game: a transcript line is
    count, winner, rounds, then identifier, suspects, weapons, rooms for each seat."""
    games = []
    for line in path.read_text().splitlines():
        fields = line.split(",")
        count, winner = int(fields[0]), int(fields[1])
        games.append((count, winner, [fields[3 + 4 * i] for i in range(count)]))
    return games


def read_host_results(path: Path) -> list[tuple[int, int, list[str]]]:
    """The same, from the results file of `subgame clue host --store` (its header first)."""
    games = []
    for line in path.read_text().splitlines()[1:]:
        record = json.loads(line)
        games.append((len(record["order"]), record["winner"], record["order"]))
    return games


def table(games, count: int) -> None:
    rows = [(w, names) for c, w, names in games if c == count]
    if not rows:
        return
    entrants = sorted({n for _, names in rows for n in names})
    print(f"\n{count} players: {len(rows)} games (baseline share 1/{count} = {1 / count:.3f})")
    print(f"  {'entrant':<20} {'games':>6} {'wins':>6}  win share (95 %)")
    shares = {}
    for name in entrants:
        played = [(w, names) for w, names in rows if name in names]
        wins = sum(names[w] == name for w, names in played)
        low, high = wilson(wins, len(played))
        shares[name] = wins / len(played)
        print(f"  {name:<20} {len(played):>6} {wins:>6}  {shares[name]:.3f} ({low:.3f}-{high:.3f})")
    ours = sorted((n for n in entrants if n in SUBGAME), key=shares.get, reverse=True)
    for player in ours if "SpockAI" in entrants else []:
        both = [(w, names) for w, names in rows if player in names and "SpockAI" in names]
        if not both:
            continue
        d = [(names[w] == player) - (names[w] == "SpockAI") for w, names in both]
        mean = sum(d) / len(d)
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(len(d) - 1, 1))
        half = 1.96 * sd / math.sqrt(len(d))
        ratio = shares[player] / shares["SpockAI"] if shares["SpockAI"] else math.inf
        print(f"  {player} / SpockAI share: {ratio:.2f}x; paired difference of wins over "
              f"{len(d)} games: {mean:+.3f} ({mean - half:+.3f} to {mean + half:+.3f})")


def wait(process: subprocess.Popen, seconds: float) -> int | None:
    """The process's exit status, or None if it still runs after the given seconds."""
    try:
        return process.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contest", type=Path, help="the contest's clone, built by build.sh")
    parser.add_argument("--entrants", default="subgame-exact,SpockAI,InferencePlayer")
    parser.add_argument("--games-per-order", type=int, default=1)
    parser.add_argument("--players", type=int, choices=range(3, 7),
                        help="play only games of this many players (resumable)")
    parser.add_argument("--out", type=Path, help="where the server writes (default: a temporary folder)")
    parser.add_argument("--transcripts", type=Path, help="tabulate this matchTranscripts.txt only")
    parser.add_argument("--host-results", type=Path, help="tabulate this `subgame clue host` file only")
    args = parser.parse_args()
    if args.host_results is not None:
        games = read_host_results(args.host_results)
        for count in range(3, 7):
            table(games, count)
        return
    if args.transcripts is None:
        if args.contest is None:
            raise SystemExit("--contest (or --transcripts) is needed")
        out = args.out or Path(tempfile.mkdtemp(prefix="clue-field-"))
        out.mkdir(parents=True, exist_ok=True)
        names = args.entrants.split(",")
        (out / "agents.txt").write_text(
            "".join(launch_line(n, args.contest.resolve(), out) + "\n" for n in names))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        started = time.perf_counter()
        core = str((args.contest / "build" / "core").resolve())
        if args.players is None:
            server = ["com.sadakatsu.clue.contestserver.ContestServer", "agents.txt"]
        else:
            server = [str(ROOT / "bench" / "ContestOrders.java"), "agents.txt", str(args.players)]
        args.transcripts = out / "matchTranscripts.txt"
        resumed = args.players is not None and args.transcripts.exists()
        before = len(read_transcripts(args.transcripts)) if resumed else 0
        run = subprocess.Popen(["java", "-cp", core, *server, str(args.games_per_order)],
                               cwd=out, env=env, stdout=subprocess.DEVNULL)
        total = None if args.players is None else (
            math.comb(len(names), args.players) * math.factorial(args.players)
            * args.games_per_order)
        while (status := wait(run, 60)) is None:
            if total is not None and args.transcripts.exists():
                print(f"{len(read_transcripts(args.transcripts))}/{total} games",
                      file=sys.stderr, flush=True)
        seconds = time.perf_counter() - started
        if args.players is None:
            print((out / "playerOutcomes.txt").read_text().strip())
        if status != 0:
            raise SystemExit(f"the contest's server ended with status {status}; results in {out}")
        games = len(read_transcripts(args.transcripts)) - before
        print(f"{games} games in {seconds:.0f} s ({seconds / max(games, 1):.1f} s a game); "
              f"results in {out}")
    games = read_transcripts(args.transcripts)
    for count in range(3, 7):
        table(games, count)


if __name__ == "__main__":
    main()
