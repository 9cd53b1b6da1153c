"""The torch.compile screen words the regions as `steptrace compiled` does."""

from __future__ import annotations

import pytest
from textual.app import App

from tests import shared_traces as shared
from tests.pilot import pilot_test, screen_text
from tui.app.screens.compiled import CompiledScreen
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.compiled import CompiledResult

TRITON = shared.FOLDER / "triton_example-triton_example.json.gz"


class CompiledApp(App[None]):
    def __init__(self, result: CompiledResult) -> None:
        super().__init__()
        self.result = result

    def on_mount(self) -> None:
        self.push_screen(CompiledScreen(self.result))


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_the_screen_shows_the_region_and_its_triton_kernel() -> None:
    result = CompiledResult.of(Analysis(load_trace(TRITON)))
    app = CompiledApp(result)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Compiled regions" in text and "0/0" in text
        assert "triton_poi_fused_add_cos_sin_0" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, CompiledScreen)
