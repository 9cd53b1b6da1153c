"""A note taken in the explorer points at the exact nanosecond, and jumps back to it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from tests.builders.app_traces import write_training_trace
from tests.pilot import make_app, settle
from tui.app.screens.main import MainScreen
from tui.notes import NotesStore

# Nanosecond positions whose µs float times 1000 is truncated one below
# (1234.567 * 1e3 == 1234566.9999999998): what the float anchors lost.
ODD_RANGES = [(1_234_567, 2_469_134), (4_000_001, 4_000_003), (9_999_999, 10_000_001)]


def test_range_and_event_anchors_round_trip_exactly(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_training_trace(tmp_path / "train.json", gpu=True)

    async def scenario() -> None:
        app = make_app(trace)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            timeline = screen.timeline
            store = screen.notes_store
            assert store is not None
            for start, end in ODD_RANGES:
                timeline.select_range(start, end)
                anchor, label, _ = screen.current_anchor()
                assert (anchor.kind, anchor.start_ns, anchor.end_ns) == (
                    "range",
                    start,
                    end,
                )
                assert label == f"range {start / 1000:.3f}–{end / 1000:.3f} µs"
                store.add(f"range {start}", anchor=anchor)
            timeline.selected_range = None
            # The last event of the busiest name: never the first match by accident.
            names = screen.trace.name_id
            busiest = int(np.bincount(names).argmax())
            event = int(np.flatnonzero(names == busiest)[-1])
            timeline.select_event(event)
            anchor, _, _ = screen.current_anchor()
            assert anchor.start_ns == int(screen.trace.start_ns[event])
            store.add("event", anchor=anchor)
            store.save()

            reopened = NotesStore.open(trace)
            anchors = [note.anchor for note in reopened.notes]
            for (start, end), loaded in zip(ODD_RANGES, anchors, strict=False):
                assert loaded is not None
                timeline.selected_range = None
                screen.jump_to(loaded)
                assert timeline.selected_range == (start, end)
            timeline.select_event(None)
            last = anchors[-1]
            assert last is not None
            screen.jump_to(last)
            assert timeline.selected_event == event

    asyncio.run(scenario())
