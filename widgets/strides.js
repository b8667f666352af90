// The stride visualizer's front end (Python side: minitorch/widgets/strides.py).
//
// It draws what Python computed and links the pieces; it does no stride arithmetic of
// its own. Each view arrives with `positions`: the storage position of every element in
// row-major order (computed by minitorch.layout.index_to_position). So:
//   element k of view v  lives at  storage cell positions[k]
//   storage cell p       is read by every (v, k) with positions[k] == p   (aliasing)
// Actions (derive a view, edit a layout, write a value, click an element) are sent to
// Python, which runs the real minitorch op and sends back the new state.

import { el, fmt, tupleText, indexOf, errorBox, exportButton, listenForExport } from "./common.js";

// Draw `state` (ViewChain.state() in Python) into `root`. `options`:
//   interactive: show the controls (false for the read-only copy inside other widgets)
//   broadcast:   broadcast_columns(...) for broadcast mode, or {}
//   active, selected: the active view and the clicked element
//   send(message): where actions go (the widget's model.send)
export function drawStrides(root, state, options = {}) {
  const { interactive = false, broadcast = {}, active = 0, selected = {}, send = () => {}, ops = [] } = options;
  const views = state.views || [];
  const storages = state.storages || [];
  const readout = el("div", { class: "mt-readout" }, "hover an element or a storage cell");
  const cells = storages.map(() => []); // cells[s][p]: the storage cell element
  const elements = views.map(() => []); // elements[v][k]: the logical element
  const readers = storages.map(() => new Map()); // readers[s].get(p): [[v, k], ...]
  views.forEach((view, v) => view.positions.forEach((p, k) => {
    const list = readers[view.storage].get(p) || [];
    list.push([v, k]);
    readers[view.storage].set(p, list);
  }));
  // How many times one view reads a cell: more than once where it repeats cells (stride 0).
  const readsBy = (v, p) => (readers[views[v].storage].get(p) || []).filter(([w]) => w === v).length;
  const mostReads = (s, p) => Math.max(0, ...views.map((view, v) => (view.storage === s ? readsBy(v, p) : 0)));

  const clearMarks = (name) => root.querySelectorAll("." + name).forEach((n) => n.classList.remove(name));
  const mark = (name, v, k) => {
    const view = views[v];
    elements[v][k]?.classList.add(name);
    cells[view.storage][view.positions[k]]?.classList.add(name);
  };

  // Hover an element: its storage cell lights up, with the arithmetic written out.
  const showElement = (v, k) => {
    clearMarks("mt-hl");
    clearMarks("mt-alias");
    const view = views[v];
    const p = view.positions[k];
    const index = indexOf(k, view.shape);
    mark("mt-hl", v, k);
    for (const [w, j] of readers[view.storage].get(p)) if (w !== v || j !== k) elements[w][j].classList.add("mt-alias");
    const terms = index.map((i, d) => `${i}×${view.strides[d]}`);
    const again = readsBy(v, p);
    readout.textContent = `${view.name}[${index.join(", ")}]  →  position = ${[view.offset, ...terms].join(" + ")} = ${p}` +
      `   (storage ${view.storage}, value ${fmt(storages[view.storage].values[p])})` +
      (again > 1 ? `   · ${view.name} reads cell ${p} ${again} times (stride 0)` : "");
  };
  // Hover a storage cell: every element that reads it lights up.
  const showCell = (s, p) => {
    clearMarks("mt-hl");
    clearMarks("mt-alias");
    cells[s][p].classList.add("mt-hl");
    const list = readers[s].get(p) || [];
    for (const [v, k] of list) elements[v][k].classList.add("mt-hl");
    const names = list.map(([v, k]) => `${views[v].name}[${indexOf(k, views[v].shape).join(", ")}]`);
    readout.textContent = list.length
      ? `storage ${s} cell ${p} is read by ${list.length} element${list.length > 1 ? "s" : ""}: ${names.join(", ")}`
      : `storage ${s} cell ${p} is not read by any view (unused memory)`;
  };

  const tensorColor = (storage) => (storage && storage.color ? `border-color:${storage.color};color:${storage.color}` : null);
  const storageStrips = storages.map((storage, s) => {
    const row = el("div", { class: "mt-strip" });
    storage.values.forEach((value, p) => {
      const used = readers[s].has(p);
      const reads = mostReads(s, p);
      const cell = el("div", {
        class: "mt-cell" + (used ? "" : " mt-unused") + (reads > 1 ? " mt-reread" : ""), "data-storage": s, "data-position": p,
        title: reads > 1 ? `read ${reads} times by one view: its stride-0 dimension comes back to this cell` : null,
        onmouseenter: () => showCell(s, p),
      }, reads > 1 ? el("span", { class: "mt-reads" }, `×${reads}`) : null,
      el("span", { class: "mt-value" }, fmt(value)), el("span", { class: "mt-pos" }, p));
      cells[s].push(cell);
      row.append(cell);
    });
    // the storage's colour is the tensor's colour in every widget of the page (colors.py)
    return el("div", { class: "mt-storage", style: storage.color ? `border-left:4px solid ${storage.color};padding-left:6px` : null },
      el("div", { class: "mt-caption" }, `storage ${s} · ${storage.dtype} · ${storage.values.length} cells · first used by ${storage.owner}`), row);
  });

  const cards = views.map((view, v) => viewCard(view, v));

  function viewCard(view, v) {
    const badges = [
      el("span", { class: "mt-badge " + (view.contiguous ? "mt-good" : "mt-warn") }, view.contiguous ? "contiguous" : "not contiguous"),
      el("span", { class: "mt-badge " + (view.viewable ? "mt-good" : "mt-warn"), title: "can .view(-1) reuse this storage?" },
        view.viewable ? ".view(-1) ok" : ".view(-1) needs a copy"),
      view.copied ? el("span", { class: "mt-badge mt-copy", title: "this op wrote a new storage" }, "copy → new storage") : null,
      el("span", { class: "mt-badge", style: tensorColor(storages[view.storage]) }, `storage ${view.storage}`),
      repeatBadge(view),
    ];
    const field = (key, value) => el("input", {
      class: "mt-field", "data-field": key, "data-focus-key": `${v}:${key}`, value, size: Math.max(4, value.length + 1),
      disabled: !interactive, spellcheck: "false",
      oninput: interactive ? () => scheduleEdit(v) : null,
    });
    const layoutRow = el("div", { class: "mt-layout" },
      "shape ", field("shape", view.shape.join(", ")),
      " strides ", field("strides", view.strides.join(", ")),
      " offset ", field("offset", String(view.offset)),
      el("span", { class: "mt-muted" }, `  reads cells ${view.span[0]}…${view.span[1]}`));
    const header = el("div", { class: "mt-view-head", onclick: interactive ? () => send({ type: "activate", view: v }) : null },
      el("span", { class: "mt-view-name" }, view.label), ...badges,
      interactive && (view.parent !== null || view.op) ? el("button", {
        class: "mt-button mt-remove", title: "remove this view", onclick: (e) => { e.stopPropagation(); send({ type: "remove", view: v }); },
      }, "×") : null);
    return el("div", { class: "mt-view" + (v === active && interactive ? " mt-active" : ""), "data-view": v },
      header, layoutRow, grid(view, v));
  }

  // Stride 0 (expand, broadcasting): stepping along that dimension stays on one cell.
  function repeatBadge(view) {
    const dims = view.repeated_dims || [];
    if (dims.length) {
      return el("span", { class: "mt-badge mt-repeat-badge", title: `dim ${dims.join(", ")} has stride 0: its elements read the same storage cell again and again (no copy was made)` },
        `stride 0: repeats · dim ${dims.join(", ")} · each cell read ${view.most_reads}×`);
    }
    if (view.most_reads > 1) return el("span", { class: "mt-badge mt-repeat-badge" }, `overlapping: a cell read ${view.most_reads}×`);
    return null;
  }

  // The logical tensor: the last two dims as a grid, leading dims as small multiples.
  function grid(view, v) {
    const shape = view.shape;
    const cols = shape.length ? shape[shape.length - 1] : 1;
    const rows = shape.length >= 2 ? shape[shape.length - 2] : 1;
    const perBlock = Math.max(rows * cols, 1);
    const blocks = el("div", { class: "mt-blocks" });
    if (view.positions.length === 0) blocks.append(el("div", { class: "mt-muted" }, "no elements"));
    let block = null;
    view.positions.forEach((p, k) => {
      if (k % perBlock === 0) {
        const lead = indexOf(k, shape).slice(0, Math.max(shape.length - 2, 0));
        const title = shape.length > 2 ? `[${[...lead, ":", ":"].join(", ")}]` : "";
        block = el("div", { class: "mt-grid", style: `grid-template-columns: repeat(${cols}, auto)` });
        blocks.append(el("div", { class: "mt-block" }, title ? el("div", { class: "mt-caption" }, title) : null, block));
      }
      const index = indexOf(k, shape);
      const isSelected = selected.view === v && selected.index && selected.index.join() === index.join();
      const repeated = view.most_reads > 1 && readsBy(v, p) > 1;
      const cell = el("div", {
        class: "mt-el" + (isSelected ? " mt-selected" : "") + (repeated ? " mt-repeat" : ""), "data-view": v, "data-ordinal": k,
        title: `${view.name}[${index.join(", ")}]` + (repeated ? `: reads cell ${p}, as ${readsBy(v, p) - 1} other elements of ${view.name} do` : ""),
        onmouseenter: () => showElement(v, k),
        onclick: () => send({ type: "select", view: v, index }),
      }, el("span", { class: "mt-value" }, fmt(storages[view.storage].values[p])), el("span", { class: "mt-pos" }, "@" + p));
      elements[v].push(cell);
      block.append(cell);
    });
    return blocks;
  }

  // Edits of shape/strides/offset go to Python a moment after typing stops; Python
  // validates them with layout.check_as_strided and answers with a state or an error.
  let editTimer = null;
  function scheduleEdit(v) {
    clearTimeout(editTimer);
    editTimer = setTimeout(() => {
      const card = root.querySelector(`.mt-view[data-view="${v}"]`);
      const value = (key) => card.querySelector(`[data-field="${key}"]`).value;
      send({ type: "edit", view: v, shape: value("shape"), strides: value("strides"), offset: value("offset") });
    }, 250);
  }

  const parts = [];
  if (broadcast && broadcast.columns) parts.push(broadcastTable(broadcast));
  parts.push(el("div", { class: "mt-section" }, ...storageStrips), readout);
  if (interactive) parts.push(writeBox(), controls(), traversal());
  parts.push(el("div", { class: "mt-section mt-views" }, ...cards));
  root.replaceChildren(...parts);
  root.onmouseleave = () => { clearMarks("mt-hl"); clearMarks("mt-alias"); };

  // Write a value through the selected element: Python does view[index] = value.
  function writeBox() {
    if (selected.view === undefined || !views[selected.view]) return el("div", { class: "mt-write mt-muted" }, "click an element to select it, then write a value through it");
    const view = views[selected.view];
    const input = el("input", { class: "mt-field mt-write-value", size: 6, "data-focus-key": "write", value: "" });
    const write = () => send({ type: "write", view: selected.view, index: selected.index, value: input.value });
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") write(); });
    return el("div", { class: "mt-write" },
      `selected ${view.name}[${selected.index.join(", ")}] at position ${selected.position} · write `, input,
      el("button", { class: "mt-button mt-write-button", onclick: write }, "write"),
      el("span", { class: "mt-muted" }, "  (every view over the same storage changes)"));
  }

  function controls() {
    const choices = ops.map(([name, hint]) => el("option", { value: name, "data-hint": hint }, name));
    const select = el("select", { class: "mt-op" }, ...choices);
    const args = el("input", { class: "mt-field mt-args", size: 18, "data-focus-key": "args", placeholder: ops.length ? ops[0][1] : "" });
    select.addEventListener("change", () => { args.placeholder = select.selectedOptions[0].dataset.hint; });
    const apply = () => send({ type: "apply", view: active, op: select.value, args: args.value });
    args.addEventListener("keydown", (event) => { if (event.key === "Enter") apply(); });
    const from = views[active] ? views[active].operand : "?";
    return el("div", { class: "mt-controls" }, el("span", { class: "mt-muted" }, "derive a view: "),
      el("span", { class: "mt-derive-code" }, `${state.next_name} = ${from}.`), select, "(", args, ")",
      el("button", { class: "mt-button mt-apply", onclick: apply }, "apply"),
      el("span", { class: "mt-muted" }, `  from ${views[active] ? views[active].name : "?"}; click another view's title to derive from it`));
  }

  // The traversal animation: the order a kernel walks the elements (row-major over the
  // output), and where in storage each step lands. Views with the same shape as the
  // active one move in step, like a kernel's output and its (expanded) inputs.
  function traversal() {
    const trail = el("div", { class: "mt-trail mt-muted" }, "traverse: watch the kernel's walk over the active view's storage");
    let timer = null;
    const stop = () => { clearInterval(timer); timer = null; button.textContent = "▶ traverse"; };
    const button = el("button", { class: "mt-button mt-traverse", onclick: () => (timer ? stop() : start()) }, "▶ traverse");
    function start() {
      const lead = views[active];
      if (!lead) return;
      const team = views.map((view, v) => [view, v]).filter(([view]) => view.shape.join() === lead.shape.join());
      const seen = [];
      let k = 0;
      button.textContent = "■ stop";
      clearMarks("mt-visited");
      timer = setInterval(() => {
        clearMarks("mt-walk");
        if (k >= lead.positions.length) { stop(); trail.textContent = verdict(lead, seen); return; }
        for (const [, v] of team) mark("mt-walk", v, k);
        cells[lead.storage][lead.positions[k]]?.classList.add("mt-visited");
        seen.push(lead.positions[k]);
        trail.textContent = `step ${k + 1}/${lead.positions.length}: ${team.map(([view]) => `${view.name}@${view.positions[k]}`).join("  ")}`;
        k += 1;
      }, 320);
    }
    return el("div", { class: "mt-traverse-row" }, button, trail);
  }

  function verdict(view, seen) {
    const steps = seen.slice(1).map((p, i) => p - seen[i]);
    const jumps = [...new Set(steps)];
    if (steps.every((s) => s === 1)) return `${view.name}: contiguous walk, every step +1 (the fast path: one pass over memory)`;
    return `${view.name}: strided walk, steps ${jumps.map((s) => (s >= 0 ? "+" + s : s)).join(", ")} (the strided path: index arithmetic per element)`;
  }

  return { showElement, showCell };
}

