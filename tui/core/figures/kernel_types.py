"""What each device op does: computation, communication, memory or other.

Two classifiers, one vocabulary (`vocab.KernelType`):

- `hta_kernel_type` is Holistic Trace Analysis 0.5.0's, by name only and
  regex for regex (tests/fixtures/hta/DEFINITIONS.md §3), so that figures
  named after HTA's read as HTA's: `Stream Wait Event` is computation and
  anything containing `Sync` is other.
- `kernel_type` is steptrace's: the event's kind decides copies and sets
  (memory) and synchronisations (other, never device work); a kernel is
  communication when its name starts with a collective library's prefix
  (NCCL, RCCL, MSCCL), whatever follows.

Both classify each distinct name once, so a trace of millions of kernels
costs one regex per name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import KernelType
from tui.core.model.trace import Kind, Trace

UInt8Array = npt.NDArray[np.uint8]
Int64Array = npt.NDArray[np.int64]

# The order of the classes in a combined label, and their codes in type arrays.
TYPE_ORDER = (
    KernelType.COMPUTATION,
    KernelType.COMMUNICATION,
    KernelType.MEMORY,
    KernelType.OTHER,
)
TYPE_CODE = {kernel_type: code for code, kernel_type in enumerate(TYPE_ORDER)}
# The classes HTA's kernel type table splits time between (OTHER is left out).
TABLE_TYPES = TYPE_ORDER[:3]
OVERLAPPING = " overlapping "

# HTA 0.5.0, utils/utils.py lines 56, 72 and 88, applied with re.match.
_HTA_COMMUNICATION = re.compile(r"^nccl.*Kernel")
_HTA_MEMORY = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
_HTA_NOT_COMPUTATION = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")

# Kernels of collective libraries: NCCL, RCCL (ROCm) and MSCCL name theirs so.
COLLECTIVE_KERNEL = re.compile(r"^(?:void\s+)?(?:nccl|rccl|msccl)", re.IGNORECASE)
# Device work of another accelerator named like this is a copy (MTIA's DMA requests).
MEMORY_NAME = re.compile(r"^(?:Memcpy|Memset|dma)")


def hta_kernel_type(name: str) -> KernelType:
    """HTA 0.5.0's class of a device op, from its name alone."""
    if _HTA_COMMUNICATION.match(name):
        return KernelType.COMMUNICATION
    if _HTA_MEMORY.match(name):
        return KernelType.MEMORY
    if not _HTA_NOT_COMPUTATION.match(name):
        return KernelType.COMPUTATION
    return KernelType.OTHER


def kernel_type(name: str, kind: Kind) -> KernelType:
    """steptrace's class of an event on a device: copies and sets are memory, syncs other."""
    if kind in (Kind.MEMCPY, Kind.MEMSET):
        return KernelType.MEMORY
    if kind not in (Kind.KERNEL, Kind.DEVICE_OTHER):
        return KernelType.OTHER
    if COLLECTIVE_KERNEL.match(name):
        return KernelType.COMMUNICATION
    if kind is Kind.DEVICE_OTHER and MEMORY_NAME.match(name):
        return KernelType.MEMORY
    return KernelType.COMPUTATION


def hta_type_codes(trace: Trace, events: Int64Array) -> UInt8Array:
    """HTA's class code (`TYPE_CODE`) of each of `events`, one regex per distinct name."""
    names, inverse = np.unique(trace.name_id[events], return_inverse=True)
    codes = np.array(
        [TYPE_CODE[hta_kernel_type(trace.names[int(name)])] for name in names.tolist()],
        dtype=np.uint8,
    )
    return codes[inverse.reshape(-1)] if events.size else codes


def type_codes(trace: Trace, events: Int64Array) -> UInt8Array:
    """steptrace's class code (`TYPE_CODE`) of each of `events`, one regex per distinct (name, kind)."""
    if events.size == 0:
        return np.zeros(0, dtype=np.uint8)
    pairs = trace.name_id[events].astype(np.int64) * 256 + trace.kind[events]
    keys, inverse = np.unique(pairs, return_inverse=True)
    codes = np.array(
        [
            TYPE_CODE[kernel_type(trace.names[int(key) // 256], Kind(int(key) % 256))]
            for key in keys.tolist()
        ],
        dtype=np.uint8,
    )
    chosen: UInt8Array = codes[inverse.reshape(-1)]
    return chosen


def communication_mask(trace: Trace) -> npt.NDArray[np.bool_]:
    """Device work that is communication (collective kernels), by steptrace's classes."""
    mask = np.zeros(trace.event_count, dtype=bool)
    work = np.flatnonzero(trace.device_work_mask).astype(np.int64)
    mask[work] = type_codes(trace, work) == TYPE_CODE[KernelType.COMMUNICATION]
    return mask


def combined_label(types: Iterable[KernelType]) -> str:
    """HTA's label of time when several classes run at once: `COMPUTATION overlapping MEMORY`."""
    present = set(types)
    return OVERLAPPING.join(
        kernel_type.value for kernel_type in TYPE_ORDER if kernel_type in present
    )
