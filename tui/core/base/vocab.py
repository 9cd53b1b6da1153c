"""The product's vocabularies as enums, so a misspelt value is an error, not a silent miss.

Values are the strings the JSON output and the sidecar files use; `str`
enums keep `value == "active"` comparisons and JSON encoding working.
"""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """A vocabulary word: equal to its string, and printed as it (never `Class.MEMBER`).

    Python 3.12 formats a str-mixin enum with its class name; a word in a
    message or a progress line must read as itself on every version.
    """

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class StepPhase(Word):
    """Whether a step belongs to the recorded window or came before it."""

    ACTIVE = "active"
    STARTUP = "startup"


class GapKind(Word):
    """What a gap measures: device idle, or (no GPU events) the zone's untraced time.

    Untraced time is time in the data zone when no thread runs a traced
    operator: Python work between operators as much as waiting, so it is never
    called a wait (nothing shows it waiting) nor GPU idle.
    """

    GPU_IDLE = "gpu_idle"
    UNTRACED = "untraced"

    @property
    def label(self) -> str:
        """How people read it; untraced time is never called GPU idle, nor a wait."""
        return "GPU idle" if self is GapKind.GPU_IDLE else "untraced time"

    @property
    def short_label(self) -> str:
        """The label where room is short (a row's legend, a narrow status line)."""
        return "GPU idle" if self is GapKind.GPU_IDLE else "untraced"


class ZoneSource(Word):
    """Where the data zone in use came from."""

    DEFAULT = "default"
    DATALOADER = "dataloader"
    DESCRIPTION = "description"
    CHOSEN = "chosen"
    PROPOSED = "proposed"
    NONE = "none"

    @property
    def label(self) -> str:
        """Shown beside the zone's name in the header."""
        return {
            ZoneSource.DEFAULT: "default",
            ZoneSource.DATALOADER: "DataLoader",
            ZoneSource.DESCRIPTION: "capture description",
            ZoneSource.CHOSEN: "your choice",
            ZoneSource.PROPOSED: "your annotation, once per step",
            ZoneSource.NONE: "none found",
        }[self]


class SortKey(Word):
    """How the operator table is ordered."""

    SELF = "self"
    TOTAL = "total"
    CALLS = "calls"
    NAME = "name"


class TimeDevice(Word):
    """Which clock a time column reads: CPU time or GPU work."""

    CPU = "cpu"
    GPU = "gpu"


class FindingId(Word):
    """The method's readings, in the method's order."""

    GPU_IDLE_DATA_ZONE = "gpu_idle_data_zone"
    REPEATED_COPY = "repeated_copy"
    PAGEABLE_COPY = "pageable_copy"
    HOST_BOUND = "host_bound"
    SMALL_LAUNCHES = "small_launches"
    DOMINANT_OP = "dominant_op"
    TENSOR_CORES = "tensor_cores"
    LATE_RANK = "late_rank"
    HOST_SYNC = "host_sync"
    CRITICAL_PATH = "critical_path"
    DEVICE_BOUND = "device_bound"
    COMPILATION = "compilation"
    GRAPH_BREAK = "graph_break"


class FindingStatus(Word):
    """A reading weighed by its cost (likely, possible, minor), not seen, or not readable."""

    LIKELY = "likely"
    POSSIBLE = "possible"
    MINOR = "minor"
    NOT_SEEN = "not_seen"
    NOT_OBSERVED = "not_observed"


class Verdict(Word):
    """What a diff of two captures may say: an order only when runs separate (likely_
    with one capture a side), nothing when the captures ran on different hardware."""

    FASTER = "faster"
    SLOWER = "slower"
    LIKELY_FASTER = "likely_faster"
    LIKELY_SLOWER = "likely_slower"
    NO_CHANGE = "no_change"
    IDENTICAL = "identical"
    INCONCLUSIVE = "inconclusive"
    NOT_COMPARABLE = "not_comparable"

    @property
    def ordered(self) -> bool:
        """Whether it says after is quicker or slower (likely or conclusive)."""
        return self in ORDERED_VERDICTS


