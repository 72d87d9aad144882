"""Generalized Clue, seed 003: the seed's deduction players and exact inference in
tournaments over a grid of (players, cards per player, hidden cards).

game/       the mathematics (engine, players, exact inference, the tournament kernel)
plan.py     configuration and plan: batch steps (one shard per grid point), then aggregation
read.py     stored leaderboards;  figures.py: first-place heatmaps, guess round vs accuracy
commands    `query|plot clue`, the table tool `clue infer`;  family.py: the registry's entry
"""
