"""A timeline line's cells as segments: what each cell shows (its glyph and its
style) is decided cell by cell; runs of short events drawn alike are merged
into one segment, which must change nothing a terminal shows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from rich.segment import Segment
from rich.style import Style

from tests.builders.cuda_graphs import drawn_cuda_graphs
from tui.app.widgets.timeline_render import OCCUPANCY_GLYPHS, Painter
from tui.core.base.vocab import RowRole
from tui.view.cells import LaneCells
from tui.view.layout import GAP_GLYPH


def _per_cell(segments: list[Segment]) -> list[tuple[str, Style | None]]:
    return [(char, segment.style) for segment in segments for char in segment.text]


def test_short_cells_merge_into_runs_that_look_the_same(tmp_path: Path) -> None:
    drawn = drawn_cuda_graphs(tmp_path / "g.json", steps=2)
    painter = Painter(drawn.index, drawn.zone)
    row = drawn.device_row
    assert row.role is RowRole.TRACK
    events = np.concatenate([lane.events for lane in row.lanes])
    colours = {int(e): painter.colour_key(row, int(e)) for e in events}
    assert len(set(colours.values())) >= 2  # eager and replayed kernels
    width = 60
    generator = np.random.default_rng(7)
    owner = generator.choice(events, width).astype(np.int64)
    owner[generator.random(width) < 0.25] = -1
    owner[10:14] = owner[10]  # a run of one event
    wide = np.zeros(width, dtype=np.bool_)
    wide[30:36] = True  # one event over several cells: named
    owner[30:36] = events[0]
    # Ten short events of one colour in a row, unmarked: one run.
    same = [int(e) for e in events if colours[int(e)] == colours[int(events[1])]]
    owner[40:50] = np.resize(np.asarray(same, dtype=np.int64), 10)
    occupancy = generator.random(width)
    cells = LaneCells(owner, np.ones(width, dtype=np.int64), wide, occupancy)
    marked = generator.random(width) < 0.3
    marked[40:50] = False
    gap = (owner < 0) & (generator.random(width) < 0.5)
    selected = next(int(e) for e in owner[:40] if e >= 0 and e not in owner[40:50])
    segments = painter.row_segments(row, cells, marked, gap, selected, None)

    shown = _per_cell(segments)
    assert len(shown) == width
    for cell in range(width):
        char, style = shown[cell]
        event = int(owner[cell])
        if event < 0:
            assert (char, style) == (
                (GAP_GLYPH, painter.style("gap"))
                if gap[cell]
                else (" ", painter.style("plain"))
            )
            continue
        key = ("bar", colours[event], event == selected, bool(marked[cell]))
        if not wide[cell]:
            level = min(7, max(0, math.ceil(occupancy[cell] * 8) - 1))
            assert (char, style) == (OCCUPANCY_GLYPHS[level], painter.style(*key))
    # Short cells drawn alike share one segment, whatever their glyphs.
    starts = np.cumsum([0] + [len(segment.text) for segment in segments])
    assert 40 in starts and 50 in starts and not set(range(41, 50)) & set(starts)
