"""Generalized Clue, seed 003: the seed's deduction players and exact inference in
tournaments over a grid of (players, cards per player, hidden cards).

game/       the mathematics (engine, players, exact inference, the tournament kernel)
plan.py     configuration and plan: batch steps (one shard per grid point), then aggregation
read.py     stored leaderboards;  figures.py: first-place heatmaps, guess round vs accuracy
commands    `query|plot clue`, the table tool `clue infer`;  family.py: the registry's entry
"""

# The family's help texts, written once (`subgame.families.LISTED` says where they show).
HELP = {"summary": "Generalized Clue: tournaments of deduction strategies over a grid of "
                   "players, hand sizes and hidden cards; exact inference at the table.",
        "query": "The leaderboard of one grid point: rank counts, first places, wrong "
                 "guesses, mean guess round per strategy.",
        "plot": "First-place share per strategy over the grid (one heatmap per strategy and "
                "h), and guess round against accuracy for the history-mining players.",
        "export": "A tournament's leaderboards, one row per grid point and strategy.",
        "tools": True}
