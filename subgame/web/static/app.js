// The page's frame: tabs for the store and for each family that ships a script, the
// requests to the API, and the pieces the families' views share (elements, heatmaps).
"use strict";

const subgame = {
  views: {},           // family name -> {title, render(container)}
  computations: [],    // /api/computations' list
  families: {},        // /api/families by name

  register(name, view) { this.views[name] = view; },

  async get(path, params) {
    const query = params ? "?" + new URLSearchParams(
      Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "")
    ).toString() : "";
    return this.answer(await fetch(path + query));
  },

  async post(path, body) {
    return this.answer(await fetch(path, {
      method: "POST", headers: {"Content-Type": "application/json"}, body}));
  },

  async answer(response) {
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  },

  // el("div", {class: "x", onclick: f}, child, "text", ...)
  el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  },

  message(container, text, kind) {
    container.replaceChildren(this.el("p", {class: kind || "error", role: "status"}, text));
  },

  // v to `digits` decimals; a value that rounds to zero shows no sign (never −0.000).
  fixed(v, digits) {
    const text = v.toFixed(digits);
    return Number(text) === 0 ? text.replace("-", "") : text;
  },

  // Computations of one family in the store, finished or not.
  stored(family) { return this.computations.filter(c => c.family === family); },

  // A colour for value v in [lo, hi]: diverging around 0 when lo < 0 < hi, else sequential.
  colour(v, lo, hi) {
    if (v === null || v === undefined || Number.isNaN(v)) return "#eee";
    if (lo < 0 && hi > 0) {
      const t = v >= 0 ? v / hi : -v / -lo;
      const c = Math.round(255 - 150 * Math.min(1, t));
      return v >= 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
    }
    const t = hi > lo ? (v - lo) / (hi - lo) : 0;
    return `rgb(${Math.round(255 - 200 * t)},${Math.round(255 - 120 * t)},${Math.round(255 - 40 * t)})`;
  },

  // A labelled heatmap: rows x columns of numbers, each cell coloured and (optionally)
  // showing its number; options: rowLabel, columnLabel, rows, columns, digits, title(i, j),
  // show (numbers in the cells), lo, hi, id.
  heatmap(values, options) {
    const flat = values.flat().filter(v => v !== null && !Number.isNaN(v));
    const lo = options.lo ?? Math.min(...flat), hi = options.hi ?? Math.max(...flat);
    const table = this.el("table", {class: "heatmap", id: options.id});
    const head = this.el("tr", {}, this.el("th", {class: "corner"},
      `${options.rowLabel} \\ ${options.columnLabel}`));
    options.columns.forEach(c => head.append(this.el("th", {}, c)));
    table.append(head);
    values.forEach((row, i) => {
      const tr = this.el("tr", {}, this.el("th", {}, options.rows[i]));
      row.forEach((v, j) => {
        const shown = options.show === false || v === null ? "" :
          (options.format ? options.format(v) : this.fixed(v, options.digits ?? 3));
        tr.append(this.el("td", {style: `background:${this.colour(v, lo, hi)}`,
                                 title: options.title ? options.title(i, j) : null,
                                 "data-value": v}, shown));
      });
      table.append(tr);
    });
    return table;
  },

  async start() {
    const [computed, families] = await Promise.all([
      this.get("/api/computations"), this.get("/api/families")]);
    this.computations = computed.computations;
    for (const f of families) this.families[f.name] = f;
    document.getElementById("store").textContent =
      `store ${computed.store}, read-only`;
    await Promise.all(families.filter(f => f.script).map(f => new Promise((done, failed) => {
      const script = this.el("script", {src: f.script});
      script.onload = done;
      script.onerror = () => failed(new Error(`cannot load ${f.script}`));
      document.body.append(script);
    })));
    const tabs = document.getElementById("tabs");
    const names = ["store", ...families.map(f => f.name).filter(n => this.views[n])];
    tabs.replaceChildren(...names.map(n => this.el("a", {href: `#${n}`, id: `tab-${n}`},
      n === "store" ? "store" : this.views[n].title)));
    window.addEventListener("hashchange", () => this.show());
    this.show();
  },

  show() {
    const name = location.hash.slice(1) || "store";
    const view = document.getElementById("view");
    document.querySelectorAll("#tabs a").forEach(a =>
      a.classList.toggle("active", a.id === `tab-${name}`));
    view.replaceChildren();
    if (name === "store" || !this.views[name]) this.renderStore(view);
    else this.views[name].render(view);
  },

  renderStore(view) {
    const el = this.el.bind(this);
    if (!this.computations.length) {
      this.message(view, "the store holds no computations yet", "note");
      return;
    }
    const table = el("table", {class: "computations", id: "computations"},
      el("tr", {}, ["computation", "family", "steps", "state", "size"].map(h => el("th", {}, h))));
    for (const c of this.computations) {
      const done = c.steps_finished === c.steps_total;
      table.append(el("tr", {},
        el("td", {}, this.views[c.family] ? el("a", {href: `#${c.family}`}, c.computation)
                                          : c.computation),
        el("td", {}, c.family), el("td", {class: "number"}, `${c.steps_finished}/${c.steps_total}`),
        el("td", {}, done ? "finished" : "being written or stopped: answers from what is finished"),
        el("td", {class: "number"}, `${(c.bytes_on_disk / 1e6).toFixed(2)} MB`)));
    }
    view.append(el("h2", {}, "What the store holds"), table);
  },
};

window.subgame = subgame;
window.addEventListener("DOMContentLoaded", () => subgame.start().catch(e =>
  subgame.message(document.getElementById("view"), e.message)));
