// The Playground explorer: the page side of minitorch.widgets.Playground.
//
// This file only *draws* and *asks*. The network is trained in the Python kernel
// (minitorch/widgets/playground/); Python sends what to draw in traits:
//   config  - every setting (two-way: the controls here write it back)
//   status  - epoch, losses, accuracy, the loss curve, speed, a message
//   net     - weights, biases, gradients, dead ReLUs, and the order of the heatmaps
//   frame   - all 100x100 heatmaps as bytes (0 = -1 = orange, 255 = +1 = blue)
//   points  - the data points [x1, x2, label, isTrain]
//   code    - the exported script
//   choices - the menus' options and the input features; feature_planes - their heatmaps
// Buttons send messages {action: ...} that Python answers by updating those traits.
//
// Plain ES module, no build step and no libraries: read it top to bottom.
// The DOM helpers el and svgEl come from common.js, shared by every widget.
// Sections: colours - small DOM helpers - the layout - drawing - wiring to the model.

import { el, svgEl } from "./common.js";

const GRID = 100; // heatmaps are GRID x GRID
const DOMAIN = 6; // points live in [-6, 6]^2
const NODE = 30; // neuron box size in pixels
const ROW = 42; // vertical distance between neurons
const DATASET_NAMES = {
  circle: "circle", xor: "exclusive or", gauss: "gaussian", spiral: "spiral",
  blobs: "3 blobs (3 classes)", spiral3: "3-arm spiral (3 classes)",
  reg_plane: "plane (regression)", reg_gauss: "multi gaussian (regression)",
};
const SPEEDS = [1, 2, 5, 10, 20, 50];

// ----- colours ------------------------------------------------------------------------
// A value v in [-1, 1] is drawn orange (-1) .. light grey (0) .. blue (+1), in 30 shades
// like TensorFlow Playground. Classes beyond two use the palette.

const ORANGE = [245, 147, 34];
const MIDDLE = [232, 234, 235];
const BLUE = [8, 119, 189];
const PALETTE = [ORANGE, BLUE, [57, 168, 69], [142, 68, 173], [214, 39, 40], [140, 86, 75],
  [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207]];
const SHADES = 30;

function mix(a, b, t) {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t));
}

function valueColour(v) {
  // v in [-1, 1] -> [r, g, b], quantized to SHADES steps
  const clamped = Math.max(-1, Math.min(1, v));
  const step = Math.round(((clamped + 1) / 2) * (SHADES - 1)) / (SHADES - 1) * 2 - 1;
  return step < 0 ? mix(MIDDLE, ORANGE, -step) : mix(MIDDLE, BLUE, step);
}

// byte (0..255) -> colour, computed once
const BYTE_COLOURS = Array.from({ length: 256 }, (_, b) => valueColour(b / 127.5 - 1));

