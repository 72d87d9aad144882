"""Where the compiled lanes spend their time, loop by loop.

A process solves one shard of level j of N on the compiled lanes (values only) again and
again while ``perf record`` samples it; the machine code of ``lockstep._solve_games`` is
copied out of the process and disassembled, and every sample inside it is charged to the
innermost loop around it (a loop: the span of a backward branch).  Per loop the share of
all samples, its span, its instructions, how many use 512-bit registers (vectorised) and
the arithmetic it does, which tells the loops apart: the pivots' update is the vectorised
``vmulpd vsubpd`` loop, the payoff the scalar ``vcvtsi2sd`` one, the gathers of the pivot
column and row scalar loops of loads (docs/gops.md, "What limits the compiled lanes").

    python bench/lanes_profile.py [--cards 10] [--level 7] [--seconds 6] [--top 20]

Needs ``perf`` (Debian's linux-perf) and ``objdump`` (binutils); the process records
itself, so no privileges beyond perf_event_paranoid <= 2.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from subgame.families.gops.game import level_layout, level_zero, lockstep, solve_shard

CODE_BYTES = 0x30000  # more than the compiled function spans
GAMES = 150_000  # a shard's games, as bench/gops.py --lockstep times them
ARITHMETIC = ("vdiv", "vcvt", "vgather", "vmin", "vmax", "vcmp", "vpcmp", "vucomi", "vmul",
              "vsub", "vadd", "vblend", "call")


def shard(n_cards: int, level: int):
    """A closure solving the first decks of the level (values only) and the level's layout."""
    prev = level_zero()
    for j in range(1, level):
        layout = level_layout(n_cards, j)
        prev = solve_shard(layout, prev, 0, layout.n_p, False, False, kernel="lockstep").values
    layout = level_layout(n_cards, level)
    rows = max(1, min(layout.n_p, GAMES // (layout.n_patterns * level)))
    return lambda: solve_shard(layout, prev, 0, rows, False, False, kernel="lockstep")


def compiled_code(folder: Path) -> tuple[int, Path]:
    """The address of the compiled ``_solve_games`` and its disassembly, from this process."""
    function = lockstep._solve_games
    compiled = function.overloads[function.signatures[0]]
    start = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
    raw = folder / "code.bin"
    raw.write_bytes(ctypes.string_at(start, CODE_BYTES))
    listing = folder / "code.s"
    listing.write_text(subprocess.run(
        ["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={start:#x}",
         str(raw)], capture_output=True, text=True, check=True).stdout)
    return start, listing


def instructions(listing: Path, start: int) -> dict[int, tuple[str, str]]:
    """offset -> (mnemonic, operands)."""
    found = {}
    for line in listing.read_text().splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S+)\s*(.*)", line)
        if match:
            found[int(match.group(1), 16) - start] = (match.group(2), match.group(3))
    return found


def loops(code: dict[int, tuple[str, str]], start: int) -> list[tuple[int, int]]:
    """(first, last) offset of every backward jump's span."""
    spans = []
    for offset, (mnemonic, operands) in code.items():
        target = re.match(r"0x([0-9a-f]+)", operands)
        if mnemonic.startswith("j") and target:
            begin = int(target.group(1), 16) - start
            if 0 <= begin < offset:
                spans.append((begin, offset))
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10)
    parser.add_argument("--level", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    solve = shard(args.cards, args.level)
    solve()  # compiled and warm before anything is sampled
    folder = Path(tempfile.mkdtemp(prefix="lanes-profile-"))
    start, listing = compiled_code(folder)
    samples = folder / "perf.data"
    recorder = subprocess.Popen(
        ["perf", "record", "-F", "4000", "-p", str(os.getpid()), "-o", str(samples), "--",
         "sleep", str(args.seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    until = time.monotonic() + args.seconds + 0.5
    while time.monotonic() < until:
        solve()
    recorder.wait()
    addresses = [int(line, 16) for line in subprocess.run(
        ["perf", "script", "-i", str(samples), "-F", "ip"], capture_output=True, text=True,
        check=True).stdout.split()]
    code = instructions(listing, start)
    spans = loops(code, start)
    charged: collections.Counter = collections.Counter()
    inside = 0
    for address in addresses:
        offset = address - start
        if not 0 <= offset < CODE_BYTES:
            continue
        inside += 1
        around = [span for span in spans if span[0] <= offset <= span[1]]
        charged[min(around, key=lambda span: span[1] - span[0]) if around else None] += 1
    print(f"N = {args.cards}, level {args.level}: {len(addresses)} samples, "
          f"{100 * inside / max(len(addresses), 1):.1f} % in _solve_games")
    print("| share | loop | instructions | on 512-bit registers | arithmetic |")
    print("|---|---|---|---|---|")
    for span, count in charged.most_common(args.top):
        share = f"{100 * count / len(addresses):.1f} %"
        if span is None:
            print(f"| {share} | outside any loop | | | |")
            continue
        body = [code[offset] for offset in code if span[0] <= offset <= span[1]]
        kinds = sorted({mnemonic for mnemonic, _ in body if mnemonic.startswith(ARITHMETIC)})
        wide = sum("zmm" in operands for _, operands in body)
        print(f"| {share} | {span[0]:#x}-{span[1]:#x} | {len(body)} | {wide} | "
              f"{' '.join(kinds)} |")


if __name__ == "__main__":
    main()
