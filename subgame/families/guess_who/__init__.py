"""Guess Who tables (O'Neill), seed 000: a(n, m) = n m p(n, m) for every state, both rules.

game/      the mathematics (band kernel, probabilities and advantages, Theorems 1-3); no I/O
plan.py    configuration and plan: one step per band of table levels, rule sets as shards
read.py    stored answers, fair states, maps, the check against the paper's theorems
figures.py the p, F and G maps (subgame.plotting's house style)
commands   `query|plot|verify guess-who`;  family.py: the registry's entry
"""
