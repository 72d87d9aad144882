"""`subgame web`: a real uvicorn server on a free local port over one small store holding a
computation of every family, driven over HTTP and by a real headless Chromium.

Answers are held against subgame.query on the same store and against independent
implementations: the GOPS matrix games against the explicit-set recursion solved by HiGHS
(tests/gops_reference.py), the board's questions against a plain recursion over sets of
names, higher/lower's odds against a recursion over the remaining cards in fractions, the
Guess Who table against O'Neill's recursion written out here.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import subgame
from subgame import families
from subgame.engine import run_computation
from subgame.families.clue.game import infer_view
from subgame.options import RunOptions
from tests import gops_reference
from tests.test_guess_who_board_flow import BOARD, plain_solver

GOPS_CARDS = 4


# -- the store and the server -----------------------------------------------------------------
def build(store: str, family: str, **options) -> None:
    found = families.get(family)
    for computation in found.computations(found.options(**options)):
        run_computation(computation, RunOptions(store=store, executor="serial"))


@pytest.fixture(scope="module")
def board_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("board") / "seven.csv"
    path.write_text(BOARD)
    return str(path)


@pytest.fixture(scope="module")
def store(tmp_path_factory, board_file) -> str:
    path = str(tmp_path_factory.mktemp("web") / "store.zarr")
    build(path, "gops", cards=GOPS_CARDS)
    build(path, "gops", cards=4, objective="win")
    build(path, "guess-who", max_n=24)
    # Up to 4 chunks a level (shard_pairs=60 wrote 58 and took 6x as long): the server
    # still reads levels split over several chunks.
    build(path, "guess-who-board", board=board_file, max_literals=2, shard_pairs=1000)
    build(path, "higher-lower", max_n=30, exact_max=30, block=30)
    build(path, "clue", players="3", cards_per_player="2", hidden="1", games=20)
    return path


def serve(store: str, *allow: str):
    """`subgame web --store S --port 0 [--allow ...]` in a process of its own; its address."""
    command = [sys.executable, "-m", "subgame.cli", "web", "--store", store, "--port", "0",
               *(part for entry in allow for part in ("--allow", entry))]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, cwd=Path(__file__).parents[1])
    line = process.stdout.readline()  # the one line it says once it listens
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, line + process.stdout.read()
    return process, f"http://127.0.0.1:{found.group(1)}"


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(60)


@pytest.fixture(scope="module")
def server(store, board_file):
    process, url = serve(store, f"board={board_file}")
    yield url
    stop(process)


def fetch(server: str, path: str, method: str = "GET", body: bytes | None = None,
          headers: dict | None = None) -> tuple[int, object]:
    """Status and JSON body of one request, the path sent exactly as given."""
    address = urllib.parse.urlsplit(server)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def get(server: str, path: str, **params) -> object:
    status, body = fetch(server, path + ("?" + urllib.parse.urlencode(params) if params else ""))
    assert status == 200, body
    return body


def text(cards) -> str:
    return ",".join(map(str, cards))


# -- /api/query equals subgame.query ------------------------------------------------------------
def random_gops_state(rng: random.Random, cards: int) -> dict:
    j = rng.randint(1, cards)
    pick = lambda: sorted(rng.sample(range(1, cards + 1), j))  # noqa: E731
    return {"hand": pick(), "opponent": pick(), "prizes": pick()}


def test_every_family_answers_as_subgame_query(server, store, board_file):
    rng = random.Random(20)
    asked = []
    for _ in range(25):
        state = {key: text(cards) for key, cards in random_gops_state(rng, GOPS_CARDS).items()}
        asked.append(("gops", {"cards": GOPS_CARDS, **state}))
    asked.append(("gops", {"cards": GOPS_CARDS, "first_move": True}))
    for _ in range(10):  # win: the points so far matter
        state = random_gops_state(rng, 4)
        played = 10 - sum(state["prizes"])
        asked.append(("gops", {"cards": 4, "objective": "win", "diff": rng.randint(-played, played),
                               **{key: text(cards) for key, cards in state.items()}}))
    for _ in range(15):
        asked.append(("guess-who", {"n": rng.randint(1, 24), "m": rng.randint(1, 24),
                                    "rules": rng.choice(["official", "variant"])}))
    asked.append(("guess-who", {"fair": True, "rules": "official"}))
    names = [line.split(",")[0] for line in BOARD.strip().splitlines()[1:]]
    for _ in range(6):
        asked.append(("guess-who-board", {"board": board_file, "max_literals": 2,
                                          "standing": text(rng.sample(names, 3))}))
    asked.append(("guess-who-board", {"board": board_file, "max_literals": 2}))
    for n in rng.sample(range(1, 31), 8):
        asked.append(("higher-lower", {"n": n}))
    asked.append(("clue", {"players": 3, "cards_per_player": 2, "hidden": 1}))
    for family, options in asked:
        status, served = fetch(server, f"/api/query/{family}?{urllib.parse.urlencode(options)}")
        try:
            expected = subgame.query(family, store, **options)
        except subgame.errors.SubgameError as exc:  # a board set that is not reachable
            assert status in (400, 404) and served == {"error": " ".join(str(exc).split())}
            continue
        assert status == 200 and served == expected, (family, options)
    assert sum(family == "guess-who-board" for family, _ in asked) == 7


# -- the oracle's answers against independent implementations ----------------------------------
def test_gops_matrix_games_equal_the_explicit_recursion(server):
    rng = random.Random(1)
    for _ in range(12):
        state = random_gops_state(rng, GOPS_CARDS)
        sets = [tuple(state[key]) for key in ("hand", "opponent", "prizes")]
        served = get(server, "/api/gops/matrix-game", cards=GOPS_CARDS,
                     **{key: text(cards) for key, cards in state.items()})
        assert served["value"] == pytest.approx(gops_reference.value(*sets), abs=1e-9)
        for round_ in served["rounds"]:
            X = gops_reference.payoff(*sets, round_["upcard"])
            assert np.allclose(round_["payoffs"], X, atol=1e-9)
            x, y = np.array(round_["player_one"]), np.array(round_["player_two"])
            f_k = gops_reference.highs_game(X)[0]
            assert round_["value"] == pytest.approx(f_k, abs=1e-6)  # float32 mixes
            # Each mix is optimal: no bid of the other player does better against it.
            assert max(round_["player_one_outcomes"]) <= f_k + 1e-6
            assert min(round_["player_two_outcomes"]) >= f_k - 1e-6
            assert np.allclose(round_["player_one_outcomes"], X @ y)
            assert np.allclose(round_["player_two_outcomes"], x @ X)


def test_gops_win_matrix_game_counts_the_points_so_far(server):
    sets, diff = ((1, 4), (2, 3), (1, 3)), 2  # 6 points played; one leads by 2
    served = get(server, "/api/gops/matrix-game", cards=4, objective="win", diff=diff,
                 **dict(zip(("hand", "opponent", "prizes"), map(text, sets))))
    assert served["value"] == pytest.approx(gops_reference.value(*sets, diff), abs=1e-9)
    for round_ in served["rounds"]:
        assert np.allclose(round_["payoffs"],
                           gops_reference.payoff(*sets, round_["upcard"], diff), atol=1e-9)


def describe(question, traits: dict) -> frozenset:
    """The characters a stored question describes (a dict of trait: wanted)."""
    return frozenset(name for name, has in traits.items()
                     if all((trait in has) == wanted for trait, wanted in question.items()))


def board_traits() -> dict[str, frozenset]:
    rows = [line.split(",") for line in BOARD.strip().splitlines()]
    return {row[0]: frozenset([c for c, cell in zip(rows[0][1:4], row[1:4]) if cell == "1"]
                              + [f"hair={row[4]}"]) for row in rows[1:]}


def test_board_questions_win_what_the_plain_recursion_says(server, board_file):
    a, traits = plain_solver(2, "official"), board_traits()
    standing = None
    for _ in range(4):  # fold one foldable character at a time
        served = get(server, "/api/guess-who-board/position", board=board_file, max_literals=2,
                     **({"standing": text(standing)} if standing else {}))
        S, T = frozenset(served["standing"]), frozenset(served["opponent_standing"])
        assert Fraction(served["p"]) == Fraction(a(S, T), len(S) * len(T))
        for q in served["questions"]:
            if q["question"] == "final guess":
                expected = Fraction(1, len(S))
            else:
                inside = S & describe(q["question"], traits)
                expected = Fraction(len(S) * len(T) - a(T, inside) - a(T, S - inside),
                                    len(S) * len(T))
            assert Fraction(q["p"]) == expected, q
        assert served["questions"][0]["a"] == a(S, T)
        standing = sorted(S - {served["foldable"][0]})  # the next request finds it reachable


@lru_cache(maxsize=None)
def all_right(up: int, hidden: frozenset) -> Fraction:
    """P(guessing every hidden card right from up card ``up``), playing optimally."""
    if not hidden:
        return Fraction(1)
    return max(sum((all_right(card, hidden - {card}) for card in hidden
                    if (card > up) == higher), Fraction(0)) / len(hidden)
               for higher in (True, False))


def test_higher_lower_odds_equal_the_recursion_over_remaining_cards(server):
    rng = random.Random(4)
    for cards in (2, 5, 8):
        for _ in range(5):
            seen = rng.sample(range(1, cards + 1), rng.randint(1, cards))
            served = get(server, "/api/higher-lower/odds", cards=cards, seen=text(seen))
            hidden = frozenset(range(1, cards + 1)) - set(seen)
            up = seen[-1]
            assert Fraction(served["deck_p_all"]) == sum(
                all_right(c, frozenset(range(1, cards + 1)) - {c}) for c in
                range(1, cards + 1)) / cards
            if not hidden:
                continue
            for guess, higher in (("higher", True), ("lower", False)):
                wins = [c for c in hidden if (c > up) == higher]
                odds = served["guesses"][guess]
                assert Fraction(odds["right"]["p"]) == Fraction(len(wins), len(hidden))
                assert Fraction(odds["all_right"]["p"]) == sum(
                    (all_right(c, hidden - {c}) for c in wins), Fraction(0)) / len(hidden)
            assert Fraction(served["all_right"]["p"]) == all_right(up, hidden)


def oneill(size: int, rule: str) -> dict[tuple[int, int], int]:
    """a(n, m) by the recursion of docs/guess_who.md, written out plainly."""
    a = {}
    for level in range(1, size + 1):
        order = [(level, k) for k in range(1, level)] + [(k, level) for k in range(1, level + 1)]
        for n, m in order:
            if n == 1:
                a[n, m] = m
            elif rule == "official":
                a[n, m] = max(m, max(n * m - a[m, s] - a[m, n - s] for s in range(1, n)))
            else:
                a[n, m] = max([n * m - a[m, n - 1]] + [n * m - a[m, s] - a[m, n - s]
                                                       for s in range(2, n)])
    return a


@pytest.mark.parametrize("rules", ["official", "variant"])
def test_guess_who_table_is_oneills_recursion_as_fractions(server, rules):
    served = get(server, "/api/guess-who/table", rules=rules, size=12)
    a = oneill(12, rules)
    for n in range(1, 13):
        for m in range(1, 13):
            assert served["a"][n - 1][m - 1] == a[n, m]
            assert Fraction(served["p"][n - 1][m - 1]) == Fraction(a[n, m], n * m)


CLUE_VIEW = {"cards": 9, "hidden": 1, "players": 4, "me": 0, "hand": [1, 5],
             "history": [{"asker": 0, "target": 1, "cards": [2, 3, 4], "shown": 3},
                         {"asker": 1, "target": 2, "cards": [6, 7], "shown": True}]}


def test_clue_posterior_is_clue_infers(server):
    status, served = fetch(server, "/api/clue/posterior", "POST", json.dumps(CLUE_VIEW).encode(),
                           {"Content-Type": "application/json"})
    assert status == 200 and served == infer_view(CLUE_VIEW)
    # Against the deals counted one by one: card 1 and 5 are mine, 3 is seat 1's.
    assert served["p_hidden"]["1"] == served["p_hidden"]["3"] == "0/1"


def test_computations_are_the_status(server, store):
    from subgame.storage import find_computations

    served = get(server, "/api/computations")
    assert served["store"] == store
    assert {c["computation"] for c in served["computations"]} == {
        c.group_path for c in find_computations(store)}
    assert all(c["steps_finished"] == c["steps_total"] for c in served["computations"])


def test_openapi_and_docs_describe_every_route(server):
    spec = get(server, "/openapi.json")
    for path in ("/api/query/gops", "/api/gops/matrix-game", "/api/guess-who-board/position",
                 "/api/higher-lower/odds", "/api/guess-who/table", "/api/computations"):
        assert path in spec["paths"], path
    parameters = {p["name"] for p in spec["paths"]["/api/query/gops"]["get"]["parameters"]}
    assert {"cards", "hand", "opponent", "prizes", "first_move"} <= parameters
    assert "post" in spec["paths"]["/api/clue/posterior"]
    address = urllib.parse.urlsplit(server)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    connection.request("GET", "/docs")
    page = connection.getresponse().read().decode()
    assert "/static/docs.js" in page and "cdn" not in page.lower()


# -- bad input, escapes, a computation being written -------------------------------------------
BAD = [
    ("/api/query/gops?cards=5&hand=1,2&opponent=1,2", 400, "give --hand"),
    ("/api/query/gops?cards=5&hand=1,2&opponent=1,2&prizes=1", 400, "equal sizes"),
    ("/api/query/gops?cards=five", 400, "cards must be an integer"),
    ("/api/query/gops?cards=5&cards=6", 400, "given twice"),
    ("/api/query/gops?cards=5&hand=" + "1," * 1500, 400, "longer than"),
    ("/api/query/gops?cards=5&hand=" + "1" * 9000, 414, "longer than 8192 bytes"),
    ("/api/query/gops?cards=99999999999999999", 400, "must be an integer"),
    ("/api/query/gops?cards=6&first_move=true", 404, "no computation"),
    ("/api/query/gops?cards=5&first_move=maybe", 400, "true or false"),
    ("/api/query/gops?cards=5&colour=red", 400, "unknown parameter"),
    ("/api/query/guess-who?n=0&m=3", 400, "n must be between 1"),
    ("/api/query/guess-who?n=300&m=3", 404, "outside the stored range"),
    ("/api/query/guess-who?n=3&m=3&rules=mine", 400, "must be one of official, variant"),
    ("/api/query/higher-lower", 400, "give --n"),
    ("/api/query/nosuchgame", 404, "nothing at"),
    ("/api/gops/matrix-game?cards=5&hand=1&opponent=1&prizes=9", 400, "outside 1..5"),
    ("/api/gops/matrix-game?cards=500&hand=1&opponent=1&prizes=1", 400, "cards must be in"),
    ("/api/guess-who/table?size=1000", 400, "size must be in"),
    ("/api/higher-lower/odds?cards=5&seen=1,1", 400, "distinct cards"),
    ("/api/higher-lower/odds?cards=50&seen=1", 404, "outside the stored range"),
    ("/api/guess-who-board/position?board=classic", 404, "holds no classic board"),
    ("/api/query/gops?cards=5&hand=1&opponent=1&prizes=1&store=/tmp", 400, "one store"),
]


@pytest.mark.parametrize("path, status, message", BAD)
def test_bad_input_is_a_4xx_with_one_message(server, path, status, message):
    got, body = fetch(server, path)
    assert got == status and list(body) == ["error"], body
    assert message in body["error"] and "\n" not in body["error"]
    assert "Traceback" not in body["error"] and "internal" not in body["error"]


@pytest.mark.parametrize("path", [
    "/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
    "/static/family/../../cli.py", "/static/family/..%2f..%2fcli.py", "/static//etc/passwd",
    "/static/%2fetc%2fpasswd", "/static/family/gops.py", "/static/family/gops.js/../oracle.py",
    "/static/index.html/..", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
    "/static/family/%2e%2e%2foracle.js"])
def test_paths_outside_the_page_files_are_refused(server, path):
    status, body = fetch(server, path)
    assert status == 404 and list(body) == ["error"]


@pytest.mark.parametrize("board", ["/etc/passwd", "../tests/data/seven_board.csv",
                                   "seven_board.csv", "tests/data/seven_board.csv"])
def test_no_request_names_a_file(server, board):
    status, body = fetch(server, "/api/query/guess-who-board?" +
                         urllib.parse.urlencode({"board": board}))
    assert status == 400 and "board must be one of classic" in body["error"]


def test_bodies_are_bounded_and_must_be_json(server):
    post = lambda body: fetch(server, "/api/clue/posterior", "POST", body,  # noqa: E731
                              {"Content-Type": "application/json"})
    status, body = post(b"x" * (65 * 1024))
    assert status == 413 and "at most" in body["error"]
    status, body = post(b"[" * 5000 + b"]" * 5000)
    assert status == 400 and list(body) == ["error"]
    status, body = post(json.dumps({**CLUE_VIEW, "cards": 10**6}).encode())
    assert status == 400 and "cards must be in" in body["error"]
    status, body = post(json.dumps({**CLUE_VIEW, "history": [{"asker": 0}]}).encode())
    assert status == 400 and "history[0] lacks" in body["error"]
    status, body = fetch(server, "/api/clue/posterior")
    assert status == 405 and list(body) == ["error"]


def test_a_computation_being_written_answers_what_is_finished(server, store, tmp_path):
    """A copy of the GOPS store whose top level is not finished, as a live run leaves it:
    the lower levels answer, the top level says it is not computed, in one message; once
    the step is recorded as finished, the top level answers."""
    from subgame.storage import ComputationStore

    copy = str(tmp_path / "partial.zarr")
    shutil.copytree(store, copy)
    group = ComputationStore.open(copy, f"gops/N{GOPS_CARDS}", writable=True).group
    finished = dict(group.attrs["steps_done"])
    done = {step: record for step, record in finished.items() if step != str(GOPS_CARDS - 1)}
    group.attrs["steps_done"] = done
    process, url = serve(copy)
    try:
        full = text(range(1, GOPS_CARDS + 1))
        status, body = fetch(url, f"/api/query/gops?cards={GOPS_CARDS}&hand={full}"
                                  f"&opponent={full}&prizes={full}")
        assert status == 404 and body == {"error": f"level j={GOPS_CARDS} of gops/N{GOPS_CARDS}"
                                                   " is not computed yet"}
        lower = get(url, "/api/gops/matrix-game", cards=GOPS_CARDS, hand="1,2", opponent="3,4",
                    prizes="1,4")
        assert lower["value"] == pytest.approx(gops_reference.value((1, 2), (3, 4), (1, 4)))
        listed = {c["computation"]: c for c in get(url, "/api/computations")["computations"]}
        assert listed[f"gops/N{GOPS_CARDS}"]["steps_finished"] == GOPS_CARDS - 1
        # The run finishes the step: the server, which keeps what it opened, sees it at once.
        group.attrs["steps_done"] = finished
        opening = get(url, "/api/query/gops", cards=GOPS_CARDS, hand=full, opponent=full,
                      prizes=full)
        assert opening == subgame.query("gops", store, cards=GOPS_CARDS, hand=full,
                                        opponent=full, prizes=full)
    finally:
        stop(process)


def test_concurrent_clients_are_all_answered_alike(server):
    rng = random.Random(32)
    paths = []
    for _ in range(16):
        state = random_gops_state(rng, GOPS_CARDS)
        paths.append(f"/api/query/gops?cards={GOPS_CARDS}&" + urllib.parse.urlencode(
            {key: text(cards) for key, cards in state.items()}))
        paths.append("/api/gops/matrix-game?" + urllib.parse.urlencode(
            {"cards": GOPS_CARDS, **{key: text(cards) for key, cards in state.items()}}))
    alone = {path: fetch(server, path) for path in paths}
    with ThreadPoolExecutor(32) as clients:
        together = list(clients.map(lambda path: (path, fetch(server, path)), paths * 4))
    assert all(answer == alone[path] and answer[0] == 200 for path, answer in together)


# -- a real browser ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    from bench.web_screenshots import browser as start

    profile = tempfile.mkdtemp(prefix="subgame-chromium-")
    driver = start(profile)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def wait(driver, condition, seconds: float = 60):
    """Until ``condition()`` holds; an element re-rendered meanwhile is looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda _: condition())


