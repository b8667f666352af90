"""The memory viewer (minitorch.widgets.memory): the allocator's blocks, labelled with the
tensors holding them by the names a notebook gave them, held only weakly; the picture
after del, views and no_grad; record mode during a training step; live updates; the
static fallback. The browser side is tests/browser/test_memory_in_lab.py."""

from __future__ import annotations

import cProfile
import gc
import threading
import time
import weakref
import xml.etree.ElementTree as ElementTree
from contextlib import contextmanager

import pytest

import minitorch
from minitorch import memory
from minitorch.widgets.memory import MemoryWidget, block_widths
from minitorch.widgets.memory_live import SECONDS_BETWEEN_CHECKS, bytes_text


def notebook(code: str) -> dict:
    """Run ``code`` as a notebook cell runs it: in a namespace that is its globals."""
    namespace: dict = {}
    exec("import minitorch\nfrom minitorch import nn, widgets\n" + code, namespace)
    return namespace


def address(t: minitorch.Tensor) -> int:
    return t._storage.__array_interface__["data"][0]


def block_at(state: dict, where: int) -> dict:
    (block,) = [b for s in state["segments"] for b in s["blocks"] if b["address"] == where]
    return block


def allocated_at(state: dict, where: int) -> bool:
    """Whether an allocated block covers ``where``. A freed block may have merged into a
    free neighbour that starts lower, or its segment gone back: then no block starts there."""
    blocks = [b for s in state["segments"] for b in s["blocks"]]
    return any(b["allocated"] and b["address"] <= where < b["address"] + b["size"] for b in blocks)


def labels(state: dict, t: minitorch.Tensor) -> list[str]:
    return [h["label"] for h in block_at(state, address(t))["holders"]]


def all_labels(state: dict) -> list[str]:
    return [h["label"] for s in state["segments"] for b in s["blocks"] for h in b["holders"]]


