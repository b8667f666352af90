// The graph viewer's front end (Python side: minitorch/widgets/graph.py).
//
// Python sends the graph already laid out (graph.layout: a box per node, a route per
// edge, computed by minitorch/widgets/graph_layout.py), so this file only draws SVG,
// handles pan/zoom and clicks, and shows details and backward steps.
// Edges point the way data flowed forward (input -> op); gradients flow back along them.
//
// Readable at every zoom "fit" picks: the smallest text of a node is 11 px at zoom 1
// (graph.css), and "fit" never zooms below MIN_FIT = 10/11, where it is 10 px. A graph
// taller than the canvas makes the canvas taller (up to MAX_CANVAS px; beyond that, drag
// to pan); a small one is enlarged up to MAX_FIT. Only the wheel zooms further out, by
// the reader's choice. The graph is fitted when it is first shown and again whenever
// the canvas changes width (a narrower notebook, the file browser opened): watchWidth.
//
// The backward steps can be played, one every model.step_ms milliseconds (600 ms or
// more: slow enough to follow), and paused.

import { el, svgEl, tensorText, tupleText, errorBox, exportButton, listenForExport, panZoom, watchWidth } from "./common.js";
import { drawStrides } from "./strides.js";

const MIN_FIT = 10 / 11;
const MAX_FIT = 1.25;
const MIN_CANVAS = 240;
const MAX_CANVAS = 760;
const PAD = 16;
const SPEEDS = [["slow", 1500], ["normal", 900], ["fast", 600]]; // ms per step while playing
const TENSOR_KINDS = new Set(["leaf", "param", "output"]); // nodes that stand for a student's tensor

// Draw nodes and edges into the SVG group; returns {nodes: id -> <g>, edges: [<path>]}.
export function drawGraph(group, graph, arrowId = "mt-arrow") {
  const { boxes, routes } = graph.layout;
  const drawn = { nodes: new Map(), edges: [] };
  const edgeLayer = svgEl("g", { class: "mt-edges" });
  const nodeLayer = svgEl("g", { class: "mt-nodes" });
  graph.edges.forEach((edge, i) => {
    const path = svgEl("path", {
      d: curve(routes[i]), class: `mt-edge mt-edge-${edge.kind}`, "data-source": edge.source, "data-target": edge.target,
      "marker-end": `url(#${arrowId})`,
    });
    drawn.edges.push(path);
    edgeLayer.append(path);
    // Two edges between the same nodes (y * y) are bent apart; each says which input it is.
    if (edge.label) {
      const [x, y] = routes[i][Math.floor(routes[i].length / 2)];
      const left = edge.side === "left";
      path.append(svgEl("title", {}, `${edge.label}: next_functions[${edge.slot}]`));
      edgeLayer.append(svgEl("text", { x: left ? x - 5 : x + 5, y: y + 4, class: "mt-edge-label", "text-anchor": left ? "end" : "start",
        "data-source": edge.source, "data-target": edge.target }, edge.label));
    }
  });
  for (const node of graph.nodes) {
    const [x, y, w, h] = boxes[node.id];
    const box = svgEl("g", { class: `mt-node mt-kind-${node.kind}`, "data-node": node.id, transform: `translate(${x},${y})` },
      svgEl("rect", { width: w, height: h, rx: node.kind === "op" || node.kind === "view" ? 4 : 10 }),
      // a tensor the student made: a strip in its colour, the same in every widget (colors.py)
      TENSOR_KINDS.has(node.kind) && node.tensor?.color
        ? svgEl("line", { x1: 5, y1: 7, x2: 5, y2: h - 7, class: "mt-tensor-color", style: `stroke:${node.tensor.color};stroke-width:4` }) : null,
      svgEl("text", { x: w / 2, y: 15, class: "mt-node-label" }, node.label),
      svgEl("text", { x: w / 2, y: 31, class: "mt-node-sub" }, node.sub),
      svgEl("title", {}, `${node.label} (${node.kind})`));
    drawn.nodes.set(node.id, box);
    nodeLayer.append(box);
  }
  group.replaceChildren(edgeLayer, nodeLayer);
  return drawn;
}