// Broadcast mode: shapes aligned from the right, one column per dimension.
function broadcastTable(info) {
  const cols = info.columns;
  const [a, b] = info.names || ["a", "b"];
  const cell = (text, cls = "") => el("td", { class: cls }, text);
  const size = (value, stretched) => {
    const text = value === null ? "· (counts as 1)" : String(value);
    return cell(stretched ? `${text} → stride 0` : text, (value === null ? "mt-missing " : "") + (stretched ? "mt-stretched" : ""));
  };
  const table = el("table", { class: "mt-bcast" },
    el("tr", {}, el("th", {}, ""), ...cols.map((c) => el("th", {}, `dim ${c.from_right}`))),
    el("tr", {}, el("th", {}, `${a} ${tupleText(info.a)}`), ...cols.map((c) => size(c.a, c.a_stretched))),
    el("tr", {}, el("th", {}, `${b} ${tupleText(info.b)}`), ...cols.map((c) => size(c.b, c.b_stretched))),
    el("tr", {}, el("th", {}, "result"), ...cols.map((c) => (c.ok ? cell(String(c.result), "mt-result") : cell("✗", "mt-bad")))));
  const verdict = info.result
    ? el("div", { class: "mt-bcast-result" }, `${a} ${tupleText(info.a)} and ${b} ${tupleText(info.b)} broadcast to ${tupleText(info.result)}`)
    : el("div", { class: "mt-bcast-result mt-bad" }, "they do not broadcast: " + info.error);
  return el("div", { class: "mt-section mt-broadcast" }, el("div", { class: "mt-caption" }, "broadcasting: align shapes from the right; sizes must match or be 1 (a missing dim counts as 1)"), table, verdict);
}

