"""`steptrace serve` in a real browser: Debian's Chromium, headless, driven by
Playwright (the pip package only: it never downloads a browser).

The terminal text is read from xterm.js itself: textual.js keeps its Terminal
in a local object, so a script run before the page's own catches the object
when textual.js assigns it (`this.terminal = new Terminal(...)`), and the test
reads the active buffer line by line, exactly what the canvas shows.

Without /usr/bin/chromium the test is skipped and says why, so the README's
test command passes on a fresh machine; `.ci/run` installs Chromium and sets
STEPTRACE_REQUIRE_BROWSER=1, under which its absence is a failure.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tests.builders.app_traces import write_training_trace
from tests.cli.test_serve import ROOT, app_processes, serving

CHROMIUM = Path("/usr/bin/chromium")
# A real capture with steps and GPU streams, when the shared traces are here.
REAL_TRACE = shared.FOLDER / "timeline_analysis-sampled_rank-0.json.gz"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CATCH_TERMINAL = """
window.__terminals = [];
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {
      value, writable: true, configurable: true, enumerable: true,
    });
    if (value && value.buffer && value.buffer.active) window.__terminals.push(value);
  },
});
"""
TERMINAL_TEXT = """() => {
  const terminal = window.__terminals[0];
  if (!terminal) return null;
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let row = 0; row < terminal.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""
# Colours of a PNG, decoded by the browser: how many distinct ones, and the
# share of pixels that are not the most common one.
PNG_COLOURS = """async (data) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], {type: "image/png"}));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  const pixels = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  const counts = new Map();
  for (let i = 0; i < pixels.length; i += 4) {
    const key = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const total = pixels.length / 4;
  return {distinct: counts.size, other: 1 - Math.max(...counts.values()) / total};
}"""


def _browser_or_skip() -> Any:
    """Playwright's sync API, once Chromium is known to be there."""
    if not CHROMIUM.exists():
        missing = (
            f"{CHROMIUM} is missing: the browser test needs Debian's chromium "
            "(apt-get install -y chromium; .ci/run installs it)"
        )
        if os.environ.get("STEPTRACE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{missing}, and STEPTRACE_REQUIRE_BROWSER=1", pytrace=False)
        pytest.skip(missing)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is missing: pip install -e '.[dev]'", pytrace=False)
    return sync_playwright


def _summary(trace: Path) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "tui", "summary", str(trace), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    summary: dict[str, Any] = json.loads(result.stdout)
    return summary


def _wait_for(
    read: Callable[[], str | None], check: Callable[[str], bool], what: str
) -> str:
    """The terminal text once `check` holds on it (fails after 30 s)."""
    deadline = time.monotonic() + 30
    text: str | None = None
    while time.monotonic() < deadline:
        text = read()
        if text is not None and check(text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"never saw {what}; the terminal showed:\n{text}")


@pytest.mark.slow
def test_served_app_in_chromium(tmp_path: Path, isolated_data_dir: Path) -> None:
    sync_playwright = _browser_or_skip()
    trace = (
        REAL_TRACE
        if REAL_TRACE.is_file()
        else write_training_trace(tmp_path / "train.json", steps=3)
    )
    summary = _summary(trace)
    first_step = summary["steps"][0]["step"]

    with serving(trace) as served, sync_playwright() as playwright:
        # launch() gives Chromium a fresh, temporary profile of its own.
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 760})
            page.add_init_script(CATCH_TERMINAL)
            page.goto(served.url)
            # The token went into an HttpOnly cookie and out of the address bar.
            assert page.url == f"http://127.0.0.1:{served.port}/"
            assert served.token not in page.content()
            assert page.evaluate("document.cookie") == ""

            def read() -> str | None:
                text: str | None = page.evaluate(TERMINAL_TEXT)
                return text

            def main_screen(text: str) -> bool:
                # xterm paints a frame in pieces: wait for the whole of it
                # (the status line once came before the header).
                header = text.splitlines()[0] if text else ""
                return (
                    header.lstrip().startswith(f"served  {trace.name}")
                    and f"{summary['events']:,} events" in text
                    and "Self CPU" in text
                )

            _wait_for(read, main_screen, "the main screen of the loaded trace")
            assert window_caught(page), "textual.js did not create an xterm Terminal"

            page.focus("textarea.xterm-helper-textarea")
            page.keyboard.press("?")
            _wait_for(read, lambda text: "steptrace keys" in text, "the help (?)")
            page.keyboard.press("Escape")
            _wait_for(read, lambda text: "steptrace keys" not in text, "help closed")

            page.keyboard.press("]")
            _wait_for(
                read, lambda text: f"step {first_step} (" in text, "the first step (])"
            )
            page.keyboard.press("t")
            _wait_for(
                read,
                lambda text: "Total CPU" in text and "Self CPU" not in text,
                "the operator table in total time (t)",
            )
            page.keyboard.press("c")
            _wait_for(
                read, lambda text: "Captures are off" in text, "captures refused (c)"
            )

            shot = tmp_path / "served.png"
            page.screenshot(path=str(shot))
            data = shot.read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n")
            colours = page.evaluate(PNG_COLOURS, base64.b64encode(data).decode())
            assert colours["distinct"] > 16, colours
            assert colours["other"] > 0.05, colours

            assert len(app_processes(served.process.pid)) == 1
            page.keyboard.press("q")
            page.wait_for_selector("body.-closed", timeout=20_000)
            assert page.is_visible("text=Session ended.")
            deadline = time.monotonic() + 10
            while app_processes(served.process.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert app_processes(served.process.pid) == []
        finally:
            browser.close()


def window_caught(page: Any) -> bool:
    """Whether the page's xterm Terminal was caught for reading."""
    return bool(page.evaluate("window.__terminals.length === 1"))
