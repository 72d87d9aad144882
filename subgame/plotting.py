"""The house figure style: every family draws its figures through these functions, so a
colour, a hatch or a tick means the same thing in every figure.

- Colour ranges are fixed by what a quantity is, never by rounding noise: probabilities and
  shares span [0, 1] (`probability_scale`); differences are symmetric around 0 with the
  range of the data (`difference_scale`). When every value is equal the figure says so in
  words instead of stretching the colours over nothing.
- Cells that do not exist (no reachable pair, a bid never made) are hatched, with a legend
  that says what they are, so they cannot be read as a value.
- Small heatmaps carry their numbers in the cells.
- Log axes are labelled with plain numbers (2, 5, 10, 20, ...), not 2x10^0.
- Figure text is words; options of the command line belong in the caption of the docs.

Figures are returned (not only written) so that tests can read their colour limits;
`save` writes one and closes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

# Values this close to 0 (or to each other) are floating-point noise of an exact 0 (or of
# equal values): a mean of exact probabilities minus another can come out as 1e-15.
ROUNDING = 1e-12
# Heatmaps with at most this many rows and columns print each cell's value.
NUMBERED_SIDE = 16
MISSING_HATCH = dict(hatch="///", edgecolor="0.7", facecolor="white")
SEQUENTIAL, DIVERGING = "viridis", "RdYlGn"  # diverging: red negative, green positive


@dataclass(frozen=True)
class ColourScale:
    """How values become colours: the limits, the colour map and the colour bar's label,
    and ``note``, said on the figure, when the colours cannot show anything (all equal)."""

    low: float
    high: float
    cmap: str
    label: str
    signed: bool = False  # numbers in cells carry their sign (differences)
    digits: int = 2  # decimals of the numbers in cells
    note: str | None = None
    extend: str = "neither"  # "both": values beyond the limits drawn in the end colours


def without_noise(values) -> np.ndarray:
    """``values`` as floats, with |v| <= ROUNDING set to exactly 0 (NaN stays NaN)."""
    array = np.array(values, dtype=float)
    array[np.abs(array) <= ROUNDING] = 0.0
    return array


def number_text(value: float, signed: bool = False, digits: int = 2) -> str:
    """A cell's number: two decimals; exact 0 as "0"; a value that would round to 0.00
    as "<0.01" (or ">-0.01"), so a small probability is not read as none."""
    if value == 0:
        return "0"
    smallest = 10.0 ** -digits
    if abs(value) < smallest / 2:
        return f"<{smallest:g}" if value > 0 else f">-{smallest:g}"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _all_equal_note(values: np.ndarray, signed: bool) -> str | None:
    finite = values[np.isfinite(values)]
    if finite.size and finite.max() - finite.min() <= ROUNDING:
        return f"every cell is {number_text(float(finite[0]), signed, digits=3)}"
    return None


def probability_scale(values, label: str = "probability") -> ColourScale:
    """Probabilities, shares and rates: always 0 to 1, so a pale cell means a small
    probability in every figure."""
    return ColourScale(0.0, 1.0, SEQUENTIAL, label,
                       note=_all_equal_note(without_noise(values), False))


def difference_scale(values, label: str, largest: float = 1.0,
                     quantile: float | None = None) -> ColourScale:
    """Differences: symmetric around 0 (0 is the middle colour) out to the largest |value|
    of the data, rounding noise counted as 0. Where every value is equal there is no
    range to show: the scale is then +-``largest`` (the quantity's natural bound, 1 for a
    difference of probabilities) and the note says the value.

    ``quantile`` (e.g. 0.99) sets the limits at that quantile of |value| instead, for maps
    where a few trivial cells (one character left) would wash out the rest; the cells
    beyond are drawn in the end colours and the colour bar says so (its arrows and label)."""
    clean = without_noise(values)
    note = _all_equal_note(clean, True)
    finite = np.abs(clean[np.isfinite(clean)])
    bound = float(finite.max()) if finite.size else 0.0
    extend = "neither"
    if quantile is not None and bound > 0:
        cut = float(np.quantile(finite, quantile))
        if 0 < cut < bound:
            bound, extend = cut, "both"
            label = f"{label} (beyond ±{cut:.2g}: the end colours)"
    if note is not None or bound == 0.0:
        bound = largest
    return ColourScale(-bound, bound, DIVERGING, label, signed=True, digits=3, note=note,
                       extend=extend)


def draw_heatmap(ax: Axes, data, scale: ColourScale, *,
                 extent: tuple[float, float, float, float] | None = None,
                 xticks: list | None = None, yticks: list | None = None,
                 numbers: bool | None = None) -> AxesImage:
    """``data`` (rows = y, origin at the bottom) on ``ax`` in ``scale``. NaN cells do not
    exist: they show the hatched background (see `missing_legend`). ``numbers`` (default:
    on for heatmaps of at most NUMBERED_SIDE rows and columns) prints each value."""
    grid = without_noise(data)
    cmap = plt.get_cmap(scale.cmap).with_extremes(bad=(0, 0, 0, 0))  # NaN: see-through
    ax.set_facecolor(MISSING_HATCH["facecolor"])
    ax.patch.set_hatch(MISSING_HATCH["hatch"])
    ax.patch.set_edgecolor(MISSING_HATCH["edgecolor"])
    image = ax.imshow(np.ma.masked_invalid(grid), origin="lower", aspect="auto", cmap=cmap,
                      vmin=scale.low, vmax=scale.high, extent=extent,
                      interpolation="nearest")
    if xticks is not None:
        ax.set_xticks(range(len(xticks)), [str(t) for t in xticks])
    if yticks is not None:
        ax.set_yticks(range(len(yticks)), [str(t) for t in yticks])
    rows, columns = grid.shape
    if numbers if numbers is not None else max(rows, columns) <= NUMBERED_SIDE:
        _write_numbers(ax, image, grid, scale, extent)
    if scale.note:
        ax.text(0.5, 0.5, scale.note, transform=ax.transAxes, ha="center", va="center",
                fontsize=12, bbox=dict(facecolor="white", edgecolor="0.3", alpha=0.9))
    return image


def _write_numbers(ax: Axes, image: AxesImage, grid: np.ndarray, scale: ColourScale,
                   extent: tuple[float, float, float, float] | None) -> None:
    rows, columns = grid.shape
    left, right, bottom, top = extent or (-0.5, columns - 0.5, -0.5, rows - 0.5)
    width, height = (right - left) / columns, (top - bottom) / rows
    size = max(5.0, min(9.0, 110.0 / max(rows, columns)))
    for (row, column), value in np.ndenumerate(grid):
        if not np.isfinite(value):
            continue
        red, green, blue, _ = image.cmap(image.norm(value))
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
        ax.text(left + (column + 0.5) * width, bottom + (row + 0.5) * height,
                number_text(float(value), scale.signed, scale.digits), ha="center", va="center",
                fontsize=size, color="white" if dark else "black")


def colour_bar(fig: Figure, image: AxesImage, axes, scale: ColourScale) -> None:
    fig.colorbar(image, ax=axes, label=scale.label, shrink=0.9, extend=scale.extend)


def missing_legend(fig: Figure, data, meaning: str) -> None:
    """A legend entry for the hatched (NaN) cells, drawn only where ``data`` has some."""
    if np.isnan(np.asarray(data, dtype=float)).any():
        fig.legend(handles=[Patch(**MISSING_HATCH, label=meaning)], loc="outside lower left",
                   frameon=False)


def heatmap(data, *, title: str, xlabel: str, ylabel: str, scale: ColourScale,
            missing: str | None = None, extent: tuple[float, float, float, float] | None = None,
            xticks: list | None = None, yticks: list | None = None,
            numbers: bool | None = None) -> Figure:
    """One labelled heatmap with its colour bar (and the legend of missing cells, which
    ``missing`` names: what a NaN cell means)."""
    fig, ax = plt.subplots(figsize=(7, 6), dpi=110, layout="constrained")
    image = draw_heatmap(ax, data, scale, extent=extent, xticks=xticks, yticks=yticks,
                         numbers=numbers)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    colour_bar(fig, image, ax, scale)
    if missing:
        missing_legend(fig, data, missing)
    return fig


def plain_number(value: float, _position=None) -> str:
    """A tick label: 2, 0.5, 20 000 (spaces between thousands), never 2x10^0."""
    if value >= 1000 and float(value).is_integer():
        return f"{int(value):,}".replace(",", " ")
    return f"{value:g}"


def plain_log_axis(ax: Axes, which: str = "x") -> None:
    """A log axis labelled at 1, 2, 5 x 10^k (at 10^k only beyond three decades), in
    plain numbers."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = ax.get_xlim() if which == "x" else ax.get_ylim()
    decades = np.log10(max(high, 1e-300) / max(low, 1e-300))
    axis.set_major_locator(LogLocator(subs=(1.0,) if decades > 3 else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_formatter(NullFormatter())


def figure_path(out: str, name: str) -> str:
    """``out``/``name``, with one separator however ``out`` is written."""
    return os.path.join(out, name)


def save(fig: Figure, out: str, name: str) -> str:
    """Write ``fig`` as ``out``/``name`` (creating the folder), close it, return the path."""
    path = figure_path(out, name)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
