// Small helpers shared by the minitorch widgets: building DOM and SVG elements,
// formatting numbers like the Python side, downloading a picture, pan and zoom.
// Plain ES module: minitorch/widgets/frontend.py inlines it into each widget.

const SVG_NS = "http://www.w3.org/2000/svg";

// el("div", {class: "row", onclick: f}, child, "text", ...) -> an HTML element.
export function el(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

// The same for SVG elements (they need their namespace).
export function svgEl(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A short number, like format_number in minitorch/widgets/tensor_info.py.
export function fmt(value) {
  if (typeof value === "string") return value; // "nan", "inf", "-inf"
  if (typeof value === "boolean") return value ? "True" : "False";
  if (Number.isInteger(value)) return String(value);
  const text = Number(value).toPrecision(4);
  return text.includes("e") ? text : String(Number(text));
}

// (2, 3) for a shape or strides; (5,) for one number, () for none.
export function tupleText(values) {
  return "(" + values.join(", ") + (values.length === 1 ? ",)" : ")");
}

// Nested lists of numbers as text: [[1, 2], [3, 4]].
export function nestedText(values) {
  if (Array.isArray(values)) return "[" + values.map(nestedText).join(", ") + "]";
  return fmt(values);
}

// The multi-index of the ordinal-th element in row-major order (the last dimension
// changes fastest), like ordinal_to_index in minitorch/layout.py.
export function indexOf(ordinal, shape) {
  const index = new Array(shape.length).fill(0);
  let remaining = ordinal;
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = remaining % shape[d];
    remaining = Math.floor(remaining / shape[d]);
  }
  return index;
}

// One line about a tensor described by tensor_info.describe().
export function tensorText(info) {
  if (!info) return "none";
  const head = `${info.dtype} ${tupleText(info.shape)}`;
  return "values" in info ? `${head} = ${nestedText(info.values)}` : `${head}  (${info.summary})`;
}

// The red box that shows a rejected input (the widget never throws at the user).
export function errorBox(message) {
  return el("div", { class: "mt-error", role: "alert", hidden: !message }, message || "");
}

// Save text as a file through the browser's download.
export function download(filename, text, type = "image/svg+xml") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Ask the kernel for the widget's static SVG (to_svg() in Python) and download it.
export function exportButton(model) {
  return el("button", {
    class: "mt-button mt-export",
    title: "download a static SVG picture (drawn by to_svg() in Python)",
    onclick: () => model.send({ type: "export" }),
  }, "SVG");
}

export function listenForExport(model, filename) {
  const onMessage = (message) => {
    if (message && message.type === "svg") download(filename, message.svg);
  };
  model.on("msg:custom", onMessage);
  return () => model.off("msg:custom", onMessage);
}

// Call onWidth(width) whenever element's width changes, and when it is first shown (a
// widget drawn into a hidden output has width 0 until then). A ResizeObserver reports
// after layout; the call waits for the next frame, so a change it makes to the page
// (a canvas's height) is not measured again in the same frame. Returns a stop function.
export function watchWidth(element, onWidth) {
  let last = 0;
  let frame = 0;
  const observer = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const width = Math.round(element.getBoundingClientRect().width);
      if (width > 0 && width !== last) { last = width; onWidth(width); }
    });
  });
  observer.observe(element);
  return () => { cancelAnimationFrame(frame); observer.disconnect(); };
}

// Pan (drag the background) and zoom (wheel, around the pointer) of an SVG group.
// Returns {fit(box), get()}; onChange(transform) runs after each change.
export function panZoom(svg, group, onChange = () => {}) {
  const view = { x: 0, y: 0, k: 1 };
  const apply = () => {
    group.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`);
    onChange({ ...view });
  };
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const box = svg.getBoundingClientRect();
    const px = event.clientX - box.left;
    const py = event.clientY - box.top;
    const factor = Math.exp(-event.deltaY * 0.0015);
    const k = Math.min(4, Math.max(0.05, view.k * factor));
    view.x = px - ((px - view.x) * k) / view.k;
    view.y = py - ((py - view.y) * k) / view.k;
    view.k = k;
    apply();
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    if (event.target.closest("[data-node], [data-band-toggle]")) return; // clicks on nodes are not drags
    drag = { x: event.clientX - view.x, y: event.clientY - view.y };
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    view.x = event.clientX - drag.x;
    view.y = event.clientY - drag.y;
    apply();
  });
  svg.addEventListener("pointerup", () => { drag = null; });
  return {
    fit(width, height) {
      const box = svg.getBoundingClientRect();
      const k = Math.min(1, (box.width - 20) / Math.max(width, 1), (box.height - 20) / Math.max(height, 1));
      view.k = Math.max(k, 0.05);
      view.x = (box.width - width * view.k) / 2;
      view.y = 10;
      apply();
    },
    set(transform) { Object.assign(view, transform); apply(); },
    get: () => ({ ...view }),
  };
}