def by_css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def cells(driver, table_id: str) -> list[list[str]]:
    rows = by_css(driver, f"#{table_id} tr")[1:]
    return [[cell.text for cell in row.find_elements("css selector", "td")] for row in rows]


def test_page_loads_with_the_stores_computations(server, browser, store):
    browser.get(server + "/")
    wait(browser, lambda: by_css(browser, "#tabs a"))  # (the table is there before the script)
    listed = browser.find_element("id", "computations").text
    assert f"gops/N{GOPS_CARDS}" in listed and "guess-who/both" in listed
    tabs = browser.find_element("id", "tabs").text
    assert all(title in tabs for title in ("GOPS", "Guess Who board", "Higher/lower", "Clue"))


def test_gops_heatmap_shows_the_apis_numbers(server, browser):
    browser.get(server + "/#gops")
    wait(browser, lambda: by_css(browser, "#gops-payoffs"))
    for card in ("#gops-hand-1", f"#gops-opponent-{GOPS_CARDS}", "#gops-prizes-2"):
        by_css(browser, card)[0].click()
    everything = range(1, GOPS_CARDS + 1)
    served = get(server, "/api/gops/matrix-game", cards=GOPS_CARDS,
                 hand=text(c for c in everything if c != 1),
                 opponent=text(c for c in everything if c != GOPS_CARDS),
                 prizes=text(c for c in everything if c != 2))
    shown = f"{'+' if served['value'] >= 0 else '−'}{abs(served['value']):.4f}"
    wait(browser, lambda: shown in browser.find_element("id", "gops-value").text)
    def shows(table_id: str, numbers: list[list[float]]) -> bool:
        """The cells show these numbers to their three decimals ('·' for a zero bid)."""
        shown = cells(browser, table_id)
        return len(shown) == len(numbers) and all(
            len(row) == len(values) and all(
                abs(float("0" if text == "·" else text) - value) <= 5e-4 + 1e-12
                for text, value in zip(row, values))
            for row, values in zip(shown, numbers))

    assert shows("gops-payoffs", served["rounds"][0]["payoffs"])
    assert shows("gops-strategy-one", [r["player_one"] for r in served["rounds"]])
    assert shows("gops-strategy-two", [r["player_two"] for r in served["rounds"]])
    assert not shows("gops-payoffs", served["rounds"][1]["payoffs"])  # another upcard's


