// The graph viewer's static mode (Python side: minitorch/widgets/static_graph.py):
// the graph minitorch.compile captured (kernel calls and buffers, in phase bands) beside
// the autograd graph of an eager call of the same code. Both arrive laid out; this file
// draws them with the ordinary viewer's drawGraph, adds the bands, and shows details.

import { el, svgEl, exportButton, listenForExport, panZoom, tensorText, tupleText } from "./common.js";
import { drawGraph } from "./graph.js";

// One canvas: an SVG with its own pan and zoom, the bands (if any) behind the graph.
function canvas(graph, side, onSelect) {
  const arrowId = `mt-arrow-${side}-` + Math.random().toString(36).slice(2);
  const svg = svgEl("svg", { class: `mt-canvas mt-canvas-${side}` },
    svgEl("defs", {}, svgEl("marker", { id: arrowId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
      svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "mt-arrow-head" }))));
  const viewport = svgEl("g", { class: "mt-viewport" });
  const bands = svgEl("g", { class: "mt-bands" });
  const content = svgEl("g", {});
  viewport.append(bands, content);
  svg.append(viewport);
  for (const band of graph.bands || []) {
    bands.append(svgEl("g", { class: `mt-band mt-band-${band.phase}`, "data-phase": band.phase },
      svgEl("rect", { x: 0, y: band.y, width: graph.layout.width, height: band.height, rx: 6 }),
      svgEl("text", { x: 8, y: band.y + 18, class: "mt-band-label" }, band.phase)));
  }
  const drawn = drawGraph(content, graph, arrowId);
  drawn.edges.forEach((path, i) => { if (graph.edges[i].title) path.append(svgEl("title", {}, graph.edges[i].title)); });
  for (const [id, box] of drawn.nodes) box.addEventListener("click", () => onSelect(`${side}:${id}`));
  const view = panZoom(svg, viewport);
  const { width, height } = graph.layout;
  // A captured graph is long and narrow: first show the middle of its top at full size,
  // where the smallest label is 11 px (drag to see the rest); "fit" shows all of it.
  const fitWidth = () => {
    const box = svg.getBoundingClientRect();
    view.set({ k: 1, x: (box.width - width) / 2, y: 10 });
  };
  return { svg, drawn, fitWidth, fit: () => view.fit(width, height) };
}

function details(node, side) {
  const parts = [el("div", { class: "mt-details-title" }, node.label, el("span", { class: "mt-badge" }, node.kind))];
  const row = (name, value) => parts.push(el("div", { class: "mt-row" }, el("span", { class: "mt-key" }, name), value));
  if (side === "captured") {
    if (node.phase) row("phase", node.phase);
    if (node.meaning) row("buffer", node.meaning);
    if (node.buffer !== undefined) row("storage", `b${node.buffer}: ${node.sub}, ${node.bytes} bytes on ${node.device}`);
    if (node.values) row("values", node.values);
    if (node.primitive) {
      row("op", node.op);
      row("kernel", `${node.primitive}${node.kernel !== node.primitive ? " · " + node.kernel : ""} on ${node.device}`);
      row("writes", node.writes.join(", ") || "nothing");
      row("reads", node.reads.join(", ") || "nothing");
      parts.push(el("pre", { class: "mt-line" }, node.line));
    }
    if (node.source) {
      parts.push(el("div", { class: "mt-key" }, "generated source"));
      parts.push(el("pre", { class: "mt-source" }, node.source));
    }
  } else {
    if (node.op) row("op", node.op);
    if (node.tensor) row("tensor", tensorText(node.tensor));
    if (node.outputs) row("output", node.outputs.map((o) => `${o.dtype} ${tupleText(o.shape)}`).join(", "));
  }
  return parts;
}

function render({ model, el: host }) {
  const captured = model.get("captured");
  const autograd = model.get("autograd");
  const root = el("div", { class: "mt-widget mt-graph mt-static-graph" });
  const s = captured.stats;
  const buffers = Object.entries(s.buffers).filter(([, n]) => n).map(([kind, n]) => `${n} ${kind}`).join(", ");
  const passes = captured.passes.length ? ` · passes: ${captured.passes.join(", ")}` : "";
  const fitButton = el("button", { class: "mt-button mt-fit", title: "show all of both graphs" }, "fit");
  const header = el("div", { class: "mt-header" }, el("span", { class: "mt-title" }, "captured graph"),
    el("span", { class: "mt-muted mt-stats" }, `${s.kernels} kernel calls · buffers: ${buffers}${passes}`), fitButton, exportButton(model));
  const select = (id) => { model.set("selected", id); model.save_changes(); };
  const left = canvas(captured, "captured", select);
  const columns = [el("div", { class: "mt-column" }, el("div", { class: "mt-column-title" }, "kernel calls (minitorch.compile)"), left.svg)];
  let right = null;
  if (autograd.nodes) {
    right = canvas(autograd, "autograd", select);
    columns.push(el("div", { class: "mt-column" }, el("div", { class: "mt-column-title" }, "autograd graph (an eager call)"), right.svg));
  } else {
    columns.push(el("div", { class: "mt-column mt-muted mt-hint" },
      "pass autograd=loss, the loss of an eager call (a compiled function's first call runs eagerly), to draw its autograd graph here"));
  }
  const panel = el("div", { class: "mt-details" }, el("div", { class: "mt-muted" }, "click a node for its details"));
  root.append(header, el("div", { class: "mt-main" }, ...columns), panel);
  host.append(root);
  root.dataset.nodes = captured.nodes.length;
  root.dataset.kernels = s.kernels;

  function showDetails() {
    const id = model.get("selected");
    const [side, nodeId] = id.split(/:(.*)/s);
    for (const [name, drawn] of [["captured", left.drawn], ["autograd", right && right.drawn]]) {
      if (drawn) for (const [key, box] of drawn.nodes) box.classList.toggle("mt-selected", name === side && key === nodeId);
    }
    const graph = side === "captured" ? captured : autograd;
    const node = graph && graph.nodes ? graph.nodes.find((n) => n.id === nodeId) : null;
    panel.replaceChildren(...(node ? details(node, side) : [el("div", { class: "mt-muted" }, "click a node for its details")]));
  }

  const firstView = () => { left.fitWidth(); if (right) right.fitWidth(); };
  if (left.svg.getBoundingClientRect().width > 0) firstView(); else requestAnimationFrame(firstView);
  fitButton.addEventListener("click", () => { left.fit(); if (right) right.fit(); });
  showDetails();
  model.on("change:selected", showDetails);
  const stopExport = listenForExport(model, "captured-graph.svg");
  return () => { model.off("change:selected", showDetails); stopExport(); };
}

export default { render };
