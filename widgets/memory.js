// The memory viewer's front end (Python side: minitorch/widgets/memory.py).
//
// The state arrives ready to draw: the allocator's segments, grouped by pool, each
// cut into blocks (allocated or free, with the tensors holding each), plus the byte
// counts. Each pool is one horizontal strip; a segment is a box in it and each block a
// rectangle whose width is proportional to its size (with a minimum, so a 512-byte
// block next to a 2 MiB free block stays visible). In record mode a slider steps
// through the frames recorded while a block of code ran.

import { el, svgEl, errorBox, exportButton, listenForExport } from "./common.js";

// 1536 -> "1.5 KiB", as the allocator's memory_summary() writes sizes.
export function bytesText(count) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = count;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? `${value} B` : `${value.toFixed(2)} ${units[unit]}`;
}

// What a block is labelled with: the names of the tensors holding it.
function blockLabel(block) {
  if (!block.allocated) return "free";
  if (block.holders.length) return block.holders.map((h) => h.label).join(", ");
  return block.pending ? "new: named when the cell ends" : "held by no tensor found"; // (unheld_text in memory.py)
}

function blockTitle(block, segment) {
  const head = `${block.allocated ? "allocated" : "free (cached)"} block: ${bytesText(block.size)} at offset ${block.offset}` +
    ` of a ${bytesText(segment.size)} ${segment.pool}-pool segment`;
  const asked = block.allocated ? `\nasked for ${bytesText(block.requested)} (rounded up to ${bytesText(block.size)})` : "";
  const held = block.allocated ? "\nheld by: " + blockLabel(block) : "";
  return head + asked + held;
}

// Allocated and reserved bytes, and the peak, as numbers and one bar.
function usage(state) {
  const scale = Math.max(state.reserved, state.peak, 1);
  const percent = (n) => `${(100 * n) / scale}%`;
  return el("div", { class: "mt-usage" },
    el("div", { class: "mt-usage-numbers" },
      el("span", { class: "mt-allocated-key" }, `allocated ${bytesText(state.allocated)}`),
      el("span", { class: "mt-reserved-key" }, `reserved ${bytesText(state.reserved)}`),
      el("span", { class: "mt-peak-key", title: state.peak_of === "block" ? "the most bytes allocated at once since the recorded block began" : "the most bytes allocated at once since the start (or reset_peak_memory_stats())" },
        state.peak_of === "block" ? `peak in the recording ${bytesText(state.peak)}` : `peak allocated ${bytesText(state.peak)}`)),
    el("div", { class: "mt-usage-bar", title: "the allocated part of what the allocator reserved; the line marks the peak" },
      el("div", { class: "mt-usage-reserved", style: `width:${percent(state.reserved)}` }),
      el("div", { class: "mt-usage-allocated", style: `width:${percent(state.allocated)}` }),
      el("div", { class: "mt-usage-peak", style: `left:${percent(state.peak)}` })));
}

// One pool: its segments side by side, each cut into its blocks.
function poolStrip(pool, segments, selected, select) {
  const boxes = segments.map((segment) => el("div", {
    class: "mt-segment", style: `flex:${segment.size} 1 0px`, "data-segment": segment.index,
  }, ...segment.blocks.map((block) => {
    const key = `${segment.index}:${block.offset}`;
    const kind = !block.allocated ? "mt-free" : block.holders.length ? "mt-allocated" : "mt-allocated mt-unheld";
    return el("div", {
      class: `mt-block ${kind}${key === selected ? " mt-selected" : ""}`, style: `flex:${block.size} 1 0px`,
      "data-block": key, "data-size": block.size, title: blockTitle(block, segment), onclick: () => select(key),
    }, el("span", { class: "mt-block-label" }, block.allocated ? blockLabel(block) : ""));
  })));
  const reserved = segments.reduce((sum, s) => sum + s.size, 0);
  return el("div", { class: "mt-pool", "data-pool": pool },
    el("div", { class: "mt-pool-title" }, `${pool} pool: ${segments.length} segment${segments.length === 1 ? "" : "s"}, ${bytesText(reserved)}`),
    el("div", { class: "mt-strip" }, ...boxes));
}

// Every allocated block as a table row: the labels in full, at any width.
function blockTable(state, selected, select) {
  const rows = [];
  for (const segment of state.segments) {
    for (const block of segment.blocks) {
      if (!block.allocated) continue;
      const key = `${segment.index}:${block.offset}`;
      rows.push(el("tr", { class: "mt-block-row" + (key === selected ? " mt-selected" : ""), "data-block": key, onclick: () => select(key) },
        el("td", {}, segment.pool), el("td", {}, `${segment.index}:${block.offset}`), el("td", {}, bytesText(block.size)),
        el("td", {}, bytesText(block.requested)),
        el("td", {}, ...(block.holders.length
          ? block.holders.flatMap((h, i) => [i ? ", " : "", el("span", { class: h.view ? "mt-view" : "",  // h.color: the tensor's colour in every widget
            style: h.color ? `border-left:4px solid ${h.color};padding-left:4px` : null }, h.label)])
          : [blockLabel(block)]))));
    }
  }
  if (!rows.length) return el("div", { class: "mt-caption" }, "no block is allocated");
  return el("div", { class: "mt-table-box" }, el("table", { class: "mt-blocks-table" },
    el("tr", {}, ...["pool", "segment:offset", "size", "asked for", "held by"].map((h) => el("th", {}, h))), ...rows));
}

