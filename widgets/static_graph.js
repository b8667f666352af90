// The graph viewer's static mode (Python side: minitorch/widgets/static_graph.py):
// the graph minitorch.compile captured (kernel calls and buffers, in phase bands) beside
// the autograd graph of an eager call of the same code. Both arrive laid out; this file
// draws them with the ordinary viewer's drawGraph, adds the bands, and shows details.

import { el, svgEl, exportButton, listenForExport, panZoom, tensorText, tupleText, watchWidth } from "./common.js";
import { drawGraph } from "./graph.js";

// Readable, never shrunk: the smallest text (a node's 11 px sub-label) is drawn at
// 10 px or more, so the zoom stays at MIN_ZOOM = 10/11 or above. A captured graph is
// long and often wider than half a notebook: "fit" (also the first view, and again
// whenever the canvas changes width) first collapses the phase bands that do not fit
// the width at MIN_ZOOM, each into one row ("▸ backward · 18 nodes"), then the later
// phases that would make the canvas taller than MAX_CANVAS, and only then picks the
// zoom. A student opens a band by clicking its name (the others stay as they are until
// "fit" is pressed again); one still too wide or too tall is dragged inside its
// canvas, never the page. The two canvases sit side by side while half the widget
// shows the captured graph's first phase open, else one above the other.
const MIN_ZOOM = 10 / 11;
const MAX_ZOOM = 1;
const PAD = 10;
const COLLAPSED = 30; // the height of a collapsed band's row
const MIN_CANVAS = 140;
const MAX_CANVAS = 1000;
const GUTTER = 96; // the room left of the captured graph for the bands' names (static_graph.py)

