"""``Optimizer``: the base class of every optimizer (``SGD``, ``Adam``, ``Adagrad``...).

An optimizer holds

* ``param_groups``: a list of dicts, each with ``"params"`` (a list of parameters) and
  that group's hyperparameters (``lr``, ``momentum``...). One group is the usual case;
  several let parts of a model train with different settings::

      optim.SGD([{"params": model.base.parameters()},
                 {"params": model.head.parameters(), "lr": 1e-3}], lr=1e-2, momentum=0.9)

* ``state``: per parameter, what the method remembers between steps (momentum buffers,
  Adam's moment estimates), keyed by the parameter itself.

``step()`` changes the parameters *in place* under ``no_grad()`` (the update is not part
of the model's computation), so the ``Parameter`` objects a model holds stay the same.

``foreach`` (a hyperparameter of every group, as in PyTorch) picks how: ``None`` (the
default) or ``True`` update all of a group's parameters in one fused kernel call where
the kernel exists (float32 and float64 tensors on the ``numba`` and ``reference``
backends), and one parameter at a time elsewhere; ``False`` always loops over the
parameters, which is the readable code in each optimizer's file. Both compute the same
numbers, rounded alike.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from copy import deepcopy
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import enable_grad, no_grad
from minitorch.ops.optimizer_step import can_fuse


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_type_name(params)}"
            )
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters; missing hyperparameters take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use "
                            "a list instead.")  # fmt: skip
        else:
            params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{_type_name(param)}")  # fmt: skip
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {"params": params}
        for name, default in self.defaults.items():
            if name in param_group:
                group[name] = param_group[name]
            elif default is required:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")  # fmt: skip
            else:
                group[name] = default
        for name, value in param_group.items():
            group.setdefault(name, value)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error", UserWarning, stacklevel=3)  # fmt: skip
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: to ``None`` by default, as PyTorch does since
        2.0 (the next backward then stores its gradient without adding, and nothing runs
        now). With ``set_to_none=False`` each gradient is zeroed in place, so it stays the
        same tensor object (cut from any graph first, as PyTorch does)."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                with no_grad():
                    grad.zero_()

    # True for an optimizer with a fused step (``_fused_step``: one kernel call per group)
    has_fused_step = False

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient: per group, one fused kernel
        call when it can (``_fused_step``), else the subclass's readable recipe for one
        parameter (``_update``), parameter by parameter."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                params = [param for param in group["params"] if param.grad is not None]
                if self._use_fused(group, params):
                    self._fused_step(params, group)
                    continue
                for param in params:
                    self._update(param, group)
        return loss

    def _update(self, param: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _fused_step(self, params: list[Tensor], group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _use_fused(self, group: dict[str, Any], params: list[Tensor]) -> bool:
        """Whether ``params`` (a group's parameters that have gradients) take the fused
        step: unless the group says ``foreach=False``, when the kernel can update them."""
        return (self.has_fused_step and group.get("foreach") is not False and len(params) > 0
                and can_fuse(params))  # fmt: skip

    @staticmethod
    def _count_step(state: dict[str, Any]) -> Tensor:
        """Count one more step in ``state["step"]`` and return the count as a float64 0-d
        tensor. The count is a 0-d tensor added to in place, as PyTorch keeps it, so a
        compiled step's replay counts too; the factors that depend on it (bias
        corrections, decaying step sizes) are then tensor ops in double precision: the
        numbers PyTorch works out in Python floats, recomputed on every replay."""
        state["step"].add_(1)
        return state["step"].double()

    def _evaluate(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ----- saving and restoring --------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [...]}`` with parameters replaced by
        their position (0, 1, 2, ... across groups), PyTorch's layout."""
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            indices = []
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
                indices.append(index_of[id(param)])
            packed["params"] = indices
            groups.append(packed)
        state = {index_of[id(param)]: dict(values) for param, values in self.state.items()
                 if id(param) in index_of}  # fmt: skip
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned (for the same parameters, in the same
        order). Checked first: a mismatch raises and changes nothing."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for saved, group in zip(groups, self.param_groups):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")  # fmt: skip
        by_index = {}
        for saved, group in zip(groups, self.param_groups):
            for index, param in zip(saved["params"], group["params"]):
                by_index[index] = param
        new_state: dict[Tensor, dict[str, Any]] = {}
        for index, values in state_dict["state"].items():
            param = by_index.get(int(index))
            if param is None:
                continue
            restored = {}
            for key, value in values.items():
                if isinstance(value, Tensor):
                    if value.dim() > 0 and tuple(value.shape) != tuple(param.shape):
                        raise ValueError(f"state {key!r} of parameter {index} has shape "
                                         f"{list(value.shape)}, expected {list(param.shape)}")  # fmt: skip
                    value = value.detach().to(param.device).clone()
                    if key != "step" and value.dtype.is_floating_point:
                        value = value.to(param.dtype)
                restored[key] = value
            new_state[param] = restored
        self.state = new_state
        for saved, group in zip(groups, self.param_groups):
            for key, value in saved.items():
                if key != "params":
                    group[key] = deepcopy(value)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _type_name(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"minitorch.{value.dtype.name} Tensor"
    return type(value).__name__
