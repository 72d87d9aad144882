"""Higher/lower card guessing, seed 004: P_all(n) to any n, exact counts, r x s decks.

game/       the mathematics (distinct-card sweeps, deck DP, Monte Carlo, the seed's code)
plan.py     the run options and the two computations they ask for (sweep, deck grid)
read.py     stored answers and limits;  figures.py: the sweep's figures
commands    `query|plot higher-lower`;  family.py: the registry's entry
"""
