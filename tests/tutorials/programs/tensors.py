# Tensors: making them, their attributes, operations, and the bridge to NumPy.
import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(x_np)

x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_float = torch.zeros_like(x_data, dtype=torch.float)
print(f"Zeros Tensor: \n {x_float} \n")

shape = (2, 3,)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")

tensor = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
tensor = tensor.to(device)

print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)

t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print(y1, y2, y3, sep="\n")

z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z3)

agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))

print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")

n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")

print(torch.tensor([1e-5, 1.0, 1e5]))
print(torch.tensor([[0.001, 123456.0], [-7.25, 1e-9]]))
print(torch.tensor([1.5, float("nan"), float("inf"), -0.0]))
print(torch.arange(2000).reshape(2, 1000))
print(torch.linspace(-1, 1, 7, dtype=torch.float64))
print(torch.tensor(3.25), torch.tensor([], dtype=torch.int64), torch.zeros(0, 3))
print(torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int32))
print(x_data.type(), tensor.type(), torch.Tensor([1, 2]).type())
print(torch.Tensor([[1, 2], [3, 4]]), torch.FloatTensor([0.5]), torch.LongTensor([3, 4]))
print(torch.Tensor(2, 3).shape)
