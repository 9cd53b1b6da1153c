"""Our operator table agrees with torch's own key_averages() for the same run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace

torch = pytest.importorskip("torch")


def _profile_small_training(output: Path, record_shapes: bool) -> Any:
    """A few CPU training steps under the profiler; returns torch's key_averages()."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    traces: list[Any] = []

    def on_ready(prof: Any) -> None:
        prof.export_chrome_trace(str(output))
        traces.append(prof.key_averages())

    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=2),
        on_trace_ready=on_ready,
        record_shapes=record_shapes,
    ) as prof:
        for _ in range(4):
            with record_function("lecture_batch_cpu"):
                inputs = torch.randn(16, 32)
                targets = torch.randint(0, 4, (16,))
            with record_function("entrainement"):
                optimizer.zero_grad()
                loss = loss_fn(model(inputs), targets)
                loss.backward()
                optimizer.step()
            prof.step()
    assert traces, "the profiler schedule never produced a trace"
    return traces[-1]


@pytest.mark.parametrize("record_shapes", [False, True], ids=["plain", "with-shapes"])
def test_operator_table_matches_key_averages(
    tmp_path: Path, record_shapes: bool
) -> None:
    trace_path = tmp_path / "capture.json"
    averages = _profile_small_training(trace_path, record_shapes)
    expected = {
        event.key: (event.count, event.self_cpu_time_total, event.cpu_time_total)
        for event in averages
    }

    trace = load_trace(trace_path)
    table = Analysis(trace).op_table()
    ours = {
        name: (int(calls), float(self_ns) / 1000, float(total_ns) / 1000)
        for name, calls, self_ns, total_ns in zip(
            table.names, table.calls, table.self_cpu_ns, table.total_cpu_ns, strict=True
        )
    }

    assert set(ours) == set(expected)
    for name, (calls, self_us, total_us) in expected.items():
        our_calls, our_self, our_total = ours[name]
        assert our_calls == calls, name
        # torch keeps ns internally and the trace writes µs with 3 decimals.
        assert our_total == pytest.approx(total_us, abs=0.002 * calls + 1e-6), name
        assert our_self == pytest.approx(self_us, abs=0.002 * calls + 1e-6), name
    assert table.self_gpu_ns is None and not trace.gpu_observed
