"""The new-capture dialog: the demo or a command under zero-code capture.

The capture runs as `python -m tui capture …` in a subprocess, from a worker
that only posts its output lines; the dialog shows them, follows the step
progress, and gives back the trace path when the capture ends well.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Input,
    Label,
    Log,
    ProgressBar,
    RadioButton,
    RadioSet,
    Select,
    Static,
)

from tui.core.base.textsafe import printable

STEP_LINE = re.compile(r"step (\d+)/(\d+)")
WINDOW_TEXT = re.compile(r"^\d+,\d+,\d+(,\d+){0,2}$")


@dataclass
class CaptureOutput(Message):
    """A line of output from a running capture subprocess."""

    line: str


@dataclass
class CaptureFinished(Message):
    """A capture subprocess ended; path is set when it produced a trace."""

    returncode: int
    path: Path | None


def capture_argv(
    *,
    demo: bool,
    command: str,
    output: str,
    window: str,
    question: str,
    device: str = "auto",
) -> list[str]:
    """The subprocess command line for a capture (raises ValueError on bad input)."""
    if not WINDOW_TEXT.match(window.strip()):
        raise ValueError("the window is WAIT,WARMUP,ACTIVE, for example 1,1,2")
    output = output.strip() or "auto"
    if output != "auto" and Path(output).exists():
        raise ValueError(f"{output} already exists: captures never overwrite a file")
    argv = [sys.executable, "-m", "tui", "capture"]
    if demo:
        argv.append("demo")
    argv += ["-o", output, "--window", window.strip()]
    if question.strip():
        argv += ["--question", question.strip()]
    if device in ("cpu", "cuda"):
        argv += ["--device", device]
    if not demo:
        words = shlex.split(command)
        if not words:
            raise ValueError("type the training command, e.g. python train.py")
        argv += ["--", *words]
    return argv


class CaptureDialog(ModalScreen[Path | None]):
    """Set up a capture, run it, stream its output; dismiss with the new trace."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel / stop"),
        Binding("ctrl+r", "start", "Start capture"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.process: subprocess.Popen[str] | None = None
        self.last_path: Path | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="capture-box", classes="dialog"):
            yield Static(Text("New capture", style="bold"), markup=False)
            with RadioSet(id="capture-kind"):
                yield RadioButton("the demo (four steps)", value=True, id="kind-demo")
                yield RadioButton("a training command (zero-code)", id="kind-command")
            yield Label("Command (for a training command)")
            yield Input(
                placeholder="python train.py --epochs 1",
                compact=True,
                id="capture-command",
            )
            yield Label("Output file (never overwritten; auto picks a fresh name)")
            yield Input("auto", compact=True, id="capture-output")
            yield Label("Window W,U,A (wait, warmup, active)")
            yield Input("1,1,2", compact=True, id="capture-window")
            yield Label("Device (auto: the GPU when torch sees one, else the CPU)")
            yield Select(
                [("auto", "auto"), ("cpu", "cpu"), ("cuda", "cuda")],
                value="auto",
                allow_blank=False,
                compact=True,
                id="capture-device",
            )
            yield Label("Question")
            yield Input(
                placeholder="is the GPU waiting for data?",
                compact=True,
                id="capture-question",
            )
            yield ProgressBar(total=None, show_eta=False, id="capture-progress")
            yield Log(id="capture-log", max_lines=2000)
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    "Start (Ctrl+R)",
                    id="capture-start",
                    variant="primary",
                    compact=True,
                )
                yield Button("Close (Esc)", id="capture-close", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "capture-start":
            self.action_start()
        else:
            self.action_close()

    def action_start(self) -> None:
        if self.process is not None:
            return
        demo = self.query_one("#kind-demo", RadioButton).value
        try:
            argv = capture_argv(
                demo=demo,
                command=self.query_one("#capture-command", Input).value,
                output=self.query_one("#capture-output", Input).value,
                window=self.query_one("#capture-window", Input).value,
                question=self.query_one("#capture-question", Input).value,
                device=str(self.query_one("#capture-device", Select).value),
            )
        except ValueError as error:
            self.notify(printable(str(error)), severity="error", markup=False)
            return
        log = self.query_one(Log)
        log.clear()
        log.write_line("$ " + printable(shlex.join(argv[1:])))
        self.run_capture(argv)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def run_capture(self, argv: list[str]) -> None:
        """Run the capture; every output line and the end are posted as messages."""
        try:
            process = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            self.post_message(CaptureOutput(f"could not start: {error}"))
            self.post_message(CaptureFinished(127, None))
            return
        self.process = process
        path: Path | None = None
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip("\n")
            candidate = Path(line.strip())
            if line.strip() and candidate.suffix in (".json", ".gz"):
                path = candidate
            self.post_message(CaptureOutput(line))
        status = process.wait()
        self.post_message(
            CaptureFinished(
                status, path if path is not None and path.exists() else None
            )
        )

    def on_capture_output(self, message: CaptureOutput) -> None:
        self.query_one(Log).write_line(printable(message.line))
        match = STEP_LINE.search(message.line)
        if match:
            self.query_one(ProgressBar).update(
                total=int(match.group(2)), progress=int(match.group(1))
            )

    def on_capture_finished(self, message: CaptureFinished) -> None:
        self.process = None
        if message.returncode == 0 and message.path is not None:
            self.dismiss(message.path)
            return
        self.query_one(Log).write_line(
            f"capture ended with status {message.returncode}; see the output above"
        )
        self.notify("The capture failed; its output is shown.", severity="error")

    def action_close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.notify("Stopping the capture…")
            return
        self.dismiss(None)
