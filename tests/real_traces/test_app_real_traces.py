"""Every small real trace opens and survives the main keys (read in place from
../shared/traces; skipped when that folder is absent)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests import shared_traces as shared
from tests.pilot import make_app, settle
from tui.app.screens.main import MainScreen

# One of each kind: CPU-only, ROCm, CUDA with flows, several streams, old
# category names, Triton, uncompressed with a backward thread, annotations only.
CHOSEN = (
    "cpu_only-",
    "amd_trace-",
    "critical_path-alexnet-",
    "critical_path-cuda_event_sync_multi_stream-",
    "trace_file_list-",
    "triton_example-",
    "call_stack-",
    "distributed_info_unavailable-",
)
SMALL = shared.paths(keep=lambda path: path.name.startswith(CHOSEN))

KEYS = [
    "g",
    "b",
    "G",
    "right_square_bracket",
    "right_square_bracket",
    "S",
    "t",
    "f",
    "w",
    "w",
    "d",
    "left_square_bracket",
    "enter",
    "escape",
    "2",
    "enter",
    "3",
    "1",
    "o",
    "down",
    "enter",
    "n",
    "N",
    "question_mark",
    "escape",
    "escape",
]


@pytest.mark.parametrize("path", SMALL, ids=[p.name.split(".")[0][:40] for p in SMALL])
@pytest.mark.slow
def test_real_trace_survives_the_keys(path: Path, isolated_data_dir: Path) -> None:
    async def run() -> None:
        app = make_app(path)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, MainScreen)
            for key in KEYS:
                await pilot.press(key)
            await pilot.pause()
            assert app.is_running

    asyncio.run(run())
