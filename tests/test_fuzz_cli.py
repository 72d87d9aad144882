"""Every user mistake is a user error: seeded random bad input to every command of the CLI,
enumerated from the app that `subgame` runs (run, query, plot, verify per family, the
families' own tools, status, upgrade, verify --store, serve). Each call must end with a
documented status (0, 2, or 3 for damage found), never 1 (an internal error), with no
traceback and at most one line on stderr when it refuses; a store that exists must be left
byte for byte as it was."""

from __future__ import annotations

import inspect
import io
import random
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Annotated, Any, Iterator, get_args, get_origin

import pytest
import typer

from subgame import cli
from subgame.engine import run_computation
from subgame.options import RunOptions

SEED = 20261130
CASES = 320
# success, a refusal, damage found (`verify --store`), the machine's refusal (a full disk)
DOCUMENTED_STATUSES = {0, 2, 3, 5}
# Commands that start work (a flow, a server) get at least one value that must be refused.
STARTS_WORK = ("run", "serve")

INTS = ["-1", "0", "1", "2", "3", "7", "64", "99999999999999999999", "-99999999999", "abc",
        "", "1.5", "1e3"]
REFUSED_INTS = ["abc", "", "1.5", "1e3", "0x10"]
WORDS = ["", " ", ",", ",,", "a,,b", "optimal,,", ",loss", "official", "variant", "both",
         "optimal", "majority", "always-higher", "always_higher", "loss", "pass", "loss,pass",
         "points", "win", "all", "none", "top:2", "top:-1", "top:x", "classic", "match",
         "random", "greedy-rank", "1", "1,2", "1,2,3", "3,2,1", "1,1", "0", "-1", "1,,2",
         "x" * 5000, "ünïcode", "-x", "../..", "%s%n", "1e309", "nan", "both,official"]


def _fingerprint(root: Path) -> list[tuple[str, int, int]]:
    """Every file and folder under root with its size and modification time: any write
    changes it (cheaper than hashing the contents after each of hundreds of calls)."""
    return [(str(path.relative_to(root)), stat.st_size, stat.st_mtime_ns)
            for path in sorted(root.rglob("*")) for stat in [path.stat()]]


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(argv words, command) for every command the app runs, groups that run themselves
    (`subgame verify --store S`) included."""
    if getattr(group, "invoke_without_command", False) and path:
        yield path, group
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


class Inputs:
    """The pools bad values are drawn from: files, folders, stores, JSON and CSV views."""

    def __init__(self, tmp: Path, store: Path) -> None:
        self.tmp = tmp
        self.file = tmp / "plain.txt"
        self.file.write_text("not a store\n")
        not_zarr = tmp / "not-zarr"
        not_zarr.mkdir()
        (not_zarr / "readme.txt").write_text("a folder, not a Zarr store\n")
        binary = tmp / "binary.bin"
        binary.write_bytes(bytes(range(256)))
        jsons = []
        for index, text in enumerate(["{}", "[]", "null", "3", '{"players": 3}',
                                      '{"cards": "x", "hands": 7}', "{not json"]):
            jsons.append(tmp / f"view{index}.json")
            jsons[-1].write_text(text)
        csvs = []
        for index, text in enumerate(["", "name\n", "name,hat\nAl,1\nAl,0\n",
                                      "name,hat\nAl,2\n", "a;b\n1;2\n"]):
            csvs.append(tmp / f"board{index}.csv")
            csvs[-1].write_text(text)
        folder = tmp / "figures"
        missing = tmp / "missing"
        self.paths = [str(p) for p in (self.file, not_zarr, binary, missing, folder, *jsons,
                                       *csvs)] + [""]
        self.refused_stores = [str(self.file), str(self.file / "under.zarr"),
                               str(tmp / ("a" * 5000)), "nosuchscheme://x",
                               "s3://bucket-that-does-not-exist/x", "http://127.0.0.1:9/x",
                               "ftp://127.0.0.1:9/x", "", " "]
        self.stores = [str(store)] * 6 + [str(missing / "s.zarr"), str(not_zarr),
                                          *self.refused_stores]

    def value(self, rng: random.Random, parameter: Any, annotation: Any,
              refused: bool) -> list[str]:
        """Command-line words for one parameter of this declared type: a value drawn at
        random, or (refused) one that the command must refuse before it starts any work."""
        name = parameter.name
        flag = parameter.opts[0] if parameter.opts[0].startswith("-") else None
        if getattr(parameter, "is_flag", False):
            return [flag]
        if name == "store":
            values = self.refused_stores if refused else self.stores
        elif flag is None:  # an argument: names of deployments
            values = ["no-such-deployment"]
        elif annotation is int or "int" in str(annotation):
            values = REFUSED_INTS if refused else INTS
        elif refused:
            values = [str(self.file), str(self.tmp / "missing.yaml")]  # serve --file
        elif "Path" in str(annotation) or name in ("game", "board", "out", "file"):
            values = self.paths + WORDS[:3]
        else:
            values = WORDS
        words = [flag, rng.choice(values)] if flag else [rng.choice(values)]
        if getattr(parameter, "multiple", False) and rng.random() < 0.3:
            words += [flag, rng.choice(values)]
        return words

    def refusable(self, parameter: Any, annotation: Any) -> bool:
        return not getattr(parameter, "is_flag", False) and (
            parameter.name in ("store", "file", "names") or "int" in str(annotation))


def declared_types(command: Any) -> dict[str, Any]:
    """Each parameter's declared type (``Annotated``'s first argument), read from the
    command's own function, from which typer builds its options in every version."""
    signature = inspect.signature(inspect.unwrap(command.callback))
    hints = {name: p.annotation for name, p in signature.parameters.items()}
    return {name: get_args(hint)[0] if get_origin(hint) is Annotated else hint
            for name, hint in hints.items()}