// Put the keyboard focus (and the text being typed) back after a redraw.
function keepFocus(root, redraw) {
  const focused = root.contains(document.activeElement) ? document.activeElement : null;
  const key = focused && focused.dataset.focusKey;
  const typed = focused && focused.value;
  const caret = focused && focused.selectionStart;
  redraw();
  if (!key) return;
  const again = root.querySelector(`[data-focus-key="${key}"]`);
  if (!again) return;
  again.value = typed;
  again.focus();
  if (caret !== null && again.setSelectionRange) again.setSelectionRange(caret, caret);
}

function render({ model, el: host }) {
  const root = el("div", { class: "mt-widget mt-strides" });
  const title = el("span", { class: "mt-title" });
  const header = el("div", { class: "mt-header" }, title, exportButton(model));
  const error = errorBox("");
  const note = el("div", { class: "mt-note", hidden: true });
  const body = el("div", { class: "mt-body" });
  root.append(header, error, note, body);
  host.append(root);

  const send = (message) => {
    if (message.type === "activate") { model.set("active", message.view); model.save_changes(); return; }
    model.send(message);
  };
  const draw = () => keepFocus(body, () => {
    const state = model.get("state");
    const names = (model.get("broadcast") || {}).names;
    title.textContent = names ? `broadcasting ${names[0]} + ${names[1]}` : "stride visualizer";
    drawStrides(body, state, {
      interactive: true, broadcast: model.get("broadcast"), active: model.get("active"),
      selected: model.get("selected"), ops: model.get("ops"), send,
    });
    note.hidden = !state.note;
    note.textContent = state.note || "";
  });
  const showError = () => {
    const message = model.get("error");
    error.hidden = !message;
    error.textContent = message;
    body.querySelectorAll(".mt-field").forEach((f) => f.classList.toggle("mt-invalid", Boolean(message) && f === document.activeElement));
  };
  draw();
  showError();
  const events = ["change:state", "change:active", "change:selected", "change:broadcast"];
  for (const name of events) model.on(name, draw);
  model.on("change:error", showError);
  const stopExport = listenForExport(model, "strides.svg");
  return () => { for (const name of events) model.off(name, draw); model.off("change:error", showError); stopExport(); };
}

export default { render };
