// The API described: /openapi.json rendered as a list of routes and their parameters.
"use strict";
(async () => {
  const spec = await (await fetch("/openapi.json")).json();
  const main = document.getElementById("docs");
  const text = (tag, value, cls) => {
    const node = document.createElement(tag);
    node.textContent = value;
    if (cls) node.className = cls;
    return node;
  };
  main.append(text("p", spec.info.description));
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, route] of Object.entries(methods)) {
      const section = document.createElement("section");
      section.className = "route";
      section.append(text("h2", `${method.toUpperCase()} ${path}`));
      section.append(text("p", route.summary || "", "summary"));
      if (route.description) section.append(text("pre", route.description, "description"));
      const parameters = route.parameters || [];
      if (parameters.length) {
        const table = document.createElement("table");
        table.innerHTML = "<tr><th>parameter</th><th>type</th><th>default</th><th></th></tr>";
        for (const p of parameters) {
          const row = table.insertRow();
          const s = p.schema || {};
          const type = s.enum ? s.enum.join(" | ") :
            s.type + (s.minimum !== undefined ? ` ${s.minimum}..${s.maximum}` : "");
          row.append(text("td", p.name + (p.required ? " (required)" : "")), text("td", type),
                     text("td", s.default === undefined || s.default === null ? "" :
                          String(s.default)), text("td", p.description || ""));
        }
        section.append(table);
      }
      if (route.requestBody) section.append(text("p", "body: a JSON object"));
      main.append(section);
    }
  }
})();
