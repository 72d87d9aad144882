"""The Speed Clue protocol over real TCP on local ports: `subgame clue host` and `subgame clue
connect` play whole games, every message checked against the grammar; peers that break the
protocol are disqualified (host) or refused (client) with one line, never a traceback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.errors import ConfigurationClash
from subgame.families.clue.speedclue import grammar as g
from subgame.families.clue.speedclue import host
from subgame.families.clue.speedclue.results import ResultFile, win_shares
from subgame.families.clue.speedclue.wire import Wire

SLOW = 120.0   # seconds an agent may take on a busy machine; outcomes, not timing, are tested


def test_grammar_reads_protocol_md_examples():
    assert g.parse_server("reset 6 3 Gr Ca Ba") == g.Reset(6, 3, (1, 7, 13))
    assert g.parse_server("disprove 4 Sc Re Lo") == g.Disprove(4, (5, 10, 20))
    assert g.parse_server("suggestion 0 Gr Ca Ba 3") == g.Suggestion(0, (1, 7, 13), 3, None)
    assert g.parse_server("suggestion 0 Gr Ca Ba 3 Ca") == g.Suggestion(0, (1, 7, 13), 3, 7)
    assert g.parse_server("suggestion 2 Wh Pi Bi -") == g.Suggestion(2, (6, 9, 14), None, None)
    assert g.parse_server("accusation 3 Pe Kn Ha -") == g.Accusation(3, (3, 8, 17), False)
    assert g.parse_server("SUGGEST") == g.Bare("suggest")
    assert g.parse_suggest("suggest Pl Kn Li") == (4, 8, 19)
    assert g.parse_show("show Re") == 10
    assert g.parse_accuse("-") is None and g.parse_accuse("accuse Mu Ro St") == (2, 11, 21)
    for text in ("reset 7 0 Gr Ca Ba", "suggestion 0 Ca Gr Ba 3", "disprove 1 Gr Ca", "ok\n",
                 "suggest Kn Pl Li", "hello"):
        with pytest.raises(g.ProtocolError):
            g.parse_server(text) if not text.startswith(("suggest ", "ok")) else \
                g.parse_suggest(text)
    for message in (g.Reset(4, 2, (1, 8, 20, 21)), g.Suggestion(1, (2, 9, 15), 0, 9),
                    g.Suggestion(1, (2, 9, 15), None, None), g.Accusation(0, (6, 12, 21), True)):
        text = {g.Reset: g.reset_text, g.Suggestion: g.suggestion_text,
                g.Accusation: g.accusation_text}[type(message)](message)
        assert g.parse_server(text) == message


class RecordingWire(Wire):
    """The host's wire, keeping every message sent and received."""

    log: list[tuple[str, str]] = []

    def send(self, text):
        RecordingWire.log.append(("server", text))
        super().send(text)

    def receive(self):
        text = super().receive()
        RecordingWire.log.append(("agent", text))
        return text


def _check_transcript(log):
    """Each server message parses; each answer is the one its request calls for."""
    answers = {"reset": lambda t: g.parse_word(t, "ok"), "suggestion": lambda t: g.parse_word(t, "ok"),
               "accusation": lambda t: g.parse_word(t, "ok"), "suggest": g.parse_suggest,
               "disprove": g.parse_show, "accuse": g.parse_accuse,
               "done": lambda t: g.parse_word(t, "dead")}
    assert [side for side, _ in log[::2]] == ["server"] * len(log[::2])
    for (_, request), (side, answer) in zip(log[::2], log[1::2]):
        assert side == "agent"
        g.parse_server(request)
        answers[request.split()[0]](answer)