// The same tables as whole pixels: a canvas pixel is four bytes r, g, b, alpha, which
// one 32-bit number holds, so painting a heatmap is one table look-up per pixel.
function packedPixels(colours) {
  const bytes = new Uint8ClampedArray(colours.length * 4);
  colours.forEach(([r, g, b], i) => bytes.set([r, g, b, 255], i * 4));
  return new Uint32Array(bytes.buffer); // read back in the machine's own byte order
}
const BYTE_PIXELS = packedPixels(BYTE_COLOURS);
const CRISP_PIXELS = packedPixels(BYTE_COLOURS.map((_, b) => BYTE_COLOURS[b < 128 ? 0 : 255]));
const css = (rgb) => `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;

function labelColour(label, numClasses) {
  if (numClasses === 0) return valueColour(label); // regression: the value's colour
  if (numClasses === 2) return label > 0 ? BLUE : ORANGE;
  return PALETTE[label % PALETTE.length];
}

// ----- small DOM helpers (el and svgEl come from common.js) ------------------------------

function field(label, control, name) {
  return el("div", { class: "mt-pg-field", "data-control": name }, [el("label", {}, label), control]);
}

function select(options, onchange, format = String) {
  const node = el("select", { onchange: () => onchange(node.value) });
  for (const option of options) node.append(el("option", { value: String(option) }, format(option)));
  return node;
}

function setIfIdle(control, value) {
  // Update a control from Python unless the user is typing in it.
  if (document.activeElement !== control && control.value !== String(value)) control.value = String(value);
}

// Fixed decimals, as TensorFlow Playground shows losses and weights (common.js's fmt
// keeps four significant digits instead); a dash when there is no value yet.
function formatNumber(value, digits = 3) {
  return value === null || value === undefined ? "\u2014" : Number(value).toFixed(digits);
}

// ----- drawing heatmaps ---------------------------------------------------------------

function paintPlane(canvas, bytes, offset, { discretize = false, classes = null } = {}) {
  // Paint one GRID x GRID heatmap: for each pixel i, pixels[i] = table[plane[i]].
  // With `classes` (a second plane of class numbers), `bytes` is the winning
  // probability and the colour is that class's.
  const context = canvas.getContext("2d");
  const image = context.createImageData(GRID, GRID);
  const plane = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, GRID * GRID);
  if (classes) {
    const winners = new Uint8Array(classes.bytes.buffer, classes.bytes.byteOffset + classes.offset, GRID * GRID);
    const pixels = image.data; // r, g, b, a for each pixel
    for (let i = 0; i < GRID * GRID; i++) {
      const colour = PALETTE[winners[i] % PALETTE.length];
      const rgb = discretize ? colour : mix([255, 255, 255], colour, 0.15 + 0.85 * (plane[i] / 255));
      pixels[i * 4] = rgb[0];
      pixels[i * 4 + 1] = rgb[1];
      pixels[i * 4 + 2] = rgb[2];
      pixels[i * 4 + 3] = 255;
    }
  } else {
    const pixels = new Uint32Array(image.data.buffer);
    const table = discretize ? CRISP_PIXELS : BYTE_PIXELS;
    for (let i = 0; i < GRID * GRID; i++) pixels[i] = table[plane[i]];
  }
  context.putImageData(image, 0, 0);
}

function drawPoints(canvas, points, showTest) {
  const context = canvas.getContext("2d");
  const size = canvas.width;
  context.clearRect(0, 0, size, size);
  if (!points || !points.rows) return;
  for (const [x1, x2, label, isTrain] of points.rows) {
    if (!isTrain && !showTest) continue;
    const x = ((x1 + DOMAIN) / (2 * DOMAIN)) * size;
    const y = ((DOMAIN - x2) / (2 * DOMAIN)) * size;
    context.beginPath();
    context.arc(x, y, 3.2, 0, 2 * Math.PI);
    context.fillStyle = css(labelColour(label, points.num_classes));
    context.fill();
    context.lineWidth = 1;
    context.strokeStyle = isTrain ? "#fff" : "#000";
    context.stroke();
  }
}

function drawThumbnail(canvas, rows, numClasses) {
  const context = canvas.getContext("2d");
  context.fillStyle = "#fafafa";
  context.fillRect(0, 0, canvas.width, canvas.height);
  for (const [x1, x2, label] of rows) {
    context.fillStyle = css(labelColour(label, numClasses));
    const x = ((x1 + DOMAIN) / (2 * DOMAIN)) * canvas.width;
    const y = ((DOMAIN - x2) / (2 * DOMAIN)) * canvas.height;
    context.fillRect(x - 1, y - 1, 2.5, 2.5);
  }
}

// ----- the loss chart -------------------------------------------------------------------
// An SVG line chart of the loss against the epoch, test loss dark and training loss grey
// like Playground's, with both axes, tick numbers and their names, so a student can read
// "the loss fell from 0.5 to 0.1 by epoch 300" off it.

const CHART = { width: 300, height: 120, left: 46, right: 8, top: 8, bottom: 30 };

function niceTicks(low, high, count = 4, smallestStep = 0) {
  // Round tick values from at or below `low` to at or above `high`, so the axis covers
  // every value: steps of 1, 2 or 5 times a power of ten, about `count` of them.
  //   rough = (high - low) / count;  step = the first of 1, 2, 5 (x 10^k) >= rough
  const rough = Math.max((high - low) / count, smallestStep, 1e-12);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough - 1e-12);
  const first = Math.floor(low / step + 1e-9);
  const last = Math.ceil(high / step - 1e-9);
  const ticks = [];
  for (let i = first; i <= last; i++) ticks.push(i * step);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return { ticks, label: (t) => t.toFixed(decimals) };
}

function drawLossChart(svg, curve) {
  const { width, height, left, right, top, bottom } = CHART;
  const rows = curve || [];
  const losses = rows.flatMap((row) => [row[1], row[2]]).filter((v) => v !== null);
  const lastEpoch = rows.length ? rows[rows.length - 1][0] : 0;
  const x = niceTicks(0, Math.max(lastEpoch, 1), 4, 1); // epochs from 0, in whole steps
  const y = niceTicks(0, Math.max(...losses, 1e-3)); // losses from 0
  const xHigh = x.ticks[x.ticks.length - 1];
  const yHigh = y.ticks[y.ticks.length - 1];
  const px = (epoch) => left + (epoch / xHigh) * (width - left - right);
  const py = (value) => height - bottom - (value / yHigh) * (height - top - bottom);
  const parts = [];
  for (const t of y.ticks) { // horizontal grid line, tick and number for each loss tick
    parts.push(svgEl("line", { class: "mt-pg-grid", x1: left, x2: width - right, y1: py(t), y2: py(t) }));
    parts.push(svgEl("text", { class: "mt-pg-tick mt-pg-tick-y", x: left - 4, y: py(t), "text-anchor": "end",
      "dominant-baseline": "middle" }, y.label(t)));
  }
  for (const t of x.ticks) {
    parts.push(svgEl("line", { class: "mt-pg-axis", x1: px(t), x2: px(t), y1: height - bottom, y2: height - bottom + 4 }));
    parts.push(svgEl("text", { class: "mt-pg-tick mt-pg-tick-x", x: px(t), y: height - bottom + 6,
      "text-anchor": "middle", "dominant-baseline": "hanging" }, x.label(t)));
  }
  parts.push(svgEl("line", { class: "mt-pg-axis mt-pg-axis-x", x1: left, x2: width - right,
    y1: height - bottom, y2: height - bottom }));
  parts.push(svgEl("line", { class: "mt-pg-axis mt-pg-axis-y", x1: left, x2: left, y1: top, y2: height - bottom }));
  parts.push(svgEl("text", { class: "mt-pg-axis-name", x: width - right, y: height - 2, "text-anchor": "end" }, "epoch"));
  const middle = (top + height - bottom) / 2; // the y axis's name, written upwards
  parts.push(svgEl("text", { class: "mt-pg-axis-name", x: 10, y: middle, "text-anchor": "middle",
    transform: `rotate(-90 10 ${middle})` }, "loss"));
  parts.push(svgEl("text", { class: "mt-pg-legend-test", x: width - right, y: top, "text-anchor": "end",
    "dominant-baseline": "hanging" }, "test"));
  parts.push(svgEl("text", { class: "mt-pg-legend-train", x: width - right - 30, y: top, "text-anchor": "end",
    "dominant-baseline": "hanging" }, "training"));
  for (const [column, name] of [[1, "train"], [2, "test"]]) {
    const points = rows.filter((row) => row[column] !== null).map((row) => `${px(row[0]).toFixed(1)},${py(row[column]).toFixed(1)}`);
    if (points.length > 1) parts.push(svgEl("polyline", { class: `mt-pg-curve mt-pg-curve-${name}`, points: points.join(" ") }));
    // the latest epoch as a dot: the chart shows the first epoch's loss too, before a line can join two
    const [cx, cy] = points.length ? points[points.length - 1].split(",") : [];
    if (points.length) parts.push(svgEl("circle", { class: `mt-pg-point mt-pg-point-${name}`, cx, cy, r: 3 }));
  }
  svg.replaceChildren(...parts);
}

// ----- the explorer -------------------------------------------------------------------

function render({ model, el: host }) {
  const state = { hover: null, gradients: false, adding: false, addLabel: 1, netKey: "", dashOffset: 0,
    layoutWidth: 0 }; // the network column's width the network was laid out for
  const send = (message) => model.send(message);
  const config = () => model.get("config");
  const setConfig = (changes) => {
    model.set("config", { ...config(), ...changes });
    model.save_changes();
  };
  const choices = model.get("choices");
  // The input features [name, label], in the order of their heatmaps in feature_planes
  // (the formulas live in Python: minitorch/widgets/playground/features.py).
  const features = choices.features;
  const paintFeature = (canvas, row) => paintPlane(canvas, model.get("feature_planes"), row * GRID * GRID);
  const root = el("div", { class: "mt-pg" });
  host.append(root);

  // ----- top bar ------------------------------------------------------------------
  const playButton = el("button", { class: "mt-pg-round mt-pg-play", title: "play / pause",
    onclick: () => send({ action: model.get("status").running ? "pause" : "play" }) });
  const resetButton = el("button", { class: "mt-pg-round mt-pg-reset", title: "reset the network",
    onclick: () => send({ action: "reset" }) }, "\u21ba");
  const stepButton = el("button", { class: "mt-pg-round mt-pg-step", title: "train one epoch",
    onclick: () => send({ action: "step" }) }, "+1");
  const epochNumber = el("span", { class: "mt-pg-epoch-number mt-pg-epoch" }, "000,000");
  const learningRate = select(choices.learning_rates, (v) => setConfig({ learning_rate: Number(v) }));
  const activation = select(choices.activations, (v) => setConfig({ activation: v }),
    (v) => ({ relu: "ReLU", tanh: "Tanh", sigmoid: "Sigmoid", linear: "Linear" })[v]);
  const regularization = select(choices.regularizations, (v) => setConfig({ regularization: v }),
    (v) => ({ none: "None", l1: "L1", l2: "L2" })[v]);
  const regularizationRate = select(choices.regularization_rates,
    (v) => setConfig({ regularization_rate: Number(v) }));
  const problem = select(["classification", "regression"], (v) => {
    if (v === "regression") setConfig({ dataset: "reg_plane", loss: "mse" });
    else setConfig({ dataset: "circle" });
  }, (v) => v[0].toUpperCase() + v.slice(1));
  const loss = select(choices.losses, (v) => setConfig({ loss: v }),
    (v) => ({ mse: "Squared error", cross_entropy: "Cross-entropy" })[v]);
  const optimizer = select(choices.optimizers, (v) => setConfig({ optimizer: v }),
    (v) => ({ sgd: "SGD", momentum: "SGD + momentum", adam: "Adam" })[v]);
  const backend = select(choices.backends, (v) => setConfig({ backend: v }));
  const speed = select(SPEEDS, (v) => setConfig({ epochs_per_frame: Number(v) }), (v) => `${v} / frame`);
  const maxEpochs = el("input", { type: "number", min: "0", step: "100", class: "mt-pg-max-epochs",
    onchange: () => setConfig({ max_epochs: Math.max(0, Math.round(Number(maxEpochs.value) || 0)) }) });
  const targetLoss = el("input", { type: "number", min: "0", step: "0.01", class: "mt-pg-target-loss",
    onchange: () => setConfig({ target_loss: Math.max(0, Number(targetLoss.value) || 0) }) });
  const stepTime = el("span", { class: "mt-pg-small mt-pg-step-time" });

  root.append(el("div", { class: "mt-pg-top" }, [
    el("div", { class: "mt-pg-buttons" }, [resetButton, playButton, stepButton]),
    field("Epoch", epochNumber),
    field("Learning rate", learningRate, "learning_rate"),
    field("Activation", activation, "activation"),
    field("Regularization", regularization, "regularization"),
    field("Regularization rate", regularizationRate, "regularization_rate"),
    field("Problem type", problem, "problem"),
    field("Loss", loss, "loss"),
    field("Optimizer", optimizer, "optimizer"),
    field("Backend", el("span", {}, [backend, " ", stepTime]), "backend"),
    field("Speed", speed, "speed"),
    field("Stop at epoch (0: never)", maxEpochs, "stop"),
    field("Stop at test loss", targetLoss, "stop"),
  ]));
  const message = el("div", { class: "mt-pg-message" });
  root.append(message);

  // ----- data column --------------------------------------------------------------
  const datasets = el("div", { class: "mt-pg-datasets", "data-control": "dataset" });
  const thumbnails = {};
  for (const name of choices.datasets) {
    const canvas = el("canvas", { width: 44, height: 44, class: "mt-pg-dataset", "data-dataset": name,
      title: DATASET_NAMES[name] || name });
    canvas.addEventListener("click", () => {
      const multi = name === "blobs" || name === "spiral3";
      const regression = name.startsWith("reg_");
      const changes = { dataset: name };
      if (multi) changes.loss = "cross_entropy";
      if (regression) changes.loss = "mse";
      setConfig(changes);
    });
    const rows = choices.previews[name];
    const classes = name.startsWith("reg_") ? 0 : (name === "blobs" || name === "spiral3") ? 3 : 2;
    drawThumbnail(canvas, rows, classes);
    thumbnails[name] = canvas;
    datasets.append(canvas);
  }
  const slider = (label, name, min, max, step, transform = Number) => {
    const value = el("span", { class: "mt-pg-value" });
    const input = el("input", { type: "range", min, max, step, class: `mt-pg-${name}`,
      onchange: () => setConfig({ [name]: transform(input.value) }),
      oninput: () => (value.textContent = input.value) });
    const box = el("div", { class: "mt-pg-slider", "data-control": name },
      [el("div", {}, [label, " ", value]), input]);
    return { box, input, value };
  };
  const ratio = slider("Ratio of training to test data (%):", "train_ratio", 10, 90, 10);
  const noise = slider("Noise:", "noise", 0, 50, 5);
  const batch = slider("Batch size:", "batch_size", 1, 30, 1);
  const regenerate = el("button", { class: "mt-pg-regenerate", "data-control": "regenerate",
    onclick: () => send({ action: "regenerate" }) }, "Regenerate");
  const addToggle = el("input", { type: "checkbox", class: "mt-pg-add-toggle",
    onchange: () => { state.adding = addToggle.checked; heatmapBox.classList.toggle("mt-pg-adding", state.adding); } });
  const addLabel = el("select", { class: "mt-pg-add-label",
    onchange: () => (state.addLabel = Number(addLabel.value)) });
  const addValueHint = el("span", { class: "mt-pg-small" });
  const networkColumn = el("div", { class: "mt-pg-column mt-pg-network" });
  const outputColumn = el("div", { class: "mt-pg-column mt-pg-output" });
  root.append(el("div", { class: "mt-pg-main" }, [
    el("div", { class: "mt-pg-column mt-pg-data" }, [
      el("h3", {}, "Data"), el("div", { class: "mt-pg-small" }, "Which dataset?"), datasets,
      ratio.box, noise.box, batch.box, regenerate,
      el("div", { class: "mt-pg-small mt-pg-seed" }),
      el("div", { class: "mt-pg-slider", "data-control": "add_points" }, [
        el("label", {}, [addToggle, " click the output to add points of "]), addLabel, addValueHint]),
    ]),
    networkColumn,
    outputColumn,
  ]));
  const seedText = root.querySelector(".mt-pg-seed");

  // ----- network column -------------------------------------------------------------
  const layerCount = el("span", { class: "mt-pg-layer-count" });
  const addLayer = el("button", { class: "mt-pg-add-layer", onclick: () => {
    const hidden = [...config().hidden];
    if (hidden.length < choices.max_layers) setConfig({ hidden: [...hidden, 2] });
  } }, "+");
  const removeLayer = el("button", { class: "mt-pg-remove-layer", onclick: () => {
    const hidden = [...config().hidden];
    if (hidden.length > 0) setConfig({ hidden: hidden.slice(0, -1) });
  } }, "\u2212");
  const gradientToggle = el("input", { type: "checkbox", class: "mt-pg-gradient-toggle",
    onchange: () => { state.gradients = gradientToggle.checked; drawNetwork(); } });
  const deadText = el("span", { class: "mt-pg-small mt-pg-dead-count" });
  const layerBoxes = el("div", { class: "mt-pg-layer-controls", "data-control": "layers" });
  const canvasArea = el("div", { class: "mt-pg-canvas-area" });
  const card = el("div", { class: "mt-pg-card", hidden: "" });
  networkColumn.append(
    el("div", { class: "mt-pg-layer-header" }, [
      el("span", { class: "mt-pg-plus-minus", "data-control": "layers" }, [addLayer, removeLayer]),
      layerCount,
      el("label", { "data-control": "gradients" }, [gradientToggle, " show gradients"]), deadText,
    ]),
    // a network wider than its column (many layers, a narrow notebook) scrolls here,
    // inside the widget, instead of being drawn over the output column
    el("div", { class: "mt-pg-network-scroll" }, [layerBoxes, canvasArea]), card,
  );

  // ----- output column ---------------------------------------------------------------
  const metric = (label, name) => {
    const value = el("span", { class: `mt-pg-value mt-pg-${name}` }, "\u2014");
    return [el("span", {}, label), value];
  };
  const [testLossLabel, testLoss] = metric("Test loss", "test-loss");
  const [trainLossLabel, trainLoss] = metric("Training loss", "train-loss");
  const [testAccuracyLabel, testAccuracy] = metric("Test accuracy", "test-accuracy");
  const [trainAccuracyLabel, trainAccuracy] = metric("Training accuracy", "train-accuracy");
  const [speedLabel, speedValue] = metric("Epochs per second", "speed");
  const chart = svgEl("svg", { class: "mt-pg-chart", width: CHART.width, height: CHART.height,
    viewBox: `0 0 ${CHART.width} ${CHART.height}`, role: "img", "aria-label": "loss against epoch" });
  const heatmap = el("canvas", { class: "mt-pg-heatmap", width: GRID, height: GRID });
  const pointsCanvas = el("canvas", { class: "mt-pg-points", width: 300, height: 300 });
  const heatmapTitle = el("div", { class: "mt-pg-heatmap-title" });
  const heatmapBox = el("div", { class: "mt-pg-heatmap-box" }, [heatmap, pointsCanvas, heatmapTitle]);
  const showTest = el("input", { type: "checkbox", class: "mt-pg-show-test",
    onchange: () => setConfig({ show_test: showTest.checked }) });
  const discretize = el("input", { type: "checkbox", class: "mt-pg-discretize",
    onchange: () => setConfig({ discretize: discretize.checked }) });
  const snapshot = el("input", { type: "range", min: "0", max: "0", value: "0", class: "mt-pg-snapshot",
    onchange: () => send({ action: "restore", index: Number(snapshot.value) }) });
  const snapshotText = el("span", { class: "mt-pg-small" });
  outputColumn.append(
    el("h3", {}, "Output"),
    el("div", { class: "mt-pg-metrics" }, [testLossLabel, testLoss, trainLossLabel, trainLoss,
      testAccuracyLabel, testAccuracy, trainAccuracyLabel, trainAccuracy, speedLabel, speedValue]),
    chart, heatmapBox,
    el("div", { class: "mt-pg-legend" }, [el("span", {}, "\u22121"), el("span", { class: "mt-pg-legend-bar" }),
      el("span", {}, "+1")]),
    el("div", { class: "mt-pg-row" }, [
      el("label", { "data-control": "show_test" }, [showTest, " Show test data"]),
      el("label", { "data-control": "discretize" }, [discretize, " Discretize output"]),
    ]),
    el("div", { class: "mt-pg-row", "data-control": "snapshots" }, [el("span", {}, "Snapshots"), snapshot, snapshotText]),
  );
  pointsCanvas.addEventListener("click", (event) => {
    if (!state.adding) return;
    const box = pointsCanvas.getBoundingClientRect();
    const x1 = ((event.clientX - box.left) / box.width) * 2 * DOMAIN - DOMAIN;
    const x2 = DOMAIN - ((event.clientY - box.top) / box.height) * 2 * DOMAIN;
    send({ action: "add_point", x1, x2, label: state.addLabel });
  });

  // ----- bottom: export, share, classroom ---------------------------------------------
  const exportButton = el("button", { class: "mt-pg-export",
    onclick: () => send({ action: "export" }) }, "Export as code");
  const code = el("pre", { class: "mt-pg-code" });
  const copyCode = el("button", { onclick: () => navigator.clipboard?.writeText(code.textContent) }, "Copy code");
  const shareInput = el("input", { type: "text", class: "mt-pg-share-input", spellcheck: "false" });
  const loadButton = el("button", { class: "mt-pg-load",
    onclick: () => send({ action: "load_string", text: shareInput.value }) }, "Load");
  const copyShare = el("button", { onclick: () => navigator.clipboard?.writeText(shareInput.value) }, "Copy");
  const classroom = el("div", { class: "mt-pg-classroom" });
  for (const name of choices.controls) {
    const box = el("input", { type: "checkbox", "data-hide": name, onchange: () => {
      const hidden = new Set(config().hidden_controls);
      if (box.checked) hidden.add(name);
      else hidden.delete(name);
      setConfig({ hidden_controls: [...hidden] });
    } });
    classroom.append(el("label", {}, [box, ` ${name.replace(/_/g, " ")}`]));
  }
  root.append(el("div", { class: "mt-pg-bottom" }, [
    el("div", { class: "mt-pg-row", "data-control": "export" }, [exportButton, copyCode]),
    code,
    el("div", { class: "mt-pg-row mt-pg-share", "data-control": "share" },
      [el("span", {}, "Share these settings:"), shareInput, copyShare, loadButton]),
    el("details", {}, [el("summary", {}, "Classroom mode: hide controls"), classroom]),
  ]));

  // ----- the network drawing ----------------------------------------------------------
  // Geometry: column k (0 = inputs) at x = LEFT + k * step; neuron i at y = i * ROW. The
  // step spreads the columns over the width of the network column, measured when the
  // network is laid out: the input labels need LEFT pixels on the left, the last
  // column's labels RIGHT pixels on the right of its x. The layout is redone whenever
  // the column's width changes (a ResizeObserver below: the notebook got narrower, the
  // file browser opened), so neurons never spill over the output column.

  const LEFT = 80;
  const RIGHT = 62;
  const MIN_STEP = 54; // narrower than this, the network scrolls sideways (two hidden layers fit 700 px with the file browser open)
  const MAX_STEP = 130;
  let nodes = {}; // key "layer:neuron" -> {canvas, element}; inputs are "in:name"
  let links = []; // {path, hit, layer, neuron, source}
  let biases = []; // {element, layer, neuron}

  function layoutWidth() {
    return Math.floor(networkColumn.clientWidth);
  }

  function columnX(layer, layers) {
    const step = (state.layoutWidth - LEFT - RIGHT) / Math.max(1, layers);
    return LEFT + layer * Math.max(MIN_STEP, Math.min(MAX_STEP, step));
  }

  function nodeCentre(layer, index, layers) {
    return [columnX(layer, layers), index * ROW];
  }

  function buildNetwork(net) {
    // Rebuild the DOM of the network when its shape changes.
    canvasArea.replaceChildren();
    layerBoxes.replaceChildren();
    nodes = {};
    links = [];
    biases = [];
    const sizes = net.sizes;
    const layers = sizes.length - 1;
    const tallest = Math.max(features.length, ...sizes);
    const height = tallest * ROW + 24;
    canvasArea.style.height = `${height}px`;
    const width = `${Math.ceil(columnX(layers, layers) + RIGHT)}px`; // what the scroller scrolls
    canvasArea.style.width = width;
    layerBoxes.style.width = width;
    const linkLayer = svgEl("svg", { class: "mt-pg-links", width: columnX(layers, layers) + NODE + 10, height });
    canvasArea.append(linkLayer);
    // links: layer k connects column k (sources) to column k + 1
    for (let layer = 0; layer < layers; layer++) {
      for (let neuron = 0; neuron < sizes[layer + 1]; neuron++) {
        for (let source = 0; source < sizes[layer]; source++) {
          const sourceRow = layer === 0 ? features.findIndex((f) => f[0] === net.features[source]) : source;
          const [x1, y1] = nodeCentre(layer, sourceRow, layers);
          const [x2, y2] = nodeCentre(layer + 1, neuron, layers);
          const middle = (x1 + NODE + x2) / 2;
          const d = `M${x1 + NODE},${y1 + NODE / 2} C${middle},${y1 + NODE / 2} ${middle},${y2 + NODE / 2} ${x2},${y2 + NODE / 2}`;
          const path = svgEl("path", { d, class: "mt-pg-link", "data-layer": layer, "data-neuron": neuron, "data-source": source });
          const hit = svgEl("path", { d, class: "mt-pg-link-hit", "data-layer": layer, "data-neuron": neuron, "data-source": source });
          const link = { path, hit, layer, neuron, source };
          hit.addEventListener("mouseenter", (event) => showCard(event, link, "weight"));
          hit.addEventListener("click", (event) => editCard(event, link, "weight"));
          linkLayer.append(path, hit);
          links.push(link);
        }
      }
    }
    // inputs: all seven features; the ones switched off are faded and can be clicked on
    features.forEach(([name, label], row) => {
      const [x, y] = nodeCentre(0, row, layers);
      const canvas = el("canvas", { width: GRID, height: GRID });
      paintFeature(canvas, row);
      const on = net.features.includes(name);
      const element = el("div", { class: `mt-pg-node mt-pg-input${on ? "" : " mt-pg-off"}`, "data-feature": name,
        style: `left:${x}px;top:${y}px`, title: `${label}: click to switch it ${on ? "off" : "on"}` }, [canvas]);
      element.addEventListener("click", () => {
        if (config().hidden_controls.includes("features")) return;
        const chosen = config().features.includes(name)
          ? config().features.filter((f) => f !== name)
          : features.map((f) => f[0]).filter((f) => f === name || config().features.includes(f));
        setConfig({ features: chosen });
      });
      hover(element, { kind: "input", name, label, row });
      canvasArea.append(el("div", { class: "mt-pg-feature-label", style: `left:${x}px;top:${y}px`,
        "data-control": on ? "" : "features" }, label), element);
      if (!on) element.setAttribute("data-control", "features");
      nodes[`in:${name}`] = { canvas, element };
    });
    // neurons (hidden layers, then the output layer), each with its bias square
    for (let layer = 1; layer <= layers; layer++) {
      for (let neuron = 0; neuron < sizes[layer]; neuron++) {
        const [x, y] = nodeCentre(layer, neuron, layers);
        const canvas = el("canvas", { width: GRID, height: GRID });
        const element = el("div", { class: "mt-pg-node", "data-node": `${layer}:${neuron}`,
          style: `left:${x}px;top:${y}px` }, [canvas]);
        hover(element, { kind: "node", layer, neuron });
        const bias = el("div", { class: "mt-pg-bias", "data-layer": layer, "data-neuron": neuron,
          style: `left:${x - 9}px;top:${y + NODE - 6}px` });
        const biasLink = { element: bias, layer, neuron };
        bias.addEventListener("mouseenter", (event) => showCard(event, biasLink, "bias"));
        bias.addEventListener("click", (event) => editCard(event, biasLink, "bias"));
        canvasArea.append(element, bias);
        nodes[`${layer}:${neuron}`] = { canvas, element };
        biases.push(biasLink);
      }
      if (layer < layers) { // +/- neurons for hidden layers
        const index = layer - 1;
        const change = (delta) => {
          const hidden = [...config().hidden];
          hidden[index] = Math.max(1, Math.min(choices.max_neurons, hidden[index] + delta));
          setConfig({ hidden });
        };
        layerBoxes.append(el("div", { class: "mt-pg-layer-box", style: `left:${columnX(layer, layers)}px` }, [
          el("span", { class: "mt-pg-plus-minus" }, [
            el("button", { class: "mt-pg-add-neuron", "data-layer": layer, onclick: () => change(1) }, "+"),
            el("button", { class: "mt-pg-remove-neuron", "data-layer": layer, onclick: () => change(-1) }, "\u2212"),
          ]),
          el("div", {}, `${sizes[layer]} neuron${sizes[layer] === 1 ? "" : "s"}`),
        ]));
      } else {
        layerBoxes.append(el("div", { class: "mt-pg-layer-box", style: `left:${columnX(layer, layers)}px` },
          sizes[layer] === 1 ? "output" : `output (${sizes[layer]} classes)`));
      }
      canvasArea.append(el("div", { class: "mt-pg-grad-norm", "data-layer": layer,
        style: `left:${columnX(layer, layers)}px;top:${height - 14}px` }));
    }
    applyHiddenControls();
  }

  function drawNetwork() {
    // Update links, biases and dead-neuron marks from the latest weights.
    const net = model.get("net");
    if (!net || !net.weights) return;
    const useGradients = state.gradients && net.weight_grads.every((g) => g !== null);
    const largestGradient = net.weight_grads.map((layer) =>
      layer ? Math.max(1e-12, ...layer.flat().map(Math.abs)) : 1);
    for (const link of links) {
      const weight = net.weights[link.layer][link.neuron][link.source];
      let value = weight;
      let width = 1 + Math.min(Math.abs(weight), 5) * 1.6; // width grows with |w|, clamped at 5
      if (useGradients) {
        const grad = net.weight_grads[link.layer][link.neuron][link.source];
        value = -grad / largestGradient[link.layer]; // the direction SGD moves the weight
        width = 1 + Math.abs(value) * 6;
      }
      link.path.setAttribute("stroke", css(valueColour(Math.max(-1, Math.min(1, value)))));
      link.path.setAttribute("stroke-width", width.toFixed(2));
    }
    for (const bias of biases) {
      const value = net.biases[bias.layer - 1][bias.neuron];
      bias.element.style.background = css(valueColour(value));
    }
    net.sizes.slice(1, -1).forEach((size, index) => {
      for (let neuron = 0; neuron < size; neuron++) {
        const dead = net.dead.length > 0 && net.dead[index][neuron];
        nodes[`${index + 1}:${neuron}`]?.element.classList.toggle("mt-pg-dead", dead);
      }
    });
    for (const element of canvasArea.querySelectorAll(".mt-pg-grad-norm")) {
      const norm = net.grad_norms[Number(element.dataset.layer) - 1];
      element.textContent = state.gradients && norm !== null ? `\u2016\u2207W\u2016 ${norm.toExponential(2)}` : "";
    }
    deadText.textContent = config().activation === "relu" ? `dead ReLUs: ${net.dead_count}` : "";
    state.dashOffset = (state.dashOffset - 3) % 12; // the dashes (9 + 3 px) flow on a step
    canvasArea.style.setProperty("--mt-pg-dash-offset", `${state.dashOffset}px`);
  }

  // ----- hover cards: show a value, click to edit it ---------------------------------

  function valueOf(link, kind) {
    const net = model.get("net");
    if (kind === "bias") return [net.biases[link.layer - 1][link.neuron], net.bias_grads[link.layer - 1]?.[link.neuron]];
    return [net.weights[link.layer][link.neuron][link.source], net.weight_grads[link.layer]?.[link.neuron][link.source]];
  }

  function placeCard(event) {
    const box = networkColumn.getBoundingClientRect();
    card.style.left = `${event.clientX - box.left + 12}px`;
    card.style.top = `${event.clientY - box.top + 8}px`;
    card.hidden = false;
  }

  function showCard(event, link, kind) {
    if (card.dataset.editing) return;
    const [value, grad] = valueOf(link, kind);
    card.replaceChildren(`${kind === "bias" ? "Bias" : "Weight"} is ${formatNumber(value)}`,
      grad !== undefined && grad !== null ? ` (gradient ${formatNumber(grad, 4)})` : "", " \u2014 click to edit");
    card.className = "mt-pg-card mt-pg-hover-card";
    placeCard(event);
    event.target.addEventListener("mouseleave", () => { if (!card.dataset.editing) card.hidden = true; }, { once: true });
  }

  function editCard(event, link, kind) {
    const [value] = valueOf(link, kind);
    const input = el("input", { type: "number", step: "0.1", value: formatNumber(value), class: "mt-pg-edit-input" });
    const finish = (apply) => {
      delete card.dataset.editing;
      card.hidden = true;
      if (!apply) return;
      const number = Number(input.value);
      if (kind === "bias") send({ action: "set_bias", layer: link.layer, neuron: link.neuron, value: number });
      else send({ action: "set_weight", layer: link.layer, neuron: link.neuron, source: link.source, value: number });
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") finish(true);
      if (e.key === "Escape") finish(false);
    });
    card.dataset.editing = "1";
    card.className = "mt-pg-card mt-pg-edit-card";
    card.replaceChildren(`${kind === "bias" ? "Bias" : "Weight"}: `, input,
      el("button", { onclick: () => finish(true) }, "set"));
    placeCard(event);
    input.focus();
    input.select();
  }

  function hover(element, target) {
    // Hovering a neuron shows its heatmap large in the output.
    element.addEventListener("mouseenter", () => { state.hover = target; drawHeatmap(); });
    element.addEventListener("mouseleave", () => { state.hover = null; drawHeatmap(); });
  }

  // ----- painting the heatmaps ------------------------------------------------------------

  function planeOffset(key) {
    const index = (model.get("net").planes || []).indexOf(key);
    return index < 0 ? null : index * GRID * GRID;
  }

  function drawHeatmap() {
    const frame = model.get("frame");
    const { discretize: crisp } = config();
    if (state.hover && state.hover.kind === "input") {
      paintFeature(heatmap, state.hover.row);
      heatmapTitle.textContent = `input ${state.hover.label}`;
      return;
    }
    if (!frame || frame.byteLength === 0) return;
    if (state.hover) {
      const offset = planeOffset(`node:${state.hover.layer}:${state.hover.neuron}`);
      if (offset !== null) paintPlane(heatmap, frame, offset, { discretize: crisp });
      heatmapTitle.textContent = `neuron ${state.hover.neuron + 1} of layer ${state.hover.layer}`;
      return;
    }
    const boundary = planeOffset("boundary");
    const classes = planeOffset("boundary_class");
    if (boundary === null) return;
    paintPlane(heatmap, frame, boundary,
      { discretize: crisp, classes: classes === null ? null : { bytes: frame, offset: classes } });
    heatmapTitle.textContent = "";
  }

  function drawFrame() {
    const frame = model.get("frame");
    const net = model.get("net");
    if (!frame || !net.planes) return;
    net.planes.forEach((key, index) => {
      if (!key.startsWith("node:")) return;
      const node = nodes[key.slice(5)];
      if (node) paintPlane(node.canvas, frame, index * GRID * GRID);
    });
    drawHeatmap();
  }

  // ----- reacting to Python ------------------------------------------------------------

  function applyHiddenControls() {
    const hidden = new Set(config().hidden_controls || []);
    for (const element of root.querySelectorAll("[data-control]")) {
      element.classList.toggle("mt-pg-hidden-control", hidden.has(element.dataset.control));
    }
    for (const box of classroom.querySelectorAll("input[data-hide]")) box.checked = hidden.has(box.dataset.hide);
  }

  function onConfig() {
    const c = config();
    setIfIdle(learningRate, c.learning_rate);
    setIfIdle(activation, c.activation);
    setIfIdle(regularization, c.regularization);
    setIfIdle(regularizationRate, c.regularization_rate);
    setIfIdle(loss, c.loss);
    setIfIdle(optimizer, c.optimizer);
    setIfIdle(backend, c.backend);
    setIfIdle(speed, c.epochs_per_frame);
    setIfIdle(maxEpochs, c.max_epochs);
    setIfIdle(targetLoss, c.target_loss);
    for (const [s, name] of [[ratio, "train_ratio"], [noise, "noise"], [batch, "batch_size"]]) {
      setIfIdle(s.input, c[name]);
      s.value.textContent = c[name];
    }
    showTest.checked = c.show_test;
    discretize.checked = c.discretize;
    problem.value = c.dataset.startsWith("reg_") ? "regression" : "classification";
    for (const [name, canvas] of Object.entries(thumbnails)) {
      canvas.classList.toggle("mt-pg-selected", name === c.dataset);
      const regression = name.startsWith("reg_");
      canvas.style.display = regression === (problem.value === "regression") ? "" : "none";
    }
    layerCount.textContent = `${c.hidden.length} hidden layer${c.hidden.length === 1 ? "" : "s"}`;
    seedText.textContent = `seed ${c.seed}`;
    applyHiddenControls();
    drawHeatmap();
    drawPoints(pointsCanvas, model.get("points"), c.show_test);
  }

  function onStatus() {
    const s = model.get("status");
    playButton.textContent = s.running ? "\u275a\u275a" : "\u25b6";
    root.classList.toggle("mt-pg-running", s.running);
    epochNumber.textContent = String(s.epoch).padStart(6, "0").replace(/(\d{3})$/, ",$1");
    testLoss.textContent = formatNumber(s.test_loss);
    trainLoss.textContent = formatNumber(s.train_loss);
    testAccuracy.textContent = s.test_accuracy === null ? "\u2014" : `${(s.test_accuracy * 100).toFixed(1)}%`;
    trainAccuracy.textContent = s.train_accuracy === null ? "\u2014" : `${(s.train_accuracy * 100).toFixed(1)}%`;
    speedValue.textContent = s.epochs_per_second === null ? "\u2014" : s.epochs_per_second.toFixed(1);
    stepTime.textContent = `${s.epoch_ms.toFixed(1)} ms/epoch`;
    message.textContent = s.message || "";
    drawLossChart(chart, s.curve);
    setIfIdle(shareInput, s.config_string);
    snapshot.max = String(Math.max(0, s.snapshots.length - 1));
    const shown = s.snapshots.indexOf(s.epoch);
    if (document.activeElement !== snapshot && shown >= 0) snapshot.value = String(shown);
    snapshotText.textContent = s.snapshots.length ? `epoch ${s.epoch} (${s.snapshots.length} kept)` : "";
    // the classes a new point can have
    const labels = s.num_classes === 0 ? [-1, -0.5, 0, 0.5, 1] : s.num_classes === 2 ? [1, -1]
      : Array.from({ length: s.num_classes }, (_, i) => i);
    const wanted = labels.join(",");
    if (addLabel.dataset.labels !== wanted) {
      addLabel.replaceChildren(...labels.map((v) => el("option", { value: String(v) },
        s.num_classes === 2 ? (v > 0 ? "blue (+1)" : "orange (\u22121)") : s.num_classes === 0 ? `value ${v}` : `class ${v}`)));
      addLabel.dataset.labels = wanted;
      state.addLabel = labels[0];
    }
  }

  function onNet() {
    const net = model.get("net");
    if (!net || !net.sizes) return;
    state.layoutWidth = layoutWidth();
    const key = JSON.stringify([net.sizes, net.features, state.layoutWidth]);
    if (key !== state.netKey) {
      state.netKey = key;
      buildNetwork(net);
    }
    drawNetwork();
    stale.add("frame"); // the heatmaps' order and canvases come with the network
  }

  function onPoints() {
    drawPoints(pointsCanvas, model.get("points"), config().show_test);
  }

  function onCode() {
    code.textContent = model.get("code");
  }

  // Drawing is decoupled from Python's updates: a change only marks what is out of
  // date, and the next animation frame draws the latest state once. However many
  // updates arrive between two frames, each part is drawn at most once per frame
  // (and not at all while the browser tab is hidden). The root element counts the
  // frames drawn (data-draws) and the time the last one took (data-draw-ms).
  const drawers = { net: onNet, frame: drawFrame, config: onConfig, status: onStatus,
    points: onPoints, code: onCode }; // in this order: the network's shape first
  const stale = new Set();
  let frameRequested = null;
  function drawStale() {
    frameRequested = null;
    const started = performance.now();
    for (const [name, draw] of Object.entries(drawers)) {
      if (!stale.delete(name)) continue;
      try {
        draw();
      } catch (error) { // one part failing must not keep the others from drawing
        console.error(`Playground: drawing ${name} failed`, error);
      }
    }
    root.dataset.drawMs = (performance.now() - started).toFixed(2);
    root.dataset.draws = String(Number(root.dataset.draws || 0) + 1);
  }
  const handlers = Object.fromEntries(Object.keys(drawers).map((name) => [`change:${name}`, () => {
    stale.add(name);
    frameRequested ??= requestAnimationFrame(drawStale);
  }]));
  for (const [event, handler] of Object.entries(handlers)) model.on(event, handler);
  // Lay the network out again whenever its column changes width (onNet compares it).
  const resized = new ResizeObserver(() => {
    if (layoutWidth() !== state.layoutWidth) handlers["change:net"]();
  });
  resized.observe(networkColumn);
  for (const name of Object.keys(drawers)) stale.add(name);
  drawStale();
  return () => {
    for (const [event, handler] of Object.entries(handlers)) model.off(event, handler);
    resized.disconnect();
    if (frameRequested !== null) cancelAnimationFrame(frameRequested);
  };
}

export default { render };
