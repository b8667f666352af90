# A tour of the ops tutorials reach for: trigonometry, scans, sorting, linear algebra.
import torch

x = torch.linspace(-0.9, 0.9, 7)
print(torch.asin(x), torch.acos(x), torch.atan(x), sep="\n")
print(torch.sinh(x), torch.cosh(x), torch.atan2(x, x.flip(0)), sep="\n")

a = torch.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]])
print(torch.cumsum(a, dim=1), a.cumprod(0), sep="\n")
values, indices = torch.sort(a, dim=1, descending=True)
print(values, indices, sep="\n")
print(torch.argsort(a[0]), torch.topk(a.flatten(), 3))
print(torch.unique(torch.tensor([3, 1, 3, 2, 1]), return_inverse=True, return_counts=True))

m = torch.arange(1.0, 10.0).reshape(3, 3)
print(torch.tril(m), torch.triu(m, diagonal=1), torch.diag(m), torch.diag(torch.tensor([1, 2])), sep="\n")
gx, gy = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
print(gx, gy, sep="\n")
print(torch.cross(torch.tensor([[1.0, 0.0, 0.0]]), torch.tensor([[0.0, 1.0, 0.0]]), dim=1))
print(torch.einsum("ij,jk->ik", m, m))
print(torch.einsum("ii", m), torch.einsum("i,j->ij", m[0], m[1]))
print(torch.allclose(m, m + 1e-9), torch.isclose(m, m.t()))
print(torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), nan=0.0, posinf=9.0))

A = torch.tensor([[4.0, 1.0], [2.0, 3.0]], dtype=torch.float64)
B = torch.tensor([[1.0], [2.0]], dtype=torch.float64)
print(torch.linalg.solve(A, B))
print(torch.linalg.norm(A), torch.linalg.norm(A[0]), torch.linalg.norm(A, ord=1))
print(torch.linalg.svdvals(A))
print(torch.linalg.det(A), torch.linalg.inv(A))

shifts = torch.tensor([1, 2, 3])
print(shifts << 2, shifts >> 1, torch.bitwise_left_shift(shifts, 1))
