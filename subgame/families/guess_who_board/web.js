// Guess Who on a real board, on the oracle's page: fold characters down on either board
// and see every question with the win probability it leads to. Served by `subgame web` as
// /static/family/guess-who-board.js.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  let chosen = null;                       // {board, max_literals, rules, label}
  let standing = null, opponent = null;    // the names still standing, or null: full board
  let asked = 0;                           // the latest position asked for

  // A board option value the web accepts (the classic board, or a file its operator allowed)
  // whose name is the stored computation's board.
  function boardValue(name) {
    const parameter = s.families["guess-who-board"].answers.position.parameters
      .find(p => p.name === "board");
    return (parameter.choices || []).find(v =>
      v === name || v.split("/").pop().replace(/\.csv$/i, "") === name);
  }

  function computations() {
    return s.stored("guess-who-board").map(c => ({
      board: boardValue(c.identity.board), name: c.identity.board,
      max_literals: c.identity.max_literals, rules: c.identity.rules,
      label: `${c.identity.board}, d = ${c.identity.max_literals}, ${c.identity.rules}`}))
      .filter(c => c.board !== undefined);
  }

  function question(q) {
    if (typeof q === "string") return q === "final guess" ? "the final guess" : `is it ${q}?`;
    return Object.entries(q).map(([trait, has]) => (has ? "" : "not ") + trait).join(" and ") + "?";
  }

  function render(view) {
    const found = computations();
    if (!found.length) {
      s.message(view, "the store holds no board computation the web may serve: " +
        "`subgame run guess-who-board`", "note");
      return;
    }
    chosen = chosen && found.find(c => c.label === chosen.label) || found[0];
    const out = el("div", {id: "board-answer"});
    view.replaceChildren(el("h2", {}, "Guess Who on a real board"),
      el("p", {}, "Computation ", el("select", {id: "board-computation", onchange: e => {
        chosen = found[e.target.value]; standing = opponent = null; render(view); }},
        found.map((c, i) => el("option", {value: i, selected: c === chosen}, c.label))),
        " ", el("button", {id: "board-reset", onclick: () => show(out, null, null)}, "stand everyone up")),
      out);
    show(out);
  }

  // Show the position with these standing sets (default: the current ones); a set the API
  // refuses leaves the position as it was, with the reason above it.
  async function show(out, mine = standing, theirs = opponent) {
    let r;
    const mineAsked = ++asked;
    try {
      r = await s.get("/api/guess-who-board/position", {board: chosen.board,
        max_literals: chosen.max_literals, rules: chosen.rules,
        standing: mine && mine.join(","), opponent_standing: theirs && theirs.join(",")});
    } catch (e) {
      if (mineAsked !== asked) return;
      const shown = out.querySelector("#board-error");
      if (shown) shown.textContent = e.message; else s.message(out, e.message);
      return;
    }
    if (mineAsked !== asked) return;
    standing = r.standing; opponent = r.opponent_standing;
    const best = r.questions[0];
    out.replaceChildren(el("p", {class: "error", id: "board-error"}),
      el("p", {class: "value", id: "board-p"}, `You move with ${r.standing.length} standing ` +
         `against ${r.opponent_standing.length}: you win with probability ${r.p} = ` +
         `${r.p_float.toFixed(6)}`),
      el("p", {}, "Best question: ", el("span", {class: "best", id: "board-best"},
         question(best.question)), ` (wins with ${best.p})`),
      el("div", {class: "row"},
        el("div", {}, el("h3", {}, "Your board: click a character to fold it down"),
          board(r, r.standing, r.foldable, "mine", names => show(out, names, opponent))),
        el("div", {}, el("h3", {}, "Every question at this position"), questions(r))),
      el("h3", {}, "Your opponent's board"),
      board(r, r.opponent_standing, r.opponent_foldable, "theirs",
            names => show(out, standing, names)));
  }

  function board(r, up, foldable, side, change) {
    return el("div", {class: "board", id: `board-${side}`}, r.characters.map(c => {
      const standingNow = up.includes(c.name), can = foldable.includes(c.name);
      return el("div", {
        class: "character" + (standingNow ? "" : " down") + (standingNow && !can ? " fixed" : ""),
        id: `board-${side}-${c.name}`, "data-name": c.name,
        title: standingNow && !can ? "no question leaves this set: it cannot be folded alone" : null,
        onclick: () => {
          if (standingNow && can) change(up.filter(n => n !== c.name));
          else if (!standingNow) change([...up, c.name]);
        }}, el("b", {}, c.name), c.traits.join(", "));
    }));
  }

  function questions(r) {
    const top = r.questions[0].a;
    return el("table", {class: "questions", id: "board-questions"},
      el("tr", {}, el("th", {}, "question"), el("th", {}, "win probability"), el("th", {}, "")),
      r.questions.map(q => el("tr", {class: q.a === top ? "optimal" : ""},
        el("td", {}, question(q.question)), el("td", {}, `${q.p} = ${q.p_float.toFixed(4)}`),
        el("td", {}, el("span", {class: "bar", style: `width:${(q.p_float * 8).toFixed(2)}em`})))));
  }

  s.register("guess-who-board", {title: "Guess Who board", render});
})();
