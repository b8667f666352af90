# Automatic differentiation: requires_grad, grad_fn, backward, no_grad.
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.linspace(-1, 1, 15).reshape(5, 3).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {type(z.grad_fn).__name__}")
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)

x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
y = (x * 2).sin().sum()
print(y)
print(y.grad_fn.name())
print(y.grad_fn.next_functions[0][0].name())
y.backward()
print(x.grad)

c = x.clone()
print(c.grad_fn.name(), x[1:].grad_fn.name(), x[0].grad_fn.name())
model = torch.nn.Linear(3, 2)
out = model(torch.ones(4, 3))
print(out.grad_fn.name())
print(torch.nn.functional.mse_loss(out, torch.zeros(4, 2)).grad_fn.name())

try:
    x.grad = 0.0
except TypeError:
    print("TypeError")