def _case(rng: random.Random, words: tuple[str, ...], command: Any,
          inputs: Inputs) -> list[str]:
    parameters = [p for p in command.params if p.name != "help"]
    types = declared_types(command)
    chosen = [p for p in parameters if p.required or rng.random() < 0.5]
    forced = None
    if words[0] in STARTS_WORK:
        forced = rng.choice([p for p in parameters
                             if inputs.refusable(p, types.get(p.name))])
        chosen = [p for p in chosen if p is not forced] + [forced]
    argv = list(words)
    for parameter in rng.sample(chosen, len(chosen)):
        argv += inputs.value(rng, parameter, types.get(parameter.name),
                             refused=parameter is forced)
    if rng.random() < 0.05:
        argv.append(rng.choice(["--no-such-option", "stray", "--store"]))
    return argv


def _call(argv: list[str], stdin: str) -> tuple[int, str, str]:
    """`subgame ARGV` as the console script runs it, in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdin
    sys.argv, sys.stdin = ["subgame", *argv], io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            cli.main()
        status = 0
    except SystemExit as exit:
        status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    except BaseException as exc:  # noqa: BLE001 - what the console script would print
        status, err = 1, io.StringIO(f"{err.getvalue()}Traceback: {exc!r}\n")
    finally:
        sys.argv, sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def _started(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("a run or server started for input that should have been refused")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    """One real store with a computation of several families (seconds, in-process)."""
    from subgame.families.gops.plan import GopsConfig
    from subgame.families.guess_who.plan import GuessWhoConfig
    from subgame.families.higher_lower.plan import DeckConfig, DistinctConfig
    from tests.toy_family.plan import ToyConfig

    store = tmp_path_factory.mktemp("fuzz") / "s.zarr"
    for config in (GuessWhoConfig(max_n=12, band=8), GopsConfig(cards=3), ToyConfig(),
                   DistinctConfig(max_n=40, exact_max=10, block=20),
                   DeckConfig((2,), (2,), ("loss",), ("optimal",), 1000, 0)):
        run_computation(config, RunOptions(str(store), executor="serial"))
    return store


@pytest.fixture
def in_process(tmp_path, monkeypatch) -> None:
    """`_call` as the console script, minus what would outlive or outrun one call."""
    import prefect
    import uvicorn

    import subgame.flows.run
    from subgame import interrupts, watchdog
    from subgame.storage import reading

    monkeypatch.chdir(tmp_path)  # the default store and figure folder land here
    monkeypatch.delenv("SUBGAME_STORE", raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # no credentials: no waiting
    monkeypatch.setattr(watchdog, "guard", lambda: None)  # no watchdog process per call
    monkeypatch.setattr(interrupts, "install", lambda: None)  # pytest keeps its Ctrl-C
    monkeypatch.setattr(subgame.flows.run, "run_flow", _started)
    monkeypatch.setattr(cli, "run_here", _started)  # a small plan's run, in process
    monkeypatch.setattr(prefect, "serve", _started)
    # `web` would serve until stopped (here a valid input returns once it listens), and
    # keep what it opens for the rest of this process.
    monkeypatch.setattr(uvicorn.Server, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(reading, "keep_opened", lambda: None)


def test_no_input_is_an_internal_error(small_store, tmp_path, in_process):
    inputs = Inputs(tmp_path, small_store)
    # `server` starts and stops a long-lived process, and takes no input to refuse
    # (tests/test_run_path.py runs it once).
    commands = sorted((words, command) for words, command in
                      _commands(typer.main.get_command(cli.build_app())) if words[0] != "server")
    assert {words[0] for words, _ in commands} >= {"run", "query", "plot", "verify", "status",
                                                  "upgrade", "gops", "clue"}
    rng = random.Random(SEED)
    before = _fingerprint(small_store)
    failures = []
    for case in range(CASES):
        words, command = commands[case % len(commands)]
        argv = _case(rng, words, command, inputs)
        status, _, err = _call(argv, stdin=rng.choice(["", "1\n", "x\n\n", "99\n-1\n"]))
        lines = [line for line in err.splitlines() if line.strip()]
        problems = [text for text, bad in [
            (f"exit status {status}", status not in DOCUMENTED_STATUSES),
            ("internal error", "internal error" in err), ("traceback", "Traceback" in err),
            (f"{len(lines)} lines on stderr", status != 0 and len(lines) > 1)] if bad]
        after = _fingerprint(small_store)
        # `publish` that succeeds writes its release files into the store by design.
        if after != before and not (words[0] == "publish" and status == 0):
            problems.append("the store changed")
        before = after
        if problems:
            shown = [word if len(word) < 80 else f"{word[:20]}...({len(word)} chars)"
                     for word in argv]
            failures.append(f"subgame {' '.join(shown)}: {', '.join(problems)}: "
                            f"{err.strip()[:300]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("store, reason", [
    ("s3://bucket-that-does-not-exist/x", "Unable to locate credentials"),
    ("http://127.0.0.1:9/x", "Connect call failed"),
    ("ftp://127.0.0.1:9/x", "Connection refused"),
    ("a" * 5000, "File name too long"),
], ids=["s3-no-credentials", "http-refused", "ftp-refused", "name-too-long"])
@pytest.mark.parametrize("verb", [["status"], ["run", "guess-who", "--max-n", "4"],
                                  ["query", "guess-who", "--n", "2", "--m", "2"],
                                  ["upgrade"]], ids=lambda verb: verb[0])
def test_a_store_that_cannot_be_reached_is_one_line_naming_why(in_process, store, reason,
                                                               verb):
    status, out, err = _call([*verb, "--store", store], stdin="")
    assert (status, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith("error: cannot use ") and f" as a store: {reason}" in line


def test_every_option_of_every_command_says_what_it_is():
    app = typer.main.get_command(cli.build_app())
    silent = [(" ".join(words), parameter.name) for words, command in _commands(app)
              for parameter in command.params if not parameter.help]
    assert not silent


HOSTILE = {  # argv (FILES: the test's folder), the exit status, what the one line says
    "a float for an integer": (["run", "gops", "--cards", "8.0"], 2, "ASCII digits"),
    "an Arabic-Indic digit": (["run", "gops", "--cards", "\u0663"], 2, "ASCII digits"),
    "an Arabic-Indic digit in a list": (["run", "clue", "--players", "\u0663"], 2,
                                        "comma-separated list of integers"),
    "a repeat in a grid": (["run", "clue", "--players", "3,3"], 2, "more than once"),
    "top:0": (["run", "gops", "--cards", "4", "--strategies", "top:0"], 2, "1 <= K <= 4"),
    "an empty scheduler": (["run", "gops", "--cards", "4", "--scheduler", ""], 2,
                           "--scheduler is empty"),
    "an extent below the other": (["run", "higher-lower", "--max-n", "100", "--exact-max",
                                   "5000"], 2, "--exact-max 5000 exceeds --max-n 100"),
    "a one-character board": (["run", "guess-who-board", "--board", "FILES/one.csv"], 2,
                              "at least two"),
    "sets beyond any table": (["run", "guess-who-board", "--max-literals", "2", "--max-sets",
                               "1000000000", "--dry-run"], 2, "--max-sets must be between"),
    "deeply nested JSON": (["clue", "infer", "--game", "FILES/deep.json"], 2, "nests deeper"),
    "a large JSON": (["clue", "infer", "--game", "FILES/large.json"], 2, "at most"),
    "nothing to verify": (["verify", "--store", "FILES/empty"], 2, "nothing to verify"),
    "a store URL whose protocol fails": (["run", "gops", "--cards", "3", "--store",
                                          "zip://x::FILES/text"], 2, "as a store"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input_is_one_line_and_leaves_the_store(small_store, tmp_path, in_process,
                                                         case):
    argv, expected, says = HOSTILE[case]
    (tmp_path / "one.csv").write_text("name,hat\nAnne,1\n")
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "large.json").write_text("[" + "0," * 6_000_000 + "0]")
    (tmp_path / "empty").mkdir()
    (tmp_path / "text").write_text("not an archive")
    before = _fingerprint(small_store)
    argv = [word.replace("FILES", str(tmp_path)) for word in argv]
    if "--store" not in argv and argv[0] == "run":
        argv += ["--store", str(small_store)]
    status, out, err = _call(argv, stdin="")
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == expected and len(lines) == 1 and says in lines[0], err
    assert "internal error" not in err and "Traceback" not in err
    assert _fingerprint(small_store) == before
