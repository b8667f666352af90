"""Run under ``mpiexec -n 3`` (one server, two workers): train a small regression model
through ``ParameterServer`` and print, on the server, what a one-process replay says.

``sync``: each update must equal one process's SGD step on the two workers' batches
concatenated (the mean of their mean-loss gradients). ``async``: the server logs which
worker's gradient it applied, computed from which version; replaying that log in one
process (each gradient taken at the parameters of the version it was pulled at) must
give the server's final parameters. Prints one JSON line per rank."""

import json
import sys

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.parameter_server import ParameterServer

mode = sys.argv[1]
steps = 4
dist.init_process_group("mpi")
rank = dist.get_rank()
workers = dist.get_world_size() - 1


def model_of(seed: int = 0) -> nn.Module:
    minitorch.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2))


def batch(worker: int, step: int):
    minitorch.manual_seed(1000 * worker + step)
    return minitorch.randn(8, 5), minitorch.randn(8, 2)


def loss_of(model, x, y):
    return nn.functional.mse_loss(model(x), y)


model = model_of(seed=rank)  # different on purpose: construction must copy the server's
ps = ParameterServer(model, lambda params: minitorch.optim.SGD(params, lr=0.2), mode=mode)
if ps.is_server:
    history = ps.serve()
    oracle = model_of(seed=0)
    if mode == "sync":
        optimizer = minitorch.optim.SGD(oracle.parameters(), lr=0.2)
        for step in range(steps):
            xs, ys = zip(*(batch(w, step) for w in range(1, workers + 1)))
            optimizer.zero_grad()
            loss_of(oracle, minitorch.cat(xs), minitorch.cat(ys)).backward()
            optimizer.step()
    else:
        versions = [[p.detach().clone() for p in oracle.parameters()]]
        steps_done = {w: 0 for w in range(1, workers + 1)}
        for entry in history:
            at_pull = model_of(seed=0)
            with minitorch.no_grad():
                for p, value in zip(at_pull.parameters(), versions[entry["pulled_version"]]):
                    p.copy_(value)
            x, y = batch(entry["worker"], steps_done[entry["worker"]])
            steps_done[entry["worker"]] += 1
            loss_of(at_pull, x, y).backward()
            versions.append([v - 0.2 * p.grad for v, p in zip(versions[-1], at_pull.parameters())])
        with minitorch.no_grad():
            for p, value in zip(oracle.parameters(), versions[-1]):
                p.copy_(value)
    diff = max(float((p - q).abs().max()) for p, q in zip(model.parameters(), oracle.parameters()))
    print(json.dumps({"rank": rank, "updates": len(history), "version": ps.version,
                      "staleness": ps.staleness(), "max_param_diff": diff,
                      "timeline_kinds": sorted({e["kind"] for e in ps.timeline})}))
else:
    for step in range(steps):
        x, y = batch(rank, step)
        loss_of(model, x, y).backward()
        ps.push()
        ps.pull()
    ps.finish()
    print(json.dumps({"rank": rank, "version": ps.version}))
dist.destroy_process_group()
