"""Guess Who on real boards (seed 002): exact optimal play a(S, T) = |S||T| p(S, T) for every
pair of reachable standing sets, and two simple policies evaluated exactly.

game/      the mathematics (board model, board files, reachable sets, pair solver, policies)
plan.py    configuration and plan: reachable sets, then one step per level |S| + |T| for the
           pairs and for each policy; shards are ranges of pair positions within a level
tables.py  the stored layout: the set family and per-level tables, read back by workers
read.py    stored answers (a pair's value, optimal questions, policies), plot data, checks
figures.py the maps of the real board minus the idealised game
commands   `query|plot|verify guess-who-board`;  family.py: the registry's entry
"""

# The family's help texts, written once (`subgame.families.LISTED` says where they show).
HELP = {"summary": "Exact Guess Who on a real board (classic or CSV) with policies.",
        "query": "Exact win probability of the mover at (S, T), its optimal questions, the "
                 "closest-to-half question and the policies' values (default: the first "
                 "move); on a solve on types, S and T are mapped to their types.",
        "plot": "Heatmaps of the real board's p(S, T) minus O'Neill's idealised p(|S|, |T|): "
                "the mean, the least and the largest over the reachable pairs of each pair of "
                "sizes.",
        "verify": "Check the stored values against a plain recursion over sets of names: "
                  "every pair on a small board, a random sample (one step over stored "
                  "children) on a larger one."}
