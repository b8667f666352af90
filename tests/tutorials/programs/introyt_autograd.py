# The introyt autograd chapter: a sine curve's graph, its grad_fn chain, and gradients.
import math

import torch

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)
b = torch.sin(a)
print(b)
c = 2 * b
print(c)
d = c + 1
print(d)
out = d.sum()
print(f"{out.item():.4f}", out.grad_fn.name())  # (a float32 sum's last bit depends on the order of additions)
print('d:')
print(d.grad_fn.name())
print([(f.name() if f is not None else None, i) for f, i in d.grad_fn.next_functions])
print([(f.name() if f is not None else None, i) for f, i in d.grad_fn.next_functions[0][0].next_functions])
print('\nc:')
print(c.grad_fn.name())
print('\nb:')
print(b.grad_fn.name())
print('\na:')
print(a.grad_fn)
out.backward()
print(a.grad)

x = torch.ones(2, 2) * torch.tensor([[1.0, 2.0], [3.0, 4.0]])
x.requires_grad = True
y = x.pow(2).mean()
print(y, y.requires_grad, x.is_leaf, y.is_leaf)
y.backward()
print(x.grad)
with torch.no_grad():
    z = x * 2
print(z.requires_grad, (x * 2).detach().requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
print((x * 2).requires_grad)
t = torch.rand(3, requires_grad=True)
print(t.requires_grad, t.detach().requires_grad, t.clone().grad_fn.name())