@contextmanager
def no_collection():
    """Collect the garbage left so far (earlier tests' cells are reference cycles), then
    keep the cycle collector off until the block ends. A collection inside a measured or
    recorded block would free another test's tensors, and the block would seem to free
    memory it never held (CI once saw a forward pass "keep" -96 MB)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(autouse=True)
def no_live_threads():
    yield
    for widget in [w for w in gc.get_objects() if issubclass(type(w), MemoryWidget)]:
        widget.stop()


def test_blocks_are_labelled_with_the_notebooks_names() -> None:
    cell = notebook(
        "x = minitorch.ones(8, 8) * 2\n"
        "xt = x.t()\n"
        "model = nn.Linear(8, 4)\n"
        "opt = minitorch.optim.Adam(model.parameters())\n"
        "model(x).sum().backward()\n"
        "opt.step()\n"
        "batch = [minitorch.ones(3) * 1]\n"
        "class Box: pass\n"
        "box = Box()\n"
        "box.inside = minitorch.ones(5, 7) * 1\n"
        "mem = widgets.memory()\n"
    )
    state = cell["mem"].state
    assert labels(state, cell["x"]) == ["x", "xt (view of x)"]
    assert labels(state, cell["model"].weight) == ["model.weight"]
    assert labels(state, cell["model"].weight.grad) == ["model.weight.grad"]
    exp_avg = cell["opt"].state[cell["model"].bias]["exp_avg"]
    assert labels(state, exp_avg) == ["opt.state[model.bias]['exp_avg']"]
    assert labels(state, cell["batch"][0]) == ["batch[0]"]
    assert labels(state, cell["box"].inside) == ["tensor (5, 7) float32"]  # no name reaches it
    assert "scalar operand cached by minitorch.ops" in all_labels(state)  # the 2 of x * 2
    block = block_at(state, address(cell["x"]))
    assert block["allocated"] and block["requested"] == 8 * 8 * 4 and block["size"] % 512 == 0
    assert state["allocated"] == memory.memory_allocated() and state["reserved"] == memory.memory_reserved()
    assert state["peak"] == memory.max_memory_allocated() >= state["allocated"]


def test_the_viewer_holds_tensors_only_weakly_and_del_frees_at_once() -> None:
    cell = notebook("x = minitorch.ones(1000) * 2\nmem = widgets.memory()\n")
    mem, where = cell["mem"], address(cell["x"])
    assert labels(mem.state, cell["x"]) == ["x"]
    with mem.record():
        cell["y"] = cell["x"] + 1
    x_alive = weakref.ref(cell["x"])
    with no_collection():  # freed by reference counting, not by a collection
        before = memory.memory_allocated()
        del cell["x"]
        assert x_alive() is None, "the memory viewer kept x alive"
        assert memory.memory_allocated() == before - 4096
    mem.refresh()
    assert not block_at(mem.state, where)["allocated"]
    assert "x" not in all_labels(mem.state) and "y" in all_labels(mem.state)


def test_a_view_keeps_the_block_and_says_whose_view_it_is() -> None:
    cell = notebook("x = minitorch.arange(12.) * 1\nv = x.view(3, 4)[:, 1:]\nmem = widgets.memory()\n")
    mem, where = cell["mem"], address(cell["x"])
    assert labels(mem.state, cell["x"]) == ["x", "v (view of x)"]
    assert [h["view"] for h in block_at(mem.state, where)["holders"]] == [False, True]
    del cell["x"]  # v still reads the storage (and holds x's tensor as its base)
    mem.refresh()
    assert labels(mem.state, cell["v"]) == ["tensor (12,) float32", "v (view)"]
    del cell["v"]
    mem.refresh()
    assert not allocated_at(mem.state, where)


def test_no_grad_frees_the_activations_a_graph_would_keep() -> None:
    cell = notebook(
        "minitorch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))\n"
        "x = minitorch.randn(128, 16)\n"
        "mem = widgets.memory()\n"
    )
    mem = cell["mem"]
    with no_collection(), mem.record():
        out = cell["model"](cell["x"])
    kept = mem.frames[-1]["allocated"] - mem.frames[0]["allocated"]
    saved = [label for label in all_labels(mem.frames[-1]) if label.startswith("tensor (128, 64) float32")]
    assert "tensor (128, 64) float32 saved by TanhBackward0" in saved  # kept for backward
    del out
    with no_collection(), mem.record(), minitorch.no_grad():
        out = cell["model"](cell["x"])
    assert out.grad_fn is None
    assert mem.frames[-1]["allocated"] - mem.frames[0]["allocated"] < kept
    assert not [label for label in all_labels(mem.frames[-1]) if label.startswith("tensor (128, 64)")]
    assert max(f["allocated"] for f in mem.frames) > mem.frames[-1]["allocated"]  # made, then freed


def test_record_a_training_step_frame_by_frame() -> None:
    cell = notebook(
        "minitorch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 1))\n"
        "opt = minitorch.optim.SGD(model.parameters(), lr=0.1)\n"
        "x, y = minitorch.randn(256, 2), minitorch.randn(256, 1)\n"
        "def step():\n"
        "    opt.zero_grad()\n"
        "    loss = nn.functional.mse_loss(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "step()\n"
        "mem = widgets.memory()\n"
    )
    mem = cell["mem"]
    with no_collection():
        before = memory.memory_stats()
        with mem.record():
            cell["step"]()
        after = memory.memory_stats()
    events = sum(after[f"allocation.all.{k}"] - before[f"allocation.all.{k}"] for k in ("allocated", "freed"))
    assert len(mem.frames) == events + 2  # one per allocation and free, the start and the end
    changes = [b["allocated"] - a["allocated"] for a, b in zip(mem.frames[1:-1], mem.frames[2:-1])]
    assert all(changes)
    phases = [f["phase"] for f in mem.frames]
    forward, backward = phases.index("forward"), phases.index("backward")
    assert forward < backward
    assert "in Tanh (forward)" in mem.frames[forward + 1]["event"] or any(
        "in Tanh (forward)" in f["event"] for f in mem.frames[forward:backward])
    activation = "tensor (256, 64) float32 saved by TanhBackward0"
    assert any(activation in all_labels(f) for f in mem.frames[forward:backward])  # appears in forward
    assert activation not in all_labels(mem.frames[-1])  # and is gone after backward
    peak = max(range(len(mem.frames)), key=lambda k: mem.frames[k]["allocated"])
    assert forward <= peak and mem.frames[-1]["allocated"] < mem.frames[peak]["allocated"]
    assert any(f["event"].startswith("-") and f["phase"] == "backward" for f in mem.frames)
    assert mem.show_frame(0)["event"] == "start of the block" and mem.frame == 0
    assert mem.show_frame(-1)["event"] == "end of the block"
    with pytest.raises(IndexError, match="out of range"):
        mem.show_frame(len(mem.frames))
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        with pytest.raises(RuntimeError, match="a profiler .* is using it"), mem.record():
            pass
    finally:
        profiler.disable()


def test_a_recording_reports_its_own_peak() -> None:
    """The allocator's peak counts since the start: a big tensor of an earlier cell must
    not be the recording's "peak"; the block's own peak grows frame by frame."""
    mem = MemoryWidget("cpu")
    big = minitorch.zeros(200_000)  # 800 kB, freed before the block
    del big
    earlier_peak = memory.max_memory_allocated()
    x = minitorch.ones(1000)
    with mem.record():
        y = x * 2
        z = (y + 1).exp()
        del y
    peaks = [f["peak"] for f in mem.frames]
    allocated = [f["allocated"] for f in mem.frames]
    assert peaks == [max(allocated[: k + 1]) for k in range(len(allocated))]
    assert peaks[-1] == max(allocated) < earlier_peak
    assert all(f["peak_of"] == "block" for f in mem.frames)
    assert f"peak in the recording {bytes_text(peaks[-1])}" in mem.to_text()
    mem.frame = -1  # the allocator now: its own peak again
    assert mem.shown()["peak"] == memory.max_memory_allocated() and "peak_of" not in mem.shown()
    del z


def test_live_updates_follow_the_allocator_at_most_ten_times_a_second() -> None:
    cell = notebook("mem = widgets.memory()\n")
    mem = cell["mem"]
    looks: list[float] = []
    mem.observe(lambda change: looks.append(time.monotonic()), "state")
    mem.start()
    try:
        start, kept = time.monotonic(), []
        while time.monotonic() - start < 1.0:
            kept.append(minitorch.ones(64) * 2)
            if len(kept) > 20:
                kept.clear()
        time.sleep(3 * SECONDS_BETWEEN_CHECKS)
    finally:
        mem.stop()
    # stop() waited for a look under way (in a big process a look can take a while). At
    # most one look per interval over the 1.3 s, and the one stop() waited for (the gaps
    # between two redraws are not compared: a look's own time varies with the load).
    assert 1 <= len(looks) <= 1.3 / SECONDS_BETWEEN_CHECKS + 2


def test_the_live_thread_names_only_known_tensors_and_never_asks_the_collector(monkeypatch) -> None:
    # gc.get_objects() in a second thread can catch a tuple the cell is still building
    # and make the cell fail with SystemError: only the notebook's thread may ask.
    cell = notebook("kept = minitorch.ones(300) * 2\nmem = widgets.memory()\n")
    mem, asked_from = cell["mem"], []
    real_get_objects = gc.get_objects

    def spying_get_objects(*generation: int) -> list:
        asked_from.append(threading.current_thread().name)
        return real_get_objects(*generation)

    monkeypatch.setattr(gc, "get_objects", spying_get_objects)
    live_states: list[dict] = []
    mem.observe(lambda change: live_states.append(change["new"]), "state")
    def shows_it(state: dict) -> bool:
        return any(b["address"] == where and b["allocated"] for s in state["segments"] for b in s["blocks"])

    mem.start()
    try:
        made_in_the_cell = minitorch.ones(1000) * 3  # the counters change: the thread looks
        where, deadline = address(made_in_the_cell), time.monotonic() + 10
        while not any(map(shows_it, live_states)) and time.monotonic() < deadline:
            time.sleep(SECONDS_BETWEEN_CHECKS)  # (a look may come mid-expression: wait for the block)
    finally:
        mem.stop()
    assert any(map(shows_it, live_states)), "the live thread never showed the new block"
    assert set(asked_from) <= {threading.main_thread().name}, asked_from
    live = next(state for state in live_states if shows_it(state))
    assert labels(live, cell["kept"]) == ["kept"]  # found before: named at once
    new_block = block_at(live, address(made_in_the_cell))
    assert new_block["pending"] and new_block["holders"] == []
    assert "new: named when the cell ends" in mem.to_text()
    mem.refresh()  # what the look after the cell does, in the notebook's thread
    named = block_at(mem.state, address(made_in_the_cell))
    assert not named["pending"] and labels(mem.state, made_in_the_cell) == ["tensor (1000,) float32"]


def test_static_fallback_and_text() -> None:
    cell = notebook("weights = minitorch.ones(300, 1000) * 1\nsmall = minitorch.ones(4) * 1\n"
                    "mem = widgets.memory()\n")
    mem = cell["mem"]
    data, _ = mem._repr_mimebundle_()
    mem.stop()
    svg = data["text/html"].split('<div class="minitorch-static">', 1)[1].split("<details>")[0]
    root = ElementTree.fromstring(svg)
    texts = [e.text or "" for e in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t.startswith("memory on cpu: allocated") for t in texts)
    assert any(t.endswith("weights") for t in texts) and any("small" in t for t in texts)
    assert "large pool" in texts and "small pool" in texts
    text = mem.to_text()
    assert "large pool, segment" in text and "allocated (asked for 1.14 MiB): weights" in text
    assert data["text/plain"] == text


def test_block_widths_are_proportional_with_a_minimum() -> None:
    widths = block_widths([512, 512, 2 << 20, 1 << 20], 600, 14)
    assert widths[:2] == [14, 14] and widths[2] == pytest.approx(2 * widths[3])
    assert sum(widths) == pytest.approx(600)
    assert block_widths([1, 1, 1], 20, 14) == [14, 14, 14]  # too many to fit: the strip grows


def test_the_cuda_emulators_allocator_too() -> None:
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with cuda.emulated():
        cell = notebook("x = minitorch.ones(100, device='cuda') * 2\nv = x[3:]\n"
                        "mem = widgets.memory('cuda')\n")
        state = cell["mem"].state
        assert state["device"] == "cuda" and state["allocated"] == minitorch.cuda.memory_allocated()
        assert labels(state, cell["x"]) == ["x", "v (view of x)"]
    with pytest.raises(ValueError, match="device 'cpu' or 'cuda', not 'mps'"):
        notebook("widgets.memory('mps')")
