"""Random small training programs, run twice: compiled with ``minitorch.compile`` and eagerly.

A ``TrainingProgram`` is drawn from a seed and a *family* (which features it may use):

* a model: ``Sequential`` of ``Linear``, activations, ``BatchNorm1d``, ``LayerNorm``,
  ``Dropout(p=0)``, an ``Embedding`` first when the inputs are token ids;
* a loss: ``MSELoss``, ``L1Loss``, ``CrossEntropyLoss``, ``BCEWithLogitsLoss``;
* an optimizer, with its options (every one ``minitorch.optim`` has: ``OPTIMIZERS``);
* where ``zero_grad(set_to_none=...)`` and ``opt.step()`` run: inside the compiled step,
  or outside it in the training loop (or no ``zero_grad``: gradients accumulate);
* a Python number argument: none, the same every call, or a new one every call (a
  loss scale, or a learning rate the step writes into ``param_groups``);
* events between steps: ``model.train()`` / ``model.eval()``, a parameter frozen with
  ``requires_grad_(False)``;
* the passes, in any order (``minitorch.compile(step, passes=[...])``);
* how it is called: from the main thread, from two threads at once, or on two CUDA
  emulator streams (those two run the model's forward, in eval mode, under no_grad).

``run(program)`` builds the model, optimizer and loss, deep-copies them (one copy runs
compiled, the other eagerly), runs ``STEPS`` training steps on equal new inputs, and after
every step compares the losses, every parameter and buffer (``state_dict``), every
``.grad`` (``None`` included) and the optimizer's state: bit for bit on the reference
backend, to 1e-5 on numba. A difference raises ``Mismatch`` (an ``AssertionError``) naming
the seed, the call, the tensor and the whole program in words, and the command that runs
it alone: ``python -m tests.compiler.fuzz_programs FAMILY SEED``.
"""

from __future__ import annotations

import copy
import random
import sys
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.compiler.passes import DEFAULT_PASSES, PASSES

STEPS = 6  # training steps per program: warm-up, capture, then replays

# On numba a call that records (a capture, or ``dispatch.trace()``) may take another kernel
# path than a plain eager call: ``cross_entropy``'s backward then differs in the last bit
# of a gradient. Adam and RMSprop divide by the gradient's own size, so after a few steps
# that bit can show as 1e-6 in a parameter (a bug shows as 1e-3 or more). The reference
# backend has one path: there the comparison is bit for bit.
NUMBA_TOLERANCE = 1e-5

