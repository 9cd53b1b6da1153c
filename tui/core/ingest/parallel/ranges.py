"""Pieces of the events taken from the shared queue, decoded into parts, stored in scratch files and read back."""

from __future__ import annotations

import io
import math
import mmap
import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec
import numpy as np

from tui.core.ingest.collect.batches import CollectedPart, Collector
from tui.core.ingest.decode.records import (
    _EVENTS_DECODER,
    _RAW_LIST_DECODER,
    EventSource,
)
from tui.core.ingest.parallel.layout import event_ranges


@dataclass(frozen=True)
class _RangeTask:
    """One worker's share: pieces of the events array in a file, taken one by one
    from the queue all the processes share (see `_claim`)."""

    source: str
    pieces: tuple[tuple[int, int], ...]
    slot: int
    scratch: str
    control: str
    step: int
    # The process that forked the worker: if it goes, the worker stops.
    parent: int


@dataclass
class _RangeResult:
    """A decoded piece: its part, whose columns are stored in a scratch file.

    A piece that fails writes none: its process stops every process through
    the control file, and the loading process reads no result then.
    """

    part: CollectedPart
    layout: dict[str, tuple[int, str, int]] = field(default_factory=dict)
    path: str = ""


class _Control:
    """A tiny shared file: a stop flag, then per process the bytes it decoded
    and the bytes of the pieces it took. Each process writes its own slots."""

    def __init__(self, path: str) -> None:
        self.values = np.memmap(path, dtype=np.int64, mode="r+")
        self.processes = (len(self.values) - 1) // 2

    @staticmethod
    def create(path: str, processes: int) -> _Control:
        np.zeros(1 + 2 * processes, dtype=np.int64).tofile(path)
        return _Control(path)

    @property
    def cancelled(self) -> bool:
        return bool(self.values[0])

    def cancel(self) -> None:
        """Every process stops at its next step (asked by the loading process,
        or by a worker whose piece is not whole events: nothing else matters)."""
        self.values[0] = 1

    def report(self, slot: int, done: int) -> None:
        self.values[1 + slot] = done

    def took(self, slot: int, size: int) -> None:
        self.values[1 + self.processes + slot] += size

    def shares(self) -> list[tuple[int, int]]:
        """Each process's (bytes decoded, bytes of the pieces it took)."""
        values = self.values.tolist()
        count = self.processes
        return list(zip(values[1 : 1 + count], values[1 + count :], strict=True))


def _claim(scratch: str, index: int) -> bool:
    """Take piece `index` unless another process took it first: creating a file
    that must not exist yet is atomic, so each piece goes to exactly one."""
    try:
        os.close(
            os.open(
                os.path.join(scratch, f"claim-{index}"),
                os.O_CREAT | os.O_EXCL | os.O_WRONLY,
                0o600,
            )
        )
    except FileExistsError:
        return False
    return True


class _Cancelled(Exception):
    """The parent asked the workers to stop."""


def decode_range(
    data: Any,
    start: int,
    end: int,
    on_step: Callable[[int], None] | None = None,
    reader: io.RawIOBase | None = None,
    *,
    step: int,
    into: Collector | None = None,
) -> Collector | None:
    """Columns of the events in data[start:end], or None if that is not whole events.

    `reader`, when given, reads the same bytes as `data` (a mapping of it);
    `step` bytes are decoded at a time; `into` is a collector of the events
    just before, continued.
    """
    collector = into if into is not None else Collector()
    for begin, stop in event_ranges(data, start, end, math.ceil((end - start) / step)):
        text = _framed(data, reader, begin, stop)
        try:
            collector.add_batch(_EVENTS_DECODER.decode(text))
        except msgspec.DecodeError:
            # Something an element-by-element decode must look at (or not JSON).
            try:
                elements = _RAW_LIST_DECODER.decode(text)
            except (msgspec.DecodeError, RecursionError):
                return None
            source = EventSource(elements=elements)
            for batch in source.batches():
                collector.add_batch(batch)
            collector.repaired_utf8 |= source.repaired_utf8
        except RecursionError:
            return None
        del text
        if on_step is not None:
            on_step(stop - start)
    return collector


def _framed(data: Any, reader: io.RawIOBase | None, begin: int, stop: int) -> bytearray:
    """data[begin:stop] between "[" and "]", copied once.

    Read from the file when there is one: a read copies faster than touching
    every page of a mapping.
    """
    text = bytearray(stop - begin + 2)
    text[0], text[-1] = ord("["), ord("]")
    with memoryview(text) as view:
        if reader is None:
            view[1:-1] = memoryview(data)[begin:stop]
        else:
            reader.seek(begin)
            done = 0
            while done < stop - begin:
                count = reader.readinto(view[1 + done : 1 + stop - begin])
                if not count:
                    raise OSError("the file is shorter than when it was opened")
                done += count
    return text