// The allocated bytes of every recorded frame as a line, the frame shown marked.
function sparkline(frames, shown, go) {
  const width = 600;
  const height = 60;
  const top = Math.max(...frames.map((f) => f.allocated), 1);
  const x = (i) => (frames.length > 1 ? (i * width) / (frames.length - 1) : 0);
  const y = (f) => height - 4 - ((height - 8) * f.allocated) / top;
  const points = frames.map((f, i) => `${x(i).toFixed(1)},${y(f).toFixed(1)}`).join(" ");
  const svg = svgEl("svg", { class: "mt-sparkline", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none" },
    ...frames.map((f, i) => (f.phase === "backward" ? svgEl("rect", { x: x(i) - width / frames.length / 2, y: 0, width: width / frames.length, height, class: "mt-backward-band" }) : null)),
    svgEl("polyline", { points, class: "mt-spark-line" }),
    svgEl("line", { x1: x(shown), x2: x(shown), y1: 0, y2: height, class: "mt-spark-now" }));
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    go(Math.round(((event.clientX - box.left) / box.width) * (frames.length - 1)));
  });
  return el("div", { class: "mt-spark-box" }, svg,
    el("div", { class: "mt-caption" }, "allocated bytes at each frame (backward shaded); click to jump"));
}

function render({ model, el: host }) {
  const root = el("div", { class: "mt-widget mt-memory" });
  const error = errorBox("");
  const title = el("span", { class: "mt-title" }, "memory");
  const refresh = el("button", { class: "mt-button mt-refresh", title: "look at the allocator and the live tensors again", onclick: () => model.send({ type: "refresh" }) }, "refresh");
  const body = el("div", { class: "mt-body" });
  root.append(el("div", { class: "mt-header" }, title, refresh, exportButton(model)), error, body);
  host.append(root);

  let selected = "";
  let playing = null;
  const select = (key) => { selected = selected === key ? "" : key; draw(); };
  const go = (i) => { model.set("frame", i); model.save_changes(); };

  function recordControls(frames, shown) {
    const last = frames.length - 1;
    const slider = el("input", { type: "range", class: "mt-frame-slider", min: 0, max: last, value: Math.max(shown, 0), "aria-label": "recorded frame" });
    slider.addEventListener("input", () => go(Number(slider.value)));
    const play = el("button", { class: "mt-button mt-play" }, playing ? "pause" : "play");
    play.addEventListener("click", () => {
      if (playing) { clearInterval(playing); playing = null; draw(); return; }
      if (model.get("frame") < 0 || model.get("frame") >= last) go(0);
      playing = setInterval(() => {
        const next = model.get("frame") + 1;
        if (next > last) { clearInterval(playing); playing = null; draw(); return; }
        go(next);
      }, 350); // about three frames a second: slow enough to follow each block
    });
    const frame = frames[shown];
    const caption = shown >= 0
      ? `frame ${shown + 1} of ${frames.length}: ${frame.event}`
      : `${frames.length} frames recorded; showing the allocator now`;
    return el("div", { class: "mt-record" },
      el("div", { class: "mt-record-row" },
        el("button", { class: "mt-button mt-prev", disabled: shown <= 0, onclick: () => go(shown - 1) }, "◀"),
        slider,
        el("button", { class: "mt-button mt-next", disabled: shown >= last, onclick: () => go(shown + 1) }, "▶"),
        play,
        el("button", { class: "mt-button mt-live", disabled: shown < 0, onclick: () => go(-1) }, "now")),
      el("div", { class: "mt-frame-caption" }, caption),
      sparkline(frames, Math.max(shown, 0), go));
  }

  function draw() {
    const frames = model.get("frames");
    const shown = model.get("frame");
    const state = shown >= 0 && frames[shown] ? frames[shown] : model.get("state");
    title.textContent = `memory on ${state.device || "cpu"}` + (shown >= 0 ? " (recorded)" : "");
    const pools = [...new Set(state.segments.map((s) => s.pool))];
    const parts = [usage(state)];
    if (frames.length) parts.push(recordControls(frames, shown));
    if (!pools.length) parts.push(el("div", { class: "mt-caption" }, "the allocator has reserved nothing yet"));
    for (const pool of pools) parts.push(poolStrip(pool, state.segments.filter((s) => s.pool === pool), selected, select));
    parts.push(el("div", { class: "mt-legend" },
      el("span", { class: "mt-swatch mt-allocated" }), "allocated: labelled with the tensors holding it (a view says so)",
      el("span", { class: "mt-swatch mt-unheld" }), "allocated, held by no tensor found",
      el("span", { class: "mt-swatch mt-free" }), "free, kept cached for reuse"));
    parts.push(blockTable(state, selected, select));
    body.replaceChildren(...parts);
    root.dataset.allocated = state.allocated;
    root.dataset.blocks = state.segments.reduce((n, s) => n + s.blocks.filter((b) => b.allocated).length, 0);
  }

  const showError = () => { error.hidden = !model.get("error"); error.textContent = model.get("error"); };
  draw();
  showError();
  const handlers = [["change:state", draw], ["change:frames", draw], ["change:frame", draw], ["change:error", showError]];
  for (const [name, handler] of handlers) model.on(name, handler);
  const stopExport = listenForExport(model, "memory.svg");
  return () => {
    if (playing) clearInterval(playing);
    for (const [name, handler] of handlers) model.off(name, handler);
    stopExport();
  };
}

export default { render };
