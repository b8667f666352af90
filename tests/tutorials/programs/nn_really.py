# "What is torch.nn really?": a model written from scratch, then refactored step by
# step with nn.functional, nn.Module, nn.Linear, optim, Dataset/DataLoader and a CNN.
# A small made-up image set stands in for MNIST (no download).
import math

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

n, side = 64, 8
pixels = torch.arange(n * side * side, dtype=torch.float32).reshape(n, side * side)
x_train = (torch.sin(pixels * 0.37) + 1) / 2
y_train = (x_train[:, :8].sum(1) * 7).long() % 10
print(x_train.shape, y_train.min(), y_train.max())

weights = torch.cos(torch.arange(side * side * 10, dtype=torch.float32)).reshape(side * side, 10) / math.sqrt(side * side)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 16
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))
lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
print(F.cross_entropy(xb @ weights + bias, yb))


class MnistLogistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.cos(torch.arange(side * side * 10.0)).reshape(side * side, 10) / math.sqrt(side * side))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = MnistLogistic()
print(F.cross_entropy(model(xb), yb))
print([name for name, _ in model.named_parameters()])


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, side, side)


cnn = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(4, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
with torch.no_grad():
    for i, p in enumerate(cnn.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (i + 1)).reshape(p.shape) / 3)
print(cnn)
train_ds = TensorDataset(x_train, y_train)
train_dl = DataLoader(train_ds, batch_size=bs)
opt = optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    cnn.train()
    for xb, yb in train_dl:
        loss = F.cross_entropy(cnn(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    cnn.eval()
    with torch.no_grad():
        valid_loss = sum(F.cross_entropy(cnn(xb), yb) for xb, yb in train_dl)
    print(epoch, f"{(valid_loss / len(train_dl)).item():.4f}")
print(F.avg_pool2d(x_train[:2].view(2, 1, side, side), 4).shape)