def take_pieces(
    data: Any,
    reader: io.RawIOBase | None,
    pieces: tuple[tuple[int, int], ...],
    order: Iterable[int],
    scratch: str,
    slot: int,
    control: _Control,
    step: int,
    on_step: Callable[[], None] | None = None,
    *,
    into: Collector | None = None,
) -> Iterator[tuple[int, Collector | None]]:
    """Decode the pieces this process takes from the shared queue, trying them
    in `order`: each piece's index and its columns (None: not whole events, and
    every process is told to stop). It ends early when told to stop; `on_step`
    runs after each step.

    With `into`, every piece continues that one collector, and the first piece
    another process took ends it: the loading process takes pieces from the
    front, the workers from the back, so its pieces are consecutive and need
    no merging of their own.
    """
    finished = 0
    for index in order:
        if control.cancelled:
            return
        if not _claim(scratch, index):
            if into is not None:
                return
            continue
        begin, stop = pieces[index]
        control.took(slot, stop - begin)

        def step_done(done: int, base: int = finished) -> None:
            control.report(slot, base + done)
            if on_step is not None:
                on_step()
            if control.cancelled:
                raise _Cancelled()

        try:
            collector = decode_range(
                data, begin, stop, step_done, reader, step=step, into=into
            )
        except _Cancelled:
            return
        finished += stop - begin
        if collector is None:
            control.cancel()
        yield index, collector
        if collector is None:
            return


def _run_worker(task: _RangeTask) -> None:
    """In a worker: decode pieces from the queue until none is left, storing
    each one's columns in a scratch file and its result next to it."""
    control = _Control(task.control)

    def on_step() -> None:
        if control.cancelled or os.getppid() != task.parent:
            raise _Cancelled()

    try:
        with (
            open(task.source, "rb", buffering=0) as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            for index, collector in take_pieces(
                data,
                handle,
                task.pieces,
                reversed(range(len(task.pieces))),
                task.scratch,
                task.slot,
                control,
                task.step,
                on_step,
            ):
                if collector is None:
                    return  # every process was told to stop
                part = collector.export()
                del collector
                path = os.path.join(task.scratch, f"part-{index}.bin")
                layout = _store(part, path)
                light = replace(part, columns={}, flow_columns={}, args_blob=b"")
                del part
                on_step()  # nobody reads it if the loading process went away
                _write_result(
                    task.scratch,
                    index,
                    _RangeResult(part=light, layout=layout, path=path),
                )
    except _Cancelled:
        return
    except (MemoryError, OSError, ValueError):
        control.cancel()  # its piece is missing: the sequential path decides


def _store(part: CollectedPart, path: str) -> dict[str, tuple[int, str, int]]:
    """Write a part's arrays and args one after the other; return where each lies."""
    layout: dict[str, tuple[int, str, int]] = {}
    arrays: list[tuple[str, Any]] = [
        *[(f"c.{name}", array) for name, array in part.columns.items()],
        *[(f"f.{name}", array) for name, array in part.flow_columns.items()],
        ("args", np.frombuffer(part.args_blob, dtype=np.uint8)),
    ]
    offset = 0
    with open(path, "wb") as handle:
        for name, array in arrays:
            contiguous = np.ascontiguousarray(array)
            layout[name] = (offset, contiguous.dtype.str, int(contiguous.size))
            handle.write(contiguous.data)
            offset += contiguous.nbytes
    return layout


def _restore(result: _RangeResult) -> CollectedPart:
    """The part of a result, its arrays mapped from the scratch file (read once, when merged).

    The mapping outlives the file's removal, so the scratch file can go at once.
    """
    arrays: dict[str, Any] = {}
    with open(result.path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    view = memoryview(mapped)
    for name, (offset, dtype, count) in result.layout.items():
        if name == "args":
            arrays[name] = view[offset : offset + count]
        else:
            width = np.dtype(dtype).itemsize
            arrays[name] = np.frombuffer(
                view[offset : offset + count * width], dtype=dtype
            )
    return replace(
        result.part,
        columns={name[2:]: a for name, a in arrays.items() if name.startswith("c.")},
        flow_columns={
            name[2:]: a for name, a in arrays.items() if name.startswith("f.")
        },
        args_blob=arrays["args"],
    )


def _read_result(scratch: str, index: int) -> _RangeResult | None:
    try:
        with open(os.path.join(scratch, f"result-{index}.pickle"), "rb") as handle:
            result = pickle.load(handle)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None  # the worker died (killed, out of memory)
    return result if isinstance(result, _RangeResult) else None


def _write_result(scratch: str, index: int, result: _RangeResult) -> None:
    final = os.path.join(scratch, f"result-{index}.pickle")
    with open(final + ".part", "wb") as handle:
        pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(final + ".part", final)