def test_a_game_against_the_optimal_strategy_is_played_to_its_end(server, browser):
    browser.get(server + "/#gops")
    wait(browser, lambda: by_css(browser, "#gops-new-game"))
    by_css(browser, "#gops-new-game")[0].click()
    for played in range(GOPS_CARDS):
        wait(browser, lambda: by_css(browser, "[id^=gops-play-bid-]") and
             len(by_css(browser, "#gops-log tr")) == played + 1)
        by_css(browser, "[id^=gops-play-bid-]")[-1].click()  # always the highest card
    wait(browser, lambda: by_css(browser, "#gops-final"))
    log = cells(browser, "gops-log")
    assert len(log) == GOPS_CARDS
    # Replay the log against the API: each machine bid had a positive optimal probability,
    # and the values shown are the API's, with the points so far counted.
    hand = opponent = prizes = list(range(1, GOPS_CARDS + 1))
    mine = theirs = 0
    for _, prize, bid, reply, score, before, with_prize, _after in log:
        prize, bid, reply = int(prize), int(bid), int(reply)
        served = get(server, "/api/gops/matrix-game", cards=GOPS_CARDS, hand=text(hand),
                     opponent=text(opponent), prizes=text(prizes))
        round_ = next(r for r in served["rounds"] if r["upcard"] == prize)
        assert round_["player_two"][opponent.index(reply)] > 0
        assert float(before.replace("−", "-")) == pytest.approx(mine - theirs + served["value"],
                                                                abs=6e-5)
        assert float(with_prize.replace("−", "-")) == pytest.approx(
            mine - theirs + round_["value"], abs=6e-5)
        mine += prize if bid > reply else 0
        theirs += prize if reply > bid else 0
        assert score == f"{mine}:{theirs}"
        hand, opponent, prizes = ([c for c in cards if c != gone] for cards, gone in
                                  ((hand, bid), (opponent, reply), (prizes, prize)))
    assert f"Final score {mine}:{theirs}" in browser.find_element("id", "gops-final").text


