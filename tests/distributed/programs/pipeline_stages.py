"""Run under ``mpiexec -n 2`` or ``-n 3``: a 4-layer MLP split across the ranks as a GPipe pipeline,
compared with one process training the whole model on the whole batch, once for each
number of micro-batches given on the command line.

Every rank builds the same full model from one seed (so it can also be the one-process
oracle), keeps its own half as its stage, and checks after each of three SGD steps that
its stage's parameters equal the oracle's (printed as one JSON line per rank)."""

import json
import sys

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.pipelining import PipelineStage, ScheduleGPipe, bubble_fraction

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
CUTS = {2: [0, 3, 7], 3: [0, 2, 5, 7]}  # 3 stages: a middle one receives and sends both ways


def full_model() -> nn.Sequential:
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8),
                         nn.Tanh(), nn.Linear(8, 3))


def run(micro: int) -> None:
    oracle = full_model()
    mine = full_model()
    cut = CUTS[world]  # stage k holds layers cut[k]:cut[k + 1]
    part = nn.Sequential(*list(mine)[cut[rank]:cut[rank + 1]])
    oracle_part = nn.Sequential(*list(oracle)[cut[rank]:cut[rank + 1]])
    stage = PipelineStage(part, stage_index=rank, num_stages=world)
    schedule = ScheduleGPipe(stage, n_microbatches=micro, loss_fn=nn.functional.mse_loss)
    optimizer = minitorch.optim.SGD(part.parameters(), lr=0.1)
    oracle_optimizer = minitorch.optim.SGD(oracle.parameters(), lr=0.1)

    worst, worst_loss = 0.0, 0.0
    for step in range(3):
        minitorch.manual_seed(100 + step)
        x, y = minitorch.randn(12, 6).t().contiguous().t(), minitorch.randn(12, 3)  # a non-contiguous input
        oracle_out = oracle(x)
        oracle_loss = nn.functional.mse_loss(oracle_out, y)
        oracle_optimizer.zero_grad()
        oracle_loss.backward()
        oracle_optimizer.step()
        optimizer.zero_grad()
        if rank == 0:
            schedule.step(x)
        elif rank < world - 1:
            assert schedule.step() is None  # a middle stage: activations in and out
        else:
            losses = []
            out = schedule.step(target=y, losses=losses)
            worst_loss = max(worst_loss, abs(float(sum(losses) / micro) - oracle_loss.item()))
            worst = max(worst, float((out - oracle_out.detach()).abs().max()))
        optimizer.step()
        for p, q in zip(part.parameters(), oracle_part.parameters()):
            worst = max(worst, float((p - q).abs().max()))

    print(json.dumps({"rank": rank, "micro": micro, "max_param_diff": worst, "max_loss_diff": worst_loss,
                      "bubble": schedule.measured_bubble(), "theory": bubble_fraction(world, micro),
                      "kinds": sorted({e["kind"] for e in schedule.timeline}),
                      "events": len(schedule.timeline)}))


for micro in (int(m) for m in sys.argv[1:] or ["4"]):
    run(micro)
dist.destroy_process_group()