// A smooth path through the route's points: vertical tangents at each point.
function curve(points) {
  if (!points || points.length < 2) return "";
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    const bend = (y1 - y0) / 2;
    d += ` C ${x0} ${y0 + bend} ${x1} ${y1 - bend} ${x1} ${y1}`;
  }
  return d;
}

function recordsTable(records) {
  if (!records || !records.length) return el("div", { class: "mt-muted" }, "none recorded");
  return el("table", { class: "mt-records" },
    el("tr", {}, ...["op", "primitive", "kernel", "backend", "shapes", "path", "µs"].map((h) => el("th", {}, h))),
    ...records.map((r) => el("tr", {}, el("td", {}, r.op), el("td", {}, r.primitive), el("td", {}, r.kernel), el("td", {}, r.backend),
      el("td", {}, r.shapes.map(tupleText).join(" ← ")), el("td", {}, r.path), el("td", {}, r.us.toFixed(1)))));
}

function render({ model, el: host }) {
  const root = el("div", { class: "mt-widget mt-graph" });
  const stats = el("span", { class: "mt-muted mt-stats" });
  const savedBox = el("input", { type: "checkbox", class: "mt-saved-toggle" });
  const backwardButton = el("button", { class: "mt-button mt-backward", title: "run backward, recording each step of the engine" }, "backward");
  const prev = el("button", { class: "mt-button mt-prev" }, "◀");
  const next = el("button", { class: "mt-button mt-next" }, "step ▶");
  const playButton = el("button", { class: "mt-button mt-play", title: "play the steps one after another" }, "play ▶▶");
  const speed = el("select", { class: "mt-field mt-speed", title: "time per step while playing" },
    ...SPEEDS.map(([name, ms]) => el("option", { value: ms }, `${name} (${(ms / 1000).toFixed(1)} s a step)`)));
  const stepLabel = el("span", { class: "mt-step-label mt-muted" });
  const fitButton = el("button", { class: "mt-button mt-fit", title: "the whole graph at a readable size (drag to pan, wheel to zoom)" }, "fit");
  const modules = el("div", { class: "mt-modules" });
  const header = el("div", { class: "mt-header" }, el("span", { class: "mt-title" }, "autograd graph"), stats,
    el("label", {}, savedBox, " saved tensors"), fitButton, exportButton(model));
  const controls = el("div", { class: "mt-controls" }, backwardButton, prev, next, playButton, speed, stepLabel);
  const error = errorBox("");
  const arrowId = "mt-arrow-" + Math.random().toString(36).slice(2);
  const svg = svgEl("svg", { class: "mt-canvas" },
    svgEl("defs", {}, svgEl("marker", { id: arrowId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
      svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "mt-arrow-head" }))));
  const group = svgEl("g", { class: "mt-viewport" });
  svg.append(group);
  const details = el("div", { class: "mt-details" }, el("div", { class: "mt-muted" }, "click a node for its details"));
  const stepPanel = el("div", { class: "mt-step-panel mt-muted" }, "press backward, then step through the engine's order");
  root.append(header, controls, modules, error, el("div", { class: "mt-main" }, svg, details), stepPanel);
  host.append(root);

  let drawn = null;
  let firstDraw = true;
  // Far out (a big graph zoomed out with the wheel) the labels are unreadable anyway;
  // not drawing them keeps a 1,000-node graph quick to paint.
  const view = panZoom(svg, group, (t) => {
    root.dataset.zoom = t.k.toFixed(3);
    root.classList.toggle("mt-far", t.k < 0.35);
  });
  const byId = () => new Map(model.get("graph").nodes.map((n) => [n.id, n]));

  // "fit": see the top of this file. The canvas (and the details beside it) take the
  // graph's height at the chosen zoom.
  // Too wide to read at MIN_FIT, a watched model's graph is not shrunk further: its
  // outermost modules (a model's dozen or fewer children; not the 200 layers of a long
  // chain, which collapsing would not narrow) are collapsed, once, until the student
  // ticks a box, each into one node a double click opens. Python lays the graph out
  // again; draw() then fits it.
  const MOST_GROUPS = 12;
  let modulesChosen = false;
  let fitAfterDraw = false;
  function collapseToFit(width, room) {
    const graph = model.get("graph");
    if (modulesChosen || width * MIN_FIT <= room || !graph.modules.length || model.get("collapsed").length) return false;
    const outer = graph.modules.filter((p) => !graph.modules.some((q) => q !== p && p.startsWith(q + ".")));
    if (outer.length > MOST_GROUPS) return false;
    fitAfterDraw = true;
    model.set("collapsed", outer);
    model.save_changes();
    return true;
  }

  function fit() {
    const { width, height } = model.get("graph").layout;
    const box = svg.getBoundingClientRect();
    if (collapseToFit(width, box.width - 2 * PAD)) return;
    let k = Math.max(MIN_FIT, Math.min(MAX_FIT, (box.width - 2 * PAD) / Math.max(width, 1)));
    if (height * k + 2 * PAD > MAX_CANVAS) k = Math.max(MIN_FIT, (MAX_CANVAS - 2 * PAD) / Math.max(height, 1));
    const canvasHeight = Math.round(Math.min(MAX_CANVAS, Math.max(MIN_CANVAS, height * k + 2 * PAD)));
    svg.style.height = details.style.height = `${canvasHeight}px`;
    const x = width * k <= box.width - 2 * PAD ? (box.width - width * k) / 2 : PAD;
    view.set({ k, x, y: PAD });
  }

  function draw() {
    const graph = model.get("graph");
    const start = performance.now();
    drawn = drawGraph(group, graph, arrowId);
    const ms = performance.now() - start;
    root.dataset.renderMs = ms.toFixed(1);
    root.dataset.nodes = graph.nodes.length;
    const s = graph.stats;
    stats.textContent = `${s.nodes} nodes · ${s.edges} edges · layout ${s.layout_ms} ms (${s.engine}, in Python) · drawn in ${ms.toFixed(0)} ms`;
    savedBox.checked = model.get("show_saved");
    drawModules(graph);
    for (const node of graph.nodes) {
      const box = drawn.nodes.get(node.id);
      box.addEventListener("click", () => select(node.id));
      if (node.kind === "module") box.addEventListener("dblclick", () => toggleModule(node.module));
    }
    if (firstDraw) {
      // Fit before the first paint when the canvas has a size already, else next frame.
      if (svg.getBoundingClientRect().width > 0) fit(); else requestAnimationFrame(fit);
      firstDraw = false;
    } else if (fitAfterDraw) {
      fitAfterDraw = false;
      fit();
    }
    showStep();
    showDetails();
  }

  function drawModules(graph) {
    if (!graph.modules.length) {
      modules.replaceChildren(el("span", { class: "mt-muted" }, "collapse modules: run the forward inside widgets.watch(model)"));
      return;
    }
    const collapsed = new Set(model.get("collapsed"));
    const names = graph.module_labels || {};
    modules.replaceChildren(el("span", { class: "mt-muted" }, "collapse:"), ...graph.modules.map((path) => el("label", { class: "mt-module" },
      el("input", { type: "checkbox", "data-module": path, checked: collapsed.has(path), onchange: () => toggleModule(path) }), " ", names[path] || path)));
  }

  function toggleModule(path) {
    modulesChosen = true;
    const collapsed = new Set(model.get("collapsed"));
    if (collapsed.has(path)) collapsed.delete(path); else collapsed.add(path);
    model.set("collapsed", [...collapsed]);
    model.save_changes();
  }

  function select(id) {
    model.set("selected", id);
    model.save_changes();
  }

  function showDetails() {
    const id = model.get("selected");
    for (const [nodeId, box] of drawn.nodes) box.classList.toggle("mt-selected", nodeId === id);
    const node = byId().get(id);
    if (!node) { details.replaceChildren(el("div", { class: "mt-muted" }, "click a node for its details")); return; }
    const parts = [el("div", { class: "mt-details-title" }, node.label, el("span", { class: "mt-badge" }, node.kind))];
    const row = (name, value) => parts.push(el("div", { class: "mt-row" }, el("span", { class: "mt-key" }, name), value));
    if (node.op) row("op", node.op + (node.seq !== undefined ? `  (sequence_nr ${node.seq})` : ""));
    if (node.kind === "view") row("view", "its forward returned a view of its input: the same storage, new strides");
    if (node.module) row("module", `${node.module}${node.module_type ? " (" + node.module_type + ")" : ""}`);
    if (node.tensor) {
      row("tensor", `${tensorText(node.tensor)}  on ${node.tensor.device}`);
      row("layout", `strides ${tupleText(node.tensor.strides)} offset ${node.tensor.offset}${node.tensor.contiguous ? " (contiguous)" : ""}`);
      parts.push(el("button", { class: "mt-button mt-open-layout", onclick: () => model.send({ type: "open", node: id }) }, "open layout in the stride visualizer"));
    }
    if (node.kind === "param" || node.kind === "leaf") {
      if (node.grad_from === "viewer") row("grad", `${tensorText(node.grad)}  (the viewer's backward; the tensor's .grad is unchanged)`);
      else row(".grad", node.grad ? tensorText(node.grad) : "none yet (press backward)");
    }
    if (node.outputs) row("output", node.outputs.map((o) => `${o.dtype} ${tupleText(o.shape)}`).join(", "));
    if (node.inputs) row("inputs", node.inputs.map((o) => `${o.dtype} ${tupleText(o.shape)}`).join(", "));
    if (node.grad && node.kind !== "param" && node.kind !== "leaf") row("grad of its output", tensorText(node.grad));
    if (node.saved && (node.kind === "op" || node.kind === "view")) row("saved for backward", node.saved.length ? node.saved.map(tensorText).join("; ") : "nothing (or freed by backward)");
    if (node.members) row("contains", node.member_labels.join(", "));
    if (node.forward) {
      parts.push(el("div", { class: "mt-key" }, "forward kernels"));
      parts.push(node.watched ? recordsTable(node.forward) : el("div", { class: "mt-muted" }, "run the forward inside widgets.watch() to record them"));
    }
    const step = model.get("steps").find((s) => s.node === id);
    if (node.op) {
      parts.push(el("div", { class: "mt-key" }, "backward kernels"));
      parts.push(step ? recordsTable(step.records) : el("div", { class: "mt-muted" }, "press backward to record them"));
    }
    const linked = model.get("linked");
    if (linked && linked.node === id && linked.state) {
      const box = el("div", { class: "mt-linked mt-strides" });
      parts.push(el("div", { class: "mt-key" }, `layout of ${linked.title}`), box);
      drawStrides(box, linked.state, { interactive: false });
    }
    details.replaceChildren(...parts);
  }

  // Step-through: the engine's order, one node at a time.
  function showStep() {
    const steps = model.get("steps");
    const index = model.get("step");
    const graph = model.get("graph");
    const problem = (graph.replay || {}).problem || "";
    backwardButton.disabled = !!problem;
    backwardButton.title = problem || "run backward on the viewer's copy of the graph, recording each step (your tensors' .grad stay as they are)";
    prev.disabled = index < 0;
    next.disabled = !steps.length || index >= steps.length - 1;
    playButton.disabled = !steps.length;
    if (playing && next.disabled) pause();
    stepLabel.textContent = steps.length ? `step ${index + 1} of ${steps.length}` : "";
    const group_ = graph.group || {};
    const shown = (id) => group_[id] || id;
    for (const box of drawn.nodes.values()) box.classList.remove("mt-current", "mt-done", "mt-target");
    for (const path of drawn.edges) path.classList.remove("mt-flow");
    if (index < 0 || !steps[index]) {
      // (Steps may exist without the viewer's backward: watch() recorded the notebook's.)
      const hint = steps.length ? `${steps.length} steps recorded: press step ▶ or play ▶▶` : problem ? "" : "press backward, then step through the engine's order";
      const ran = (graph.replay || {}).ran ? el("div", { class: "mt-muted" }, "backward ran on the viewer's copy of the graph, taken when it was drawn: your tensors' .grad are unchanged") : "";
      stepPanel.replaceChildren(problem ? el("div", { class: "mt-note mt-replay-problem" }, problem) : "", hint, ran);
      return;
    }
    steps.slice(0, index).forEach((s) => drawn.nodes.get(shown(s.node))?.classList.add("mt-done"));
    const step = steps[index];
    const current = shown(step.node);
    drawn.nodes.get(current)?.classList.add("mt-current");
    for (const edge of step.edges) {
      drawn.nodes.get(shown(edge.target))?.classList.add("mt-target");
      for (const path of drawn.edges) {
        if (path.dataset.source === shown(edge.target) && path.dataset.target === current) path.classList.add("mt-flow");
      }
    }
    const names = new Map(graph.nodes.map((n) => [n.id, n.label]));
    const lines = [el("div", { class: "mt-details-title" }, `step ${index + 1} of ${steps.length}: ${step.label}`,
      el("span", { class: "mt-muted" }, "  (the engine runs the ready node with the highest sequence_nr first)"))];
    step.incoming.forEach((g) => lines.push(el("div", {}, "receives grad ", el("b", {}, tensorText(g)))));
    const sends = new Map(); // how many edges go to each target (y * y: two to one node)
    for (const edge of step.edges) sends.set(edge.target, (sends.get(edge.target) || 0) + 1);
    for (const edge of step.edges) {
      const target = (names.get(shown(edge.target)) || edge.target) + (sends.get(edge.target) > 1 ? ` as input ${edge.slot}` : "");
      const line = el("div", { class: "mt-step-edge" }, `→ ${target}: `);
      if (!edge.delivered) line.append("nothing (no gradient needed)");
      else {
        line.append(`local grad ${tensorText(edge.local)}`);
        if (edge.summed_dims.length) line.append(el("span", { class: "mt-sum" }, `  Σ over dims (${edge.summed_dims.join(", ")}) un-broadcasts to ${tupleText(edge.delivered.shape)} = ${tensorText(edge.delivered)}`));
        if (edge.of > 1) line.append(el("span", { class: "mt-acc" }, `  accumulates: contribution ${edge.contribution} of ${edge.of}`));
      }
      lines.push(line);
    }
    lines.push(el("div", { class: "mt-muted" }, `${step.records.length} kernel call${step.records.length === 1 ? "" : "s"}: ` +
      step.records.map((r) => `${r.primitive}:${r.kernel} ${tupleText(r.shapes[0])}`).join(", ")));
    stepPanel.replaceChildren(...lines);
  }

  // Playing: one step every step_ms (a timeout chain, so a new speed applies at once).
  let playing = null;
  const goTo = (index) => { model.set("step", index); model.save_changes(); };
  function tick() {
    const last = model.get("steps").length - 1;
    if (model.get("step") >= last) { pause(); return; }
    goTo(model.get("step") + 1);
    if (playing) playing = setTimeout(tick, model.get("step_ms")); // (the last step pauses)
  }
  function play() {
    if (model.get("step") >= model.get("steps").length - 1) goTo(-1); // from the start again
    root.dataset.playing = "true";
    playButton.textContent = "pause ❚❚";
    playing = setTimeout(tick, 0);
  }
  function pause() {
    clearTimeout(playing);
    playing = null;
    root.dataset.playing = "false";
    playButton.textContent = "play ▶▶";
  }
  playButton.addEventListener("click", () => (playing ? pause() : play()));
  speed.value = String(model.get("step_ms"));
  speed.addEventListener("change", () => { model.set("step_ms", Number(speed.value)); model.save_changes(); });
  backwardButton.addEventListener("click", () => { pause(); model.send({ type: "backward" }); });
  prev.addEventListener("click", () => { pause(); goTo(model.get("step") - 1); });
  next.addEventListener("click", () => { pause(); goTo(model.get("step") + 1); });
  fitButton.addEventListener("click", fit);
  savedBox.addEventListener("change", () => { model.set("show_saved", savedBox.checked); model.save_changes(); });
  const showError = () => { error.hidden = !model.get("error"); error.textContent = model.get("error"); };

  draw();
  showError();
  const stopWatching = watchWidth(svg, fit);
  const handlers = [["change:graph", draw], ["change:steps", () => { showStep(); showDetails(); }], ["change:step", showStep],
    ["change:selected", showDetails], ["change:linked", showDetails], ["change:error", showError]];
  for (const [name, handler] of handlers) model.on(name, handler);
  const stopExport = listenForExport(model, "graph.svg");
  return () => { pause(); stopWatching(); for (const [name, handler] of handlers) model.off(name, handler); stopExport(); };
}

export default { render };
