"""Small CPU captures of a tiny model, eager or under torch.compile, made with
the project's collector: the oracles of the module tree, the compiled regions
and the compilation finding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SMALL_BATCH = 8
LARGE_BATCH = 12
RECOMPILE_STEP = 2
"""The step (ProfilerStep#N) whose new batch shape recompiles the model."""


def _tiny_model() -> Any:
    """Net_0 → Sequential_0 → Block_0, Block_1 (Linear, ReLU each) → Linear head."""
    import torch

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(16, 16)
            self.act = torch.nn.ReLU()

        def forward(self, x: Any) -> Any:
            return self.act(self.linear(x))

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = torch.nn.Sequential(Block(), Block())
            self.head = torch.nn.Linear(16, 4)

        def forward(self, x: Any) -> Any:
            return self.head(self.blocks(x))

    torch.manual_seed(0)
    return Net()


def capture_tiny_model(
    output: Path, *, compiled: bool, with_stack: bool, recompile_in_window: bool
) -> Path:
    """Four training steps (warmup 1, active 3) of the tiny model; returns the trace.

    Compiled, the small batch is compiled before the window; with
    `recompile_in_window` the large batch first comes at `RECOMPILE_STEP`
    (recompiling there), otherwise both shapes are compiled before the window.
    """
    import torch

    from collector import capture
    from collector.schema import Window

    model = _tiny_model()
    forward = torch.compile(model) if compiled else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def train(batch: int) -> None:
        optimizer.zero_grad()
        forward(torch.randn(batch, 16)).sum().backward()
        optimizer.step()

    train(SMALL_BATCH)
    if not recompile_in_window:
        train(LARGE_BATCH)
    window = Window(wait=0, warmup=1, active=3)
    with capture(
        output,
        question="where does the step go?",
        window=window,
        with_stack=with_stack,
    ) as cap:
        for step in range(window.total_steps):
            with cap.zone("entrainement"):
                train(LARGE_BATCH if step >= RECOMPILE_STEP else SMALL_BATCH)
            cap.step()
    return Path(cap.outputs[0])
