# Defining new autograd functions: a Legendre polynomial with its own backward.
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 250 == 249:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        for param in (a, b, c, d):
            param -= learning_rate * param.grad
            param.grad = None
print(f'Result: y = {a.item():.3f} + {b.item():.3f} * P3({c.item():.3f} + {d.item():.3f} x)')
print(y_pred.grad_fn.name(), LegendrePolynomial3.apply(x[:3]).grad_fn is None)