def shown_question(question) -> str:
    """A question as the page words it."""
    if question == "final guess":
        return "the final guess"
    if isinstance(question, str):
        return f"is it {question}?"
    return " and ".join(("" if has else "not ") + trait for trait, has in question.items()) + "?"


def test_folding_a_character_shows_the_apis_best_question(server, browser, board_file):
    browser.get(server + "/#guess-who-board")
    wait(browser, lambda: by_css(browser, "#board-best"))
    full = get(server, "/api/guess-who-board/position", board=board_file, max_literals=2)
    assert browser.find_element("id", "board-best").text == shown_question(
        full["questions"][0]["question"])
    standing, served = full["standing"], full
    for _ in range(3):
        name = served["foldable"][0]
        standing = [n for n in standing if n != name]
        served = get(server, "/api/guess-who-board/position", board=board_file,
                     max_literals=2, standing=text(standing))
        by_css(browser, f"#board-mine-{name}")[0].click()
        wait(browser, lambda: "down" in by_css(browser, f"#board-mine-{name}")[0]
             .get_attribute("class"))
        assert served["p"] in browser.find_element("id", "board-p").text
        assert browser.find_element("id", "board-best").text == shown_question(
            served["questions"][0]["question"])


# -- the command ---------------------------------------------------------------------------------
def test_listening_beyond_this_machine_is_said_in_one_line(store):
    process = subprocess.Popen([sys.executable, "-m", "subgame.cli", "web", "--store", store,
                                "--host", "0.0.0.0", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).parents[1])
    try:
        assert process.stdout.readline().strip() == \
            "listening on 0.0.0.0: reachable from other machines (read-only)"
        assert "read-only at http://0.0.0.0:" in process.stdout.readline()
    finally:
        stop(process)