ORDERED_VERDICTS = frozenset(
    {Verdict.FASTER, Verdict.SLOWER, Verdict.LIKELY_FASTER, Verdict.LIKELY_SLOWER}
)
"""The verdicts that put after before or behind before."""


class DiffCheck(Word):
    """What a diff of two captures warns about; most make them not comparable."""

    ENVIRONMENT = "environment"
    WINDOW = "window"
    OPTIONS = "options"
    QUESTION = "question"
    BATCH_SIZE = "batch_size"
    DATA_ZONE = "data_zone"
    GPU = "gpu"
    NO_DESCRIPTION = "no_description"
    FEW_STEPS = "few_steps"
    NO_STEPS = "no_steps"
    SHAPES = "shapes"
    DEVICE = "device"
    WORLD_SIZE = "world_size"
    CAPTURE = "capture"
    """Window position, instrumentation or versions differ as the traces record them."""

    @property
    def breaks_comparability(self) -> bool:
        """Whether this difference makes the two captures not comparable (the rest are caveats)."""
        return self not in (
            DiffCheck.NO_DESCRIPTION,
            DiffCheck.FEW_STEPS,
            DiffCheck.NO_STEPS,
            DiffCheck.SHAPES,
            DiffCheck.CAPTURE,
        )


class OpPresence(Word):
    """Whether a row of a diff's table is on both sides, or only after (added) or before (removed)."""

    BOTH = "both"
    ADDED = "added"
    REMOVED = "removed"


class CopyDirection(Word):
    """Which way a copy moves data (a set writes device memory)."""

    HOST_TO_DEVICE = "htod"
    DEVICE_TO_HOST = "dtoh"
    DEVICE_TO_DEVICE = "dtod"
    HOST_TO_HOST = "htoh"
    SET = "set"
    OTHER = "other"

    @property
    def label(self) -> str:
        """How people read it."""
        return {
            CopyDirection.HOST_TO_DEVICE: "host→device",
            CopyDirection.DEVICE_TO_HOST: "device→host",
            CopyDirection.DEVICE_TO_DEVICE: "device→device",
            CopyDirection.HOST_TO_HOST: "host→host",
            CopyDirection.SET: "set",
            CopyDirection.OTHER: "other",
        }[self]


class SyncKind(Word):
    """What the host waited for in a synchronisation (`figures/syncs.py`)."""

    STREAM = "stream"  # cudaStreamSynchronize, a Stream Sync
    DEVICE = "device"  # cudaDeviceSynchronize, a Context Sync
    EVENT = "event"  # cudaEventSynchronize, an Event Sync
    COPY = "copy"  # a synchronous cudaMemcpy: the host waits for the copy


class DataLoading(Word):
    """Where the DataLoader ranges say the batches are loaded."""

    MAIN_THREAD = "main_thread"  # _SingleProcessDataLoaderIter: num_workers=0
    WORKERS = "workers"  # _MultiProcessingDataLoaderIter: num_workers>0


class HostMemory(Word):
    """The host side of a copy: pageable or pinned, when the trace says."""

    PAGEABLE = "pageable"
    PINNED = "pinned"
    UNKNOWN = "unknown"


class KernelType(Word):
    """What a device op does, spelt as HTA spells its kernel types."""

    COMPUTATION = "COMPUTATION"
    COMMUNICATION = "COMMUNICATION"
    MEMORY = "MEMORY"
    OTHER = "OTHER"


class IdleCause(Word):
    """Why a stream was idle between two ops (HTA's idle time categories)."""

    HOST_WAIT = "host_wait"
    KERNEL_WAIT = "kernel_wait"
    OTHER = "other"


class BreakdownRules(Word):
    """Whose definitions a GPU breakdown follows: HTA 0.5.0's, or steptrace's own."""

    HTA = "hta"
    STEPTRACE = "steptrace"


class RankSource(Word):
    """Where a run's file got its rank from."""

    DISTRIBUTED_INFO = "distributed_info"
    FILE_NAME = "file_name"
    ORDER = "order"


