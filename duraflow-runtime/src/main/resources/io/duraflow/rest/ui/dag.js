// A job's graph as a layered DAG in SVG, no library. Vertex ids are topological (a producer's id is
// lower than its consumers'), so one pass gives each vertex its layer: one more than its deepest
// producer. Within a layer vertices are ordered by the mean row of their producers (one barycenter
// sweep), which keeps the edges of the usual chains and joins from crossing.
"use strict";
const Dag = (() => {
  const NODE_W = 250, NODE_H = 78, GAP_X = 90, GAP_Y = 26, PAD = 16;
  const SVG = "http://www.w3.org/2000/svg";

  function layout(vertices) {
    const layer = new Map(), row = new Map();
    for (const v of vertices) {
      let l = 0;
      for (const input of v.inputs) l = Math.max(l, (layer.get(input.producer) ?? -1) + 1);
      layer.set(v.id, l);
    }
    const layers = [];
    for (const v of vertices) (layers[layer.get(v.id)] ??= []).push(v);
    for (const members of layers) {
      const key = v => v.inputs.length === 0 ? v.id
        : v.inputs.reduce((sum, i) => sum + (row.get(i.producer) ?? 0), 0) / v.inputs.length;
      members.sort((a, b) => key(a) - key(b) || a.id - b.id);
      members.forEach((v, i) => row.set(v.id, i));
    }
    const rows = Math.max(1, ...layers.map(m => m.length));
    const pos = new Map();
    layers.forEach((members, l) => {
      const offset = (rows - members.length) * (NODE_H + GAP_Y) / 2;
      members.forEach((v, i) => pos.set(v.id, { x: PAD + l * (NODE_W + GAP_X), y: PAD + offset + i * (NODE_H + GAP_Y) }));
    });
    return { pos, width: PAD * 2 + layers.length * NODE_W + (layers.length - 1) * GAP_X,
      height: PAD * 2 + rows * NODE_H + (rows - 1) * GAP_Y };
  }

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clip(text, max) {
    return text.length > max ? text.slice(0, max - 1) + "\u2026" : text;
  }

  // Draws the graph into container, replacing what was there; vertexState(v) and vertexLines(v)
  // give each node's state (for its colour and data-state) and its two lines of figures.
  function render(container, vertices, vertexState, vertexLines, colors) {
    const { pos, width, height } = layout(vertices);
    const svg = el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "job graph" });
    const defs = el("defs");
    const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
    marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8c959f" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    for (const v of vertices) {
      const to = pos.get(v.id);
      for (const input of v.inputs) {
        const from = pos.get(input.producer);
        if (!from) continue;
        const x1 = from.x + NODE_W, y1 = from.y + NODE_H / 2, x2 = to.x, y2 = to.y + NODE_H / 2, mx = (x1 + x2) / 2;
        svg.appendChild(el("path", { class: "dag-edge", d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`,
          "marker-end": "url(#arrow)", "data-from": input.producer, "data-to": v.id }));
        svg.appendChild(el("text", { class: "dag-edge-label", x: mx, y: (y1 + y2) / 2 - 4, "text-anchor": "middle" },
          `${input.strategy.toLowerCase()} \u00b7 ${input.mode.toLowerCase()}`));
      }
    }
    for (const v of vertices) {
      const p = pos.get(v.id), state = vertexState(v);
      const g = el("g", { class: "dag-node", transform: `translate(${p.x},${p.y})`, "data-vertex-id": v.id, "data-state": state });
      const title = el("title", {}, v.name);
      g.appendChild(title);
      g.appendChild(el("rect", { width: NODE_W, height: NODE_H, rx: 6, stroke: colors[state] || "#8c959f" }));
      g.appendChild(el("rect", { width: 6, height: NODE_H, rx: 3, fill: colors[state] || "#8c959f", stroke: "none" }));
      g.appendChild(el("text", { class: "title", x: 14, y: 19 }, clip(v.name, 34)));
      const [line1, line2] = vertexLines(v);
      g.appendChild(el("text", { x: 14, y: 40 }, `${state} \u00b7 ${line1}`));
      g.appendChild(el("text", { x: 14, y: 60, class: "muted" }, line2));
      svg.appendChild(g);
    }
    container.replaceChildren(svg);
  }

  return { render, layout };
})();
