"""`steptrace queue` in words: per stream, how many ops waited to start,
the time at a full queue and the longest drain, with a sparkline each."""

from __future__ import annotations

import numpy as np

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.figures.queue import (
    LaunchQueue,
    StreamQueue,
    longest_between,
    slice_edges,
)
from tui.core.results.queue import QueueResult
from tui.report.fit import fit_end
from tui.report.text import TEXT_WIDTH, fill

LEVEL_GLYPHS = "▁▂▃▄▅▆▇█"
LABEL_WIDTH = 12
SPARK_WIDTH = TEXT_WIDTH - LABEL_WIDTH
MEANING = (
    "queue length: ops launched on a stream that have not started yet (+1 at "
    "the launch call's start, -1 at the op's start), as HTA's queue length "
    "analysis counts them; mean, p50 and max over its changes, as HTA's "
    "summary; 'in time': the mean weighted by time; 'longest wait': the most "
    "time an op waited from its launch to its start"
)


def stream_label(stream: StreamQueue) -> str:
    """`stream 7` (or `stream 0:7` when several devices), safe to print."""
    return fit_end(printable(f"stream {stream.stream}"), LABEL_WIDTH - 1)


def sparkline(stream: StreamQueue, start_ns: int, end_ns: int, width: int) -> str:
    """Each column the longest queue in its slice, in eighths of the stream's
    maximum (blank: empty)."""
    edges = slice_edges(start_ns, end_ns, width)
    maxima = longest_between(stream.time_ns, stream.length, edges)
    top = stream.stats.maximum
    if top <= 0:
        return " " * width
    levels = np.ceil(np.maximum(maxima, 0) * (len(LEVEL_GLYPHS) / top))
    glyphs = np.array([" ", *LEVEL_GLYPHS])
    return "".join(glyphs[np.clip(levels.astype(np.int64), 0, 8)].tolist())


def _number(value: float) -> str:
    """`763`, `1011.5`: a percentile as short as it is exact to a tenth."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _row(stream: StreamQueue) -> str:
    stats = stream.stats
    in_time = "–" if stream.mean_over_time is None else f"{stream.mean_over_time:.1f}"
    full = duration_text(stream.full_ns) if stream.full_ns else "–"
    return (
        f"{stream_label(stream):<{LABEL_WIDTH}}{stream.ops:>7} {stats.mean:>7.1f} "
        f"{_number(stats.p50):>6} {stats.maximum:>5} {in_time:>7} {full:>9} "
        f"{duration_text(stream.drain_max_ns):>12}"
    )


def _counted_line(queue: LaunchQueue) -> list[str]:
    said = f"{plural(queue.counted, 'device op')} counted"
    if queue.left_out:
        said += (
            f"; {plural(queue.left_out, 'device op')} have no launch of their own "
            "(no launch call in the trace, or replayed by a CUDA graph) and are "
            "left out, as HTA leaves them"
        )
    return fill(said, "", "")


def queue_text(result: QueueResult) -> str:
    """Per stream its figures, then its queue over the capture, at 80 columns."""
    queue = result.queue
    if queue is None:
        return "\n".join(
            fill(
                "launch queue: not observed — "
                + printable(str(result.gpu_missing_reason)),
                "",
                "  ",
            )
        )
    lines = ["launch queue per stream", *_counted_line(queue)]
    if not queue.streams:
        return "\n".join([*lines, "no device op has its launch call in this capture"])
    header = (
        f"{'':<{LABEL_WIDTH}}{'ops':>7} {'mean':>7} {'p50':>6} {'max':>5} "
        f"{'in time':>7} {'≥ ' + str(queue.full_at):>9} {'longest wait':>12}"
    )
    lines += ["", header, "-" * len(header)]
    lines += [_row(stream) for stream in queue.streams]
    span = queue.end_ns - queue.start_ns
    lines += [
        "",
        *fill(
            f"over {duration_text(span)}, first launch to last start: each column "
            f"the longest queue in 1/{SPARK_WIDTH} of it, in eighths of the "
            "stream's max",
            "",
            "",
        ),
    ]
    for stream in queue.streams:
        spark = sparkline(stream, queue.start_ns, queue.end_ns, SPARK_WIDTH)
        lines.append(f"{stream_label(stream):<{LABEL_WIDTH}}{spark}")
    negative = sum(stream.negative_points for stream in queue.streams)
    if negative:
        lines += fill(
            f"{plural(negative, 'change')} below zero: an op started before its "
            "launch call did (the host's and the device's clocks disagree)",
            "",
            "",
        )
    return "\n".join([*lines, "", *fill(MEANING, "", "")])


def queue_report_line(queue: LaunchQueue | None) -> str | None:
    """The report's sentence on the launch queue: the stream whose queue grew
    longest, its figures, and how long an op waited at most; None without a queue."""
    if queue is None or not queue.streams:
        return None
    longest = max(queue.streams, key=lambda stream: (stream.stats.maximum, stream.ops))
    stats = longest.stats
    in_time = (
        ""
        if longest.mean_over_time is None
        else f", {longest.mean_over_time:.1f} over time"
    )
    said = (
        f"Launch queue: at most {plural(stats.maximum, 'op')} launched and not yet "
        f"started on {printable(f'stream {longest.stream}')} (mean {stats.mean:.1f} "
        f"over its changes{in_time}); an op there waited up to "
        f"{duration_text(longest.drain_max_ns)} from its launch to its start"
    )
    full = [stream for stream in queue.streams if stream.full_ns]
    if full:
        held = sum(stream.full_ns for stream in full)
        said += (
            f"; a queue was full ({queue.full_at} ops) for {duration_text(held)}, "
            "when launching blocks the host"
        )
    return said + " (HTA's queue length; steptrace queue gives every stream)."
