// Clue on the oracle's page: build or paste one player's view of a game and see the
// posterior of every card being hidden. Served by `subgame web` as /static/family/clue.js.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  const EXAMPLE = {cards: 9, hidden: 1, players: 4, me: 0, hand: [1, 5],
    history: [{asker: 0, target: 1, cards: [2, 3, 4], shown: 3},
              {asker: 1, target: 2, cards: [6, 7], shown: true},
              {asker: 2, target: 3, cards: [8, 9], shown: false}]};
  // A view as text: one line for the game, one per record.
  const format = v => JSON.stringify({...v, history: []}).replace(/\[\]}$/, "[\n") +
    v.history.map(r => "  " + JSON.stringify(r)).join(",\n") + "\n]}";
  let text = format(EXAMPLE);

  function render(view) {
    const area = el("textarea", {id: "clue-view", spellcheck: "false"});
    area.value = text;
    const out = el("div", {id: "clue-answer"});
    const field = (id, placeholder) => el("input", {id, placeholder, size: 8});
    const add = () => {
      let view;
      try { view = JSON.parse(area.value); } catch (e) { s.message(out, e.message); return; }
      const value = id => document.getElementById(id).value.trim();
      const shown = value("clue-shown");
      view.history.push({asker: Number(value("clue-asker")), target: Number(value("clue-target")),
        cards: value("clue-cards").split(",").map(Number),
        shown: shown === "true" ? true : shown === "false" ? false : Number(shown)});
      area.value = text = format(view);
      infer(area, out);
    };
    view.replaceChildren(el("h2", {}, "Clue: who holds what, from one player's view"),
      el("p", {class: "note"}, "Cards 1..N, seats 0..p−1; a record is an interrogation " +
        "(shown: the card you saw, or true/false) or a revealed hand (docs/clue.md)."),
      area,
      el("p", {}, "add an interrogation: ", field("clue-asker", "asker"), field("clue-target", "target"),
        field("clue-cards", "cards 2,3"), field("clue-shown", "shown"), " ",
        el("button", {id: "clue-add", onclick: add}, "add"), " ",
        el("button", {id: "clue-infer", onclick: () => infer(area, out)}, "posterior")),
      out);
    infer(area, out);
  }

  async function infer(area, out) {
    text = area.value;
    let r;
    try { r = await s.post("/api/clue/posterior", text); }
    catch (e) { s.message(out, e.message); return; }
    const value = p => { const [a, b] = p.split("/").map(Number); return a / b; };
    out.replaceChildren(
      el("p", {class: "value"}, `${r.deals} consistent deals; most probable hidden set(s) `,
        r.best.map(b => `{${b.join(", ")}}`).join(", "), ` with probability ${r.p_best}`),
      el("table", {class: "log", id: "clue-posterior"}, el("tr", {},
        ["card", "P(hidden)", ""].map(h => el("th", {}, h))),
        Object.entries(r.p_hidden).map(([card, p]) => el("tr", {}, el("td", {}, card),
          el("td", {}, `${p} = ${value(p).toFixed(4)}`),
          el("td", {}, el("span", {class: "bar", style: `width:${(value(p) * 10).toFixed(2)}em`}))))));
  }

  s.register("clue", {title: "Clue", render});
})();
