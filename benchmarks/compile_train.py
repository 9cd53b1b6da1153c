"""A torch.compile CPU training loop profiled with stacks, for a real capture of
`python_function` events and long Python frame names.

`python benchmarks/compile_train.py OUT.json STEPS` compiles a 12-block MLP,
warms it up for 3 steps, then profiles STEPS steps with `with_stack=True` and
`record_shapes=True`: 200 steps make a 310 MB trace of 889k events, 499k of
them `python_function` (about 6 minutes on 2 cores).
"""

from __future__ import annotations

import sys

import torch
from torch import nn


def main() -> None:
    """Capture `sys.argv[2]` steps into `sys.argv[1]`."""
    output, steps = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    model = nn.Sequential(
        *[
            nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.LayerNorm(256))
            for _ in range(12)
        ],
        nn.Linear(256, 10),
    )
    optimizer = torch.optim.AdamW(model.parameters())
    compiled = torch.compile(model)
    inputs, labels = torch.randn(64, 256), torch.randint(0, 10, (64,))

    def step() -> None:
        optimizer.zero_grad()
        nn.functional.cross_entropy(compiled(inputs), labels).backward()
        optimizer.step()

    for _ in range(3):
        step()
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        with_stack=True,
        record_shapes=True,
    ) as profiler:
        for _ in range(steps):
            step()
            profiler.step()
    profiler.export_chrome_trace(output)


if __name__ == "__main__":
    main()
