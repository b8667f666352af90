"""``Module``: how a network keeps track of its weights.

A module is an object whose attributes are its pieces. Assigning an attribute *registers*
it, by its type:

* a ``Parameter`` (a weight to learn) goes into ``self._parameters``;
* another ``Module`` (a layer inside this one) goes into ``self._modules``;
* a tensor passed to ``register_buffer`` (state that is not learned, like BatchNorm's
  running mean) goes into ``self._buffers``.

Everything else follows from those three dictionaries, walked recursively: the
``parameters()`` an optimizer updates, the ``state_dict()`` that is saved (keys are the
attribute path, ``"0.weight"`` or ``"encoder.layers.1.bias"``, exactly as PyTorch names
them), ``train()``/``eval()``, ``to(device)``, and the printed summary::

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(2, 8)      # registered as a submodule
            self.out = nn.Linear(8, 1)

        def forward(self, x):
            return self.out(self.hidden(x).tanh())

    model = MLP()
    [name for name, _ in model.named_parameters()]
    # ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import dtype as DType
from minitorch.dtypes import float32, float64
from minitorch.nn.parameter import Buffer, Parameter
from minitorch.nn.state_dict import IncompatibleKeys, load_state_dict
from minitorch.ops.convert import to as tensor_to


class Module:
    """Base class of every layer and network (PyTorch's ``torch.nn.Module``).

    Subclasses call ``super().__init__()`` first, assign parameters and submodules as
    attributes, and define ``forward``. Call the module itself (``model(x)``), not
    ``forward``: ``__call__`` is where PyTorch runs hooks, and where minitorch would.
    """

    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dictionaries to exist
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # ----- registration ------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() call: call "
                "super().__init__() first in your module's __init__"
            )
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if isinstance(value, Parameter):
            self._forget(name)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (torch.nn.Module or None expected)")  # fmt: skip
            modules[name] = None
        elif isinstance(value, Buffer):
            self._forget(name)
            self.register_buffer(name, value.data, value.persistent)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")  # fmt: skip
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Remove ``name`` from wherever it was registered before (re-assignment)."""
        self.__dict__.pop(name, None)
        self._parameters.pop(name, None)
        self._buffers.pop(name, None)
        self._modules.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: look in the three registries.
        registries = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in registries and name in registries[registry]:
                return registries[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))  # fmt: skip

    def _check_name(self, name: Any, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, a declared but absent one such as ``bias``)."""
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (saved unless not
        ``persistent``; moved by ``to``; never seen by an optimizer)."""
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")  # fmt: skip
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a submodule under ``name`` (what assigning an attribute does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        self.__dict__.pop(name, None)
        self._modules[name] = module

    register_module = add_module

    # ----- walking the tree ----------------------------------------------------------

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:  # fmt: skip
        """This module and every module inside it, depth first, with dotted names."""
        if memo is None:
            memo = set()
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules (one level down)."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:  # fmt: skip
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        if not recurse:
            modules = iter([(prefix, self)])
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:  # fmt: skip
        """``(name, parameter)`` pairs; a parameter shared by two layers comes once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, for an optimizer: ``optim.SGD(model.parameters(), lr=0.1)``."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:  # fmt: skip
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        """The module at a dotted path, e.g. ``model.get_submodule("encoder.0")``."""
        module = self
        for item in target.split(".") if target else []:
            if item not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"{type(module).__name__} has no parameter `{name}`")
        return module._parameters[name]

    # ----- modes and bulk changes -----------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Training mode (Dropout drops, BatchNorm uses batch statistics). Recursive."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (``None``, or zeros in place)."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                with no_grad():
                    param.grad = param.grad.detach()
                    param.grad.zero_()

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule (children first) and on this module, e.g. to
        initialise weights: ``model.apply(init_weights)``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, convert: Callable[[Tensor], Tensor]) -> Module:
        """Replace every parameter's and buffer's data by ``convert(data)`` (in place, so
        the Parameter objects an optimizer holds stay the same objects)."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                with no_grad():
                    param.data = convert(param.detach())
                if param.grad is not None:
                    param.grad = convert(param.grad.detach())
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[name] = convert(buffer)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move (``to("cuda")``) and/or convert (``to(minitorch.float64)``) every parameter
        and buffer. Integer buffers keep their dtype; only floating ones are converted."""
        def convert(t: Tensor) -> Tensor:
            moved = tensor_to(t, *[a for a in args if not _is_dtype(a)],
                              **{k: v for k, v in kwargs.items() if k != "dtype"})  # fmt: skip
            dtype = kwargs.get("dtype") or next((a for a in args if _is_dtype(a)), None)
            if dtype is not None and moved.dtype.is_floating_point:
                moved = tensor_to(moved, dtype)
            return moved

        return self._apply(convert)

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Module:
        return self.to("cuda" if device is None else device)

    def float(self) -> Module:  # noqa: A003 (PyTorch's name)
        return self.to(float32)

    def double(self) -> Module:
        return self.to(float64)

    # ----- state dict ---------------------------------------------------------------

    def state_dict(self, *, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:  # fmt: skip
        """Every parameter and persistent buffer by its dotted name (PyTorch's keys), as
        detached tensors sharing memory with the module (``keep_vars=True``: the
        parameters themselves)."""
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)  # fmt: skip
        return destination

    def load_state_dict(self, state_dict: Any, strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:  # fmt: skip
        """Copy tensors from ``state_dict`` into this module's parameters and buffers,
        after checking all of it (``minitorch/nn/state_dict.py`` says how)."""
        return load_state_dict(self, state_dict, strict, assign)

    # ----- printing -------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's line (override it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            text = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        if not self._modules and len(lines) <= 1:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _is_dtype(value: Any) -> bool:
    return isinstance(value, DType)
