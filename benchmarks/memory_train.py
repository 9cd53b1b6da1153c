"""A small CPU training loop with many allocations, for a capture with memory events.

`steptrace capture --profile-memory --window 1,1,35 -- python
benchmarks/memory_train.py` records 35 steps of it: a 52.8 MB trace with
about 93k `[memory]` events (bench_goals.py makes it so when it is missing).
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
loader = DataLoader(data, batch_size=32)
layers = []
for _ in range(24):
    layers += [nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU()]
model = nn.Sequential(*layers, nn.Linear(64, 10))
opt = torch.optim.Adam(model.parameters())
for _epoch in range(1):
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
