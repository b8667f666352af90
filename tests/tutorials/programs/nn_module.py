# Build the neural network: an nn.Module subclass, its parameters, and a prediction.
import torch
from torch import nn


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4 * 4, 8),
            nn.ReLU(),
            nn.Linear(8, 8),
            nn.ReLU(),
            nn.Linear(8, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        param.copy_(torch.linspace(-0.5, 0.5, param.numel()).reshape(param.shape) * (i + 1) / 3)
print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")

X = torch.linspace(0, 1, 2 * 16).reshape(2, 4, 4)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(logits)
print(pred_probab)

input_image = torch.linspace(0, 1, 3 * 28 * 28).reshape(3, 28, 28)
flat_image = nn.Flatten()(input_image)
print(flat_image.size())
layer1 = nn.Linear(in_features=28 * 28, out_features=20)
nn.init.constant_(layer1.weight, 0.01)
nn.init.zeros_(layer1.bias)
hidden1 = layer1(flat_image)
print(hidden1.size())
print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1 - 3.0)
print(f"After ReLU: {hidden1}")
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
loss = nn.CrossEntropyLoss()(logits, torch.tensor([0, 2]))
print(loss, loss.grad_fn.name())
print(nn.functional.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0))
