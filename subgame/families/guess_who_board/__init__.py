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
