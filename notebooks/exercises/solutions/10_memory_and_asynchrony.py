"""Reference solutions for exercises/10_memory_and_asynchrony.ipynb."""

import minitorch
from minitorch.utils.data import get_worker_info


# %% exercise=block_bytes
def block_bytes(shape, dtype):
    elements = 1
    for size in shape:
        elements *= size
    requested = elements * dtype.itemsize
    return -(-requested // 512) * 512


# %% exercise=predicted_bytes
def predicted_bytes():
    return {
        "x = minitorch.randn(100, 30)": 12288,   # 12,000 B rounded up
        "xt = x.t()": 0,
        "row = x[0]": 0,
        "v = x.view(30, 100)": 0,
        "c = xt.contiguous()": 12288,
        "r = xt.reshape(-1)": 12288,
        "d = x.double()": 24064,                 # 24,000 B rounded up
        "i = x.argmax(1)": 1024,                 # 800 B rounded up
        "m = x @ xt": 40448,                     # 40,000 B rounded up
        "s = (x + x).sum()": 512,
    }


# %% exercise=split_range
def split_range(worker_id):
    info = get_worker_info()
    dataset = info.dataset
    start, end = dataset.start, dataset.end
    share = -(-(end - start) // info.num_workers)  # ceil: the last share may be shorter
    dataset.start = min(end, start + worker_id * share)
    dataset.end = min(end, dataset.start + share)


# %% exercise=produce_and_consume
def produce_and_consume(x, producer, consumer):
    with minitorch.cuda.stream(producer):
        y = x * 2
    consumer.wait_stream(producer)
    with minitorch.cuda.stream(consumer):
        z = y + 1
    return z
