# Learning PyTorch with examples: the same fit with nn.Sequential, a loss module and
# optimizers (plain SGD steps by hand, then torch.optim.SGD and RMSprop).
import math

import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)

def make_model():
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[0.5, -0.25, 0.125]]))
        model[0].bias.fill_(0.1)
    return model

model = make_model()
print(model)
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(2000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 200 == 199:
        print(t, f"{loss.item():.2f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')

for make_optimizer in (lambda params: torch.optim.SGD(params, lr=1e-6, momentum=0.9),
                       lambda params: torch.optim.RMSprop(params, lr=1e-3)):
    model = make_model()
    optimizer = make_optimizer(model.parameters())
    for t in range(500):
        loss = loss_fn(model(xx), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(type(optimizer).__name__, f"{loss.item():.2f}")
