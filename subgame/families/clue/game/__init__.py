"""Generalized Clue: the pure game (no Prefect, Dask or Zarr here).

N cards 1..N, h hidden, the rest dealt to p players, k each (N = p k + h).  Players take
turns from a random first seat; a turn interrogates an opponent still in the game about a
list of cards (a holder shows the asker one of them) or guesses the hidden cards and
leaves, its hand revealed.  ``engine`` states the rules and the choices made where the
seed (seeds/003) is silent.

Modules:

* ``rules``: sizes, grid points (p, k, h), the core bound (N - k - h) p;
* ``moves``: moves, events, the view a player starts with;
* ``engine``: ``play_game(players, size, seed, round_limit=None) -> GameResult``;
  ``IllegalMove`` names the seat, strategy, seed, round and move;
* ``knowledge``, ``deduction``: the certain facts and clause combination of the seed's
  players; ``players``: the seed's players; ``exact_player``: exact inference;
  ``registry``: ``STRATEGIES``, ``new_player(name)``;
* ``inference``: exact counting of consistent deals (``posterior``, ``count_deals``,
  ``best_hidden_sets``) and ``importance_sample`` with standard errors;
* ``table``: ``infer_view(view_dict)`` for the table-side tool;
* ``tournament``: ``simulate_batch(lineup, players, per_player, hidden, games, seed)``
  -> dict of count arrays, ``merge``, ``check_point``;
* ``standard``: the standard game (categories, one hidden card of each, suggestions,
  disproval in seat order, accusations; the Speed Clue contest's rules) and its exact
  inference under the category constraint; ``standard_match``: its arbiter;
  ``standard_players``: its players (``core``, ``exact``, ``random``).

What it costs on one core (`python bench/clue.py` measures it; figures vary with the load):

* games per second: p=3, k=3, h=2: about 220 (core only), 170 (the nine seed players
  mixed), 50-70 with one exact player; p=5, k=5, h=3: about 65 (seed players mixed), 6-8
  with an exact player; p=9, k=16, h=3: about 5 (seed players mixed).
* the whole course grid (p in 2, 3, 5, 7, 9; k in 1, 2, 3, 5, 8, 16; h in 1, 2, 3) with
  the seed players: 1.5 s for one game at every point, so 1,000 games a point take about
  0.2 h on 2 cores.  The exact player is affordable to p = 5 (0.2 s a game at 5, 5, 3) but
  costs about 0.7 s a game at (7, 3, 2), 2.7 s at (7, 5, 3), 27 s at (9, 8, 3).
* exact inference of a table-side view: under 1 ms at N = 10-13, where brute-force
  enumeration of the 16,800-450,450 deals takes 40 ms-2 s.  Counting stays under 60 ms up
  to p = 5, k = 5 (N = 28); from p = 7 (N >= 23) single positions take seconds and some
  exceed the budget, where the exact player turns to importance sampling (1,000 draws:
  0.03-0.6 s; effective sample size 100-900 up to p = 7, k = 3 but only 5-15 in mid-game
  at p = 9, where its standard errors, 0.15-0.25, say the estimate is weak).
"""

from .engine import GameResult, IllegalMove, Player, play_game
from .inference import Facts, TooLarge, best_hidden_sets, count_deals, importance_sample, posterior
from .moves import Departure, Guess, Interrogate, Interrogation, View
from .registry import STRATEGIES, new_player
from .rules import GameSize, game_size, grid_point
from .table import infer_view
from .tournament import COUNT_KEYS, check_point, merge, simulate_batch

__all__ = [
    "COUNT_KEYS", "Departure", "Facts", "GameResult", "GameSize", "Guess", "IllegalMove",
    "Interrogate", "Interrogation", "Player", "STRATEGIES", "TooLarge", "View",
    "best_hidden_sets", "check_point", "count_deals", "game_size", "grid_point",
    "importance_sample", "infer_view", "merge", "new_player", "play_game", "posterior",
    "simulate_batch",
]