def test_a_missing_store_is_refused_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "subgame.cli", "web", "--store",
                           str(tmp_path / "none.zarr"), "--port", "0"], capture_output=True,
                          text=True, cwd=Path(__file__).parents[1], timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"error: no subgame store at "
                                                f"'{tmp_path / 'none.zarr'}'"]


# -- the page without its script, and its forms --------------------------------------------------
def test_the_page_reads_without_its_script(server, browser, store):
    """The server sends the store's summary in the page: a plain fetch and a browser with
    scripts off read the same table the script draws."""
    address = urllib.parse.urlsplit(server)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    connection.request("GET", "/")
    html = connection.getresponse().read().decode()
    connection.close()
    listed = [c["computation"] for c in get(server, "/api/computations")["computations"]]
    assert len(listed) >= 6 and all(f"<td>{name}</td>" in html for name in listed)
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(server + "/")
        without = cells(browser, "computations")
        assert [row[0] for row in without] == listed
        assert "need JavaScript" in browser.find_element("id", "view").text
        assert f"store {store}, read-only" == browser.find_element("id", "store").text
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get(server + "/")
    wait(browser, lambda: by_css(browser, "#tabs a"))
    assert cells(browser, "computations") == without  # the script's table is the same


def test_the_clue_view_is_a_form(server, browser):
    """No JSON to write: the game's numbers, the hand and each interrogation are fields;
    the posterior shown is `clue infer`'s for the view the form holds."""
    browser.get(server + "/#clue")
    wait(browser, lambda: by_css(browser, "#clue-posterior"))
    assert not by_css(browser, "textarea")
    view = {"cards": 9, "hidden": 1, "players": 4, "me": 0, "hand": [1, 5],
            "history": [{"asker": 0, "target": 1, "cards": [2, 3, 4], "shown": 3},
                        {"asker": 1, "target": 2, "cards": [6, 7], "shown": True},
                        {"asker": 2, "target": 3, "cards": [8, 9], "shown": False}]}

    def shows(expected: dict) -> bool:
        rows = cells(browser, "clue-posterior")
        return [row[1].split(" = ")[0] for row in rows] == list(expected["p_hidden"].values())

    wait(browser, lambda: shows(infer_view(view)))
    by_css(browser, "#clue-remove-2")[0].click()  # seat 2's question goes
    view["history"].pop()
    wait(browser, lambda: shows(infer_view(view)))
    for field, value in (("clue-asker", "3"), ("clue-target", "0"), ("clue-asked", "4,9")):
        by_css(browser, f"#{field}")[0].send_keys(value)
    from selenium.webdriver.support.ui import Select

    Select(by_css(browser, "#clue-shown")[0]).select_by_value("false")
    by_css(browser, "#clue-add")[0].click()
    view["history"].append({"asker": 3, "target": 0, "cards": [4, 9], "shown": False})
    wait(browser, lambda: shows(infer_view(view)))
    assert len(cells(browser, "clue-history")) == 3


def test_selected_gops_cards_are_visibly_selected_and_no_zero_is_negative(server, browser):
    browser.get(server + "/#gops")
    wait(browser, lambda: by_css(browser, "#gops-payoffs"))
    by_css(browser, "#gops-hand-1")[0].click()
    wait(browser, lambda: by_css(browser, "#gops-hand-1")[0].get_attribute("aria-pressed")
         == "false")
    off, on = by_css(browser, "#gops-hand-1")[0], by_css(browser, "#gops-hand-2")[0]
    assert on.get_attribute("aria-pressed") == "true"
    for prop in ("background-color", "color", "box-shadow"):
        assert off.value_of_css_property(prop) != on.value_of_css_property(prop), prop
    assert browser.execute_script(
        "return [subgame.fixed(-0.00001, 4), subgame.fixed(-0.4, 3), subgame.fixed(0, 2)]"
    ) == ["0.0000", "-0.400", "0.00"]
    page = browser.find_element("tag name", "body").text
    assert not re.search(r"[−-]0\.0+(?![0-9])", page)
