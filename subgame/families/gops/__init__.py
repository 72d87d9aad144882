"""GOPS (Goofspiel), seed 001: every subgame f(V, Y, P) solved level by level.

game/      the mathematics (patterns, decks, matrix games, the level kernel); no I/O
plan.py    configuration and plan: one step per level j, deck-rank shards
read.py    stored answers for any subgame and the first-move table
figures.py the opening, one panel per objective
commands   `query gops`, `plot gops`, tools `gops evaluate`, `gops play` (play.py);
           family.py: the registry's entry
"""
