# Datasets, DataLoaders and the optimization loop, on a small made-up dataset.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

features = torch.linspace(-2, 2, 64 * 2).reshape(64, 2)
labels = (features[:, 0] * features[:, 1] > 0).long()
dataset = TensorDataset(features, labels)
print(len(dataset), dataset[3])
loader = DataLoader(dataset, batch_size=16, shuffle=False)
for batch, (X, y) in enumerate(loader):
    print(batch, X.shape, y.shape, y.dtype)

model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        param.copy_(torch.cos(torch.arange(param.numel(), dtype=torch.float32) + i).reshape(param.shape) / 2)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * 16 + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(3):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(loader, model, loss_fn, optimizer)
    test_loop(loader, model, loss_fn)
print("Done!")
