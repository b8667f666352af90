"""Reference solutions for exercises/11_distributed_training.ipynb."""


# %% exercise=ring_bytes
def ring_bytes(world_size, nbytes):
    return 2 * (world_size - 1) * nbytes / world_size


# %% exercise=bubble
def bubble(num_stages, n_microbatches):
    return (num_stages - 1) / (n_microbatches + num_stages - 1)


# %% exercise=staleness
def staleness(arrivals):
    version = 0
    pulled = {}
    result = []
    for worker in arrivals:
        result.append(version - pulled.get(worker, 0))
        version += 1
        pulled[worker] = version
    return result
