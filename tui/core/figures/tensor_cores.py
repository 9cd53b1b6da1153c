"""Tensor Cores: which kernels ran on them, and which operators launched kernels that could.

torch-tb-profiler's rules (pytorch/kineto, tb_plugin/torch_tb_profiler/profiler/,
BSD licence), ported so the figures are TensorBoard's:

- a kernel **ran on Tensor Cores** when its name contains one of the
  patterns of `TC_Allowlist` (tensor_core.py, after NVIDIA's PyProf);
- an operator is **eligible** when its name is one of `TC_OP_Allowlist`
  (tensor_core.py, the ops autocast runs in lower precision), or when it
  is an operator (`cpu_op`) that launched a kernel which ran on Tensor Cores
  (node.py, OperatorNode.fill_stats); the kernels counted as launched by
  eligible operators are those of the *bottom* eligible operators, the ones
  with no eligible operator below them (tensor_cores_parser.py,
  `_get_bottom_tc_eligible_operators`), so `aten::linear` over `aten::addmm`
  counts its kernels once, under `aten::addmm`;
- both shares are of the kernel time launched by operators (`cpu_op`
  events, less ProfilerStep#, DataLoader, `Optimizer.*` and the
  DataParallel wrappers: node.py, is_operator_node), as
  `tc_eligible_ops_kernel_ratio` and `tc_ratio` are.

A kernel belongs to the operator whose External id its launch carried
(`Analysis.gpu_owner`): torch-tb-profiler ties a kernel to its runtime call
by correlation id and that call to the operator of the same External id,
the same operator wherever the trace writes both ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.model.masks import names_in
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# tensor_core.py TC_Allowlist: a kernel whose name contains one of these ran
# on Tensor Cores (verbatim, in torch-tb-profiler's order).
TENSOR_CORE_KERNEL_PATTERNS = (
    "h884",
    "s884",
    "h1688",
    "s1688",
    "hmma",
    "i8816",
    "16816",
    "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel",
    "conv1x1",
    "conv2d_c1_k1",
    "direct_group",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm",
    "xmma_sparse_gemm",
    "c1688",
)
# tensor_core.py TC_OP_Allowlist: operators that can run on Tensor Cores
# (verbatim; the backward names are torch-tb-profiler's own recordings).
TENSOR_CORE_ELIGIBLE_OPERATORS = frozenset(
    {
        "aten::_convolution",
        "aten::conv1d",
        "aten::conv2d",
        "aten::conv3d",
        "aten::conv_tbc",
        "aten::conv_transpose1d",
        "aten::conv_transpose2d",
        "aten::conv_transpose3d",
        "aten::convolution",
        "aten::cudnn_convolution",
        "aten::cudnn_convolution_transpose",
        "aten::prelu",
        "aten::addmm",
        "aten::addmv",
        "aten::addr",
        "aten::matmul",
        "aten::mm",
        "aten::mv",
        "aten::linear",
        "aten::addbmm",
        "aten::baddbmm",
        "aten::bmm",
        "aten::chain_matmul",
        "aten::linalg_multi_dot",
        "aten::_thnn_fused_lstm_cell",
        "aten::_thnn_fused_gru_cell",
        "aten::lstm_cell",
        "aten::gru_cell",
        "aten::rnn_tanh_cell",
        "aten::rnn_relu_cell",
        "CudnnConvolutionBackward",
        "BmmBackward0",
        "aten::cudnn_convolution_transpose_backward",
        "CudnnConvolutionTransposeBackward",
        "MmBackward",
        "aten::cudnn_convolution_backward_weight",
        "aten::addmm_",
        "AddmvBackward",
        "MvBackward",
        "aten::cudnn_convolution_transpose_backward_weight",
        "aten::cudnn_convolution_transpose_backward_input",
        "AddmmBackward",
        "aten::cudnn_convolution_backward_input",
        "AddbmmBackward",
        "aten::cudnn_convolution_backward",
    }
)
# node.py: operator events that are not operators to torch-tb-profiler
# (ExcludeOpName, `Optimizer.*`; create_operator_node's DataLoader nodes).
_WRAPPERS = frozenset({"DataParallel.forward", "DistributedDataParallel.forward"})


def runs_on_tensor_cores(name: str) -> bool:
    """Whether a kernel's name says it ran on Tensor Cores (TC_Allowlist)."""
    return any(pattern in name for pattern in TENSOR_CORE_KERNEL_PATTERNS)


