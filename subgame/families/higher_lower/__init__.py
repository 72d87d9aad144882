"""Higher/lower card guessing, seed 004: P_all(n) to any n, exact counts, r x s decks.

game/       the mathematics (distinct-card sweeps, deck DP, Monte Carlo, the seed's code)
plan.py     the run options and the two computations they ask for (sweep, deck grid)
read.py     stored answers and limits;  figures.py: the sweep's figures
commands    `query|plot higher-lower`;  family.py: the registry's entry
"""

# The family's help texts, written once (`subgame.families.LISTED` says where they show).
HELP = {"summary": "Higher/lower: P_all(n) over deck sizes; r x s decks exactly and by Monte "
                   "Carlo.",
        "query": "P_all(n) (float and exact), the count n! P_all(n), the expected streak; or "
                 "limits; or a deck's exact and Monte Carlo odds.",
        "plot": "P_all(n) on a log scale with the fitted exponential, and the ratio against n "
                "with its limit.",
        "export": "The distinct-card sweep, one row per deck size (exact counts in decimal); "
                  "or every deck sweep's grid points (--decks).",
        "tools": True}
