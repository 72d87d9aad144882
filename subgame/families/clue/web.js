// Clue on the oracle's page: one player's view of a game, filled in as a form (the game,
// your hand, each interrogation), and the posterior of every card being hidden. Served by
// `subgame web` as /static/family/clue.js; the API takes the same view as JSON.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  // The view the form starts from: a small game and three interrogations.
  const view = {cards: 9, hidden: 1, players: 4, me: 0, hand: [1, 5],
    history: [{asker: 0, target: 1, cards: [2, 3, 4], shown: 3},
              {asker: 1, target: 2, cards: [6, 7], shown: true},
              {asker: 2, target: 3, cards: [8, 9], shown: false}]};
  const cardList = text => text.split(",").map(t => t.trim()).filter(t => t).map(Number);
  const shownText = shown => shown === true ? "a card (not to me)" :
    shown === false ? "nothing" : `card ${shown}`;

  function render(container) {
    const out = el("div", {id: "clue-answer"});
    const number = (key, label, min) => el("label", {}, label, " ", el("input", {
      type: "number", id: `clue-${key}`, min, value: view[key], size: 4,
      onchange: e => { view[key] = Number(e.target.value); infer(out); }}));
    const hand = el("input", {id: "clue-hand", value: view.hand.join(","), size: 12,
      onchange: e => { view.hand = cardList(e.target.value); infer(out); }});
    const records = el("table", {class: "log", id: "clue-history"});
    const listRecords = () => records.replaceChildren(
      el("tr", {}, ["#", "asker", "target", "cards asked", "shown", ""].map(h => el("th", {}, h))),
      ...view.history.map((r, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, r.asker),
        el("td", {}, r.target), el("td", {}, (r.cards || []).join(", ")),
        el("td", {}, r.cards ? shownText(r.shown) : JSON.stringify(r)),
        el("td", {}, el("button", {class: "remove", id: `clue-remove-${i}`, onclick: () => {
          view.history.splice(i, 1); listRecords(); infer(out); }}, "remove")))));
    const field = (id, placeholder, size) => el("input", {id, placeholder, size});
    const value = id => document.getElementById(id).value.trim();
    const shown = el("select", {id: "clue-shown"},
      el("option", {value: "card"}, "this card (shown to me)"),
      el("option", {value: "true"}, "a card, not shown to me"),
      el("option", {value: "false"}, "nothing: holds none"));
    const add = () => {
      const kind = value("clue-shown");
      view.history.push({asker: Number(value("clue-asker")), target: Number(value("clue-target")),
        cards: cardList(value("clue-asked")),
        shown: kind === "true" ? true : kind === "false" ? false : Number(value("clue-card"))});
      listRecords();
      infer(out);
    };
    container.replaceChildren(el("h2", {}, "Clue: who holds what, from one player's view"),
      el("p", {class: "note"}, "Cards 1..N, seats 0..p−1 (docs/clue.md)."),
      el("p", {class: "cards"}, number("cards", "cards N", 1), number("hidden", "hidden", 1),
        number("players", "players p", 2), number("me", "my seat", 0),
        el("label", {}, "my hand ", hand)),
      el("h3", {}, "Interrogations"), records,
      el("p", {}, "add: seat ", field("clue-asker", "asker", 4), " asks seat ",
        field("clue-target", "target", 4), " for cards ", field("clue-asked", "2,3,4", 8),
        "; shown ", shown, " ", field("clue-card", "card", 4), " ",
        el("button", {id: "clue-add", onclick: add}, "add")),
      out);
    listRecords();
    infer(out);
  }

  let asked = 0;
  async function infer(out) {
    const mine = ++asked;
    let r;
    try { r = await s.post("/api/clue/posterior", JSON.stringify(view)); }
    catch (e) { if (mine === asked) s.message(out, e.message); return; }
    if (mine !== asked) return;
    const value = p => { const [a, b] = p.split("/").map(Number); return a / (b || 1); };
    out.replaceChildren(
      el("p", {class: "value"}, `${r.deals} consistent deals; most probable hidden set(s) `,
        r.best.map(b => `{${b.join(", ")}}`).join(", "), ` with probability ${r.p_best}`),
      el("table", {class: "log", id: "clue-posterior"}, el("tr", {},
        ["card", "P(hidden)", ""].map(h => el("th", {}, h))),
        Object.entries(r.p_hidden).map(([card, p]) => el("tr", {}, el("td", {}, card),
          el("td", {}, `${p} = ${s.fixed(value(p), 4)}`),
          el("td", {}, el("span", {class: "bar", style: `width:${(value(p) * 10).toFixed(2)}em`}))))));
  }

  s.register("clue", {title: "Clue", render});
})();
