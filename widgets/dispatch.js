// The dispatch viewer's front end (Python side: minitorch/widgets/dispatch_viewer.py).
//
// Each run is a list of dispatch records (one per kernel call). For every run we draw
// a timeline (kernel time only, calls laid end to end, so the Python overhead between
// calls is left out), totals per op and per backend, and the full table. With two runs
// (two backends) a comparison table lines up the totals per op.

import { el, svgEl, tupleText, errorBox, exportButton, listenForExport, watchWidth } from "./common.js";
import { drawStrides } from "./strides.js";

// A stable colour per op name (the same rule as _color in dispatch_viewer.py).
function color(name) {
  let hue = 0;
  let power = 1;
  for (const ch of name.slice(0, 12)) { hue = (hue + ch.charCodeAt(0) * power) % 360; power = (power * 31) % 360; }
  return `hsl(${hue}, 60%, 62%)`;
}

// (2,3) without spaces: the table has many of these side by side.
const compact = (values) => "(" + values.join(",") + (values.length === 1 ? ",)" : ")");
const micro = (us) => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);

function timeline(run, k, select) {
  const width = 600;
  const svg = svgEl("svg", { class: "mt-timeline", viewBox: `0 0 ${width} 26`, preserveAspectRatio: "none" });
  const total = Math.max(run.total_us, 1e-9);
  let x = 0;
  for (const r of run.records) {
    const w = (width * r.us) / total;
    svg.append(svgEl("rect", {
      x, y: r.phase === "backward" ? 13 : 0, width: Math.max(w, 0.4), height: 13, fill: color(r.op),
      class: "mt-tick", "data-row": r.i, onclick: () => select(k, r.i),
    }, svgEl("title", {}, `#${r.i} ${r.op} (${r.phase}) ${r.primitive}:${r.kernel} ${micro(r.us)}`)));
    x += w;
  }
  return el("div", { class: "mt-timeline-box" }, svg,
    el("div", { class: "mt-caption" }, "kernel time, calls end to end: forward on top, backward below; click a bar"));
}

// The same calls on one clock: a host row (when Python issued each call) and one row per
// stream (when each queued kernel really ran there), so a launch that returns at once,
// and two streams working side by side, can be seen. Data: run.timeline (real_timeline).
// The time axis takes the box's width (drawn again when it changes: watchWidth), the text
// stays 11 px: nothing scrolls sideways. `watchers` collects the stop functions.
function realTimeline(run, k, select, watchers) {
  const line = run.timeline;
  if (!line || !line.host.length) return null;
  const box = el("div", { class: "mt-timeline-box mt-real-timeline-box" });
  const caption = el("div", { class: "mt-caption" }, "real time: the host row is when Python issued each call; a stream row is when its kernels ran (CUDA launches return at once)");
  const paint = (boxWidth) => box.replaceChildren(realTimelineSvg(run, k, select, Math.max(boxWidth - 2, 240)), caption);
  paint(720);
  watchers.push(watchWidth(box, paint));
  return box;
}

