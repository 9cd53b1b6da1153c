"""Kernel classes: HTA 0.5.0's, as DEFINITIONS.md §3 records them (checked against HTA), and steptrace's."""

from __future__ import annotations

import pytest

from tui.core.base.vocab import KernelType
from tui.core.figures.kernel_types import combined_label, hta_kernel_type, kernel_type
from tui.core.model.trace import Kind

COMPUTATION, COMMUNICATION, MEMORY, OTHER = (
    KernelType.COMPUTATION,
    KernelType.COMMUNICATION,
    KernelType.MEMORY,
    KernelType.OTHER,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", COMMUNICATION),
        (
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            COMMUNICATION,
        ),
        ("nccl_foo", COMPUTATION),
        ("rcclKernel", COMPUTATION),
        ("Memcpy HtoD (Pageable -> Device)", MEMORY),
        ("Memset (Device)", MEMORY),
        ("dma_request", MEMORY),
        ("MemcpyX", MEMORY),
        ("Stream Wait Event", COMPUTATION),
        ("Stream Sync", OTHER),
        ("Context Sync", OTHER),
        ("Event Sync", OTHER),
        ("void foo_Memcpy_kernel", OTHER),
        ("void at::native::vectorized_elementwise_kernel<4>", COMPUTATION),
        ("Cijk_Ailk_Bljk_SB_MT64x64x16", COMPUTATION),
        ("triton_poi_fused_add_cos_sin_0", COMPUTATION),
        ("add-dtype_Float", COMPUTATION),
    ],
)
def test_hta_classes(name: str, expected: KernelType) -> None:
    assert hta_kernel_type(name) is expected


@pytest.mark.parametrize(
    ("name", "kind", "expected"),
    [
        ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", Kind.KERNEL, COMMUNICATION),
        ("rcclGenericKernel", Kind.KERNEL, COMMUNICATION),
        ("nccl_foo", Kind.KERNEL, COMMUNICATION),
        ("mscclKernel_Sum_float", Kind.KERNEL, COMMUNICATION),
        ("Stream Wait Event", Kind.SYNC, OTHER),
        ("void foo_Memcpy_kernel", Kind.KERNEL, COMPUTATION),
        ("Memcpy DtoD (Device -> Device)", Kind.MEMCPY, MEMORY),
        ("Memset (Device)", Kind.MEMSET, MEMORY),
        ("dma_request", Kind.DEVICE_OTHER, MEMORY),
        ("add-dtype_Float", Kind.DEVICE_OTHER, COMPUTATION),
        ("aten::mm", Kind.CPU_OP, OTHER),
    ],
)
def test_steptrace_classes(name: str, kind: Kind, expected: KernelType) -> None:
    assert kernel_type(name, kind) is expected


def test_combined_labels_read_as_htas() -> None:
    # DEFINITIONS.md §5.1: labels are built in the order COMPUTATION, COMMUNICATION, MEMORY.
    assert combined_label([MEMORY, COMPUTATION]) == "COMPUTATION overlapping MEMORY"
    assert (
        combined_label([MEMORY, COMMUNICATION, COMPUTATION])
        == "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"
    )
