// The Guess Who tables on the oracle's page: p(n, m) as a heatmap, the exact fraction on
// hover. Served by `subgame web` as /static/family/guess-who.js.
"use strict";
(() => {
  const s = window.subgame, el = s.el.bind(s);
  let rules = "official", size = 32;

  function render(view) {
    const out = el("div", {id: "table-answer"});
    const redraw = () => show(out);
    view.replaceChildren(el("h2", {}, "Guess Who: the mover's win probability p(n, m)"),
      el("p", {}, "rules ", el("select", {id: "table-rules", onchange: e => {
        rules = e.target.value; redraw(); }}, ["official", "variant"].map(r =>
          el("option", {value: r, selected: r === rules}, r))),
        " n, m up to ", el("input", {type: "number", min: 1, max: 128, value: size,
          id: "table-size", onchange: e => { size = Number(e.target.value); redraw(); }})),
      out);
    redraw();
  }

  async function show(out) {
    let r;
    try { r = await s.get("/api/guess-who/table", {rules, size}); }
    catch (e) { s.message(out, e.message); return; }
    const p = r.a.map((row, i) => row.map((a, j) => a / ((i + 1) * (j + 1))));
    const numbers = r.size <= 12;
    const map = s.heatmap(p, {id: "table-heatmap", rowLabel: "n", columnLabel: "m",
      rows: p.map((_, i) => i + 1), columns: p.map((_, j) => j + 1), lo: 0, hi: 1,
      show: numbers, digits: 2,
      title: (i, j) => `p(${i + 1}, ${j + 1}) = ${r.p[i][j]} = ${p[i][j].toFixed(6)}`});
    if (!numbers) map.classList.add("small");
    out.replaceChildren(el("p", {class: "note"}, `n: the mover's standing characters, m: the ` +
      `other's; ${r.rules} rules; the store covers n, m <= ${r.covered}; colour from p = 0 (white) to 1 (blue). Hover a cell for its ` +
      `exact fraction.`), map);
  }

  s.register("guess-who", {title: "Guess Who tables", render});
})();