class CollectiveSide(Word):
    """Where a rank's collectives were seen: communication kernels, or CPU ops (gloo, c10d)."""

    GPU = "gpu"
    CPU = "cpu"


class RowRole(Word):
    """What a line of the timeline shows."""

    AXIS = "axis"
    STEPS = "steps"
    ZONES = "zones"
    TRACK = "track"
    DEVICE = "device"
    """A device's streams as one row: busy wherever any of them is."""
    MEMORY = "memory"
    QUEUE = "queue"


class KernelSort(Word):
    """What the Kernels tab is ordered by."""

    TOTAL = "total"
    COUNT = "count"
    MEDIAN = "median"
    MAX = "max"
    DELAY = "delay"
    NAME = "name"


class HeatLevel(Word):
    """How a rank's step time compares with the step's median over the ranks."""

    FASTER = "faster"
    NEAR = "near"
    SLOWER = "slower"
    SLOW = "slow"
    SLOWEST = "slowest"

    @property
    def glyph(self) -> str:
        """Its mark, so that the level reads without colour (NO_COLOR, colour blindness)."""
        return {
            HeatLevel.FASTER: "↓",
            HeatLevel.NEAR: "",
            HeatLevel.SLOWER: "↑",
            HeatLevel.SLOW: "↑↑",
            HeatLevel.SLOWEST: "↑↑↑",
        }[self]


class RankSort(Word):
    """How the ranks of a run are ordered in the ranks screen."""

    RANK = "rank"
    MEDIAN = "median"
    WAIT = "wait"
    LATE = "late"
    STEP = "step"
    HOST = "host"

    @property
    def label(self) -> str:
        """How the table's header names it."""
        return {
            RankSort.RANK: "rank",
            RankSort.MEDIAN: "median step time",
            RankSort.WAIT: "total wait",
            RankSort.LATE: "steps late",
            RankSort.STEP: "time in this step",
            RankSort.HOST: "host (its slowest rank first)",
        }[self]


class HeatValue(Word):
    """What a cell of the ranks screen's heat table shows."""

    STEP_TIME = "step time"
    WAIT = "wait in the collectives"
    IDLE = "GPU idle share"


class LoadPhase(Word):
    """Where a load is: bytes first (read, inflate), then the build steps, then the app's own.

    The loader reports them and every front end (the CLI's progress line, the
    loading screen's bar) reads the same values, in this order.
    """

    READING = "reading"
    DECOMPRESSING = "decompressing"
    CACHED = "cached"
    DECODING = "decoding"
    EVENTS = "events"
    PAIRING = "pairing"
    TRACKS = "tracks"
    SORTING = "sorting"
    ANALYSING = "analysing"
    INDEXING = "indexing"

    @property
    def counts_bytes(self) -> bool:
        """Whether its progress is bytes of the file (the first half of a bar)."""
        return self in (LoadPhase.READING, LoadPhase.DECOMPRESSING)

    @property
    def position(self) -> int:
        """Its place among the phases after the bytes (0 for the byte phases)."""
        return max(0, _LOAD_ORDER.index(self) - 2)

    @classmethod
    def build_steps(cls) -> int:
        """How many phases follow the bytes."""
        return len(_LOAD_ORDER) - 2


_LOAD_ORDER = list(LoadPhase)


class CacheUse(Word):
    """Whether a load goes through the column cache (`load_trace(cache=...)`)."""

    OFF = "off"
    AUTO = "auto"
    """Reuse an entry; write one for a big trace."""
    ON = "on"
    """Reuse an entry; always write one."""


class RankEnd(Word):
    """How one rank's reading ended, after its load phases (ranks progress)."""

    DONE = "done"
    FAILED = "failed"


class AllocatedSource(Word):
    """Where a device's allocated memory comes from (`memory --json`'s `peak_source`)."""

    TOTAL_ALLOCATED = "total_allocated"
    """The allocator's own total after each `[memory]` event (torch >= 1.10)."""
    RUNNING_SUM = "running_sum"
    """Rebuilt from the running sum of the events' `Bytes` (PyTorch 1.9 wrote no total)."""
