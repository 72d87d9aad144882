// GOPS on the oracle's page: choose a state by clicking cards and see the whole matrix
// game (both players' optimal bids, the value after every pair of bids); or play a game
// against the stored optimal strategy. Served by `subgame web` as /static/family/gops.js.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  const range = n => Array.from({length: n}, (_, i) => i + 1);
  const list = set => [...set].sort((a, b) => a - b).join(",");
  // with its sign, but none where it rounds to zero (no −0.0000)
  const signed = v => { const text = s.fixed(Math.abs(v), 4);
    return (Number(text) === 0 ? "" : v > 0 ? "+" : "−") + text; };
  let chosen = null;   // the computation: {cards, objective}
  let state = null;    // explored state: {hand, opponent, prizes: Set, diff, upcard}
  let game = null;     // the game played, with its undo stack
  let asked = 0;       // the latest state asked for: an older answer arriving late is dropped

  function computations() {
    // The group path names the objective: gops/N<cards>, or gops/N<cards>-win.
    return s.stored("gops").filter(c => c.steps_finished > 0).map(c => {
      const objective = c.computation.endsWith("-win") ? "win" : "points";
      return {cards: c.identity.cards, objective, label: `N = ${c.identity.cards}, ${objective}` +
             (c.steps_finished < c.steps_total ? " (being written)" : "")};
    }).sort((a, b) => (a.objective === "win") - (b.objective === "win") || b.cards - a.cards);
  }

  function request(hand, opponent, prizes, diff) {
    return s.get("/api/gops/matrix-game", {cards: chosen.cards, hand: list(hand),
      opponent: list(opponent), prizes: list(prizes), objective: chosen.objective,
      diff: chosen.objective === "win" ? diff : undefined});
  }

  function meaning() {
    return chosen.objective === "win" ? "P(player one wins) − P(player two wins)"
      : "player one's expected point difference from here on";
  }

  function render(view) {
    const found = computations();
    if (!found.length) {
      s.message(view, "the store holds no GOPS computation: `subgame run gops --cards N`", "note");
      return;
    }
    chosen = chosen && found.find(c => c.cards === chosen.cards &&
                                       c.objective === chosen.objective) || found[0];
    const picker = el("select", {id: "gops-computation", onchange: e => {
      chosen = found[e.target.value]; state = null; game = null; render(view); }},
      found.map((c, i) => el("option", {value: i, selected: c === chosen}, c.label)));
    const explore = el("section", {id: "gops-explore"});
    const play = el("section", {id: "gops-play"});
    view.replaceChildren(el("h2", {}, "GOPS: the matrix game at any state"),
      el("p", {}, "Computation ", picker), explore, play);
    if (!state) {
      const full = new Set(range(chosen.cards));
      state = {hand: new Set(full), opponent: new Set(full), prizes: new Set(full), diff: 0};
    }
    renderExplore(explore);
    renderPlay(play);
  }

  function cardRow(label, set, id, onchange) {
    return el("div", {class: "cards"}, el("span", {class: "label"}, label),
      range(chosen.cards).map(c => el("button", {
        class: "card" + (set.has(c) ? " on" : ""), id: `gops-${id}-${c}`,
        "aria-pressed": set.has(c) ? "true" : "false",
        onclick: () => { set.has(c) ? set.delete(c) : set.add(c); onchange(); }}, c)));
  }

  async function renderExplore(section) {
    const again = () => renderExplore(section);
    const out = el("div", {id: "gops-answer"});
    section.replaceChildren(el("div", {}, el("h3", {}, "Choose a state"),
      cardRow("player one's hand V", state.hand, "hand", again),
      cardRow("player two's hand Y", state.opponent, "opponent", again),
      cardRow("prizes left P", state.prizes, "prizes", again),
      chosen.objective === "win" ? el("p", {}, "points so far, one minus two: ",
        el("input", {type: "number", value: state.diff, id: "gops-diff", onchange: e => {
          state.diff = Number(e.target.value); again(); }})) : null),
      out);
    const sizes = [state.hand.size, state.opponent.size, state.prizes.size];
    if (!sizes[0] || sizes.some(n => n !== sizes[0])) {
      asked++;
      s.message(out, `choose hands and prizes of one size (now ${sizes.join(", ")})`, "note");
      return;
    }
    const mine = ++asked;
    try {
      const r = await request(state.hand, state.opponent, state.prizes, state.diff);
      if (mine === asked) showGame(out, r);
    } catch (e) { if (mine === asked) s.message(out, e.message); }
  }

  function showGame(out, r) {
    const upcards = r.rounds.map(x => x.upcard);
    if (!upcards.includes(state.upcard)) state.upcard = upcards[0];
    const round = r.rounds.find(x => x.upcard === state.upcard);
    const probability = v => v === 0 ? "·" : v.toFixed(3);
    out.replaceChildren(
      el("p", {class: "value", id: "gops-value"},
         `f(V, Y, P) = ${signed(r.value)}`, el("span", {class: "note"}, ` (${meaning()})`)),
      el("div", {class: "row"},
        el("div", {}, el("h3", {}, "Player one's optimal bids (upcard × bid)"),
          s.heatmap(r.rounds.map(x => x.player_one), {id: "gops-strategy-one", rowLabel: "upcard",
            columnLabel: "bid", rows: upcards, columns: r.hand, lo: 0, hi: 1, format: probability})),
        el("div", {}, el("h3", {}, "Player two's optimal bids (upcard × bid)"),
          s.heatmap(r.rounds.map(x => x.player_two), {id: "gops-strategy-two", rowLabel: "upcard",
            columnLabel: "bid", rows: upcards, columns: r.opponent, lo: 0, hi: 1,
            format: probability}))),
      el("h3", {}, "Upcard ", upcards.map(k => el("button", {
        class: "card" + (k === state.upcard ? " on" : ""), id: `gops-upcard-${k}`,
        onclick: () => { state.upcard = k; showGame(out, r); }}, k)),
        ` : f_k = ${signed(round.value)}; value after each pair of bids (${meaning()})`),
      el("div", {class: "row"},
        s.heatmap(round.payoffs, {id: "gops-payoffs", rowLabel: "one bids", columnLabel: "two bids",
          rows: r.hand, columns: r.opponent, digits: 3,
          title: (i, j) => `one bids ${r.hand[i]}, two bids ${r.opponent[j]}: ` +
                           `${round.payoffs[i][j]}`}),
        outcomes("player one's bid", r.hand, round.player_one_outcomes, round.player_one,
                 "against two's optimal mix", "gops-outcomes-one"),
        outcomes("player two's bid", r.opponent, round.player_two_outcomes, round.player_two,
                 "against one's optimal mix", "gops-outcomes-two")),
      el("p", {class: "note"}, `strategies ${round.strategies}; values to ±${r.tolerance}`));
  }

  function outcomes(label, bids, values, mix, against, id) {
    return el("table", {class: "log", id}, el("tr", {}, el("th", {}, label),
      el("th", {}, "outcome " + against), el("th", {}, "optimal probability")),
      bids.map((b, i) => el("tr", {class: mix[i] > 1e-6 ? "optimal" : ""},
        el("td", {}, b), el("td", {class: "number"}, signed(values[i])),
        el("td", {class: "number"}, mix[i].toFixed(3)))));
  }

  // -- playing against the optimal strategy ------------------------------------------------
  function newGame() {
    const full = () => new Set(range(chosen.cards));
    game = {hand: full(), machine: full(), prizes: full(), mine: 0, theirs: 0, log: [],
            undo: [], round: null, error: null};
  }

  function valueNow(data) {  // the value with the points won so far counted
    return chosen.objective === "win" ? data : game.mine - game.theirs + data;
  }

  async function turnPrize(section) {
    if (!game.prizes.size) { game.round = null; return; }
    const prizes = [...game.prizes];
    const upcard = prizes[Math.floor(Math.random() * prizes.length)];
    try {
      const r = await request(game.hand, game.machine, game.prizes, game.mine - game.theirs);
      game.round = {upcard, data: r, matrix: r.rounds.find(x => x.upcard === upcard)};
    } catch (e) { game.error = e.message; }
  }

  async function bid(section, card) {
    const {upcard, data, matrix} = game.round;
    game.undo.push(JSON.stringify({...game, hand: [...game.hand], machine: [...game.machine],
                                    prizes: [...game.prizes], undo: []}));
    let u = Math.random(), reply = data.opponent[data.opponent.length - 1];
    for (let i = 0; i < data.opponent.length; i++) {
      u -= matrix.player_two[i];
      if (u < 0) { reply = data.opponent[i]; break; }
    }
    const before = valueNow(data.value), withPrize = valueNow(matrix.value);
    if (card > reply) game.mine += upcard; else if (reply > card) game.theirs += upcard;
    game.hand.delete(card); game.machine.delete(reply); game.prizes.delete(upcard);
    await turnPrize(section);
    const after = game.round ? valueNow(game.round.data.value)
      : chosen.objective === "win" ? Math.sign(game.mine - game.theirs) : game.mine - game.theirs;
    game.log.push({prize: upcard, card, reply, score: `${game.mine}:${game.theirs}`,
                   before, withPrize, after});
    renderPlay(section);
  }

  function undo(section) {
    const saved = JSON.parse(game.undo.pop());
    const undoStack = game.undo;
    game = {...saved, hand: new Set(saved.hand), machine: new Set(saved.machine),
            prizes: new Set(saved.prizes), undo: undoStack};
    renderPlay(section);
  }

  function renderPlay(section) {
    const start = async () => { newGame(); await turnPrize(section); renderPlay(section); };
    const head = el("h3", {}, "Play against the optimal strategy ",
      el("button", {id: "gops-new-game", onclick: start}, "new game"), " ",
      el("button", {id: "gops-undo", disabled: !game || !game.undo.length,
                    onclick: () => undo(section)}, "undo"));
    if (!game) {
      section.replaceChildren(head, el("p", {class: "note"},
        "You are player one; the machine bids from its stored optimal mix."));
      return;
    }
    const unit = chosen.objective === "win" ? "P(you win) − P(machine wins)"
      : "expected final point difference, you − machine, points won so far counted";
    const rows = game.log.map((x, i) => el("tr", {},
      el("td", {}, i + 1), el("td", {}, x.prize), el("td", {}, x.card), el("td", {}, x.reply),
      el("td", {}, x.score), el("td", {class: "number"}, signed(x.before)),
      el("td", {class: "number"}, signed(x.withPrize)), el("td", {class: "number"}, signed(x.after))));
    const log = el("table", {class: "log", id: "gops-log"}, el("tr", {},
      ["round", "prize", "you bid", "machine bid", "score", "value before the prize",
       "value with the prize turned", "value after the round"].map(h => el("th", {}, h))), rows);
    const parts = [head, el("p", {class: "note"}, `Values: ${unit}.`),
      el("div", {class: "cards"}, el("span", {class: "label"}, "machine's hand"),
        range(chosen.cards).map(c => el("span", {class: "playing-card",
          style: game.machine.has(c) ? "" : "opacity:0.25"}, c))),
      el("p", {id: "gops-score"}, `score you ${game.mine} : ${game.theirs} machine`)];
    if (game.error) parts.push(el("p", {class: "error"}, game.error));
    if (game.round) {
      const {upcard, data, matrix} = game.round;
      parts.push(el("p", {class: "value", id: "gops-prize"}, `Prize ${upcard}. Value before the prize `
        + `${signed(valueNow(data.value))}, with it ${signed(valueNow(matrix.value))}. Your bid:`),
        el("div", {class: "cards"}, el("span", {class: "label"}, "your hand"),
          [...game.hand].sort((a, b) => a - b).map(c => el("button", {class: "card",
            id: `gops-play-bid-${c}`, onclick: () => bid(section, c)}, c))));
    } else if (!game.prizes.size) {
      const outcome = game.mine > game.theirs ? "you win" : game.mine < game.theirs
        ? "the machine wins" : "a tie";
      parts.push(el("p", {class: "value", id: "gops-final"},
        `Final score ${game.mine}:${game.theirs}: ${outcome}.`));
    }
    parts.push(log);
    section.replaceChildren(...parts);
  }

  s.register("gops", {title: "GOPS", render});
})();