# label -> optimizer over parameters; every optimizer of minitorch.optim, with its options
# (but LBFGS, whose step decides its path by values and so runs eagerly)
OPTIMIZERS = {
    "SGD(lr=0.1)": lambda p: optim.SGD(p, lr=0.1),
    "SGD(lr=0.05, momentum=0.9)": lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
    "SGD(lr=0.05, momentum=0.9, dampening=0.3)": lambda p: optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.3),
    "SGD(lr=0.05, momentum=0.5, nesterov=True)": lambda p: optim.SGD(p, lr=0.05, momentum=0.5, nesterov=True),
    "SGD(lr=0.05, weight_decay=0.01)": lambda p: optim.SGD(p, lr=0.05, weight_decay=0.01),
    "SGD(lr=0.05, momentum=0.9, maximize=True)": lambda p: optim.SGD(p, lr=0.05, momentum=0.9, maximize=True),
    "SGD(lr=0.05, momentum=0.9, foreach=False)": lambda p: optim.SGD(p, lr=0.05, momentum=0.9, foreach=False),
    "Adam(lr=0.01)": lambda p: optim.Adam(p, lr=0.01),
    "Adam(lr=0.01, weight_decay=0.1)": lambda p: optim.Adam(p, lr=0.01, weight_decay=0.1),
    "Adam(lr=0.01, amsgrad=True)": lambda p: optim.Adam(p, lr=0.01, amsgrad=True),
    "Adam(lr=0.01, maximize=True)": lambda p: optim.Adam(p, lr=0.01, maximize=True),
    "Adam(lr=0.01, foreach=False)": lambda p: optim.Adam(p, lr=0.01, foreach=False),
    "AdamW(lr=0.01)": lambda p: optim.AdamW(p, lr=0.01),
    "AdamW(lr=0.01, amsgrad=True)": lambda p: optim.AdamW(p, lr=0.01, amsgrad=True),
    **{
        f"RMSprop(lr=0.01, momentum={m}, centered={c}, weight_decay={w})": (
            lambda p, m=m, c=c, w=w: optim.RMSprop(p, lr=0.01, momentum=m, centered=c, weight_decay=w))
        for m in (0.0, 0.9) for c in (False, True) for w in (0.0, 0.1)
    },
    "RMSprop(lr=0.01, maximize=True)": lambda p: optim.RMSprop(p, lr=0.01, maximize=True),
    "Adagrad(lr=0.05, lr_decay=0.1, weight_decay=0.1)": (
        lambda p: optim.Adagrad(p, lr=0.05, lr_decay=0.1, weight_decay=0.1)),
    "Adadelta(lr=0.5, weight_decay=0.1)": lambda p: optim.Adadelta(p, lr=0.5, weight_decay=0.1),
    "Adamax(lr=0.01, maximize=True)": lambda p: optim.Adamax(p, lr=0.01, maximize=True),
    "NAdam(lr=0.01, weight_decay=0.1)": lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1),
    "NAdam(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)": (
        lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    # (with these betas the rectified step starts at step 6)
    "RAdam(lr=0.01, betas=(0.8, 0.9))": lambda p: optim.RAdam(p, lr=0.01, betas=(0.8, 0.9)),
    "RAdam(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)": (
        lambda p: optim.RAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "ASGD(lr=0.05, t0=2)": lambda p: optim.ASGD(p, lr=0.05, t0=2),  # averaging from step 3
    "Rprop(lr=0.01)": lambda p: optim.Rprop(p, lr=0.01),
}  # fmt: skip

# label -> layer of width n (the width stays n)
HIDDEN_LAYERS = {
    "ReLU()": lambda n: nn.ReLU(), "Tanh()": lambda n: nn.Tanh(), "Sigmoid()": lambda n: nn.Sigmoid(),
    "GELU()": lambda n: nn.GELU(), "LeakyReLU(0.1)": lambda n: nn.LeakyReLU(0.1),
    "SiLU()": lambda n: nn.SiLU(),
    "BatchNorm1d(n)": lambda n: nn.BatchNorm1d(n), "LayerNorm(n)": lambda n: nn.LayerNorm(n),
    "Dropout(p=0.0)": lambda n: nn.Dropout(0.0), "Linear(n, n)": lambda n: nn.Linear(n, n),
}  # fmt: skip

LOSSES = ["MSELoss", "L1Loss", "CrossEntropyLoss", "BCEWithLogitsLoss"]

# What a program draws from when its family does not vary it (``None`` passes: the default).
PLAIN = {
    "optimizer": [label for label in OPTIMIZERS if "foreach=False" not in label and "RMSprop" not in label],
    "zero_grad": ["inside"], "set_to_none": [True], "step": ["inside"], "number": ["none"],
    "events": [], "passes": [None], "caller": ["main thread"],
}  # fmt: skip

# family -> the choices it varies, each a feature a compiled step must get right
FAMILIES = {
    "baseline": {},  # fused SGD/Adam/AdamW, zero_grad inside, default passes
    "optimizers": {"optimizer": list(OPTIMIZERS)},  # RMSprop, foreach=False: state rebound
    "zero_grad_outside": {"zero_grad": ["outside"], "set_to_none": [True, False]},
    "set_to_none_false": {"set_to_none": [False]},
    "accumulate": {"zero_grad": ["never"]},  # .grad sums over the calls
    "step_outside": {"step": ["outside"]},
    "train_eval": {"events": ["eval", "train"]},  # with a BatchNorm1d in every model
    "freeze": {"events": ["freeze"]},
    "numbers": {"number": ["fixed scale", "changing scale", "changing lr"]},
    "pass_orders": {"passes": ["any order"]},
    "threads": {"caller": ["threads"]},
    "streams": {"caller": ["streams"]},
    "everything": {},  # every other family's choices at once (but those in ``leave_out``)
}


def choices(family: str, leave_out: tuple = ()) -> dict:
    """What a program of ``family`` draws from: ``PLAIN``, with the family's own choices;
    ``everything`` takes the union of all families but those in ``leave_out``."""
    if family != "everything":
        return {**PLAIN, **FAMILIES[family]}
    union = {what: list(values) for what, values in PLAIN.items()}
    for name, varied in FAMILIES.items():
        if name not in leave_out:
            for what, values in varied.items():
                union[what] += [v for v in values if v not in union[what]]
    return union


@dataclass
class TrainingProgram:
    """One random training program (see the module docstring); ``describe()`` in words."""

    family: str
    seed: int
    backend: str = "numba"
    tokens: bool = False  # inputs are token ids through an Embedding
    widths: tuple = (3, 4)  # input features, hidden width
    layers: list = field(default_factory=list)  # HIDDEN_LAYERS labels
    classes: int = 2
    loss: str = "MSELoss"
    optimizer: str = "SGD(lr=0.1)"
    zero_grad: str = "inside"  # "inside" the compiled step, "outside" it, or "never"
    set_to_none: bool = True
    step: str = "inside"  # where opt.step() runs
    number: str = "none"
    events: dict = field(default_factory=dict)  # step -> ["eval" | "train" | "freeze <name>"]
    passes: list | None = None
    caller: str = "main thread"
    batch: int = 5

    leave_out: tuple = ()  # for "everything": families whose choices it does not draw

    @classmethod
    def draw(cls, family: str, seed: int, leave_out: tuple = ()) -> TrainingProgram:
        rng = random.Random(f"{family}-{seed}")
        allowed = choices(family, leave_out)
        p = cls(family, seed, leave_out=tuple(sorted(leave_out)) if family == "everything" else ())
        p.backend = rng.choice(["numba", "numba", "reference"])
        p.tokens = rng.random() < 0.25
        p.widths = (rng.randint(2, 4), rng.randint(2, 5))
        p.layers = [rng.choice(list(HIDDEN_LAYERS)) for _ in range(rng.randint(1, 3))]
        if "eval" in allowed["events"] and "BatchNorm1d(n)" not in p.layers and rng.random() < 0.8:
            p.layers.insert(rng.randrange(len(p.layers) + 1), "BatchNorm1d(n)")
        if p.backend != "reference":  # (bit for bit there: noise is the same noise)
            p.layers = _activation_before_batchnorm(p.layers)
        p.classes = rng.randint(2, 3)
        p.loss = rng.choice(LOSSES)
        p.batch = rng.randint(3, 6)  # (BatchNorm over 2 rows gives +-1 whatever came in: no gradient)
        p.optimizer = rng.choice(allowed["optimizer"])
        p.zero_grad = rng.choice(allowed["zero_grad"])
        p.set_to_none = rng.choice(allowed["set_to_none"])
        p.step = rng.choice(allowed["step"])
        p.number = rng.choice(allowed["number"])
        kinds = allowed["events"]
        for step in range(1, STEPS):
            if kinds and rng.random() < 0.4:
                p.add_event(step, rng.choice(kinds), rng)
        if kinds and family != "everything" and not p.events:
            p.add_event(rng.randint(2, STEPS - 2), kinds[0], rng)  # one at least, after the capture
        passes = rng.choice(allowed["passes"])
        if passes == "any order":
            names = list(PASSES)
            rng.shuffle(names)
            passes = names if rng.random() < 0.6 else names[: rng.randint(0, len(names))]
        p.passes = passes
        callers = allowed["caller"]
        p.caller = callers[0] if len(callers) == 1 or rng.random() < 0.7 else rng.choice(callers[1:])
        if p.caller != "main thread":  # a forward of an eval-mode model: no training state
            p.backend = "numba"
            p.events, p.zero_grad, p.step, p.number = {}, "never", "outside", "none"
        return p

    def add_event(self, step: int, kind: str, rng: random.Random) -> None:
        if kind == "freeze":  # any parameter but the last layer's weight: the loss keeps a graph
            kind = f"freeze {rng.choice(self.parameter_names()[:-2] + self.parameter_names()[-1:])}"
        self.events.setdefault(step, []).append(kind)

    # ----- building ---------------------------------------------------------------------

    def parameter_names(self) -> list[str]:
        return [name for name, _ in self.build_model().named_parameters()]

    def build_model(self) -> nn.Module:
        minitorch.manual_seed(self.seed)
        features, width = self.widths
        first = nn.Embedding(7, width) if self.tokens else nn.Linear(features, width)
        layers = [first] + [HIDDEN_LAYERS[label](width) for label in self.layers]
        return nn.Sequential(*layers, nn.Linear(width, self.classes))

    def build(self) -> tuple[nn.Module, optim.Optimizer, nn.Module]:
        model = self.build_model()
        return model, OPTIMIZERS[self.optimizer](model.parameters()), getattr(nn, self.loss)()

    def arguments(self, call: int) -> list:
        """The step's arguments for call ``call``: new tensors every time, equal per call."""
        source = np.random.default_rng([self.seed, call])
        if self.tokens:
            x = minitorch.tensor(source.integers(0, 7, self.batch).tolist())
        else:
            x = minitorch.tensor(source.standard_normal((self.batch, self.widths[0])).astype(np.float32))
        if self.loss == "CrossEntropyLoss":
            target = minitorch.tensor(source.integers(0, self.classes, self.batch).tolist())
        elif self.loss == "BCEWithLogitsLoss":
            target = minitorch.tensor(source.integers(0, 2, (self.batch, self.classes)).astype(np.float32))
        else:
            target = minitorch.tensor(source.standard_normal((self.batch, self.classes)).astype(np.float32))
        arguments = [x, target]
        if self.number == "fixed scale":
            arguments.append(0.5)
        elif self.number == "changing scale":
            arguments.append(0.5 + 0.25 * call)
        elif self.number == "changing lr":
            arguments.append(0.02 / (1 + call))
        return arguments

    def step_function(self, model: nn.Module, opt: optim.Optimizer, loss_fn: nn.Module):
        """The function that is compiled (one copy) and run eagerly (the other)."""
        number = self.number

        def step(x, target, value=None):
            if self.zero_grad == "inside":
                opt.zero_grad(set_to_none=self.set_to_none)
            if number == "changing lr":
                for group in opt.param_groups:
                    group["lr"] = value
            loss = loss_fn(model(x), target)
            if number.endswith("scale"):
                loss = loss * value
            loss.backward()
            if self.step == "inside":
                opt.step()
            return loss.detach()

        def forward(x, target):
            with minitorch.no_grad():
                return loss_fn(model(x), target), model(x)

        return forward if self.caller != "main thread" else step

    def apply_events(self, step: int, model: nn.Module) -> None:
        for event in self.events.get(step, []):
            if event == "eval":
                model.eval()
            elif event == "train":
                model.train()
            else:
                model.get_parameter(event.split()[1]).requires_grad_(False)

    # ----- in words ---------------------------------------------------------------------

    def describe(self) -> str:
        features, width = self.widths
        first = f"Embedding(7, {width})" if self.tokens else f"Linear({features}, {width})"
        n = str(width)
        hidden = [label.replace("n, n", f"{n}, {n}").replace("(n)", f"({n})") for label in self.layers]
        layers = ", ".join([first, *hidden, f"Linear({width}, {self.classes})"])
        lines = [
            f"family {self.family!r}, seed {self.seed}, backend {self.backend!r}, from the {self.caller}"
            + (f" (leaving out {', '.join(self.leave_out)})" if self.leave_out else ""),
            f"  model = nn.Sequential({layers}); loss_fn = nn.{self.loss}(); opt = optim.{self.optimizer}",
            f"  passes = {self.passes if self.passes is not None else DEFAULT_PASSES}",
        ]
        if self.caller != "main thread":
            how = "two threads at once" if self.caller == "threads" else "two CUDA emulator streams in turn"
            lines += ["  model.eval(); f(x, target) = no_grad: loss_fn(model(x), target), model(x)",
                      f"  f compiled, called with batch {self.batch} from {how}"]  # fmt: skip
            return "\n".join(lines)
        zero = f"opt.zero_grad(set_to_none={self.set_to_none})"
        value = ", value" if self.number != "none" else ""
        body = [zero] if self.zero_grad == "inside" else []
        body += ["for g in opt.param_groups: g['lr'] = value"] if self.number == "changing lr" else []
        body += ["loss = loss_fn(model(x), target)" + (" * value" if self.number.endswith("scale") else "")]
        body += ["loss.backward()"] + (["opt.step()"] if self.step == "inside" else [])
        body += ["return loss.detach()"]
        loop = ([zero] if self.zero_grad == "outside" else []) + [f"step(x, target{value})"]
        loop += ["opt.step()"] if self.step == "outside" else []
        values = {"fixed scale": "value = 0.5", "changing scale": "value = 0.5 + 0.25 * call",
                  "changing lr": "value = 0.02 / (1 + call)"}  # fmt: skip
        each = f"batch {self.batch}" + (f"; {values[self.number]}" if self.number in values else "")
        lines += [f"  step(x, target{value}): " + "; ".join(body),
                  f"  call = 0..{STEPS - 1} ({each}): " + "; ".join(loop)]  # fmt: skip
        for step, events in sorted(self.events.items()):
            lines.append(f"  before call {step}: " + "; ".join(_in_words(e) for e in events))
        return "\n".join(lines)


ACTIVATIONS = {"ReLU()", "Tanh()", "Sigmoid()", "GELU()", "LeakyReLU(0.1)", "SiLU()"}


def _activation_before_batchnorm(layers: list[str]) -> list[str]:
    """A ``Tanh()`` before each ``BatchNorm1d`` that would directly follow an affine layer.

    BatchNorm subtracts each feature's batch mean, so the bias just before it has a true
    gradient of zero, and the one computed is rounding noise. Adam and RMSprop divide by
    its own size, so 1e-9 of noise becomes a step of ``lr``: two runs that differ in the
    last bit of one gradient (numba, see ``_exact``) then differ by 1e-3 in that bias."""
    made, affine = [], True  # the first layer (Linear or Embedding) is affine
    for label in layers:
        if label == "BatchNorm1d(n)" and affine:
            made.append("Tanh()")
        made.append(label)
        if label in ACTIVATIONS:
            affine = False
        elif label != "Dropout(p=0.0)":  # Dropout(p=0) changes nothing
            affine = True
    return made


def _in_words(event: str) -> str:
    if event in ("eval", "train"):
        return f"model.{event}()"
    return f"model.get_parameter({event.split()[1]!r}).requires_grad_(False)"


# ----- running a program twice --------------------------------------------------------------


class Mismatch(AssertionError):
    """The compiled run differs from the eager one (the message says where, and the program)."""


def _numpy(t) -> np.ndarray:
    return t.detach().cpu().numpy() if isinstance(t, minitorch.Tensor) else np.asarray(t)


def _same(got, expected, exact: bool, what: str) -> None:
    if (got is None) != (expected is None):
        raise Mismatch(f"{what}: compiled {'None' if got is None else 'a tensor'}, "
                       f"eager {'None' if expected is None else 'a tensor'}")  # fmt: skip
    if got is None:
        return
    g, e = _numpy(got), _numpy(expected)
    if g.shape != e.shape or g.dtype != e.dtype:
        raise Mismatch(f"{what}: compiled {g.dtype}{list(g.shape)}, eager {e.dtype}{list(e.shape)}")
    if exact:
        close = np.array_equal(g, e, equal_nan=True)
    else:
        close = np.allclose(g, e, rtol=NUMBA_TOLERANCE, atol=NUMBA_TOLERANCE, equal_nan=True)
    if not close:
        worst = float(np.nanmax(np.abs(g.astype(np.float64) - e))) if g.size else 0.0
        raise Mismatch(f"{what}: differs by up to {worst:.3g}"
                       f"{' (bit for bit expected)' if exact else ''}\n    compiled {g.ravel()[:6]}\n"
                       f"    eager    {e.ravel()[:6]}")  # fmt: skip


def compare_training_state(compiled: tuple, eager: tuple, exact: bool, where: str) -> None:
    """Parameters and buffers, requires_grad, ``.grad`` and the optimizer's state."""
    (model, opt, _), (twin, twin_opt, _) = compiled, eager
    expected = twin.state_dict()
    for name, value in model.state_dict().items():
        _same(value, expected[name], exact, f"{where}: {name}")
    twins = dict(twin.named_parameters())
    for name, p in model.named_parameters():
        if p.requires_grad != twins[name].requires_grad:
            raise Mismatch(f"{where}: {name}.requires_grad is {p.requires_grad}, eagerly the opposite")
        _same(p.grad, twins[name].grad, exact, f"{where}: {name}.grad")
        state, twin_state = opt.state.get(p, {}), twin_opt.state.get(twins[name], {})
        if sorted(state) != sorted(twin_state):
            raise Mismatch(f"{where}: optimizer state of {name}: {sorted(state)}, eager {sorted(twin_state)}")
        for key, value in state.items():
            _same(value, twin_state[key], exact, f"{where}: optimizer state[{name}][{key!r}]")


def run(program: TrainingProgram) -> minitorch.compiler.CompiledFunction:
    """Run ``program`` compiled and eagerly, comparing after every call (raises Mismatch)."""
    try:
        with minitorch.backend(program.backend), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "runs eagerly" / "recompiled" notes are fine here
            runner = {"main thread": _run_training, "threads": _run_threads, "streams": _run_streams}
            return runner[program.caller](program)
    except Mismatch as mismatch:
        without = f" {','.join(program.leave_out)}" if program.leave_out else ""
        raise Mismatch(f"{mismatch}\n{program.describe()}\nreproduce: python -m tests.compiler.fuzz_programs "
                       f"{program.family} {program.seed}{without}") from None  # fmt: skip


def _exact(program: TrainingProgram) -> bool:
    """Bit for bit on the reference backend; to ``NUMBA_TOLERANCE`` on numba."""
    return program.backend == "reference"


def _run_training(program: TrainingProgram):
    compiled_side = program.build()
    eager_side = copy.deepcopy(compiled_side)
    compiled = minitorch.compile(program.step_function(*compiled_side), passes=program.passes)
    eager = program.step_function(*eager_side)
    exact = _exact(program)
    for call in range(STEPS):
        for (model, opt, _), run_step in ((compiled_side, compiled), (eager_side, eager)):
            program.apply_events(call, model)
            if program.zero_grad == "outside":
                opt.zero_grad(set_to_none=program.set_to_none)
            loss = run_step(*program.arguments(call))
            if program.step == "outside":
                opt.step()
            if run_step is compiled:
                got = loss
        _same(got, loss, exact, f"call {call}: loss")
        compare_training_state(compiled_side, eager_side, exact, f"after call {call}")
    return compiled


def _forward_pair(program: TrainingProgram, device: str = "cpu"):
    model, _, loss_fn = program.build()
    model.eval().to(device)
    f = program.step_function(model, None, loss_fn)
    return minitorch.compile(f, passes=program.passes), f


def _run_threads(program: TrainingProgram, calls: int = 40):
    compiled, eager = _forward_pair(program)
    inputs = [program.arguments(call) for call in range(2 + 2 * calls)]
    for arguments in inputs[:2]:  # warm-up and capture on this thread
        compiled(*arguments)
    results: dict[int, tuple] = {}
    start = threading.Barrier(2)

    def caller(first: int) -> None:
        start.wait(timeout=30)
        for i in range(first, len(inputs), 2):
            results[i] = compiled(*inputs[i])

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: replays interleave
    try:
        threads = [threading.Thread(target=caller, args=(first,)) for first in (2, 3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads), "a thread did not finish"
    for i in range(2, len(inputs)):
        got, expected = results[i], eager(*inputs[i])
        for label, g, e in zip(("loss", "output"), got, expected):
            _same(g, e, _exact(program), f"call {i} ({'first' if i % 2 == 0 else 'second'} thread): {label}")
    return compiled


def _run_streams(program: TrainingProgram, calls: int = 8):
    from minitorch.backends import cuda

    with cuda.emulated():
        compiled, eager = _forward_pair(program, "cuda")
        inputs = [[t.to("cuda") for t in program.arguments(call)] for call in range(2 + calls)]
        for arguments in inputs[:2]:
            compiled(*arguments)
        streams = [minitorch.cuda.Stream(), minitorch.cuda.Stream()]
        results = []
        for i, arguments in enumerate(inputs[2:]):
            with minitorch.cuda.stream(streams[i % 2]):
                results.append(compiled(*arguments))
        minitorch.cuda.synchronize()
        for i, (got, arguments) in enumerate(zip(results, inputs[2:])):
            for label, g, e in zip(("loss", "output"), got, eager(*arguments)):
                _same(g, e, _exact(program), f"call {i + 2} (stream {i % 2}): {label}")
    return compiled


if __name__ == "__main__":  # python -m tests.compiler.fuzz_programs FAMILY SEED [LEFT,OUT]
    left_out = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else ()
    drawn = TrainingProgram.draw(sys.argv[1], int(sys.argv[2]), left_out)
    print(drawn.describe())
    run(drawn)
    print("compiled and eager agree")
