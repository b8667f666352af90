"""Randomized graphs (issue 3, item 9): seeded random programs built from a pool of
tensors -- elementwise ops, broadcasting binary ops, views, reductions, matmul, fan-out
(pool entries are reused), and in-place ops on fresh intermediates that nothing saved
(also through views and ``__setitem__``). The same program runs in minitorch and in
PyTorch; every intermediate value and every leaf gradient must agree.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from helpers import assert_close

import minitorch as mt

SHAPES = [(3, 4), (4,), (3, 1), (), (1, 4), (2, 3, 4), (4, 3)]

UNARY = {
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "sin": lambda x: x.sin(),
    "exp(tanh)": lambda x: x.tanh().exp(),
    "square": lambda x: x * x,
    "log(x^2+1)": lambda x: (x * x + 1).log(),
    "sqrt(x^2+1)": lambda x: (x * x + 1).sqrt(),
    "relu": lambda x: x.relu(),
    "neg": lambda x: -x,
    "affine": lambda x: x * 0.5 + 1,
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "abs": lambda x: x.abs(),
    "pow3": lambda x: x**3,
    "rpow": lambda x: 2**x,
    "softmax": lambda x: x.softmax(-1),
    "log_softmax": lambda x: x.log_softmax(0),
}

BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / (b * b + 1),
    "maximum": lambda a, b: a.maximum(b),
    "where": lambda a, b: (a > b).float().double() * a + (a <= b).double() * b,
    "where()": lambda a, b: a.where(a > b, b),
}


def view_ops(rng: random.Random, shape: tuple) -> list:
    ndim = len(shape)
    ops = [("unsqueeze(0)", lambda x: x.unsqueeze(0)), ("reshape(-1)", lambda x: x.reshape(-1))]
    if ndim >= 1:
        ops += [
            ("[::2]", lambda x: x[::2]),
            ("[1:]", lambda x: x[1:]),
            ("[-1]", lambda x: x[-1]),
            ("[..., None]", lambda x: x[..., None]),
            ("flip(0)", lambda x: x.flip(0)),
            ("[[0, -1, 0]]", lambda x: x[[0, -1, 0]]),
        ]
    if ndim >= 2:
        perm = list(range(ndim))
        rng.shuffle(perm)
        ops += [
            (f"permute{tuple(perm)}", lambda x: x.permute(*perm)),
            ("transpose(0, -1)", lambda x: x.transpose(0, -1)),
            ("flatten()", lambda x: x.flatten()),
            ("[:, 1:3]", lambda x: x[:, 1:3]),
            ("narrow(1, 0, 2)", lambda x: x.narrow(1, 0, 2)),
            ("unbind(1)[0]", lambda x: x.unbind(1)[0]),
            ("split(1)[-1]", lambda x: x.split(1)[-1]),
        ]
    if ndim == 2:
        ops += [("t()", lambda x: x.t()), ("view(-1)", lambda x: x.contiguous().view(-1))]
    if 1 in shape:
        target = tuple(3 if s == 1 else s for s in shape)
        ops += [(f"expand{target}", lambda x: x.expand(*target))]
    if ndim >= 1 and shape and shape[-1] > 1:
        ops += [("as_strided", lambda x: x.contiguous().as_strided((2, 2), (1, 1)))]
    return ops


def reduce_ops(rng: random.Random, shape: tuple) -> list:
    ops = [("sum()", lambda x: x.sum()), ("mean()", lambda x: x.mean())]
    if shape:
        d = rng.randrange(-len(shape), len(shape))
        keep = rng.random() < 0.5
        ops += [
            (f"sum({d}, {keep})", lambda x: x.sum(d, keepdim=keep)),
            (f"mean({d})", lambda x: x.mean(d)),
            (f"max({d}).values", lambda x: x.max(d)[0]),
            (f"min({d}, {keep})[0]", lambda x: x.min(d, keep)[0]),
            (f"logsumexp({d})", lambda x: x.logsumexp(d)),
            (f"prod({d})", lambda x: x.prod(d)),
            ("max()", lambda x: x.max()),
        ]
        if shape[d] > 1:
            ops += [(f"var({d})", lambda x: x.var(d)), (f"std({d})", lambda x: x.std(d))]
    return ops


class Program:
    """Applies the same random step to both libraries, recording what it did."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.steps: list[str] = []
        self.pool: list[tuple] = []  # (minitorch tensor, torch tensor)
        self.leaves: list[tuple] = []
        for _ in range(3):
            shape = self.rng.choice(SHAPES)
            data = self.np_rng.uniform(-1, 1, shape)
            m = mt.tensor(data, dtype=mt.float64, requires_grad=True)
            t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
            self.leaves.append((m, t))
            self.pool.append((m, t))
            self.steps.append(f"leaf{len(self.leaves) - 1} {shape}")

    def where(self) -> str:
        return " ; ".join(self.steps)

    def pick(self) -> tuple[int, tuple]:
        k = self.rng.randrange(len(self.pool))
        return k, self.pool[k]

    def apply(self, name: str, fn, *pairs) -> None:
        try:
            t_out = fn(*(p[1] for p in pairs))
        except (RuntimeError, IndexError, ValueError):
            return  # invalid in torch too (shapes): not a step
        self.steps.append(name)
        m_out = fn(*(p[0] for p in pairs))
        assert_close(m_out, t_out, msg=self.where())
        self.pool.append((m_out, t_out))

    def step(self) -> None:
        kind = self.rng.choice(
            ["unary", "binary", "binary", "view", "view", "reduce", "matmul", "inplace",
             "setitem"]
        )
        k, (m, t) = self.pick()
        shape = tuple(t.shape)
        if kind == "unary":
            name = self.rng.choice(list(UNARY))
            if name in ("softmax", "log_softmax") and not shape:
                return
            self.apply(f"{name}(p{k})", UNARY[name], (m, t))
        elif kind == "binary":
            j, other = self.pick()
            name = self.rng.choice(list(BINARY))
            self.apply(f"p{k} {name} p{j}", BINARY[name], (m, t), other)
        elif kind == "view":
            name, fn = self.rng.choice(view_ops(self.rng, shape))
            self.apply(f"p{k}.{name}", fn, (m, t))
        elif kind == "reduce":
            name, fn = self.rng.choice(reduce_ops(self.rng, shape))
            self.apply(f"p{k}.{name}", fn, (m, t))
        elif kind == "matmul":
            j, other = self.pick()
            self.apply(f"p{k} @ p{j}", lambda a, b: a @ b, (m, t), other)
        elif kind == "inplace":
            j, other = self.pick()
            op = self.rng.choice(["add_", "mul_", "sub_", "div_", "clamp_", "mul_scalar"])

            def fn(a, b, op=op):
                fresh = a * 1.0  # a new intermediate nothing has saved
                if op == "clamp_":
                    fresh.clamp_(-0.3, 0.3)
                elif op == "mul_scalar":
                    fresh.mul_(-2.0)
                elif op == "div_":
                    fresh.div_(b * b + 1)
                else:
                    getattr(fresh, op)(b)
                return fresh

            self.apply(f"(p{k}*1).{op}(p{j})", fn, (m, t), other)
        elif kind == "setitem" and shape:
            j, other = self.pick()
            index = self.rng.choice([0, -1, slice(None, None, 2), (Ellipsis, 0)])

            def fn(a, b, index=index):
                fresh = a + 0.0
                fresh[index] = b.sum() * 0.5 + a[index] * 2
                view = fresh[index]
                if view.dim() > 0:
                    view.mul_(1.5)  # in place through a view
                return fresh

            self.apply(f"p{k}[{index}] = f(p{j})", fn, (m, t), other)

    def check_gradients(self) -> None:
        total_m = total_t = None
        for m, t in self.pool:
            if not t.requires_grad:
                continue
            w = self.np_rng.standard_normal(tuple(t.shape))
            term_m = (m * mt.tensor(w, dtype=mt.float64)).sum()
            term_t = (t * torch.tensor(w, dtype=torch.float64)).sum()
            total_m = term_m if total_m is None else total_m + term_m
            total_t = term_t if total_t is None else total_t + term_t
        total_t.backward()
        total_m.backward()
        for i, (m, t) in enumerate(self.leaves):
            assert m.grad is not None, f"leaf{i} got no grad: {self.where()}"
            assert_close(m.grad, t.grad, msg=f"grad of leaf{i}: {self.where()}")


@pytest.mark.parametrize("seed", range(40))
def test_random_program_values_and_gradients_match_torch(seed):
    program = Program(seed)
    for _ in range(20):
        program.step()
    program.check_gradients()
