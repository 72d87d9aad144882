"""The page as the server sends it: the store's summary already in it, readable without
its script (a plain fetch, a screenshot taken at once, a reader with scripts off). The
script replaces it with the same table, and the families' views."""

from __future__ import annotations

import logging
from html import escape
from pathlib import Path
from typing import Any, Mapping, Sequence

from subgame.errors import SubgameError
from subgame.storage import find_computations

PAGE = Path(__file__).with_name("static") / "index.html"
VIEW = '<main id="view"></main>'
STATES = {True: "finished", False: "being written or stopped: answers from what is finished"}
log = logging.getLogger("subgame.web")


def summary_table(computations: Sequence[Mapping[str, Any]]) -> str:
    """The store tab's table (`app.js`'s renderStore) as HTML."""
    if not computations:
        return '<p class="note" role="status">the store holds no computations yet</p>'
    rows = "".join(
        f"<tr><td>{escape(c['computation'])}</td><td>{escape(c['family'])}</td>"
        f'<td class="number">{c["steps_finished"]}/{c["steps_total"]}</td>'
        f"<td>{STATES[c['steps_finished'] == c['steps_total']]}</td>"
        f'<td class="number">{c["bytes_on_disk"] / 1e6:.2f} MB</td></tr>'
        for c in computations)
    return ('<h2>What the store holds</h2><table class="computations" id="computations">'
            "<tr><th>computation</th><th>family</th><th>steps</th><th>state</th>"
            f"<th>size</th></tr>{rows}</table>")


def summary_page(store: str) -> str:
    """index.html with the summary of ``store`` in its view, and a line for readers
    without scripts."""
    try:
        summary = summary_table([c.status() for c in find_computations(store)])
    except SubgameError as exc:
        summary = f'<p class="error" role="status">{escape(str(exc))}</p>'
    except Exception:  # noqa: BLE001 - a damaged store: the page still loads, the log says why
        log.exception("the store's summary")
        summary = ('<p class="error" role="status">the store cannot be summarised (in the '
                   "server's log); `subgame verify --store S` checks it</p>")
    noscript = ('<noscript><p class="note">The families\' views need JavaScript; every answer '
                'is also in the JSON API (<a href="/docs">API</a>).</p></noscript>')
    footer = f'<footer id="store">store {escape(store)}, read-only</footer>'
    return (PAGE.read_text().replace(VIEW, f'<main id="view">{summary}{noscript}</main>')
            .replace('<footer id="store"></footer>', footer))
