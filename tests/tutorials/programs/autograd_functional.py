# torch.autograd.functional: Jacobians, Hessians and their products, from one function.
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp


def f(x):
    return torch.stack([x[0] * x[1], x[1].sin(), x.pow(2).sum()])


def scalar(x):
    return (x.pow(3) * torch.tensor([1.0, 2.0])).sum()


x = torch.tensor([0.5, 1.5])
print(jacobian(f, x))
print(hessian(scalar, x))
print(vjp(f, x, torch.tensor([1.0, 0.0, 2.0])))
print(jvp(f, x, torch.tensor([1.0, -1.0])))
print(hvp(scalar, x, torch.tensor([1.0, 1.0])))
print(jacobian(lambda a, b: a * b, (x, x.flip(0))))
