"""Guess Who tables (O'Neill), seed 000: a(n, m) = n m p(n, m) for every state, both rules.

game/      the mathematics (band kernel, probabilities and advantages, Theorems 1-3); no I/O
plan.py    configuration and plan: one step per band of table levels, rule sets as shards
read.py    stored answers, fair states, maps, the check against the paper's theorems
figures.py the p, F and G maps (subgame.plotting's house style)
commands   `query|plot|verify guess-who`;  family.py: the registry's entry
"""

# The family's help texts, written once (`subgame.families.LISTED` says where they show).
HELP = {"summary": "Exact Guess Who tables (O'Neill) with optimal move sets.",
        "query": "Win probability (exact), F, G and optimal moves of state (n, m); or the "
                 "fair states.",
        "plot": "Heatmaps of the win probability, first-mover and game-state advantage, both "
                "rules.",
        "verify": "Check the stored variant-rules table against the paper's Theorems 1-3 "
                  "(Theorem 3 with its erratum corrected, reported as a note), every state.",
        "export": "Every stored state (n, m): a, p exactly (p_numerator / p_denominator) and "
                  "the optimal move set, one row per state."}
