// Higher/lower on the oracle's page: play a shuffled deck of n distinct cards with the
// optimal guess and the odds of each guess shown. Served by `subgame web` as
// /static/family/higher-lower.js.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  let cards = 13, deck = null, turned = 0, lost = null;

  function shuffle(n) {
    const d = Array.from({length: n}, (_, i) => i + 1);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [d[i], d[j]] = [d[j], d[i]];
    }
    return d;
  }

  function render(view) {
    const out = el("div", {id: "hl-answer"});
    const deal = () => { deck = shuffle(cards); turned = 1; lost = null; show(out); };
    view.replaceChildren(el("h2", {}, "Higher or lower: a deck of distinct cards"),
      el("p", {}, "cards 1..", el("input", {type: "number", min: 2, max: 200, value: cards,
        id: "hl-cards", onchange: e => { cards = Number(e.target.value); deal(); }}),
        " ", el("button", {id: "hl-new", onclick: deal}, "new deck")),
      out);
    if (!deck) deal(); else show(out);
  }

  async function guess(out, r, g) {
    const up = deck[turned - 1], next = deck[turned];
    if ((g === "higher") !== (next > up)) lost = {g, next};
    turned += 1;
    show(out);
  }

  async function show(out) {
    let r;
    try { r = await s.get("/api/higher-lower/odds", {cards, seen: deck.slice(0, turned).join(",")}); }
    catch (e) { s.message(out, e.message); return; }
    const seen = deck.slice(0, turned - 1);
    const parts = [
      el("p", {}, "Turned so far: ", seen.map(c => el("span", {class: "playing-card"}, c)),
        " up card ", el("span", {class: "playing-card up", id: "hl-up"}, r.up)),
      el("p", {class: "note"}, `${r.face_down} cards face down. P(all ${cards - 1} guesses ` +
        `right) for the whole deck, playing optimally: ${r.deck_p_all ?? ""} = ` +
        `${r.deck_p_all_float.toPrecision(6)}`)];
    if (lost) {
      parts.push(el("p", {class: "value error", id: "hl-over"}, `Wrong: you guessed ${lost.g} ` +
        `and ${lost.next} came. ${turned - 2} right in a row.`));
    } else if (!r.face_down) {
      parts.push(el("p", {class: "value", id: "hl-over"}, `Every guess right: the whole deck!`));
    } else {
      parts.push(el("p", {class: "value", id: "hl-optimal"}, `Optimal guess: ${r.optimal}; ` +
        `from here you guess every card right with probability ${r.all_right.p} = ` +
        `${r.all_right.p_float.toPrecision(6)}`));
      parts.push(el("table", {class: "log", id: "hl-odds"}, el("tr", {},
        ["guess", "right now", "then every card right", ""].map(h => el("th", {}, h))),
        ["higher", "lower"].map(g => el("tr", {class: g === r.optimal ? "optimal" : ""},
          el("td", {}, g), el("td", {}, `${r.guesses[g].right.p} = ` +
            `${r.guesses[g].right.p_float.toFixed(4)}`),
          el("td", {}, `${r.guesses[g].all_right.p} = ${r.guesses[g].all_right.p_float.toPrecision(6)}`),
          el("td", {}, el("button", {id: `hl-guess-${g}`, onclick: () => guess(out, r, g)},
            g))))));
    }
    out.replaceChildren(...parts);
  }

  s.register("higher-lower", {title: "Higher/lower", render});
})();