// One canvas: an SVG with its own pan and zoom, the bands (if any) behind the graph.
function canvas(graph, side, onSelect, afterDraw) {
  const arrowId = `mt-arrow-${side}-` + Math.random().toString(36).slice(2);
  const svg = svgEl("svg", { class: `mt-canvas mt-canvas-${side}` },
    svgEl("defs", {}, svgEl("marker", { id: arrowId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
      svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "mt-arrow-head" }))));
  const viewport = svgEl("g", { class: "mt-viewport" });
  const shifted = svgEl("g", {}); // moved left so the visible nodes start at the gutter
  const bandLayer = svgEl("g", { class: "mt-bands" });
  const content = svgEl("g", {});
  shifted.append(bandLayer, content);
  viewport.append(shifted);
  svg.append(viewport);
  const bands = graph.bands || [];
  const bandOf = new Map(); // node id -> its band's index
  bands.forEach((band, i) => (band.members || []).forEach((id) => bandOf.set(id, i)));
  const collapsed = new Set();
  let chosen = false; // the student opened or closed a band: "fit" alone collapses again
  const view = panZoom(svg, viewport);
  let drawn = null;
  let size = { width: graph.layout.width, height: graph.layout.height };

  // Where height y of the full layout is drawn: each collapsed band above y gives back
  // its height less one row; inside a collapsed band, y is squeezed into that row (so an
  // edge into a closed band still arrives there).
  function mapY(y) {
    let shift = 0;
    for (const [i, band] of bands.entries()) {
      if (!collapsed.has(i)) continue;
      const bottom = band.y + band.height;
      if (y >= bottom) shift += band.height - COLLAPSED;
      else if (y > band.y) return y - shift - (y - band.y) * (1 - COLLAPSED / band.height);
    }
    return y - shift;
  }
  const hidden = (id) => collapsed.has(bandOf.get(id));

  // The visible nodes' width (with the gutter for band names) and the drawing's height.
  function extent(closed) {
    const boxes = graph.nodes.filter((n) => !closed.has(bandOf.get(n.id))).map((n) => graph.layout.boxes[n.id]);
    const gutter = bands.length ? GUTTER : 0;
    if (!boxes.length) return { left: 0, width: 260 };
    const left = Math.min(...boxes.map((b) => b[0])) - gutter;
    return { left, width: Math.max(260, Math.max(...boxes.map((b) => b[0] + b[2])) - left + 8) };
  }

  function draw() {
    const boxes = {};
    for (const node of graph.nodes) {
      const [x, y, w, h] = graph.layout.boxes[node.id];
      boxes[node.id] = [x, mapY(y), w, h];
    }
    const routes = graph.layout.routes.map((route) => route.map(([x, y]) => [x, mapY(y)]));
    drawn = drawGraph(content, { ...graph, layout: { ...graph.layout, boxes, routes } }, arrowId);
    drawn.edges.forEach((path, i) => {
      const edge = graph.edges[i];
      if (edge.title) path.append(svgEl("title", {}, edge.title));
      path.classList.toggle("mt-collapsed", hidden(edge.source) && hidden(edge.target)); // between closed bands
    });
    for (const [id, box] of drawn.nodes) {
      box.addEventListener("click", () => onSelect(`${side}:${id}`));
      if (bandOf.has(id)) box.dataset.band = bandOf.get(id);
      box.classList.toggle("mt-collapsed", hidden(id));
    }
    const { left, width } = extent(collapsed);
    shifted.setAttribute("transform", `translate(${-left},0)`);
    bandLayer.replaceChildren(...bands.map((band, i) => {
      const closed = collapsed.has(i);
      const y = mapY(band.y);
      const text = closed ? `▸ ${band.phase} · ${band.nodes} nodes` : `▾ ${band.phase}`;
      return svgEl("g", { class: `mt-band mt-band-${band.phase}${closed ? " mt-band-closed" : ""}`, "data-phase": band.phase, "data-band": i },
        svgEl("rect", { x: left, y, width, height: closed ? COLLAPSED : band.height, rx: 6 }),
        svgEl("text", { x: left + 8, y: y + 19, class: "mt-band-label", "data-band-toggle": i,
          onclick: () => toggle(i) }, text, svgEl("title", {}, closed ? "click: show this phase's kernels" : "click: collapse this phase into one row")));
    }));
    const bottom = graph.nodes.length ? Math.max(...graph.nodes.map((n) => boxes[n.id][1] + boxes[n.id][3])) : 0;
    const bandBottom = bands.length ? mapY(bands[bands.length - 1].y + bands[bands.length - 1].height) : 0;
    size = { width, height: Math.max(bottom, bandBottom) + 8 };
    svg.dataset.collapsed = [...collapsed].map((i) => bands[i].phase).join(" ");
    if (started) afterDraw(); // (not for the first drawing, made before the widget exists)
  }

  // The zoom that shows the visible width (at MIN_ZOOM or more), the canvas as tall as
  // the drawing at that zoom (up to MAX_CANVAS: then drag up and down).
  function zoomToWidth() {
    const room = svg.getBoundingClientRect().width - 2 * PAD;
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, room / size.width));
    svg.style.height = `${Math.round(Math.min(MAX_CANVAS, Math.max(MIN_CANVAS, size.height * k + 2 * PAD)))}px`;
    const x = size.width * k <= room ? (room + 2 * PAD - size.width * k) / 2 : PAD;
    view.set({ k, x, y: PAD });
    svg.dataset.zoom = k.toFixed(3);
  }

  // What keeps the graph with these bands closed from fitting: "width" (too wide at
  // MIN_ZOOM), "height" (taller than MAX_CANVAS at the zoom that fits the width), or "".
  function misfit(closed, room) {
    const { width } = extent(closed);
    if (width * MIN_ZOOM > room) return "width";
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, room / width));
    const height = graph.layout.height - [...closed].reduce((sum, i) => sum + bands[i].height - COLLAPSED, 0);
    return height * k + 2 * PAD > MAX_CANVAS ? "height" : "";
  }

  // Collapse bands until the rest fits: for the width, each time the band whose collapse
  // leaves the narrowest graph (the later one of equals); for the height, the last open
  // band. Never the first: the forward stays open, the later phases are rows below it.
  function fit(byStudent = false) {
    if (byStudent) chosen = false;
    if (!chosen) {
      collapsed.clear();
      const room = svg.getBoundingClientRect().width - 2 * PAD;
      for (let why = misfit(collapsed, room); why; why = misfit(collapsed, room)) {
        const open = bands.map((_, i) => i).filter((i) => i > 0 && !collapsed.has(i));
        if (!open.length) break; // the first phase alone: drawn at MIN_ZOOM, dragged if wider
        let best = open[open.length - 1];
        if (why === "width") {
          let narrowest = Infinity;
          for (const i of open) {
            const width = extent(new Set([...collapsed, i])).width;
            if (width <= narrowest) { best = i; narrowest = width; }
          }
        }
        collapsed.add(best);
      }
    }
    draw();
    zoomToWidth();
  }

  function toggle(i) {
    chosen = true;
    if (collapsed.has(i)) collapsed.delete(i); else collapsed.add(i);
    draw();
    zoomToWidth();
  }

  let started = false;
  draw();
  started = true;
  // The width the first band needs open, at MIN_ZOOM (render() stacks the canvases when
  // half the widget is narrower).
  const firstBandWidth = () => extent(new Set(bands.map((_, i) => i).filter((i) => i > 0))).width * MIN_ZOOM + 2 * PAD;
  return { svg, nodes: () => drawn.nodes, fit, firstBandWidth };
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
  const fitButton = el("button", { class: "mt-button mt-fit", title: "both graphs across their width at a readable size (text 10 px or more): phases that do not fit are collapsed; click a phase's name to open or close it" }, "fit");
  const header = el("div", { class: "mt-header" }, el("span", { class: "mt-title" }, "captured graph"),
    el("span", { class: "mt-muted mt-stats" }, `${s.kernels} kernel calls · buffers: ${buffers}${passes}`), fitButton, exportButton(model));
  const select = (id) => { model.set("selected", id); model.save_changes(); };
  const left = canvas(captured, "captured", select, () => markSelected());
  const columns = [el("div", { class: "mt-column" }, el("div", { class: "mt-column-title" }, "kernel calls (minitorch.compile)"), left.svg)];
  let right = null;
  if (autograd.nodes) {
    right = canvas(autograd, "autograd", select, () => markSelected());
    columns.push(el("div", { class: "mt-column" }, el("div", { class: "mt-column-title" }, "autograd graph (an eager call)"), right.svg));
  } else {
    columns.push(el("div", { class: "mt-column mt-muted mt-hint" },
      "pass autograd=loss, the loss of an eager call (a compiled function's first call runs eagerly), to draw its autograd graph here"));
  }
  const panel = el("div", { class: "mt-details" }, el("div", { class: "mt-muted" }, "click a node for its details"));
  const main = el("div", { class: "mt-main" }, ...columns);
  root.append(header, main, panel);
  host.append(root);
  root.dataset.nodes = captured.nodes.length;
  root.dataset.kernels = s.kernels;

  function markSelected() {
    const [side, nodeId] = model.get("selected").split(/:(.*)/s);
    for (const [name, pane] of [["captured", left], ["autograd", right]]) {
      if (pane) for (const [key, box] of pane.nodes()) box.classList.toggle("mt-selected", name === side && key === nodeId);
    }
  }

  function showDetails() {
    const [side, nodeId] = model.get("selected").split(/:(.*)/s);
    markSelected();
    const graph = side === "captured" ? captured : autograd;
    const node = graph && graph.nodes ? graph.nodes.find((n) => n.id === nodeId) : null;
    panel.replaceChildren(...(node ? details(node, side) : [el("div", { class: "mt-muted" }, "click a node for its details")]));
  }

  const stops = [left, right].filter(Boolean).map((pane) => watchWidth(pane.svg, () => pane.fit()));
  // Side by side while half the width shows the captured graph's first phase open; else
  // one above the other (each canvas then fits itself again: its width changed).
  const arrange = (width) => main.classList.toggle("mt-stacked", right !== null && (width - 8) / 2 < left.firstBandWidth());
  stops.push(watchWidth(main, arrange));
  fitButton.addEventListener("click", () => { left.fit(true); if (right) right.fit(true); });
  showDetails();
  model.on("change:selected", showDetails);
  const stopExport = listenForExport(model, "captured-graph.svg");
  return () => { model.off("change:selected", showDetails); stopExport(); stops.forEach((stop) => stop()); };
}

export default { render };
