"""One step's three labelled zones: reading the batch, the transfer, the training."""

from __future__ import annotations

from tests.support.tracegen.formats import COPY_STREAM
from tests.support.tracegen.kernels import FILL_F
from tests.support.tracegen.model import ModelBuilder
from tests.support.tracegen.nodes import (
    BACKWARD,
    COPY,
    MALLOC,
    STREAMWAIT,
    Node,
    ann,
    empty_op,
    gap,
    launch,
    op,
    runtime,
    strided_op,
)


def data_loading(samples: int, decode_us: int) -> Node:
    """``lecture_batch_cpu``: read, transform and collate a batch on the CPU."""
    per_sample: list[Node] = []
    for _ in range(samples):
        to_copy = op("aten::_to_copy", 9_000, empty_op(), op("aten::copy_", 18_000))
        per_sample += [
            gap(decode_us * 1000),
            op("aten::to", 2_000, to_copy),
            op("aten::div", 16_000),
            op("aten::sub", 14_000),
            strided_op("aten::permute"),
        ]

    def unsqueezes() -> list[Node]:
        """One ``aten::unsqueeze`` per sample, before a stack."""
        return [strided_op("aten::unsqueeze", 1_600) for _ in range(samples)]

    def pin(copy_ns: int) -> Node:
        """``pin_memory`` of a batch tensor."""
        inner = op(
            "aten::_pin_memory",
            8_000,
            op("aten::empty", 4_000),
            op("aten::copy_", copy_ns),
        )
        return op("aten::pin_memory", 3_000, op("aten::is_pinned", 2_500), inner)

    nxt = ann(
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
        60_000,
        *per_sample,
        op("aten::stack", 8_000, *unsqueezes(), op("aten::cat", 60_000)),
        op("aten::lift_fresh", 900),
        op("aten::stack", 4_000, *unsqueezes(), op("aten::cat", 6_000)),
        pin(90_000),
        pin(3_000),
    )
    return ann("lecture_batch_cpu", 30_000, nxt, zone=True)


def transfer(batch: int, image_bytes: int) -> Node:
    """``transfert``: pinned host > device copies on the copy stream."""

    def to_device(nbytes: int) -> Node:
        """``.to(device)`` of a pinned tensor: a copy on the copy stream."""
        copy = Node(
            COPY, "Memcpy HtoD (Pinned -> Device)", 0, stream=COPY_STREAM, nbytes=nbytes
        )
        empty = op("aten::empty_strided", 3_000, Node(MALLOC, "cudaMalloc", 0))
        to_copy = op("aten::_to_copy", 6_000, empty, op("aten::copy_", 8_000, copy))
        return op("aten::to", 2_500, to_copy)

    return ann(
        "transfert",
        20_000,
        runtime("cudaStreamGetPriority", 1_200),
        runtime("cudaDeviceGetStreamPriorityRange", 1_000),
        to_device(batch * image_bytes),
        op("aten::record_stream", 2_000),
        to_device(batch * 8),
        op("aten::record_stream", 2_000),
        Node(STREAMWAIT, "cudaStreamWaitEvent", 0),
        zone=True,
    )


def training(model: ModelBuilder, fwd: list[Node], optim: Node) -> Node:
    """``entrainement``: zero_grad, forward + loss, backward, optimizer step."""
    fill = launch(model.k.elementwise(FILL_F, "float", 2, arity=1))
    ones = op(
        "aten::ones_like",
        3_000,
        op("aten::empty_like", 2_500, empty_op()),
        op("aten::fill_", 6_000, fill),
    )
    return ann(
        "entrainement",
        25_000,
        ann("Optimizer.zero_grad#Adam.zero_grad", 45_000),
        *fwd,
        ones,
        Node(BACKWARD, "backward", 0),
        optim,
        zone=True,
    )


ACCUMULATE = op(
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
    3_000,
    op(
        "torch::autograd::AccumulateGrad",
        3_500,
        op("aten::detach", 2_000, op("detach", 800)),
    ),
)
ITEM_COPY = Node(COPY, "Memcpy DtoH (Device -> Pageable)", 0, nbytes=4)
