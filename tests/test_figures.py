"""Every figure the package draws (clue's excepted: tests/test_clue_flow.py), read back from
the matplotlib figure the family returns: its colour limits on a constant and on a real
store, the values it draws against plain recursions written here or the seed's code, the
legend of missing cells, the numbers in small heatmaps, plain log ticks and the limit
line; and every query's text at 80 columns, names and states never broken."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame import families
from subgame.cli import build_app
from subgame.commands.common import console
from subgame.families.gops import read as gops_read
from subgame.families.gops.figures import first_move_figure
from subgame.families.guess_who import read as guess_who_read
from subgame.families.guess_who.figures import rule_figures
from subgame.families.guess_who_board import read as board_read
from subgame.families.guess_who_board.figures import size_difference_figures
from subgame.families.guess_who_board.plan import BoardConfig
from subgame.families.higher_lower import read as higher_lower_read
from subgame.families.higher_lower.figures import sweep_figures
from subgame.families.higher_lower.game import seed
from subgame.engine import run_computation
from subgame.flows.run import family_options
from subgame.options import RunOptions
from subgame.plotting import (difference_scale, figure_path, number_text, plt,
                              probability_scale)

U, CARDS, SWEEP = 12, 4, 40
BOARD = str(Path(__file__).parent / "data" / "seven_board.csv")
app = build_app()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """One real store with every family a figure reads (clue's apart), at small sizes."""
    path = str(tmp_path_factory.mktemp("figures") / "store.zarr")
    runs = [("guess-who", {"max_n": U, "band": 4}),
            ("gops", {"cards": CARDS}), ("gops", {"cards": CARDS, "objective": "win"}),
            ("higher-lower", {"max_n": SWEEP, "ranks": "3", "suits": "2", "games": 200}),
            ("guess-who-board", {"board": BOARD})]
    for family, config in runs:  # the engine in process: the figures are under test here
        for computation in families.get(family).computations(family_options(family, config)):
            run_computation(computation, RunOptions(path, executor="serial"))
    return path


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def image_of(fig, panel: int = 0):
    return fig.axes[panel].images[0]


def texts_of(ax) -> list[str]:
    return [text.get_text() for text in ax.texts]


def legend_labels(fig) -> list[str]:
    return [text.get_text() for legend in fig.legends for text in legend.get_texts()]


# -- the style ------------------------------------------------------------------------------

def test_rounding_noise_is_drawn_as_the_zero_it_is():
    """The board's 'mean' map once spread +-1.1e-15 of noise over the whole colour range."""
    noise = np.array([[1.1e-15, -1.1e-15], [0.0, np.nan]])
    scale = difference_scale(noise, "difference")
    assert (scale.low, scale.high) == (-1.0, 1.0)
    assert scale.note == "every cell is 0"
    probability = probability_scale(np.full((3, 3), 0.25))
    assert (probability.low, probability.high) == (0.0, 1.0)
    assert probability.note == "every cell is 0.250"
    varied = difference_scale(np.array([0.02, -0.005, np.nan]), "difference")
    assert (varied.low, varied.high, varied.note) == (-0.02, 0.02, None)


def test_a_few_extreme_cells_do_not_wash_out_the_rest():
    values = np.concatenate([np.linspace(0, 0.1, 199), [0.5]])
    scale = difference_scale(values, "F", quantile=0.99)
    cut = float(np.quantile(values, 0.99))
    assert (scale.low, scale.high, scale.extend) == (-cut, cut, "both")
    assert "end colours" in scale.label


def test_cell_numbers_never_read_a_small_value_as_none():
    assert [number_text(v) for v in (0.0, 0.004, 0.25, 1.0)] == ["0", "<0.01", "0.25", "1.00"]
    assert [number_text(v, signed=True, digits=3) for v in (-0.0625, 0.0004, -0.0004)] == [
        "-0.062", "<0.001", ">-0.001"]


def test_figure_paths_have_one_separator():
    assert figure_path("figures/", "x.png") == figure_path("figures", "x.png") == \
        str(Path("figures") / "x.png")


# -- Guess Who ------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def plain_a(rule: str, n: int, m: int) -> int:
    """O'Neill's recursion as printed (design brief), every move tried."""
    if n == 1:
        return m
    splits = [n * m - plain_a(rule, m, s) - plain_a(rule, m, n - s)
              for s in range(1 if rule == "official" else 2, n)]
    first = m if rule == "official" else n * m - plain_a(rule, m, n - 1)
    return max([first, *splits])


@pytest.mark.parametrize("rule", ["official", "variant"])
def test_guess_who_maps_on_a_real_store(store, rule):
    figures = rule_figures(guess_who_read.probability_maps(store, rule), rule)
    p = np.array([[Fraction(plain_a(rule, n, m), n * m) for m in range(1, U + 1)]
                  for n in range(1, U + 1)])
    first_mover, game_state = (p + p.T - 1) / 2, (p - p.T) / 2
    drawn = image_of(figures[f"guess_who_{rule}_p.png"])
    assert drawn.get_clim() == (0.0, 1.0)
    np.testing.assert_allclose(drawn.get_array().filled(np.nan), p.astype(float), rtol=1e-15)
    cut = float(np.quantile(np.abs(first_mover.astype(float)), 0.99))
    assert image_of(figures[f"guess_who_{rule}_F.png"]).get_clim() == pytest.approx((-cut,
                                                                                        cut))
    largest = float(max(abs(g) for g in game_state.ravel()))
    assert image_of(figures[f"guess_who_{rule}_G.png"]).get_clim() == pytest.approx(
        (-largest, largest))
    for fig in figures.values():  # words, not CLI options
        assert "--" not in fig.axes[0].get_title()


def test_guess_who_maps_of_a_constant():
    half = np.full((5, 5), 0.5)
    figures = rule_figures({"covered": 5, "p": half, "F": half * 0, "G": half * 0},
                           "official")
    assert image_of(figures["guess_who_official_p.png"]).get_clim() == (0.0, 1.0)
    for key in ("F", "G"):
        fig = figures[f"guess_who_official_{key}.png"]
        assert image_of(fig).get_clim() == (-0.5, 0.5)
        assert "every cell is 0" in texts_of(fig.axes[0])
    assert "every cell is 0.500" in texts_of(figures["guess_who_official_p.png"].axes[0])


# -- GOPS -----------------------------------------------------------------------------------

def test_gops_opening_on_a_real_store(store):
    tables = {objective: gops_read.first_move(store, CARDS, objective)
              for objective in ("points", "win")}
    fig = first_move_figure(tables)
    for panel, (objective, table) in enumerate(tables.items()):
        probability = np.array(table["probability"])
        np.testing.assert_allclose(probability.sum(axis=1), 1.0, atol=1e-5)
        drawn = image_of(fig, panel)
        assert drawn.get_clim() == (0.0, 1.0)  # the same scale in both panels
        # bids never made are missing (hatched), every other bid carries its number
        assert (drawn.get_array().mask == (probability == 0)).all()
        numbers = texts_of(fig.axes[panel])
        assert sorted(numbers) == sorted(number_text(q) for q in probability[probability > 0])
        assert "--" not in fig.axes[panel].get_title()
    some_never = any((np.array(t["probability"]) == 0).any() for t in tables.values())
    assert legend_labels(fig) == (["bid never made (probability 0)"] if some_never else [])


def test_gops_opening_of_a_constant():
    uniform = {"cards": 4, "probability": np.full((4, 4), 0.25).tolist()}
    fig = first_move_figure({"points": uniform})
    assert image_of(fig).get_clim() == (0.0, 1.0)
    assert "every cell is 0.250" in texts_of(fig.axes[0])
    assert legend_labels(fig) == []  # no missing cell, no legend


# -- higher/lower ---------------------------------------------------------------------------

def test_higher_lower_figures_on_a_real_store(store):
    figures = sweep_figures(higher_lower_read.sweep(store))
    p_all, ratio = (figures[name].axes[0] for name in ("higher_lower_p_all.png",
                                                        "higher_lower_ratio.png"))
    n, drawn = p_all.lines[0].get_data()
    expected = [math.log10(seed.P_all(int(k))) for k in n]  # the seed's own recursion
    np.testing.assert_allclose(drawn, expected, rtol=1e-12, atol=1e-12)
    limit = [line for line in ratio.lines if "limit" in line.get_label()]
    assert len(limit) == 1 and limit[0].get_ydata()[0] == pytest.approx(1 / (2 * math.log(2)),
                                                                        rel=1e-15)
    figures["higher_lower_ratio.png"].canvas.draw()
    ticks = [label.get_text() for label in ratio.get_xticklabels() if label.get_text()]
    assert ticks and all(re.fullmatch(r"[0-9 ]+(\.[0-9]+)?", tick) for tick in ticks), ticks


# -- the real board -------------------------------------------------------------------------

def plain_size_grid(config: BoardConfig) -> dict[str, np.ndarray]:
    """Mean, least and largest p(S, T) - p_I(|S|, |T|) over the reachable pairs, per sizes,
    from the plain recursion over sets of names and O'Neill's recursion above."""
    splits = board_read.plain_splits(config)
    full = frozenset(c.name for c in config.characters)
    reachable = _closure(full, splits)

    @lru_cache(maxsize=None)
    def a(standing, opponent):
        return board_read.plain_value(standing, opponent, splits, config.rules, a)

    size = len(full)
    found: dict[tuple[int, int], list[Fraction]] = {}
    for s in reachable:
        for t in reachable:
            n, m = len(s), len(t)
            found.setdefault((n, m), []).append(
                Fraction(a(s, t), n * m) - Fraction(plain_a(config.rules, n, m), n * m))
    grids = {kind: np.full((size, size), np.nan) for kind in ("mean", "min", "max")}
    for (n, m), values in found.items():
        grids["mean"][n - 1, m - 1] = float(sum(values) / len(values))
        grids["min"][n - 1, m - 1] = float(min(values))
        grids["max"][n - 1, m - 1] = float(max(values))
    return grids


def _closure(full, splits) -> set:
    """Every set of names some sequence of answers leaves standing, from the full board."""
    reachable, frontier = {full}, [full]
    while frontier:
        standing = frontier.pop()
        for part in (p for split in splits(standing) for p in split if p):
            if part not in reachable:
                reachable.add(part)
                frontier.append(part)
    return reachable


def test_board_maps_on_a_real_store(store):
    config = BoardConfig(board=BOARD)
    figures = size_difference_figures(board_read.size_grid(store, config), "seven_board", 1,
                                      "official")
    expected = plain_size_grid(config)
    for kind, fig in figures.items():
        drawn = image_of(fig)
        np.testing.assert_allclose(drawn.get_array().filled(np.nan), expected[kind],
                                   atol=1e-12)
        largest = np.nanmax(np.abs(expected[kind]))
        assert drawn.get_clim() == pytest.approx((-largest, largest) if largest > 1e-12
                                                 else (-1.0, 1.0))
        if np.isnan(expected[kind]).any():  # sizes without a reachable pair
            assert legend_labels(fig) == ["no reachable pair of these sizes"]


def test_board_maps_of_rounding_noise():
    idealised = np.array([[1.0, 1.0], [0.5, 0.5]])
    grid = {"size": 2, "idealised": idealised, "mean": idealised + 1.1e-15,
            "min": idealised - 1.1e-15, "max": idealised + np.array([[0, 0], [0.1, np.nan]])}
    figures = size_difference_figures(grid, "classic", 1, "official")
    for kind in ("mean", "min"):
        drawn = image_of(figures[kind])
        assert drawn.get_clim() == (-1.0, 1.0)
        assert (drawn.get_array() == 0).all()
        assert "every cell is 0" in texts_of(figures[kind].axes[0])
    assert image_of(figures["max"]).get_clim() == pytest.approx((-0.1, 0.1))


# -- the plot commands ----------------------------------------------------------------------

@pytest.mark.parametrize("family, options, files", [
    ("higher-lower", [], ["higher_lower_p_all.png", "higher_lower_ratio.png"]),
    ("gops", ["--cards", str(CARDS), "--both-objectives"], [f"gops_first_move_N{CARDS}.png"]),
    ("guess-who", [], [f"guess_who_{rule}_{key}.png" for rule in ("official", "variant")
                       for key in "pFG"]),
    ("guess-who-board", ["--board", BOARD], None)])
def test_plot_out_with_a_trailing_slash_names_files_once(store, tmp_path, family, options,
                                                         files):
    result = CliRunner().invoke(app, ["plot", family, *options, "--store", store, "--out",
                                      f"{tmp_path}/"])
    assert result.exit_code == 0, result.output
    printed = result.output.split()
    assert all(Path(path).parent == tmp_path and Path(path).stat().st_size
               for path in printed) and "//" not in result.output
    if files is not None:
        assert printed == [str(tmp_path / name) for name in files]
    else:  # one map per summary, named by the computation
        assert [path.rsplit("_", 1)[1] for path in printed] == ["mean.png", "min.png",
                                                                "max.png"]


# -- text at 80 columns ---------------------------------------------------------------------

def text_of(monkeypatch, *args: str) -> str:
    monkeypatch.setattr(console, "_width", 80)
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    assert not result.output.lstrip().startswith("{"), "JSON only with --json"
    for line in result.output.splitlines():  # a long exact number may pass the edge whole
        assert len(line.rstrip()) <= 80 or max(map(len, line.split())) > 60, line
    return result.output


def test_guess_who_text_keeps_states_whole(store, monkeypatch):
    text = text_of(monkeypatch, "query", "guess-who", "--fair", "--store", store)
    fair = json.loads(CliRunner().invoke(app, ["query", "guess-who", "--fair", "--store",
                                               store, "--json"]).stdout)["fair_states"]
    assert re.findall(r"\((\d+), (\d+)\)", text) == [(str(a), str(b)) for a, b in fair]
    state = text_of(monkeypatch, "query", "guess-who", "--n", "5", "--m", "7", "--store",
                    store)
    assert f"{plain_a('official', 5, 7)}" in state and "22/35" in state
    checked = text_of(monkeypatch, "verify", "guess-who", "--store", store)
    assert "(4, 3)" in checked  # the erratum's first state, whole on one line


def test_higher_lower_text(store, monkeypatch):
    text = text_of(monkeypatch, "query", "higher-lower", "--n", "9", "--store", store)
    assert "775/4536" in text and "62000" in text  # P_all(9), C_9 (docs/higher_lower.md)
    limits = text_of(monkeypatch, "query", "higher-lower", "--asymptotics", "--store", store)
    assert "1/(2 ln 2)" in limits and "±" in limits
    deck = text_of(monkeypatch, "query", "higher-lower", "--ranks", "3", "--suits", "2",
                   "--store", store)
    assert "interval" in deck and "exactly" in deck


def test_gops_text(store, monkeypatch):
    text = text_of(monkeypatch, "query", "gops", "--cards", str(CARDS), "--first-move",
                   "--store", store)
    assert re.search(r"^upcard \|\s+1\s+2\s+3\s+4$", text, re.M)
    state = text_of(monkeypatch, "query", "gops", "--cards", str(CARDS), "--hand", "1,3",
                    "--opponent", "2,4", "--prizes", "3,4", "--store", store)
    assert "player one bids" in state


def test_board_text_keeps_policies_whole(store, monkeypatch):
    text = text_of(monkeypatch, "query", "guess-who-board", "--board", BOARD, "--store",
                   store)
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()
            if line.startswith(("closest-half", "trait-search"))}
    assert set(rows) == {"closest-half", "trait-search"}
    assert all(len(values) == 4 for values in rows.values())  # one fraction per column
    checked = text_of(monkeypatch, "verify", "guess-who-board", "--board", BOARD, "--store",
                      store)
    assert "0 mismatches" in checked


def test_status_prints_group_names_whole(store, monkeypatch):
    text = text_of(monkeypatch, "status", "--store", store)
    groups = [c["computation"] for c in json.loads(CliRunner().invoke(
        app, ["status", "--store", store, "--json"]).stdout)["computations"]]
    lines = text.splitlines()
    assert groups and all(any(line.startswith(group + "  ") for line in lines)
                          for group in groups)
