"""GOPS (Goofspiel), seed 001: every subgame f(V, Y, P) solved level by level.

game/      the mathematics (patterns, decks, matrix games, the level kernel); no I/O
plan.py    configuration and plan: one step per level j, deck-rank shards
read.py    stored answers for any subgame and the first-move table
figures.py the opening, one panel per objective
commands   `query gops`, `plot gops`, tools `gops evaluate`, `gops play` (play.py);
           family.py: the registry's entry
"""

# The family's help texts, written once (`subgame.families.LISTED` says where they show).
HELP = {"summary": "Every GOPS subgame: values and optimal mixed bids.",
        "query": "Value, per-upcard values and both players' mixed bids of any subgame (V, Y, "
                 "P), under win also of the points so far (--diff).",
        "plot": "Heatmap of the opening strategy (upcard x bid): the paper's parity effect "
                "shows.",
        "export": "A level's values f, one row per stored (deck, pattern) (and difference, "
                  "under win).",
        "tools": True}