def is_operator_name(name: str) -> bool:
    """Whether a `cpu_op` of this name is an operator to torch-tb-profiler."""
    return not (
        name.startswith("ProfilerStep#")
        or name in _WRAPPERS
        or name.startswith("Optimizer.")
        or (name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__"))
        or name.startswith("enumerate(DataPipe)#")
    )


@dataclass(frozen=True)
class TensorCoreKernels:
    """Every kernel of a capture with what torch-tb-profiler says of it.

    `by_operator`: launched by an operator (the shares' whole);
    `eligible`: launched by a bottom eligible operator; `owner`: the
    launching event (-1 when unknown).
    """

    events: Int64Array
    on_tensor_cores: BoolArray
    by_operator: BoolArray
    eligible: BoolArray
    owner: Int64Array


def tensor_core_kernels(
    trace: Trace, owner: Int64Array, parent: Int64Array
) -> TensorCoreKernels:
    """Classify every kernel (`kernel` events: the only ones the rules read)."""
    kernels = np.flatnonzero(trace.kind == Kind.KERNEL).astype(np.int64)
    names = trace.names
    tc_names = [i for i, name in enumerate(names) if runs_on_tensor_cores(name)]
    on_tc = names_in(trace, tc_names)[kernels]
    launcher = owner[kernels]
    linked = launcher >= 0
    safe = np.maximum(launcher, 0)
    operator_names = [i for i, name in enumerate(names) if is_operator_name(name)]
    is_operator = (trace.kind == Kind.CPU_OP) & names_in(trace, operator_names)
    by_operator = linked & is_operator[safe]
    # Eligible by name, or an operator that launched a Tensor-Core kernel of
    # some length (rt.tc_duration > 0 in node.py).
    eligible_names = [
        i for i, name in enumerate(names) if name in TENSOR_CORE_ELIGIBLE_OPERATORS
    ]
    eligible_op = names_in(trace, eligible_names)
    launched_tc = linked & on_tc & (trace.duration_ns[kernels] > 0)
    tc_launchers = launcher[launched_tc]
    eligible_op[tc_launchers[is_operator[tc_launchers]]] = True
    bottom = eligible_op & ~_has_marked_descendant(eligible_op, parent)
    eligible = linked & bottom[safe]
    return TensorCoreKernels(kernels, on_tc, by_operator, eligible, launcher)


def _has_marked_descendant(marked: BoolArray, parent: Int64Array) -> BoolArray:
    """For each event, whether a marked event lies anywhere below it (by `parent`)."""
    below = np.zeros(marked.size, dtype=bool)
    frontier = np.flatnonzero(marked)
    seen = np.zeros(marked.size, dtype=bool)
    # Walk up from every marked event at once; stop at ancestors already reached.
    current = parent[frontier]
    current = current[current >= 0]
    while current.size:
        current = distinct(current[~seen[current]])
        seen[current] = True
        below[current] = True
        current = parent[current]
        current = current[current >= 0]
    return below


@dataclass(frozen=True)
class TensorCoreUse:
    """Kernel time launched by operators, and how much of it used Tensor Cores.

    `operator` holds the most kernel time launched by eligible operators
    that did not run on Tensor Cores (`operator_ns` of it); None when none.
    """

    kernels: int
    kernel_ns: int
    tensor_core_ns: int
    eligible_ns: int
    eligible_tensor_core_ns: int
    operator: str | None = None
    operator_ns: int = 0

    @property
    def eligible_share(self) -> float | None:
        """tc_eligible_ops_kernel_ratio: eligible operators' share of the kernel time."""
        return self.eligible_ns / self.kernel_ns if self.kernel_ns > 0 else None

    @property
    def tensor_core_share(self) -> float | None:
        """tc_ratio: the share of the kernel time that ran on Tensor Cores."""
        return self.tensor_core_ns / self.kernel_ns if self.kernel_ns > 0 else None

    @property
    def eligible_not_tensor_core_ns(self) -> int:
        """Kernel time of eligible operators that did not run on Tensor Cores."""
        return self.eligible_ns - self.eligible_tensor_core_ns


def tensor_core_use(
    trace: Trace, kernels: TensorCoreKernels, selected: BoolArray | None = None
) -> TensorCoreUse:
    """The figures over the `selected` kernels (a mask over `kernels.events`; all by default)."""
    chosen = np.ones(kernels.events.size, dtype=bool) if selected is None else selected
    durations = trace.duration_ns[kernels.events]
    whole = chosen & kernels.by_operator
    eligible = chosen & kernels.eligible
    missed = eligible & ~kernels.on_tensor_cores
    operator: str | None = None
    operator_ns = 0
    if missed.any():
        name_ids = trace.name_id[kernels.owner[missed]]
        totals = np.bincount(name_ids, weights=durations[missed].astype(np.float64))
        top = int(np.argmax(totals))
        operator, operator_ns = trace.names[top], int(totals[top])
    return TensorCoreUse(
        kernels=int(whole.sum()),
        kernel_ns=int(durations[whole].sum()),
        tensor_core_ns=int(durations[whole & kernels.on_tensor_cores].sum()),
        eligible_ns=int(durations[eligible].sum()),
        eligible_tensor_core_ns=int(
            durations[eligible & kernels.on_tensor_cores].sum()
        ),
        operator=operator,
        operator_ns=operator_ns,
    )


def without_tensor_cores(trace: Trace) -> str | None:
    """Why the capture's device cannot be read for Tensor Cores (None when it can).

    The kernel-name rule reads NVIDIA's libraries' names: an AMD device
    (HIP runtime calls, or an AMD device in deviceProperties) has matrix
    cores under other names, and NVIDIA devices before compute capability
    7.0 have no Tensor Cores (torch-tb-profiler's own gate).
    """
    devices = _devices(trace.metadata)
    for device in devices:
        name = str(device.get("name", ""))
        if "AMD" in name.upper().split():
            return f"an AMD device ({name}): the rule reads NVIDIA kernel names"
    if any(name.startswith("hip") for name in _runtime_names(trace)):
        return "a HIP (AMD) capture: the rule reads NVIDIA kernel names"
    majors = [device.get("computeMajor") for device in devices]
    known = [major for major in majors if isinstance(major, int)]
    if known and max(known) < 7:
        return f"compute capability {max(known)}.x: Tensor Cores start at 7.0"
    return None


def _devices(metadata: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    devices = metadata.get("deviceProperties")
    if not isinstance(devices, list):
        return []
    return [device for device in devices if isinstance(device, Mapping)]


def _runtime_names(trace: Trace) -> list[str]:
    ids = distinct(trace.name_id[trace.kind == Kind.RUNTIME])
    return [trace.names[int(index)] for index in ids]
