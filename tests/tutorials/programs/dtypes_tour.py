# Dtypes beyond float32 and int64: small integers and half precision.
import torch

for dtype in (torch.int8, torch.int16, torch.uint8, torch.float16, torch.bfloat16, torch.half, torch.short):
    t = torch.tensor([1, 2, 100], dtype=dtype)
    print(dtype, t, t.dtype, t.element_size())

print(torch.tensor([250], dtype=torch.uint8) + 10)
print(torch.tensor([1.0, 2.5], dtype=torch.float16) * 3)
print(torch.tensor([1.0, 2.5], dtype=torch.bfloat16) + torch.tensor([1.0, 2.0]))
print(torch.tensor([1, 2], dtype=torch.int8) + torch.tensor([1, 2], dtype=torch.uint8))
print(torch.promote_types(torch.int8, torch.uint8), torch.promote_types(torch.float16, torch.bfloat16))
print(torch.tensor([1, 2, 3], dtype=torch.int8).sum().dtype)
x = torch.tensor([0.1, 0.2, 0.3])
print(x.half(), x.bfloat16(), x.to(torch.int16), x.byte(), x.char(), x.short())
print(torch.tensor([1.0, 2.0]).type(torch.int8))
print(torch.tensor([1, 2]).type(torch.FloatTensor))
