"""`subgame reproduce`: each document's reproduction at its small size.

The documents' printed values are transcribed here again, from the seeds, apart from the
modules' own copies: every claim found "equal" or "equal to the shown digits" must name
one of them, with the same printed text, and the verdicts of the differences are pinned.
Values are checked against independent computations where one is short (exact fractions,
the brute force, the seed's own recursion)."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb, factorial, ulp

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.families.guess_who_board.game import Personage, Spelbord, product
from subgame.families.higher_lower.game import orders_guessed_all_right, seed
from subgame.reproduce import reproduce
from subgame.reproduce.claims import DIFFERS, EQUAL, NOT_REPRODUCED, SHOWN_DIGITS, rounds_to

AGREE = (EQUAL, SHOWN_DIGITS)


def cli(*args: str):
    return CliRunner().invoke(build_app(), list(args))


def checked(result, printed: dict[str, str], differs: set[str], missing: set[str] = frozenset()):
    """Every agreeing claim is transcribed in ``printed`` with the same text; the others are
    exactly ``differs`` (and ``missing``: not reproduced)."""
    claims = {claim.item: claim for claim in result.claims}
    for item, claim in claims.items():
        if claim.verdict in AGREE:
            assert item in printed, f"unchecked agreement: {item}"
            assert claim.document == printed[item], item
    assert {i for i, c in claims.items() if c.verdict == DIFFERS} == differs
    assert {i for i, c in claims.items() if c.verdict == NOT_REPRODUCED} == set(missing)
    for item in differs | set(missing):
        assert claims[item].why and claims[item].page, item
    assert set(printed) <= set(claims), set(printed) - set(claims)
    return claims


# --- seed 004, higher/lower -----------------------------------------------------------------

HL_TABLE = """\
   2 |      2 | True || 1.0e+00 | 0.8333 | 1.0e+00 | 0%
   3 |      5 | True || 8.3e-01 | 0.8000 | 7.2e-01 | 13%
   4 |      9 | True || 6.7e-01 | 0.7750 | 5.3e-01 | 21%
   5 |     14 | True || 5.2e-01 | 0.7688 | 3.8e-01 | 26%
   6 |     20 | True || 4.0e-01 | 0.7587 | 2.8e-01 | 30%
   7 |     27 | True || 3.0e-01 | 0.7558 | 2.0e-01 | 34%
   8 |     35 | True || 2.3e-01 | 0.7501 | 1.5e-01 | 36%
   9 |     44 | True || 1.7e-01 | 0.7483 | 1.1e-01 | 38%
  19 |    189 | True || 8.4e-03 | 0.7343 | 4.2e-03 | 50%
  39 |    779 | True || 1.6e-05 | 0.7277 | 6.8e-06 | 57%
  59 |  1,769 | True || 2.6e-08 | 0.7256 | 1.1e-08 | 58%
  79 |  3,159 | True || 4.2e-11 | 0.7245 | 1.8e-11 | 58%
  99 |  4,949 | True || 6.7e-14 | 0.7239 | 2.8e-14 | 57%"""
HL_RATIOS = {2: "0.8333333333333334", 3: "0.8", 4: "0.775", 5: "0.7688172043010753",
             6: "0.7587412587412588", 7: "0.7557603686635944", 8: "0.7500967866821525",
             9: "0.7483290322580645", 19: "0.7343228066190575", 39: "0.7277139939871775",
             59: "0.7255656153885536", 79: "0.7245013548920631", 99: "0.7238659386192225"}


def test_higher_lower_notebook(tmp_path):
    printed = {"brute force over the 9! orders (guess_all)": "0.17085537918871252",
               "the brute force agrees with the exact recursion at n = 9": "agrees",
               "P_all(99) by the memoised recursion": "6.67213407124781e-14",
               "19! ≈ 10^17 permutations": "10^17", "99! ≈ 10^156 permutations": "10^156"}
    for line in HL_TABLE.splitlines():
        n, s, _, p, ratio, e, delta = [cell.strip() for cell in line.replace("||", "|").split("|")]
        printed |= {f"table n = {n}: s, the recursion's states": s.replace(",", ""),
                    f"table n = {n}: P_all(n)": p, f"table n = {n}: P(n+1)/P(n)": ratio,
                    f"table n = {n}: 0.725**(n-2)": e,
                    f"table n = {n}: Δ = (P_all - 0.725**(n-2)) / P_all": delta}
    printed |= {f"P_all({n + 1}) / P_all({n})": text for n, text in HL_RATIOS.items()}
    # the recursion's floats that miss the exact value's nearest float in the last digit
    off = {"P_all(9) by the memoised recursion", "P_all(19) by the memoised recursion"}
    result = reproduce("higher-lower", str(tmp_path / "s.zarr"), str(tmp_path / "fig"), "small")
    claims = checked(result, printed, off | {"P_all is O(n^2)"})
    exact = {9: Fraction(775, 4536), 19: Fraction(4492010499113, 533531142144000)}
    for n, value in exact.items():
        claim = claims[f"P_all({n}) by the memoised recursion"]
        assert claim.document == repr(seed.P_all(n)) != repr(float(value))
        assert abs(float(claim.document) - float(value)) <= 2 * ulp(float(value))
    assert (tmp_path / "fig" / "higher_lower_p_all.png").stat().st_size > 10_000


def test_brute_force_command_and_exact_scientific(tmp_path):
    result = cli("higher-lower", "brute-force", "--n", "8", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"n": 8, "orders": 40320, "guessed_all_right": 9184,
                                         "p_all_exact": "41/180",
                                         "p_all": 41 / 180}
    assert [orders_guessed_all_right(n) for n in range(1, 8)] == [
        round(factorial(n) * seed.P_all(n)) for n in range(1, 8)]
    refused = cli("higher-lower", "brute-force", "--n", "11")
    assert refused.exit_code == 2 and "between 1 and 10" in refused.stderr
    store = str(tmp_path / "s.zarr")
    assert cli("run", "higher-lower", "--max-n", "100", "--store", store).exit_code == 0
    answer = json.loads(cli("query", "higher-lower", "--n", "99", "--store", store,
                            "--json").stdout)
    # the exact value, 6.6721340712478084e-14, to 16 digits (the notebook: 6.67213407124781e-14)
    assert answer["p_all_scientific"] == "6.672134071247808e-14"
    assert rounds_to("6.67213407124781e-14", Fraction(answer["p_all_exact"]))


# --- seed 000, O'Neill ------------------------------------------------------------------------

def test_guess_who_paper(tmp_path):
    holds = [
        "a(1, m) = m under both rules", "Theorem 1: a_II(n, m) = sum_k min(n, ★k)",
        "Theorem 2: a_II(n, m) in closed form", "Theorem 3 with lower = max(1, floor(★m/2))",
        "Corollary 1 (split in half; 1 when m <= 2) is optimal",
        "Corollary 2 (split in half if ★n <= ★m, else floor(★m/2)) is optimal",
        "Remark: p_II = 1 - r A(d_n)/2 if r <= d_n/d_m, else A(d_m)/r (n, m >= 3)",
        "Remark: p_II by powers of two, 3·2^k < n <= 3·2^(k+1) < m and the mirror case",
        "1/2 < d <= 1 and 2/3 <= A(d) <= 3/4", "p_II(2n, 2m) = p_II(n, m) for n, m >= 3",
        "fair states (n, m >= 3) are those with r = 3/2, d_n = 1 or r = 4/3, d_m = 1",
        "F_II = 1/6, G_II = 0, p_II = 2/3 where n = ★n = ★m = m",
        "F_II is larger than 1/6 at n = m <= 2",
        "the first-mover advantage is larger under the variant rules"]
    printed = {"p_I(23, 23)": "296/529", "p_I(23, 23), decimal": "0.5595",
               "p_II(23, 23)": "349/529", "p_II(23, 23), decimal": "0.6597",
               "(23, 16) is fair under the official rules": "1/2",
               **{item: "holds" for item in holds}}
    table_2 = {"official": "(2,1), (2,2), (3,2), (4,2), (4,3), (5,4), (6,4), (8,5), (10,7), "
                           "(11,8), (12,8), (14,10), (16,11), (16,12), (18,13), (20,14), (22,15), "
                           "(23,16)",
               "variant": "(2,1), (3,2), (4,3), (6,4), (8,6), (12,8), (16,2)"}
    result = reproduce("guess-who-paper", str(tmp_path / "s.zarr"), str(tmp_path / "f"), "small")
    claims = checked(result, printed, {
        "Table 2, fair states 1 <= n, m < 24, official rules",
        "Table 2, fair states 1 <= n, m < 24, variant rules",
        "Theorem 3 as printed: the optimal guesses are lower..upper"})
    for rule, text in table_2.items():
        claim = claims[f"Table 2, fair states 1 <= n, m < 24, {rule} rules"]
        assert claim.document == text
    assert "(8,6), (10,7)" in claims["Table 2, fair states 1 <= n, m < 24, official rules"].subgame
    assert claims["Table 2, fair states 1 <= n, m < 24, variant rules"].subgame.endswith(
        "(12,8), (16,12)")
    assert "column(s) m = [3]" in claims[
        "Theorem 3 as printed: the optimal guesses are lower..upper"].subgame
    assert len(result.figures) == 6


def test_corollaries_and_remark_by_a_plain_recursion():
    """The new closed forms against a plain Fraction recursion of the variant rules."""
    from functools import lru_cache

    from subgame.families.guess_who import game as gw

    @lru_cache(None)
    def p(n: int, m: int) -> Fraction:
        if n == 1:
            return Fraction(1)
        return max(_value(n, m, s) for s in range(1, n))

    def _value(n: int, m: int, s: int) -> Fraction:
        if s == 1:
            return 1 - Fraction(n - 1, n) * p(m, n - 1)
        return 1 - Fraction(s, n) * p(m, s) - Fraction(n - s, n) * p(m, n - s)

    for n in range(1, 30):
        for m in range(1, 30):
            for strategy in (gw.corollary1, gw.corollary2):
                assert _value(n, m, int(strategy(n, m))) == p(n, m) if n > 1 else True
            if n >= 3 and m >= 3:
                assert gw.remark_win_probability(n, m) == p(n, m)
                power = gw.remark_powers_of_two(n, m)
                assert power is None or power == p(n, m)
    assert gw.remark_powers_of_two(7, 20) == 1 - Fraction(6, 20) * (1 - Fraction(4, 7))
    assert gw.remark_powers_of_two(5, 6) is None  # both in 3 < . <= 6


# --- seed 001, GOPS ---------------------------------------------------------------------------

def test_gops_paper(tmp_path):
    printed = {"(N!)^3 ways of playing out the game, N = 13": "2.4e29",
               "points needed to win N = 13": "46", "f(V, V, P) = 0": "holds",
               "f(V, Y, P) = -f(Y, V, P)": "holds",
               "playing 1 against the computer's 6 is to your advantage": "holds",
               "when the computer bids low it gains more than you stand to get against its top "
               "bid": "holds",
               "the computed strategies optimise the amount won: always 1 gains no expected "
               "points against them": "holds"}
    result = reproduce("gops-paper", str(tmp_path / "s.zarr"), str(tmp_path / "f"), "small")
    checked(result, printed, set(),
            {"η, the value of an extra bidding chip, ≈ 1 + 1/(2N - 2) as R grows"})
    assert factorial(13) ** 3 == 241457638684091756838912000000


# --- seed 002, the exercise -------------------------------------------------------------------

def test_the_exercise_transcript_through_the_dutch_api():
    anne = Personage("Anne", "vrouw", "oorringen", "krulhaar")
    assert anne.toString() == 'new Personage("Anne", "vrouw", "oorringen", "krulhaar")'
    assert anne.kenmerken() == "Anne heeft als kenmerken: vrouw, oorringen en krulhaar"
    assert [anne.voldoet(d) for d in ({}, {"vrouw": True}, {"vrouw": False}, {"man": True},
                                      {"vrouw": True, "baard": False},
                                      {"krulhaar": True, "vrouw": True, "oorringen": True})] == [
        True, True, False, False, True, True]
    bernard = Personage("Bernard", "man")
    assert bernard.toString() == 'new Personage("Bernard", "man")'
    assert bernard.kenmerken() == "Bernard heeft als kenmerken: man"
    assert bernard.voldoet({"man": True})
    assert bernard.voldoet({"vrouw": False, "hoed": False, "oorringen": False, "baard": False})
    assert product([1, 2, 3], 2)[:4] == [(1, 1), (1, 2), (1, 3), (2, 1)]
    claire, david = Personage("Claire", "vrouw", "hoed"), Personage("David", "man", "baard")
    spelbord = Spelbord("Claire", anne, bernard, claire, david)
    assert spelbord.toString() == (
        'new Spelbord("Claire", new Personage("Anne", "vrouw", "oorringen", "krulhaar"), '
        'new Personage("Bernard", "man"), new Personage("Claire", "vrouw", "hoed"), '
        'new Personage("David", "man", "baard"))')
    assert spelbord.kenmerken() == ["baard", "hoed", "krulhaar", "man", "oorringen", "vrouw"]
    assert spelbord.isOntmaskerd() is False
    assert spelbord.potentieel({"man": True}) == 2
    assert spelbord.besteBeschrijving(["man", "oorringen"]) == {"man": True}
    assert spelbord.beste_beschrijving(["baard", "oorringen"]) == {"baard": False,
                                                                    "oorringen": False}
    assert spelbord.vraag({"man": True}) is False
    assert spelbord.neerklappen({"man": True}).toString() == (
        'new Spelbord("Claire", new Personage("Anne", "vrouw", "oorringen", "krulhaar"), '
        'new Personage("Claire", "vrouw", "hoed"))')
    assert spelbord.besteBeschrijving(spelbord.kenmerken()) == {"oorringen": True}
    spelbord.neerklappen({"oorringen": True})
    assert spelbord.isOntmaskerd() is True and spelbord.is_ontmaskerd() is True
    for make, message in ((lambda: Personage("Bernard"), "geen kenmerken"),
                          (lambda: Personage(), "geen kenmerken"),
                          (lambda: Spelbord("Zoë", anne), "onbekende identiteit"),
                          (lambda: Spelbord("Anne"), "onbekende identiteit")):
        with pytest.raises(Exception) as raised:
            make()
        assert str(raised.value) == message


def test_guess_who_exercise_reproduction():
    from subgame.reproduce.guess_who_exercise import TRANSCRIPT

    result = reproduce("guess-who-exercise", None, "unused", "small")
    # the session's printed lines, counted in the seed: 32 outputs, and the two errors
    assert len(result.claims) == 34 == sum(out is not None for _, out in TRANSCRIPT) + 2
    assert all(claim.verdict == EQUAL for claim in result.claims)
    assert result.claims[-1].document == "Error: onbekende identiteit"


# --- seed 003, the Clue report ----------------------------------------------------------------

def test_clue_report(tmp_path):
    printed = {"(20 C 3) combinations of three conditionals": "1140",
               "(60 C 3) combinations of three conditionals": "34220",
               "the least-asked cards are not the ones a player holds (the idea disappoints)":
                   "holds",
               "asking by the highest weights is the safer alternative (never wrong)": "holds"}
    result = reproduce("clue-report", str(tmp_path / "s.zarr"), str(tmp_path / "f"), "small")
    claims = checked(result, printed, {
        "the core player guesses right within (N - k - h) p rounds",
        "the weighted player guesses correctly before the core player a majority of the time",
        "history mining at factor 1/2 guesses right about 70% of the time"},
        {"Group2PlayerEL: 663 first places in the 9-player 8-card games, more than three "
         "times the next player"})
    assert comb(20, 3) == 1140 and comb(60, 3) == 34220
    # the core players are never wrong; their latest guess is within the corrected bound
    assert "all right" in claims["the core player guesses right within (N - k - h) p rounds"].subgame
    assert "broken" not in claims["the core player guesses right within (N - k - h) p rounds"].why


# --- the command ------------------------------------------------------------------------------

def test_command_lists_refuses_and_prints_json(tmp_path):
    listed = cli("reproduce", "--list", "--json")
    assert listed.exit_code == 0
    assert sorted(json.loads(listed.stdout)) == sorted(
        ["guess-who-paper", "gops-paper", "guess-who-exercise", "clue-report", "higher-lower"])
    for args, words in ((["reproduce", "nope"], "unknown document 'nope'"),
                        (["reproduce"], "name a document"),
                        (["reproduce", "higher-lower", "--size", "huge"], "huge")):
        refused = cli(*args)
        assert refused.exit_code == 2 and words in refused.stderr, refused.output
        assert "Traceback" not in refused.output
    result = cli("reproduce", "guess-who-exercise", "--json", "--out", str(tmp_path / "f"))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["counts"] == {"equal": 34, "equal to the shown digits": 0, "differs": 0,
                                "not reproduced": 0}
    text = cli("reproduce", "guess-who-exercise")
    assert "= > anne.kenmerken(): document \"Anne heeft als kenmerken: vrouw, oorringen en " \
           "krulhaar\"" in text.stdout
    assert text.stdout.rstrip().endswith("34 claims: 34 equal")