def agents_file(tmp_path, lines):
    path = tmp_path / "agents.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_subgame_host_and_clients_play_whole_games(tmp_path, monkeypatch):
    monkeypatch.setattr(host, "Wire", RecordingWire)
    RecordingWire.log = []
    agents = host.read_agents(agents_file(tmp_path, [
        f"subgame clue connect --identifier {{{name}}} --port %% --player {player}"
        for name, player in (("e", "exact"), ("c", "core"), ("r", "random"))]))
    table = host.Table(agents, 0, timeout=SLOW)
    records = []
    try:
        host.play_games(table, 0, 6, 7, records.append)
    finally:
        table.close()
    assert [r.order for r in records] == [("e", "c", "r"), ("c", "r", "e"), ("r", "e", "c"),
                                          ("e", "r", "c"), ("r", "c", "e"), ("c", "e", "r")]
    log = [(side, text) for side, text in RecordingWire.log if not text.endswith(" alive")]
    _check_transcript(log)
    resets = [g.parse_server(t) for side, t in log if t.startswith("reset")]
    assert len(resets) == 18 and all(len(m.hand) == 6 for m in resets)
    # Per game: the winner is the correct accuser or the last seat not out, and the agents
    # that accuse only when certain (exact, core) are never wrong.
    games, previous = [], None
    for text in (text for side, text in log if side == "server"):
        if text.startswith("reset") and previous != "reset":
            games.append([])
        previous = text.split()[0]
        if text.startswith("accusation"):
            games[-1].append(g.parse_server(text))
    assert len(games) == len(records)
    for record, accusations in zip(records, games):
        told = accusations[::3]     # each accusation is told to the 3 seats in turn
        assert accusations == [a for a in told for _ in range(3)]
        for a in told:
            assert a.correct or record.order[a.seat] == "r"
        if told and told[-1].correct:
            assert told[-1].seat == record.winner
        else:
            assert len(told) == 2 and record.winner not in {a.seat for a in told}


BAD_AGENT = textwrap.dedent("""
    import socket, sys
    s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
    s.sendall((sys.argv[1] + " alive").encode())
    while True:
        m = s.recv(512).decode()
        if not m or m == "done":
            s.sendall(b"dead")
            break
        s.sendall({reply}.encode())
""")


@pytest.mark.parametrize("reply, reason", [
    ('"ok"', "expected 'suggest Suspect Weapon Room', got 'ok'"),
    ('"suggest Gr Ca Ba" if m == "suggest" else "ok\\n"', "expected 'ok', got 'ok\\n'")])
