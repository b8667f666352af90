# Learning PyTorch with examples: fit y = sin(x) with a third-order polynomial, autograd
# computing the gradients and the update written by hand.
import math

import torch

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.tensor(0.1, device=device, dtype=dtype, requires_grad=True)
b = torch.tensor(-0.2, device=device, dtype=dtype, requires_grad=True)
c = torch.tensor(0.3, device=device, dtype=dtype, requires_grad=True)
d = torch.tensor(-0.4, device=device, dtype=dtype, requires_grad=True)

learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