function realTimelineSvg(run, k, select, total) {
  const line = run.timeline;
  const label = 110, width = total - label - 4, row = 18;
  const rows = [["host (Python)", line.host], ...line.streams];
  const height = rows.length * row + 14;
  const svg = svgEl("svg", { class: "mt-real-timeline", width: label + width + 4, height, viewBox: `0 0 ${label + width + 4} ${height}` });
  const scale = width / Math.max(line.span_us, 1e-9);
  const opOf = new Map(run.records.map((r) => [r.i, r.op]));
  // A host bar holds its call's compiling too (real time): that part is drawn hatched.
  const compileOf = new Map(run.records.map((r) => [r.i, r.compile_us || 0]));
  const hatch = `mt-compile-hatch-${k}-${Math.random().toString(36).slice(2)}`;
  svg.append(svgEl("defs", {}, svgEl("pattern", { id: hatch, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    svgEl("rect", { width: 6, height: 6, fill: "#eef1f4" }), svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#9aa5b1", "stroke-width": 2 }))));
  rows.forEach(([name, bars], j) => {
    const y = j * row;
    svg.append(svgEl("text", { x: label - 6, y: y + 13, "text-anchor": "end", class: "mt-row-label" }, name));
    svg.append(svgEl("line", { x1: label, x2: label + width, y1: y + row - 1, y2: y + row - 1, class: "mt-row-rule" }));
    for (const [i, start, end] of bars) {
      const op = opOf.get(i) || "?";
      const compiling = j === 0 ? Math.min(compileOf.get(i) || 0, end - start) : 0;
      if (compiling) {
        const w = compiling * scale;
        svg.append(svgEl("rect", {
          x: label + start * scale, y: y + 2, width: Math.max(w, 0.8), height: row - 5, fill: `url(#${hatch})`, stroke: "#9aa5b1",
          class: "mt-tick mt-compile-tick", "data-row": i, onclick: () => select(k, i),
        }, svgEl("title", {}, `#${i} ${op}: compiling its kernel, ${micro(compiling)}, once (not kernel time)`)));
        if (w > 100) svg.append(svgEl("text", { x: label + start * scale + 4, y: y + 13, class: "mt-row-label mt-compile-text" }, `compile (once) ${micro(compiling)}`));
      }
      svg.append(svgEl("rect", {
        x: label + (start + compiling) * scale, y: y + 2, width: Math.max((end - start - compiling) * scale, 0.8), height: row - 5,
        fill: color(op), class: "mt-tick", "data-row": i, "data-lane": j === 0 ? "host" : name, onclick: () => select(k, i),
      }, svgEl("title", {}, `#${i} ${op} on ${name}: ${micro(start)} to ${micro(end)} (${micro(end - start)})`)));
    }
  });
  svg.append(svgEl("text", { x: label + width, y: rows.length * row + 12, "text-anchor": "end", class: "mt-row-label" }, micro(line.span_us)));
  return svg;
}

// Compiling, in its own row and never on the kernels' scale: a kernel's first call
// compiles it (Numba, the CUDA compiler), seconds where running it takes microseconds.
// One hatched segment per call that compiled, wide in proportion to its compile time.
function compileRow(run, k, select) {
  const compiled = run.records.filter((r) => r.compile_us > 0);
  if (!compiled.length) return null;
  const segments = compiled.map((r) => el("div", {
    class: "mt-compile-segment", "data-row": r.i, style: `flex-grow: ${r.compile_us}`, onclick: () => select(k, r.i),
    title: `#${r.i} ${r.op}: compiling ${r.primitive}:${r.kernel} took ${micro(r.compile_us)}, once; the kernel itself ran in ${micro(r.us)}`,
  }, `${r.kernel} ${micro(r.compile_us)}`));
  return el("div", { class: "mt-compile-box" },
    el("div", { class: "mt-compile-row" }, el("span", { class: "mt-compile-label" }, "compile (once)"), el("div", { class: "mt-compile-segments" }, ...segments)),
    el("div", { class: "mt-caption" }, `first use of a kernel compiles it: ${micro(run.compile_us)} in ${compiled.length} call${compiled.length > 1 ? "s" : ""}, shown apart and left out of every kernel time and total`));
}

function totalsTable(title, rows, total) {
  return el("table", { class: "mt-totals" },
    el("tr", {}, el("th", {}, title), el("th", {}, "calls"), el("th", {}, "time"), el("th", {}, "")),
    ...rows.map(([name, count, us]) => el("tr", {}, el("td", {}, name), el("td", {}, count), el("td", {}, micro(us)),
      el("td", {}, el("div", { class: "mt-bar", style: `width:${Math.max(1, (120 * us) / Math.max(total, 1e-9))}px;background:${color(name)}` })))));
}

function comparison(runs) {
  const [a, b] = runs;
  const names = [...new Set([...a.totals_op.map((r) => r[0]), ...b.totals_op.map((r) => r[0])])];
  const find = (run, name) => run.totals_op.find((r) => r[0] === name) || [name, 0, 0];
  return el("div", { class: "mt-section" }, el("div", { class: "mt-caption" }, `side by side: ${a.label} vs ${b.label}`),
    el("table", { class: "mt-compare" },
      el("tr", {}, el("th", {}, "op"), el("th", {}, `${a.label}`), el("th", {}, `${b.label}`), el("th", {}, `${a.label} / ${b.label}`)),
      ...names.map((name) => {
        const [, ca, ua] = find(a, name);
        const [, cb, ub] = find(b, name);
        return el("tr", {}, el("td", {}, name), el("td", {}, `${ca}× ${micro(ua)}`), el("td", {}, `${cb}× ${micro(ub)}`),
          el("td", {}, ub > 0 ? `${(ua / ub).toFixed(2)}×` : "–"));
      }),
      el("tr", {}, el("th", {}, "total"), el("th", {}, micro(a.total_us)), el("th", {}, micro(b.total_us)),
        el("th", {}, b.total_us > 0 ? `${(a.total_us / b.total_us).toFixed(2)}×` : "–"))));
}

function recordTable(run, k, selected, select) {
  const head = ["#", "op", "phase", "primitive", "kernel", "backend", "dtype", "shapes (out ← in)", "strides", "path", "kernel time", "compile (once)"];
  const rows = run.records.map((r) => el("tr", {
    title: `#${r.i} ${r.op} (${r.phase}) ${r.primitive}:${r.kernel} on ${r.backend}, ${r.dtype}, shapes ${r.shapes.map(compact).join(" ← ")}, strides ${r.strides.map(compact).join(" ")}, ${r.path}, ${micro(r.us)}`,
    class: "mt-record" + (selected.run === k && selected.row === r.i ? " mt-selected" : "") + (r.path === "strided" ? " mt-strided" : ""),
    "data-row": r.i, onclick: () => select(k, r.i),
  }, el("td", {}, r.i), el("td", {}, r.op), el("td", {}, r.phase), el("td", {}, r.primitive), el("td", {}, r.kernel),
    el("td", {}, r.backend), el("td", {}, r.dtype), el("td", {}, r.shapes.map(compact).join(" ← ")),
    el("td", {}, r.strides.map(compact).join(" ")),
    el("td", { title: r.path === "contiguous" ? "every operand contiguous: the fast path" : "an operand is strided: the general path" }, r.path === "contiguous" ? "fast" : "strided"),
    el("td", {}, micro(r.us)), el("td", { class: r.compile_us ? "mt-compile-cell" : "" }, r.compile_us ? micro(r.compile_us) : "")));
  const more = run.truncated ? el("div", { class: "mt-muted" }, `… ${run.truncated} more calls not shown`) : null;
  return el("div", { class: "mt-table-box" }, el("table", { class: "mt-records" }, el("tr", {}, ...head.map((h) => el("th", {}, h))), ...rows), more);
}

function render({ model, el: host }) {
  const root = el("div", { class: "mt-widget mt-dispatch" });
  const error = errorBox("");
  const body = el("div", { class: "mt-body" });
  root.append(el("div", { class: "mt-header" }, el("span", { class: "mt-title" }, "dispatch trace"), exportButton(model)), error, body);
  host.append(root);

  const select = (run, row) => model.send({ type: "select", run, row });

  let watchers = [];
  function draw() {
    watchers.forEach((stop) => stop());
    watchers = [];
    const runs = model.get("runs");
    const selected = model.get("selected");
    if (!runs.length) { body.replaceChildren(el("div", { class: "mt-muted" }, "nothing recorded yet: use `with minitorch.widgets.dispatch_trace() as trace:`")); return; }
    const columns = runs.map((run, k) => el("div", { class: "mt-run", "data-run": k },
      el("div", { class: "mt-run-title" }, `${run.label}: ${run.calls} calls, ${micro(run.total_us)} of kernel time`,
        run.compile_us ? el("span", { class: "mt-compile-total" }, ` + compile (once) ${micro(run.compile_us)}, not counted`) : null),
      run.error ? el("div", { class: "mt-error" }, run.error) : null,
      compileRow(run, k, select),
      timeline(run, k, select),
      realTimeline(run, k, select, watchers),
      el("div", { class: "mt-totals-row" }, totalsTable("op", run.totals_op, run.total_us), totalsTable("backend", run.totals_backend, run.total_us)),
      recordTable(run, k, selected, select)));
    const parts = [el("div", { class: "mt-runs" }, ...columns)];
    if (runs.length === 2 && !runs[0].error && !runs[1].error) parts.push(comparison(runs));
    parts.push(detailsHolder);
    body.replaceChildren(...parts);
    showSelection();
  }

  // A click changes only the highlighted row and the details (tables can be long).
  const detailsHolder = el("div", {});
  function showSelection() {
    const runs = model.get("runs");
    const selected = model.get("selected");
    body.querySelectorAll(".mt-run").forEach((column) => {
      const k = Number(column.dataset.run);
      column.querySelectorAll(".mt-record").forEach((row) => row.classList.toggle("mt-selected", selected.run === k && Number(row.dataset.row) === selected.row));
    });
    detailsHolder.replaceChildren(detailsOf(runs, selected));
  }

  // The clicked call, and its operands' layouts (open one in the stride visualizer).
  function detailsOf(runs, selected) {
    const run = runs[selected.run];
    const record = run && run.records.find((r) => r.i === selected.row);
    if (!record) return el("div", { class: "mt-details mt-muted" }, "click a call for its details");
    const operands = record.shapes.map((shape, j) => el("button", {
      class: "mt-button mt-open-operand", "data-operand": j,
      onclick: () => model.send({ type: "open", run: selected.run, row: selected.row, operand: j }),
    }, `${j === 0 ? "out" : "in" + (j - 1)} ${tupleText(shape)} strides ${tupleText(record.strides[j])}${record.contiguous[j] ? "" : " (strided)"}`));
    const parts = [el("div", { class: "mt-details-title" }, `call #${record.i} in ${run.label}: ${record.op} (${record.phase}) → ${record.primitive}:${record.kernel} on ${record.backend}, ${record.dtype}, ${micro(record.us)}` +
        (record.compile_us ? ` (and compiling its kernel first: ${micro(record.compile_us)}, once)` : "")),
      record.kernel_shapes ? el("div", { class: "mt-caption mt-kernel-shapes" },
        `a product of two matrices: the kernel ran on their batch of one, ${record.kernel_shapes.map(tupleText).join(" ← ")}`) : null,
      el("div", {}, "open an operand's layout: ", ...operands)];
    const linked = model.get("linked");
    if (linked && linked.run === selected.run && linked.row === selected.row && linked.state) {
      const box = el("div", { class: "mt-linked mt-strides" });
      parts.push(el("div", { class: "mt-caption" }, `${linked.title}: storage cells hold their own positions (records keep layouts, not values)`), box);
      drawStrides(box, linked.state, { interactive: false });
    }
    return el("div", { class: "mt-details" }, ...parts);
  }

  const showError = () => { error.hidden = !model.get("error"); error.textContent = model.get("error"); };
  draw();
  showError();
  const handlers = [["change:runs", draw], ["change:selected", showSelection], ["change:linked", showSelection], ["change:error", showError]];
  for (const [name, handler] of handlers) model.on(name, handler);
  const stopExport = listenForExport(model, "dispatch.svg");
  return () => { watchers.forEach((stop) => stop()); for (const [name, handler] of handlers) model.off(name, handler); stopExport(); };
}

export default { render };
