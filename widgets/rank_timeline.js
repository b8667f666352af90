// The rank timeline's front end (Python side: minitorch/widgets/rank_timeline.py).
//
// One block per run; in it one row per rank with two lanes, compute and communication.
// Bars are HTML boxes placed in percent of the longest run's span, so the drawing takes
// the width of its cell and no more (nothing is drawn at a fixed pixel width, nothing
// scrolls sideways) and its text stays at the theme's sizes at every width.

import { el, exportButton, listenForExport } from "./common.js";

const LEGEND = [["forward", "forward"], ["backward", "backward"], ["optimizer", "optimizer"],
  ["communication", "all-reduce / send / recv"], ["wait", "wait"]];

const time = (us) => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : us >= 100 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const percent = (value, span) => `${(100 * value) / span}%`;

function lane(bars, span, name) {
  const box = el("div", { class: `mt-lane mt-lane-${name}` });
  for (const [kind, label, start, end] of bars) {
    box.append(el("div", {
      class: `mt-bar mt-kind-${kind}`,
      style: `left: ${percent(start, span)}; width: max(1px, ${percent(end - start, span)});`,
      title: `${label}: ${time(end - start)} (from ${time(start)} to ${time(end)})`,
    }));
  }
  return box;
}

function axis(span) {
  const box = el("div", { class: "mt-axis" });
  for (let k = 0; k <= 4; k++) {
    box.append(el("span", { class: "mt-tick-label", style: `left: ${k * 25}%;` }, time((span * k) / 4)));
  }
  return box;
}

function drawRun(run, span) {
  const rows = run.ranks.map((row) => {
    const s = row.stats;
    return el("div", { class: "mt-rank" },
      el("div", { class: "mt-rank-label" }, `rank ${row.rank}`),
      el("div", { class: "mt-lanes" }, lane(row.compute, span, "compute"), lane(row.communication, span, "communication"),
        el("div", { class: "mt-caption" }, `compute ${time(s.compute)} · communication ${time(s.communication)}: ` +
          `${time(s.hidden)} hidden behind compute, ${time(s.exposed)} exposed`)));
  });
  return el("div", { class: "mt-run" },
    el("div", { class: "mt-run-title" }, `${run.label || "run"}: ${time(run.span_us)}`),
    ...rows,
    el("div", { class: "mt-rank" }, el("div", { class: "mt-rank-label" }), el("div", { class: "mt-lanes" }, axis(span))));
}

function render({ model, el: host }) {
  const root = el("div", { class: "mt-widget mt-rank-timeline" });
  host.append(root);
  const draw = () => {
    const runs = model.get("runs");
    const span = Math.max(1e-9, ...runs.map((run) => run.span_us));
    const legend = el("div", { class: "mt-legend" }, ...LEGEND.map(([kind, name]) =>
      el("span", { class: "mt-legend-item" }, el("span", { class: `mt-swatch mt-kind-${kind}` }), name)));
    root.replaceChildren(
      el("div", { class: "mt-header" }, el("span", { class: "mt-title" }, model.get("title")), exportButton(model)),
      el("div", { class: "mt-caption" }, "each rank: compute above, communication below, on one clock; a communication bar under a compute bar is hidden"),
      ...runs.map((run) => drawRun(run, span)),
      legend);
  };
  draw();
  model.on("change:runs", draw);
  model.on("change:title", draw);
  const stopExport = listenForExport(model, "rank_timeline.svg");
  return () => { model.off("change:runs", draw); model.off("change:title", draw); stopExport(); };
}

export default { render };