def test_host_disqualifies_a_peer_breaking_the_protocol(tmp_path, reply, reason):
    script = tmp_path / "bad.py"
    script.write_text(BAD_AGENT.format(reply=reply))
    lines = [f"{sys.executable} {script} {{bad}} %%",
             "subgame clue connect --identifier {e} --port %% --player exact",
             "subgame clue connect --identifier {c} --port %% --player core"]
    store = tmp_path / "results.jsonl"
    done = subprocess.run(["subgame", "clue", "host", "--port", "0", "--agents",
                           agents_file(tmp_path, lines), "--games", "3", "--store", str(store)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "agent 'bad' is disqualified" in done.stderr and reason in done.stderr, done.stderr
    header = json.loads(store.read_text().splitlines()[0])
    assert [a["identifier"] for a in header["agents"]] == ["bad", "e", "c"]


def _serve_client(messages):
    """A server on a local port feeding ``messages`` to `subgame clue connect`; what the
    client answered and how it ended."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(SLOW)
        client = subprocess.Popen(["subgame", "clue", "connect", "--identifier", "x", "--port",
                                   str(listener.getsockname()[1])],
                                  stderr=subprocess.PIPE, text=True)
        conn, _ = listener.accept()
        conn.settimeout(SLOW)
        wire, answers = Wire(conn), [Wire(conn).receive()]
        try:
            for m in messages:
                wire.send(m if isinstance(m, str) else m(answers))
                answers.append(wire.receive())
        except Exception:   # noqa: BLE001 - the client hung up: its stderr says why
            pass
        conn.close()
        _, err = client.communicate(timeout=SLOW)
    return answers, client.returncode, err


def _shown_by_seat_1(answers):
    """The client's suggestion disproved by seat 1 with a card the client does not hold."""
    cards = answers[2].split()[1:]
    shown = [c for c in cards if c not in ("Gr", "Mu", "Ca", "Kn", "Ba", "Bi")]
    return f"suggestion 0 {' '.join(cards)} " + (f"1 {shown[0]}" if shown else "-")


def _not_suggested(answers):
    """The client's own suggestion told back with other cards."""
    other = "Gr Ca Ba" if answers[2].split()[1:] != ["Gr", "Ca", "Ba"] else "Mu Ca Ba"
    return f"suggestion 0 {other} -"


def test_client_plays_its_part_of_a_game():
    answers, code, err = _serve_client([
        "reset 3 0 Gr Mu Ca Kn Ba Bi", "suggest",
        _shown_by_seat_1, "accuse",
        "suggestion 1 Gr Ca Di 2", "disprove 2 Gr Ca Ha", "suggestion 2 Gr Ca Ha 0 Ca",
        "accusation 2 Pl Re Ki -", "suggest", "done"])
    assert code == 0, err
    assert answers[0] == "x alive" and answers[1] == "ok"
    assert g.parse_suggest(answers[2]) and answers[3] == "ok" and answers[4] == "-"
    assert g.parse_show(answers[6]) in (1, 7) and answers[-1] == "dead"


@pytest.mark.parametrize("messages, expected", [
    (["hello"], "a server message"),
    (["suggest"], "'reset' or 'done' before a game"),
    (["reset 3 0 Gr Mu Ca Kn Ba Bi", "disprove 1 Gr Ca Ha"], "'disprove' of the active seat"),
    (["reset 3 0 Gr Mu Ca Kn Ba Bi", "suggest", _not_suggested], "as it made it")])
def test_client_refuses_malformed_or_out_of_turn_messages(messages, expected):
    _, code, err = _serve_client(messages)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "protocol violation" in err and expected in err, err


def test_results_file_resumes_and_refuses_another_tournament(tmp_path):
    agents = host.read_agents(agents_file(tmp_path, [
        f"subgame clue connect --identifier {{{n}}} --port %%" for n in "abc"]))
    path = str(tmp_path / "results.jsonl")
    first = ResultFile(path, agents, 0)
    first.start()
    for game in range(4):
        first.append(host.GameRecord(game, host.seat_order(["a", "b", "c"], game), game % 3, 5))
    with open(path, "a") as f:
        f.write('{"game": 4, "ord')          # a line cut short by a kill
    again = ResultFile(path, agents, 0)
    assert again.records == first.records
    shares = win_shares(again.records)["agents"]
    # Orders abc, bca, cab, acb with winners' seats 0, 1, 2, 0: a, c, b, a.
    assert [shares[n]["wins"] for n in "abc"] == [2, 1, 1]
    assert shares["a"]["share"] == 0.5 and shares["a"]["share_low"] < 0.5 < shares["a"]["share_high"]
    with pytest.raises(ConfigurationClash):
        ResultFile(path, agents, 1)


@pytest.mark.parametrize("lines, args, expected", [
    (["a {x} %%", "b {y} %%"], [], "2 agents; a game has 3 to 6 players"),
    (["a {x} %%", "b {x} %%", "c {z} %%"], [], "identifier 'x' is used twice"),
    (["a {x}", "b {y} %%", "c {z} %%"], [], "needs an {identifier} and %%"),
    (["a {x} %%", "b {y} %%", "c {z} %%"], ["--timeout", "0"], "--timeout must be positive"),
])
def test_host_refuses_bad_input_in_one_line(tmp_path, lines, args, expected):
    result = CliRunner().invoke(build_app(), ["clue", "host", "--port", "0", "--agents",
                                              agents_file(tmp_path, lines), "--games", "1",
                                              *args])
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split()), result.output
