#!/usr/bin/env python3
"""Generate a realistic PyTorch profiler (Kineto) Chrome trace of a given size.

The output copies what torch 2.x exports for a CUDA training loop: the header
(``schemaVersion``, ``deviceProperties``, ``distributedInfo``,
``record_shapes``...), ``traceEvents`` in Kineto's own pretty layout, and the
trailer (``traceName``, ``displayTimeUnit``).  Each step is a
``ProfilerStep#N`` holding three labelled zones:

* ``lecture_batch_cpu``: the batch is read on the CPU (DataLoader
  ``__next__``, per-sample transforms, collate, pin_memory).  No GPU work is
  launched there, though the GPU may still be finishing the previous step;
* ``transfert``: ``aten::to`` > ``aten::_to_copy`` > ``aten::copy_`` >
  ``cudaMemcpyAsync`` > ``Memcpy HtoD`` on a copy stream (20); the compute
  stream (7) then waits for it;
* ``entrainement``: zero_grad, a forward pass nested 3 to 5 deep, the loss,
  the backward pass on the autograd thread (linked by ``fwdbwd`` flows) and
  an Adam ``foreach`` optimizer step.

Some steps then call ``loss.item()`` (DtoH copy + ``cudaStreamSynchronize``)
or ``torch.cuda.synchronize()`` (``cudaDeviceSynchronize`` + ``cuda_sync``).
Kernels start after their launch, never overlap on a stream, and are tied to
their runtime call by ``ac2g`` flows whose id is the correlation id.

The trace is written step by step (never whole in memory), is fully decided
by the seed, and comes with ``PATH.expected.json``: what the generator knows
exactly (step durations, zone totals, GPU busy time as the union of kernel,
copy and set intervals, GPU idle time inside ``lecture_batch_cpu``, event
counts per category, calls per name).  ``check_expected.py`` recomputes it.

Usage::

    gen_trace.py --steps 3 -o small.json
    gen_trace.py --size-gb 1.2 -o bench-out/big.json [--gzip] [--seed 7]
    gen_trace.py --steps 3 --style 1.9 -o old.json   # as PyTorch 1.8-1.10 wrote it

Tests import ``generate(path, steps=..., seed=...)`` for small traces.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["GenerationResult", "expected_path_for", "generate", "main"]

#: Timestamp of the first step by default: an absolute epoch, nanoseconds.
DEFAULT_BASE_TS_NS = 1_712_195_495_519_689_047
#: Bytes in one "GB" of ``--size-gb`` (decimal, like sizes on disk).
GB = 1_000_000_000

MAIN_STREAM = 7
COPY_STREAM = 20
SYNC_TID = -1  # Kineto's track for device-wide syncs ("Device 0")
DEVICE = 0
CONTEXT_STREAM = 4294967295
GPU_BUSY_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

# Node kinds of the op-tree templates (a small interpreter runs them).
OP, LAUNCH, COPY, MEMSET, RUNTIME, BACKWARD = range(6)
DEVSYNC, STREAMWAIT, ITEM, MALLOC, GAP = range(6, 11)

# cbid values Kineto writes for the runtime calls used here.
CBID = {
    "cudaLaunchKernel": 211,
    "cudaMemcpyAsync": 41,
    "cudaMemsetAsync": 51,
    "cudaStreamSynchronize": 131,
    "cudaDeviceSynchronize": 165,
    "cudaEventRecord": 135,
    "cudaStreamWaitEvent": 147,
    "cudaMalloc": 20,
    "cudaStreamGetPriority": 203,
    "cudaDeviceGetStreamPriorityRange": 205,
    "cudaFuncSetAttribute": 273,
}

# Kineto's layout of each kind of event, as %-format templates.
CPU_FMT = (
    '  {\n    "ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d,\n'
    '    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "External id": %d,"Record function id": 0, '
    '%s"Ev Idx": %d%s\n    }\n  }'
)
RUNTIME_FMT = (
    '  {\n    "ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d, '
    '"tid": %d,\n    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "External id": %d,      "cbid": %d, '
    '"correlation": %d\n    }\n  }'
)
GPU_FMT = (
    '  {\n    "ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d,\n'
    '    "ts": %s, "dur": %s,\n    "args": {\n      %s\n    }\n  }'
)
KERNEL_ARGS_FMT = (
    '"External id": %d,      "queued": 0, "device": %d, "context": 1,'
    '      "stream": %d, "correlation": %d%s'
)
COPY_ARGS_FMT = (
    '"External id": %d,      "device": %d, "context": 1,      "stream": %d, '
    '"correlation": %d,      "bytes": %d, "memory bandwidth (GB/s)": %r'
)
SYNC_FMT = (
    '  {\n    "ph": "X", "cat": "cuda_sync", "name": "%s", "pid": %d, '
    '"tid": %d,\n    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "External id": %d,\n      "cuda_sync_kind": "%s",\n'
    '%s      "stream": %d, "correlation": %d,\n'
    '      "device": %d, "context": 1\n    }\n  }'
)
FLOW_S_FMT = (
    '  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
    '    "cat": "%s", "name": "%s"\n  }'
)
FLOW_F_FMT = (
    '  {\n    "ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
    '    "cat": "%s", "name": "%s", "bp": "e"\n  }'
)
GPU_ANN_FMT = (
    '  {\n    "ph": "X", "cat": "gpu_user_annotation", "name": %s, "pid": %d, '
    '"tid": %d,\n    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "External id": %d\n    }\n  }'
)
META_FMT = (
    '  {\n    "name": "%s", "ph": "M", "ts": %s, "pid": %s, "tid": %d,\n'
    '    "args": {\n      "%s": %s\n    }\n  }'
)

# The same events as PyTorch 1.8-1.10 (the TensorBoard-plugin era) wrote them:
# thread ids as strings, device tracks named "stream N", integer microseconds,
# capitalised categories, "external id" on GPU and runtime events, `async`
# launch flows, no cuda_sync, gpu_user_annotation or fwdbwd events.
STYLES = ("current", "1.9")
OLD_CATEGORIES = {
    "cpu_op": "Operator",
    "user_annotation": "Operator",
    "cuda_runtime": "Runtime",
    "kernel": "Kernel",
    "gpu_memcpy": "Memcpy",
    "gpu_memset": "Memset",
    "ac2g": "async",
}
OLD_CPU_FMT = (
    '  {\n    "ph": "X", "cat": "Operator", \n    "name": %s, "pid": %d, "tid": "%d",\n'
    '    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "Device": %d, "External id": %d,\n'
    '      "Trace name": "PyTorch Profiler", "Trace iteration": 0 %s\n    }\n  }'
)
OLD_RUNTIME_FMT = (
    '  {\n    "ph": "X", "cat": "Runtime", \n    "name": "%s", "pid": %d, "tid": "%d",\n'
    '    "ts": %s, "dur": %s,\n'
    '    "args": {\n      "cbid": %d, "correlation": %d,\n'
    '      "external id": %d, "external ts": %s\n    }\n  }'
)
OLD_GPU_FMT = (
    '  {\n    "ph": "X", "cat": "%s", \n    "name": %s, "pid": %d, "tid": "stream %d",\n'
    '    "ts": %s, "dur": %s,\n    "args": {\n      %s\n    }\n  }'
)
OLD_KERNEL_ARGS_FMT = (
    '"queued": 0, "device": %d, "context": 1,\n'
    '      "stream": %d, "correlation": %d, "external id": %d%s'
)
OLD_COPY_ARGS_FMT = (
    '"device": %d, "context": 1,\n      "stream": %d, "correlation": %d, '
    '"external id": %d,\n      "bytes": %d, "memory bandwidth (GB/s)": %r'
)
OLD_PROCESS_FMT = (
    '  {\n    "name": "%s", "ph": "M", "ts": %d, "pid": %d, "tid": 0,\n'
    '    "args": {\n      "%s": "%s"\n    }\n  }'
)
OLD_THREAD_FMT = (
    '  {\n    "name": "thread_name", "ph": "M", "ts": %d, "pid": %d, "tid": "%d",\n'
    '    "args": {\n      "name": "thread %d (%s)"\n    }\n  }'
)
OLD_FLOW_S_FMT = (
    '  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
    '    "cat": "async", "name": "launch"\n  }'
)
OLD_FLOW_F_FMT = (
    '  {\n    "ph": "f", "id": %d, "pid": %d, "tid": "stream %d", "ts": %s,\n'
    '    "cat": "async", "name": "launch", "bp": "e"\n  }'
)


def _q(name: str) -> str:
    """The JSON text of a name (computed once per template)."""
    return json.dumps(name)


def _us(ns: int) -> str:
    """Nanoseconds as Kineto writes microseconds: three decimals, exact."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def _us_int(ns: int) -> str:
    """Nanoseconds as PyTorch <= 1.10 wrote microseconds: whole, truncated."""
    return str(ns // 1000)


# --------------------------------------------------------------------------
# Templates: what one layer or one zone runs, built once per trace.
# --------------------------------------------------------------------------


class Kernel:
    """A GPU kernel: its name, launch configuration and typical duration."""

    __slots__ = ("base_ns", "name", "name_json", "tail")

    def __init__(self, name: str, base_ns: int, rng: random.Random) -> None:
        self.name = name
        self.name_json = _q(name)
        self.base_ns = base_ns
        block = rng.choice((128, 256, 512, 128, 256))
        grid = rng.choice((1, 2, 4, 8, 16, 32, 64, 108, 216, 432, 864, 1728, 3456))
        grid_y = rng.choice((1, 1, 1, 2, 4, 12))
        regs = rng.choice((16, 24, 30, 32, 40, 64, 96, 128, 168, 255))
        smem = rng.choice((0, 0, 0, 4096, 16384, 49152, 73728, 98304))
        blocks_per_sm = grid * grid_y / 108
        warps = blocks_per_sm * block / 32
        occupancy = min(100, int(warps / 64 * 100))
        self.tail = (
            f',      "registers per thread": {regs},'
            f'      "shared memory": {smem},'
            f'      "blocks per SM": {blocks_per_sm:.6f},'
            f'      "warps per SM": {warps:.6f},'
            f'      "grid": [{grid}, {grid_y}, 1],'
            f'      "block": [{block}, 1, 1],'
            f'      "est. achieved occupancy %": {occupancy}'
        )


class Autograd:
    """The backward node a forward op creates, and what it runs."""

    __slots__ = ("body", "eval_json", "eval_name", "node", "node_json", "params")

    def __init__(self, node: str, body: Sequence[Node], params: int = 0) -> None:
        self.node = node
        self.node_json = _q(node)
        self.eval_name = "autograd::engine::evaluate_function: " + node
        self.eval_json = _q(self.eval_name)
        self.body = tuple(body)
        self.params = params


class Node:
    """One node of an op tree: a CPU op, a launch, a copy, a sync..."""

    __slots__ = (
        "autograd",
        "cat",
        "children",
        "kernel",
        "kind",
        "name",
        "name_json",
        "nbytes",
        "shapes",
        "stream",
        "time_ns",
        "zone",
    )

    def __init__(
        self,
        kind: int,
        name: str = "",
        time_ns: int = 0,
        children: Sequence[Node] = (),
        *,
        cat: str = "cpu_op",
        kernel: Kernel | None = None,
        stream: int = MAIN_STREAM,
        nbytes: int = 0,
        shapes: str = "",
        autograd: Autograd | None = None,
        zone: bool = False,
    ) -> None:
        self.kind = kind
        self.name = name
        self.name_json = _q(name)
        self.time_ns = time_ns
        self.children = tuple(children)
        self.cat = cat
        self.kernel = kernel
        self.stream = stream
        self.nbytes = nbytes
        self.shapes = shapes
        self.autograd = autograd
        self.zone = zone


def op(
    name: str,
    time_ns: int,
    *children: Node,
    shapes: str = "",
    grad: Autograd | None = None,
) -> Node:
    """A ``cpu_op`` taking about ``time_ns`` of its own."""
    return Node(OP, name, time_ns, children, shapes=shapes, autograd=grad)


def ann(name: str, time_ns: int, *children: Node, zone: bool = False) -> Node:
    """A ``user_annotation`` (record_function range); zones are recorded."""
    return Node(OP, name, time_ns, children, cat="user_annotation", zone=zone)


def launch(kernel: Kernel, stream: int = MAIN_STREAM) -> Node:
    return Node(LAUNCH, "cudaLaunchKernel", 5_000, kernel=kernel, stream=stream)


def runtime(name: str, time_ns: int) -> Node:
    """A runtime call with no GPU activity."""
    return Node(RUNTIME, name, time_ns)


def gap(time_ns: int) -> Node:
    """Time spent in untraced Python code (decoding an image, say)."""
    return Node(GAP, "", time_ns)


def _empty(name: str = "aten::empty_strided") -> Node:
    return op(name, 1_900)


def _view(name: str = "aten::view") -> Node:
    return op(name, 1_800)


def _strided(name: str, time_ns: int = 2_200, grad: Autograd | None = None) -> Node:
    """A view op: ``name`` > ``aten::as_strided``."""
    return op(name, time_ns, op("aten::as_strided", 700), grad=grad)


def _t(grad: Autograd | None = None) -> Node:
    return op("aten::t", 2_600, _strided("aten::transpose", 1_700), grad=grad)


def _shapes(
    dims: Sequence[Sequence[int]], dtype: str = "float", scalars: int = 0
) -> str:
    """The ``record_shapes`` args of an op taking tensors of these dims."""
    strides: list[list[int]] = []
    for d in dims:
        acc, st = 1, []
        for size in reversed(d):
            st.append(acc)
            acc *= size
        strides.append(list(reversed(st)))
    pad: list[list[int]] = [[] for _ in range(scalars)]
    types = [dtype] * len(dims) + ["Scalar"] * scalars
    concrete = [""] * len(dims) + ["1"] * scalars
    return (
        f', "Input Dims": {json.dumps([list(d) for d in dims] + pad)},'
        f' "Input type": {json.dumps(types)},'
        f' "Input Strides": {json.dumps(strides + pad)},'
        f' "Concrete Inputs": {json.dumps(concrete)}'
    )


# Pieces of templated kernel names.
NS = "at::native::"
ANON = "at::native::(anonymous namespace)::"
ADD_F = NS + "CUDAFunctor_add<{T}>"
FILL_F = NS + "FillFunctor<{T}>"
DIV_F = NS + "BinaryFunctor<{T}, {T}, {T}, " + NS + "binary_internal::DivFunctor<{T}> >"
CLAMP_F = (
    ANON + "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::"
    "{lambda()#7}::operator()() const::{lambda({T})#1}"
)
GELU_F = (
    NS + "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
    "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda({T})#1}"
)
THRESHOLD_BWD_F = (
    ANON + "threshold_kernel_impl<{T}>(at::TensorIteratorBase&, {T}, {T})::"
    "{lambda({T}, {T})#1}"
)
GELU_BWD_F = (
    NS + "GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
    "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda({T}, {T})#1}"
)
MASKED_SCALE_F = (
    ANON + "masked_scale_kernel<bool, {T}, {T}>(at::Tensor&, at::Tensor const&, "
    "at::Tensor const&, {T})::{lambda({T}, bool)#1}"
)
TRIVIAL_OFFSETS = "TrivialOffsetCalculator<{n}, unsigned int>, TrivialOffsetCalculator<1, unsigned int>"
NO_CAST = "at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast"


class KernelBook:
    """Kernel names as the CUDA libraries spell them, with seeded variants."""

    def __init__(self, rng: random.Random, scale: float) -> None:
        self.rng = rng
        self.scale = scale  # GPU speed: every duration is multiplied by it
        self._cache: dict[str, Kernel] = {}

    def get(self, name: str, base_us: float) -> Kernel:
        kernel = self._cache.get(name)
        if kernel is None:
            kernel = Kernel(name, int(base_us * 1000 * self.scale), self.rng)
            self._cache[name] = kernel
        return kernel

    def gemm(self, dtype: str, base_us: float) -> Kernel:
        r = self.rng
        lay = r.choice(("nn", "nt", "tn"))
        if dtype == "float":
            form = r.randrange(3)
            if form == 0:
                tile = r.choice(("32x32_sliced1x4", "64x32_sliced1x4", "128x32"))
                tile = r.choice((tile, "128x64", "128x128", "64x64"))
                name = f"ampere_sgemm_{tile}_{lay}"
            elif form == 1:
                tile = r.choice(("128x128x32", "128x64x32", "64x64x32", "256x128x32"))
                stage = r.choice((3, 4, 5))
                name = (
                    f"sm80_xmma_gemm_f32f32_tf32f32_f32_{lay}_n_tilesize{tile}"
                    f"_stage{stage}_warpsize2x2x1_tensor16x8x8_kernel"
                )
            else:
                tile = r.choice(("64x64", "128x128", "256x64", "128x64"))
                cfg = f"{tile}_{r.choice(('16x5', '32x3', '16x3', '32x6'))}"
                align = r.choice((1, 4))
                inner = f"cutlass_80_tensorop_s1688gemm_{cfg}_{lay}_align{align}"
                name = f"void cutlass::Kernel2<{inner}>({inner}::Params)"
        else:
            short = "f16" if dtype == "c10::Half" else "bf16"
            if r.random() < 0.5:
                tile = r.choice(("128x128", "256x128", "128x64", "64x64", "128x256"))
                stages = r.choice(("32x5", "64x3", "32x3", "64x4"))
                long = "fp16" if short == "f16" else "bf16"
                name = (
                    f"ampere_{long}_s16816gemm_{short}_{tile}_ldg8_f2f"
                    f"_stages_{stages}_{lay}"
                )
            else:
                tile = r.choice(("128x128x32", "128x256x64", "64x64x64", "256x128x32"))
                name = (
                    f"sm80_xmma_gemm_{short}{short}_{short}f32_f32_{lay}_n_tilesize"
                    f"{tile}_stage{r.choice((3, 4))}_warpsize2x2x1_tensor16x8x16_kernel"
                )
        return self.get(name, base_us)

    def elementwise(
        self, functor: str, dtype: str, base_us: float, arity: int = 3
    ) -> Kernel:
        f = functor.replace("{T}", dtype)
        arr = f"at::detail::Array<char*, {arity}>"
        if self.rng.random() < 0.75:
            name = (
                f"void {NS}vectorized_elementwise_kernel<4, {f}, {arr} >"
                f"(int, {f}, {arr})"
            )
        else:
            offs = TRIVIAL_OFFSETS.replace("{n}", str(arity - 1))
            name = (
                f"void {NS}unrolled_elementwise_kernel<{f}, {arr}, {offs}, {NO_CAST}>"
                f"(int, {f}, {arr}, {offs}, {NO_CAST})"
            )
        return self.get(name, base_us)

    def reduce(self, op_name: str, dtype: str, base_us: float) -> Kernel:
        r = self.rng
        threads, vec = r.choice((128, 256, 512)), r.choice((1, 2, 4))
        functor = (
            f"{NS}{op_name}_functor<{dtype}, float, {dtype}>::operator()"
            "(at::TensorIterator&)::{lambda(float, float)#1}"
        )
        inner = (
            f"{NS}ReduceOp<{dtype}, {NS}func_wrapper_t<{dtype}, {functor}>, "
            f"unsigned int, {dtype}, 4>"
        )
        name = f"void {NS}reduce_kernel<{threads}, {vec}, {inner}>({inner})"
        return self.get(name, base_us)

    def copy(self, src: str, dst: str, base_us: float) -> Kernel:
        if src == dst:
            lam = (
                f"{NS}direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#3}}"
                f"::operator()() const::{{lambda()#7}}::operator()() const::"
                f"{{lambda({src})#1}}"
            )
        else:
            lam = (
                f"{ANON}copy_kernel_impl<{src}, {dst}>(at::TensorIteratorBase&)::"
                f"{{lambda({src})#1}}"
            )
        impl = (
            f"{NS}gpu_kernel_impl_nocast<{lam}>(at::TensorIteratorBase&, "
            f"{lam} const&)::{{lambda(int)#1}}"
        )
        return self.get(
            f"void {NS}elementwise_kernel<128, 2, {impl}>(int, {impl})", base_us
        )

    def multi_tensor(self, functor: str, depth: int, base_us: float) -> Kernel:
        meta = f"{ANON}TensorListMetadata<{depth}>"
        f = ANON + functor
        name = (
            f"void {ANON}multi_tensor_apply_kernel<{meta}, {f}, float>"
            f"({meta}, {f}, float)"
        )
        return self.get(name, base_us)


# --------------------------------------------------------------------------
# The model: a small conv stem, then transformer blocks; seeded variants.
# --------------------------------------------------------------------------


class ModelBuilder:
    """Builds the forward op trees (with their backward bodies) of one model."""

    def __init__(
        self, rng: random.Random, batch: int, width: int, depth: int, gpu_scale: float
    ) -> None:
        self.rng = rng
        self.k = KernelBook(rng, gpu_scale)
        self.batch = batch
        self.width = width
        self.depth = depth
        self.params = 0  # parameter tensors (sizes the optimizer's launches)

    def tokens_dims(self) -> list[int]:
        return [self.batch, 64, self.width]

    def cast(self, dtype: str, dims: list[int]) -> list[Node]:
        """Autocast: ``aten::to`` of a weight before a low-precision op."""
        if dtype == "float":
            return []
        kern = self.k.copy("float", dtype, 4 + self.rng.random() * 6)
        back = [op("aten::to", 2_500, op("aten::_to_copy", 4_000, _empty()))]
        grad = Autograd("ToCopyBackward0", back)
        copy = op("aten::copy_", 5_000, launch(kern))
        to_copy = op("aten::_to_copy", 4_500, _empty(), copy, grad=grad)
        return [op("aten::to", 2_500, to_copy, shapes=_shapes([dims]))]

    def linear(self, n_in: int, n_out: int, dtype: str, gemm_us: float) -> list[Node]:
        k = self.k
        self.params += 2
        bias_sum = k.reduce("sum", dtype, 6 + gemm_us * 0.05)
        bwd = Autograd(
            "AddmmBackward0",
            [
                _t(),
                op("aten::mm", 9_000, launch(k.gemm(dtype, gemm_us * 1.1))),
                _t(),
                op("aten::mm", 9_000, launch(k.gemm(dtype, gemm_us))),
                _t(),
                op("aten::sum", 8_000, launch(bias_sum)),
                _view(),
            ],
            params=2,
        )
        t_node = _t(grad=Autograd("TBackward0", [_t()]))
        dims = [[n_out], [self.batch * 64, n_in], [n_in, n_out]]
        shapes = _shapes(dims, dtype, scalars=2)
        gemm = launch(k.gemm(dtype, gemm_us))
        addmm = op("aten::addmm", 16_000, gemm, shapes=shapes, grad=bwd)
        return [
            *self.cast(dtype, [n_out, n_in]),
            op("aten::linear", 3_500, t_node, addmm),
        ]

    def pointwise(
        self,
        names: tuple[str, str],
        functors: tuple[str, str],
        bwd: tuple[str, str],
        dtype: str,
        us: float,
    ) -> list[Node]:
        """An activation: ``outer`` [> ``inner``] > one elementwise kernel."""
        outer, inner = names
        kern = self.k.elementwise(functors[0], dtype, us, arity=2)
        bkern = self.k.elementwise(functors[1], dtype, us * 1.4)
        grad = Autograd(bwd[0], [op(bwd[1], 7_000, launch(bkern))])
        shapes = _shapes([self.tokens_dims()], dtype)
        if inner:
            leaf = op(inner, 6_000, launch(kern), shapes=shapes)
            return [op(outer, 3_000, leaf, grad=grad)]
        return [op(outer, 6_000, launch(kern), shapes=shapes, grad=grad)]

    def relu(self, dtype: str) -> list[Node]:
        names = ("aten::relu", "aten::clamp_min")
        bwd = ("ReluBackward0", "aten::threshold_backward")
        return self.pointwise(names, (CLAMP_F, THRESHOLD_BWD_F), bwd, dtype, 9)

    def gelu(self, dtype: str) -> list[Node]:
        bwd = ("GeluBackward0", "aten::gelu_backward")
        return self.pointwise(("aten::gelu", ""), (GELU_F, GELU_BWD_F), bwd, dtype, 14)

    def layer_norm(self, dtype: str) -> list[Node]:
        k = self.k
        self.params += 2
        d = dtype
        fwd = k.get(
            f"void {ANON}vectorized_layer_norm_kernel<{d}, float>(int, float, "
            f"{d} const*, {d} const*, {d} const*, float*, float*, {d}*)",
            12 + self.rng.random() * 10,
        )
        b1 = k.get(
            f"void {ANON}layer_norm_grad_input_kernel_vectorized<{d}, float>"
            f"({d} const*, {d} const*, float const*, float const*, {d} const*, "
            f"{d}*, int)",
            18,
        )
        b2 = k.get(
            f"void {ANON}GammaBetaBackwardCUDAKernel_32x32<{d}, float>(long, long, "
            f"{d} const*, {d} const*, float const*, float const*, {d}*, {d}*)",
            15,
        )
        body = op(
            "aten::native_layer_norm_backward",
            14_000,
            _empty("aten::empty_like"),
            launch(b1),
            launch(b2),
        )
        grad = Autograd("NativeLayerNormBackward0", [body], params=2)
        dims = [self.tokens_dims(), [self.width], [self.width]]
        inner = op(
            "aten::native_layer_norm",
            9_000,
            _empty("aten::empty"),
            _empty("aten::empty"),
            launch(fwd),
            shapes=_shapes(dims, dtype),
            grad=grad,
        )
        return [op("aten::layer_norm", 3_000, inner)]

    def dropout(self, dtype: str) -> list[Node]:
        k = self.k
        info = "at::cuda::detail::TensorInfo"
        fwd = k.get(
            f"void {ANON}fused_dropout_kernel_vec<{dtype}, float, unsigned int, 1, 4, "
            f"bool>({info}<{dtype} const, unsigned int>, {info}<{dtype}, unsigned int>, "
            f"{info}<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
            11,
        )
        bk = k.elementwise(MASKED_SCALE_F, dtype, 9)
        body = op("aten::native_dropout_backward", 8_000, launch(bk))
        grad = Autograd("NativeDropoutBackward0", [body])
        inner = op(
            "aten::native_dropout",
            9_000,
            _empty("aten::empty_like"),
            launch(fwd),
            grad=grad,
        )
        return [op("aten::dropout", 2_500, inner)]

    def residual(self, dtype: str) -> list[Node]:
        kern = self.k.elementwise(ADD_F, dtype, 8)
        shapes = _shapes([self.tokens_dims()] * 2, dtype, 1)
        return [
            op(
                "aten::add",
                7_000,
                launch(kern),
                shapes=shapes,
                grad=Autograd("AddBackward0", []),
            )
        ]

    def attention(self, dtype: str) -> list[Node]:
        k, r = self.k, self.rng
        tag = {"float": "f32", "c10::Half": "f16", "c10::BFloat16": "bf16"}[dtype]
        qk, kv = r.choice(((64, 64), (32, 128), (64, 128)))
        mem_eff = "PyTorchMemEffAttention::"
        fwd = k.get(
            f"fmha_cutlassF_{tag}_aligned_{qk}x{kv}_rf_sm80({mem_eff}AttentionKernel<"
            f"{dtype}, cutlass::arch::Sm80, true, {qk}, {kv}, 64, true, true>::Params)",
            90 + r.random() * 120,
        )
        bwd = k.get(
            f"fmha_cutlassB_{tag}_aligned_{qk}x{kv}_k64_sm80({mem_eff}"
            f"AttentionBackwardKernel<cutlass::arch::Sm80, {dtype}, true, false, true, "
            f"{qk}, {kv}, 64, false>::Params)",
            220 + r.random() * 200,
        )
        zero = op(
            "aten::zero_",
            2_000,
            op("aten::fill_", 5_000, launch(k.elementwise(FILL_F, dtype, 3, 1))),
        )
        backward = op(
            "aten::_efficient_attention_backward",
            21_000,
            _empty("aten::empty"),
            op("aten::zeros", 4_000, _empty("aten::empty"), zero),
            runtime("cudaFuncSetAttribute", 3_000),
            launch(bwd),
        )
        grad = Autograd(
            "ScaledDotProductEfficientAttentionBackward0",
            [
                op(
                    "aten::_scaled_dot_product_efficient_attention_backward",
                    6_000,
                    backward,
                )
            ],
        )
        forward = op(
            "aten::_efficient_attention_forward",
            16_000,
            _empty("aten::empty"),
            runtime("cudaFuncSetAttribute", 2_500),
            launch(fwd),
        )
        dims = [[self.batch, 8, 64, self.width // 8]] * 3
        sdpa = op(
            "aten::_scaled_dot_product_efficient_attention",
            5_000,
            forward,
            shapes=_shapes(dims, dtype),
            grad=grad,
        )
        width = 2 if dtype != "float" else 4
        opaque = f"{ANON}OpaqueType<{width}u>"
        cat_kernel = k.get(
            f"void {ANON}CatArrayBatchedCopy_aligned16_contig<{opaque}, unsigned int, 4, "
            f"128, 1>({opaque}*, {ANON}CatArrInputTensorMetadata<{opaque}, unsigned int, "
            f"128, 1>, {ANON}TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
            14,
        )
        stack = op("aten::stack", 9_000, op("aten::cat", 7_000, launch(cat_kernel)))
        selects = [_strided("aten::select", 1_500) for _ in range(3)]
        view_grad = Autograd("ViewBackward0", [op("aten::reshape", 2_000, _view())])
        perm_grad = Autograd("PermuteBackward0", [_strided("aten::permute")])
        return [
            op("aten::view", 1_800, grad=view_grad),
            _strided("aten::permute", grad=perm_grad),
            op(
                "aten::unbind",
                4_000,
                *selects,
                grad=Autograd("UnbindBackward0", [stack]),
            ),
            op("aten::scaled_dot_product_attention", 3_000, sdpa),
        ]

    def conv_bn_relu(self, c_in: int, c_out: int, hw: int) -> list[Node]:
        k, r = self.k, self.rng
        self.params += 4
        igemm = "implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize"
        tail = "_warpsize2x2x1_g1_tensor16x8x8_kernel"
        tiles = ("128x128x16", "64x64x32", "128x64x32", "256x64x16")
        fprop = k.get(
            f"sm80_xmma_fprop_{igemm}{r.choice(tiles)}_stage{r.choice((3, 4, 5))}{tail}",
            120 + r.random() * 200,
        )
        dgrad = k.get(
            f"sm80_xmma_dgrad_{igemm}{r.choice(tiles)}_stage{r.choice((4, 5))}{tail}",
            160 + r.random() * 200,
        )
        wgrad = k.get(
            f"sm80_xmma_wgrad_{igemm}{r.choice(tiles)}_stage{r.choice((3, 4))}{tail}",
            150 + r.random() * 200,
        )
        to_nhwc = k.get(
            "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
            "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, "
            "float const*, float*)",
            9,
        )
        conv_backward = op(
            "aten::convolution_backward",
            30_000,
            _empty("aten::empty"),
            Node(MEMSET, "cudaMemsetAsync", 6_000, nbytes=c_out * c_in * 9 * 4),
            launch(to_nhwc),
            launch(dgrad),
            launch(wgrad),
            op("aten::sum", 8_000, launch(k.reduce("sum", "float", 12))),
        )
        conv_grad = Autograd("ConvolutionBackward0", [conv_backward], params=2)
        dims = [[self.batch, c_in, hw, hw], [c_out, c_in, 3, 3], [c_out]]
        cudnn = op(
            "aten::cudnn_convolution",
            28_000,
            _empty("aten::empty"),
            launch(to_nhwc),
            launch(fprop),
            shapes=_shapes(dims[:2]),
        )
        bias = op("aten::add_", 6_000, launch(k.elementwise(ADD_F, "float", 7)))
        conv = op(
            "aten::conv2d",
            3_000,
            op(
                "aten::convolution",
                3_500,
                op("aten::_convolution", 5_000, cudnn, bias),
                shapes=_shapes(dims),
                grad=conv_grad,
            ),
        )
        tensor = "cudnnTensorStruct"
        bn_fwd = k.get(
            "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"
            f"({tensor}, float const*, {tensor}, float*, float const*, float const*, "
            "float, float, float*, float*, float*, float*, float, float)",
            25,
        )
        bn_bwd = k.get(
            "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>"
            f"(float, float, float, float, {tensor}, float const*, {tensor}, "
            f"float const*, {tensor}, float*, float const*, float*, float*, "
            "float const*, float const*, float)",
            40,
        )
        bn_body = op(
            "aten::cudnn_batch_norm_backward",
            16_000,
            _empty("aten::empty_like"),
            launch(bn_bwd),
        )
        bn_grad = Autograd("CudnnBatchNormBackward0", [bn_body], params=2)
        cudnn_bn = op(
            "aten::cudnn_batch_norm",
            13_000,
            _empty("aten::empty_like"),
            _empty("aten::empty"),
            launch(bn_fwd),
            grad=bn_grad,
        )
        impl = op("aten::_batch_norm_impl_index", 4_000, cudnn_bn)
        return [conv, op("aten::batch_norm", 2_500, impl), *self.relu("float")]

    def max_pool(self) -> list[Node]:
        k = self.k
        ints = ", ".join(["int"] * 10)
        fwd = k.get(
            f"void {ANON}max_pool_forward_nchw<float, float>(int, float const*, long, "
            f"long, long, {ints}, float*, long*)",
            30,
        )
        bwd = k.get(
            f"void {ANON}max_pool_backward_nchw<float, float>(float const*, long const*, "
            f"int, long, long, long, long, long, {ints}, float*)",
            45,
        )
        fill = launch(k.elementwise(FILL_F, "float", 4, arity=1))
        body = op(
            "aten::max_pool2d_with_indices_backward",
            12_000,
            op("aten::zero_", 2_500, op("aten::fill_", 5_000, fill)),
            launch(bwd),
        )
        grad = Autograd("MaxPool2DWithIndicesBackward0", [body])
        inner = op("aten::max_pool2d_with_indices", 10_000, launch(fwd), grad=grad)
        return [op("aten::max_pool2d", 3_000, inner)]

    def tokens(self) -> list[Node]:
        """Feature map > token sequence: flatten, transpose, contiguous."""
        copy = op("aten::copy_", 6_000, launch(self.k.copy("float", "float", 12)))
        clone = op(
            "aten::clone",
            3_000,
            _empty("aten::empty_like"),
            copy,
            grad=Autograd("CloneBackward0", []),
        )
        view_grad = Autograd("ViewBackward0", [op("aten::reshape", 2_000, _view())])
        t_grad = Autograd("TransposeBackward0", [_strided("aten::transpose", 1_700)])
        return [
            op("aten::flatten", 2_500, op("aten::view", 1_800, grad=view_grad)),
            _strided("aten::transpose", 1_700, grad=t_grad),
            op("aten::contiguous", 1_500, clone),
        ]

    def block(self) -> list[Node]:
        r = self.rng
        dt = r.choice(("float", "float", "c10::Half", "c10::BFloat16"))
        w = self.width
        g = 60 + r.random() * 90
        act = self.gelu(dt) if r.random() < 0.7 else self.relu(dt)
        return [
            *self.layer_norm(dt),
            *self.linear(w, 3 * w, dt, g * 1.5),
            *self.attention(dt),
            *self.linear(w, w, dt, g * 0.6),
            *self.dropout(dt),
            *self.residual(dt),
            *self.layer_norm(dt),
            *self.linear(w, 4 * w, dt, g * 2),
            *act,
            *self.linear(4 * w, w, dt, g * 2),
            *self.dropout(dt),
            *self.residual(dt),
        ]

    def head_and_loss(self, classes: int) -> list[Node]:
        k = self.k
        div = op("aten::div", 7_000, launch(k.elementwise(DIV_F, "float", 6)))
        mean_grad = Autograd("MeanBackward1", [_strided("aten::expand", 2_500), div])
        mean = op(
            "aten::mean", 9_000, launch(k.reduce("mean", "float", 9)), grad=mean_grad
        )
        sm = "(anonymous namespace)::"
        lsm = k.get(
            f"void {sm}cunn_SoftMaxForward<4, float, float, float, "
            f"{sm}LogSoftMaxForwardEpilogue>(float*, float const*, int)",
            8,
        )
        lsm_b = k.get(
            f"void {sm}cunn_SoftMaxBackward<4, float, float, float, "
            f"{sm}LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)",
            9,
        )
        nll = k.get(
            f"void {ANON}nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>"
            "(float*, float*, float const*, long const*, float const*, bool, long, "
            "long, long, long)",
            7,
        )
        nll_b = k.get(
            f"void {ANON}nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, "
            "float const*, long const*, float const*, float const*, bool, int, int, "
            "long, long)",
            5,
        )
        lsm_body = op(
            "aten::_log_softmax_backward_data",
            9_000,
            _empty("aten::empty"),
            launch(lsm_b),
        )
        log_softmax = op(
            "aten::log_softmax",
            2_500,
            op(
                "aten::_log_softmax",
                9_000,
                launch(lsm),
                grad=Autograd("LogSoftmaxBackward0", [lsm_body]),
            ),
        )
        fill = launch(k.elementwise(FILL_F, "float", 2.5, arity=1))
        nll_body = op(
            "aten::nll_loss_backward",
            10_000,
            op("aten::zero_", 2_500, op("aten::fill_", 5_000, fill)),
            launch(nll_b),
        )
        nll_forward = op(
            "aten::nll_loss_forward",
            11_000,
            _empty("aten::empty"),
            launch(nll),
            grad=Autograd("NllLossBackward0", [nll_body]),
        )
        nll_loss = op(
            "aten::nll_loss_nd", 2_000, op("aten::nll_loss", 2_500, nll_forward)
        )
        shapes = _shapes([[self.batch, classes], [self.batch]], "float")
        return [
            mean,
            *self.layer_norm("float"),
            *self.linear(self.width, classes, "float", 18),
            op("aten::cross_entropy_loss", 3_000, log_softmax, nll_loss, shapes=shapes),
        ]

    def forward(self) -> list[Node]:
        nodes: list[Node] = []
        nodes += self.conv_bn_relu(3, 32, 128)
        nodes += self.max_pool()
        nodes += self.conv_bn_relu(32, self.width, 64)
        nodes += self.max_pool()
        nodes += self.tokens()
        for _ in range(self.depth):
            nodes += self.block()
        nodes += self.head_and_loss(1000)
        return nodes

    def optimizer(self) -> Node:
        """``Optimizer.step#Adam.step``: foreach ops, chunks of launches."""
        chunks = max(1, self.params // 24)
        functors = [
            ("aten::_foreach_lerp_", "TernaryOpScalarListFunctor<float, 3, 2, 0>", 3),
            ("aten::_foreach_mul_", "BinaryOpScalarFunctor<float, 1, 1, 0>", 1),
            ("aten::_foreach_addcmul_", "PointwiseOpScalarFunctor<float, 3, 3, 0>", 3),
            ("aten::_foreach_sqrt", "UnaryOpFunctor<float, 2, 1, 1>", 2),
            ("aten::_foreach_div_", "BinaryOpScalarListFunctor<float, 1, 1, 0>", 1),
            ("aten::_foreach_add_", "BinaryOpScalarFunctor<float, 1, 1, 0>", 1),
            (
                "aten::_foreach_addcdiv_",
                "PointwiseOpScalarListFunctor<float, 4, 3, 0>",
                4,
            ),
        ]
        scalar = op("aten::_local_scalar_dense", 1_500)
        children: list[Node] = [
            op("aten::_foreach_add_", 30_000),  # the step counters live on the CPU
            *[op("aten::item", 2_000, scalar) for _ in range(4)],
        ]
        for name, functor, depth in functors:
            kern = self.k.multi_tensor(functor, depth, 25 + self.rng.random() * 40)
            children.append(op(name, 15_000, *[launch(kern) for _ in range(chunks)]))
        return ann("Optimizer.step#Adam.step", 40_000, *children)


def data_loading(samples: int, decode_us: int) -> Node:
    """``lecture_batch_cpu``: read, transform and collate a batch on the CPU."""
    per_sample: list[Node] = []
    for _ in range(samples):
        to_copy = op("aten::_to_copy", 9_000, _empty(), op("aten::copy_", 18_000))
        per_sample += [
            gap(decode_us * 1000),
            op("aten::to", 2_000, to_copy),
            op("aten::div", 16_000),
            op("aten::sub", 14_000),
            _strided("aten::permute"),
        ]

    def unsqueezes() -> list[Node]:
        return [_strided("aten::unsqueeze", 1_600) for _ in range(samples)]

    def pin(copy_ns: int) -> Node:
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
        op("aten::empty_like", 2_500, _empty()),
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


# --------------------------------------------------------------------------
# The simulator: runs the templates, times CPU and GPU, formats events.
# --------------------------------------------------------------------------


class _Tape:
    """One autograd node recorded by the forward pass."""

    __slots__ = ("flow", "grad", "seq")

    def __init__(self, seq: int, grad: Autograd, flow: int) -> None:
        self.seq = seq
        self.grad = grad
        self.flow = flow


class _Stats:
    """Ground truth accumulated while events are written."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = {}
        self.by_cat: dict[str, int] = {}
        self.by_ph: dict[str, int] = {"X": 0, "s": 0, "f": 0, "M": 0, "i": 0}
        self.steps: list[dict[str, Any]] = []
        self.zone_totals: dict[str, list[int]] = {}
        self.busy_ns = 0
        self.idle_in_lecture_ns = 0
        self.gpu_sums = dict.fromkeys(GPU_BUSY_CATS, 0)
        self.gpu_counts = dict.fromkeys(GPU_BUSY_CATS, 0)
        # Per name: calls, self CPU, total CPU, self GPU, total GPU (ns).
        self.ops: dict[str, list[int]] = {}


def _merge(intervals: list[tuple[int, int]]) -> list[list[int]]:
    """Sorted, disjoint union of half-open intervals."""
    merged: list[list[int]] = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1][1] = e
        else:
            merged.append([s, e])
    return merged


def _covered(merged: list[list[int]], a: int, b: int) -> int:
    """Length of [a, b) covered by sorted, disjoint segments."""
    total = 0
    for s, e in merged:
        if e <= a:
            continue
        if s >= b:
            break
        total += min(e, b) - max(s, a)
    return total


class _Sim:
    """Times CPU threads and GPU streams while it formats the events."""

    def __init__(
        self,
        rng: random.Random,
        pid: int,
        bwd_tid: int,
        base_ns: int,
        stats: _Stats,
        style: str = "current",
    ) -> None:
        self.r = rng.random
        self.old = style == "1.9"
        # 1.9-era files hold whole microseconds: every time is a multiple of it,
        # so what is written is exactly what was simulated.
        self.quantum = 1_000 if self.old else 1
        self.us = _us_int if self.old else _us
        self.pid = pid
        self.main_tid = pid
        self.bwd_tid = bwd_tid
        self.stats = stats
        self.ext = 0
        self.corr = 1_000
        self.ev_idx = 0
        self.seq = 18_000
        self.flow_id = 0
        self.wait_event_id = 0
        self.stream_free = {MAIN_STREAM: base_ns, COPY_STREAM: base_ns}
        self.first_step = True
        # Per-step buffers.
        self.out_main: list[str | None] = []
        self.out_bwd: list[str | None] = []
        self.out_gpu: list[str] = []
        self.gpu_iv: list[tuple[int, int]] = []
        self.carry: list[tuple[int, int]] = []
        self.tape: list[_Tape] = []
        self.zones: list[tuple[str, int, int]] = []
        self.ann_stack: list[dict[int, list[int]]] = []
        self.gpu_ann: list[tuple[Node, int, int, int, int]] = []
        # This step's CPU ops by External id: name, duration, children's
        # durations, GPU time launched, parent id, children's GPU total, start.
        self.op_rec: dict[int, list[Any]] = {}

    # -- small helpers -----------------------------------------------------

    def quant(self, ns: int) -> int:
        """A simulated duration as the style can write it exactly."""
        q = self.quantum
        if q == 1:
            return ns
        return max(q, (ns + q // 2) // q * q)

    def cat(self, cat: str) -> str:
        """The category as this style writes it."""
        return OLD_CATEGORIES.get(cat, cat) if self.old else cat

    def open_op(self, ext: int, name: str, parent_ext: int, start: int) -> None:
        """Start the ground-truth record of a CPU op (its id is ``ext``)."""
        self.op_rec[ext] = [name, 0, 0, 0, parent_ext, 0, start]

    def close_op(self, ext: int, dur: int) -> None:
        """The op's duration is known: it counts as a child of its parent."""
        rec = self.op_rec[ext]
        rec[1] = dur
        parent = self.op_rec.get(rec[4])
        if parent is not None:
            parent[2] += dur

    def runtime_row(self, name: str, dur: int, parent_ext: int) -> None:
        """A runtime call: its own operator-table row, and a child of its op."""
        row = self.stats.ops.setdefault(name, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += dur
        row[2] += dur
        parent = self.op_rec.get(parent_ext)
        if parent is not None:
            parent[2] += dur

    def fold_ops(self) -> None:
        """Add this step's ops to the per-name ground truth (torch's key_averages)."""
        recs = self.op_rec
        for ext in sorted(recs, reverse=True):  # children have larger ids
            rec = recs[ext]
            total_gpu = rec[3] + rec[5]
            parent = recs.get(rec[4])
            if parent is not None:
                parent[5] += total_gpu
            row = self.stats.ops.setdefault(rec[0], [0, 0, 0, 0, 0])
            row[0] += 1
            row[1] += rec[1] - rec[2]
            row[2] += rec[1]
            row[3] += rec[3]
            row[4] += total_gpu
        recs.clear()

    def jit(self, base: int) -> int:
        """A duration around ``base`` ns: +-20 %, rarely a 3-6x outlier."""
        r = self.r
        v = base * (0.8 + 0.4 * r())
        if r() < 0.004:
            v *= 3 + 3 * r()
        return self.quant(int(v))

    def between(self, lo: int, hi: int) -> int:
        return self.quant(lo + int((hi - lo) * self.r()))

    def count(self, cat: str, name: str) -> None:
        """Count one complete (``X``) event of this category and name."""
        st = self.stats
        cat = self.cat(cat)
        key = (cat, name)
        st.calls[key] = st.calls.get(key, 0) + 1
        st.by_cat[cat] = st.by_cat.get(cat, 0) + 1
        st.by_ph["X"] += 1

    def flow(self, ph: str, cat: str, fid: int, pid: int, tid: int, ts: int) -> str:
        st = self.stats
        st.by_ph[ph] += 1
        written = self.cat(cat)
        st.by_cat[written] = st.by_cat.get(written, 0) + 1
        if self.old:
            fmt = OLD_FLOW_S_FMT if ph == "s" else OLD_FLOW_F_FMT
            return fmt % (fid, pid, tid, self.us(ts))
        fmt = FLOW_S_FMT if ph == "s" else FLOW_F_FMT
        return fmt % (fid, pid, tid, _us(ts), cat, cat)

    def runtime_event(
        self, name: str, tid: int, ts: int, dur: int, ext: int, corr: int
    ) -> str:
        self.count("cuda_runtime", name)
        self.runtime_row(name, dur, ext)
        if self.old:
            rec = self.op_rec.get(ext)
            return OLD_RUNTIME_FMT % (
                name,
                self.pid,
                tid,
                self.us(ts),
                self.us(dur),
                CBID[name],
                corr,
                ext,
                self.us(rec[6] if rec is not None else ts),
            )
        return RUNTIME_FMT % (
            name,
            self.pid,
            tid,
            _us(ts),
            _us(dur),
            ext,
            CBID[name],
            corr,
        )

    def gpu_event(
        self,
        cat: str,
        node_name: str,
        name_json: str,
        stream: int,
        ts: int,
        dur: int,
        args: str,
        ext: int,
    ) -> str:
        self.count(cat, node_name)
        self.stats.gpu_sums[cat] += dur
        self.stats.gpu_counts[cat] += 1
        self.op_rec[ext][3] += dur  # launched by the op whose External id it has
        if self.old:
            return OLD_GPU_FMT % (
                self.cat(cat),
                name_json,
                DEVICE,
                stream,
                self.us(ts),
                self.us(dur),
                args,
            )
        return GPU_FMT % (cat, name_json, DEVICE, stream, _us(ts), _us(dur), args)

    def copy_args(
        self, ext: int, stream: int, corr: int, nbytes: int, g_dur: int
    ) -> str:
        """The args of a copy or a set."""
        if self.old:
            return OLD_COPY_ARGS_FMT % (
                DEVICE,
                stream,
                corr,
                ext,
                nbytes,
                nbytes / g_dur,
            )
        return COPY_ARGS_FMT % (ext, DEVICE, stream, corr, nbytes, nbytes / g_dur)

    def sync_event(
        self,
        kind: str,
        tid: int,
        stream: int,
        ts: int,
        dur: int,
        ext: int,
        corr: int,
        extra: str = "",
    ) -> str | None:
        if self.old:  # PyTorch <= 1.10 wrote no cuda_sync events
            return None
        self.count("cuda_sync", kind)
        return SYNC_FMT % (
            kind,
            DEVICE,
            tid,
            _us(ts),
            _us(dur),
            ext,
            kind,
            extra,
            stream,
            corr,
            DEVICE,
        )

    def enqueue(self, stream: int, t_call: int, gpu_dur: int, tid: int) -> int:
        """Queue GPU work on ``stream``; returns its start (after the call)."""
        start = max(t_call + self.between(2_500, 7_000), self.stream_free[stream])
        end = start + gpu_dur
        self.stream_free[stream] = end + self.between(600, 2_500)
        self.gpu_iv.append((start, end))
        if tid == self.main_tid:  # widen the enclosing annotations' GPU spans
            for spans in self.ann_stack:
                span = spans.get(stream)
                if span is None:
                    spans[stream] = [start, end]
                elif end > span[1]:
                    span[1] = end
        return start

    def emit_pair(
        self,
        tid: int,
        api: str,
        t: int,
        dur: int,
        ext: int,
        corr: int,
        gpu_ev: str | None,
        g_tid: int,
        g_ts: int,
    ) -> None:
        """GPU-side event, its ``f`` flow, the runtime call and its ``s`` flow."""
        out = self.out_gpu
        if gpu_ev is None:  # a sync this style does not write
            out.append(self.runtime_event(api, tid, t, dur, ext, corr))
            return
        out.append(gpu_ev)
        out.append(self.flow("f", "ac2g", corr, DEVICE, g_tid, g_ts))
        out.append(self.runtime_event(api, tid, t, dur, ext, corr))
        out.append(self.flow("s", "ac2g", corr, self.pid, tid, t))

    # -- the interpreter ---------------------------------------------------

    def run(
        self, node: Node, tid: int, t: int, parent_ext: int, out: list[str | None]
    ) -> int:
        """Run one template node on thread ``tid`` from ``t``; returns its end."""
        kind = node.kind
        if kind == OP:
            return self.run_op(node, tid, t, out, parent_ext)
        if kind == LAUNCH:
            return self.run_launch(node, tid, t, parent_ext)
        if kind == GAP:
            return t + self.jit(node.time_ns)
        if kind == COPY:
            return self.run_copy(node, tid, t, parent_ext)
        if kind == MEMSET:
            return self.run_memset(node, tid, t, parent_ext)
        if kind == RUNTIME or (kind == MALLOC and self.first_step):
            self.corr += 1
            dur = self.jit(node.time_ns or 180_000)
            self.out_gpu.append(
                self.runtime_event(node.name, tid, t, dur, parent_ext, self.corr)
            )
            return t + dur
        if kind == MALLOC:  # the caching allocator only grows in the first step
            return t
        if kind == BACKWARD:
            return self.run_backward(t)
        if kind == STREAMWAIT:
            return self.run_stream_wait(tid, t, parent_ext)
        if kind == DEVSYNC:
            return self.run_device_sync(tid, t, parent_ext)
        if kind == ITEM:
            return self.run_item(tid, t, parent_ext)
        raise ValueError(f"unknown node kind {kind}")

    def run_op(
        self, node: Node, tid: int, t: int, out: list[str | None], parent_ext: int = 0
    ) -> int:
        self.ext += 1
        ext = self.ext
        self.open_op(ext, node.name, parent_ext, t)
        idx = self.ev_idx
        self.ev_idx += 1
        slot = len(out)
        out.append(None)
        extra = ""
        grad = node.autograd
        if grad is not None:
            self.seq += 1
            self.flow_id += 1
            self.tape.append(_Tape(self.seq, grad, self.flow_id))
            extra = f'"Sequence number": {self.seq}, "Fwd thread id": 0, '
            if not self.old:
                out.append(self.flow("s", "fwdbwd", self.flow_id, self.pid, tid, t))
        is_ann = node.cat == "user_annotation" and tid == self.main_tid
        spans: dict[int, list[int]] = {}
        if is_ann:
            self.ann_stack.append(spans)
        children = node.children
        if not children:
            end = t + max(400, self.jit(node.time_ns))
        else:
            half = node.time_ns // 2
            cur = t + max(350, self.jit(half))
            run, between = self.run, self.between
            for child in children:
                cur = run(child, tid, cur, ext, out) + between(150, 1_400)
            end = cur + max(350, self.jit(half))
        if is_ann:
            self.ann_stack.pop()
            for stream, (s, e) in spans.items():
                self.gpu_ann.append((node, ext, stream, s, e))
            if node.zone:
                self.zones.append((node.name, t, end))
        self.count(node.cat, node.name)
        self.close_op(ext, end - t)
        out[slot] = self.cpu_event(
            node.cat, node.name_json, tid, t, end - t, ext, extra, idx, node.shapes
        )
        return end

    def cpu_event(
        self,
        cat: str,
        name_json: str,
        tid: int,
        ts: int,
        dur: int,
        ext: int,
        extra: str,
        idx: int,
        shapes: str,
    ) -> str:
        """One CPU op or annotation as this style writes it."""
        if self.old:
            return OLD_CPU_FMT % (
                name_json,
                self.pid,
                tid,
                self.us(ts),
                self.us(dur),
                self.pid,
                ext,
                shapes,
            )
        return CPU_FMT % (
            cat,
            name_json,
            self.pid,
            tid,
            _us(ts),
            _us(dur),
            ext,
            extra,
            idx,
            shapes,
        )

    def run_launch(self, node: Node, tid: int, t: int, ext: int) -> int:
        kern = node.kernel
        assert kern is not None
        self.corr += 1
        corr = self.corr
        stream = node.stream
        g_dur = max(1_000, self.jit(kern.base_ns))
        g_start = self.enqueue(stream, t, g_dur, tid)
        if self.old:
            args = OLD_KERNEL_ARGS_FMT % (DEVICE, stream, corr, ext, kern.tail)
        else:
            args = KERNEL_ARGS_FMT % (ext, DEVICE, stream, corr, kern.tail)
        ev = self.gpu_event(
            "kernel", kern.name, kern.name_json, stream, g_start, g_dur, args, ext
        )
        dur = self.jit(node.time_ns)
        self.emit_pair(tid, "cudaLaunchKernel", t, dur, ext, corr, ev, stream, g_start)
        return t + dur

    def run_copy(self, node: Node, tid: int, t: int, ext: int) -> int:
        self.corr += 1
        corr = self.corr
        stream = node.stream
        gbps = 18.0 + 6.0 * self.r() if "HtoD" in node.name else 9.0 + 4.0 * self.r()
        # bytes / (GB/s) = ns
        g_dur = self.quant(max(1_200, int(node.nbytes / gbps) + 1_000))
        g_start = self.enqueue(stream, t, g_dur, tid)
        args = self.copy_args(ext, stream, corr, node.nbytes, g_dur)
        ev = self.gpu_event(
            "gpu_memcpy", node.name, node.name_json, stream, g_start, g_dur, args, ext
        )
        dur = self.jit(9_000)
        self.emit_pair(tid, "cudaMemcpyAsync", t, dur, ext, corr, ev, stream, g_start)
        return t + dur

    def run_memset(self, node: Node, tid: int, t: int, ext: int) -> int:
        self.corr += 1
        corr = self.corr
        stream = node.stream
        g_dur = self.quant(max(1_000, node.nbytes // 600 + 1_000))
        g_start = self.enqueue(stream, t, g_dur, tid)
        args = self.copy_args(ext, stream, corr, node.nbytes, g_dur)
        name = "Memset (Device)"
        ev = self.gpu_event(
            "gpu_memset", name, _q(name), stream, g_start, g_dur, args, ext
        )
        dur = self.jit(node.time_ns)
        self.emit_pair(tid, "cudaMemsetAsync", t, dur, ext, corr, ev, stream, g_start)
        return t + dur

    def run_stream_wait(self, tid: int, t: int, ext: int) -> int:
        """``wait_stream(copy stream)``: cudaEventRecord + cudaStreamWaitEvent."""
        self.corr += 1
        rec_corr = self.corr
        rec_dur = self.jit(3_500)
        self.out_gpu.append(
            self.runtime_event("cudaEventRecord", tid, t, rec_dur, ext, rec_corr)
        )
        t2 = t + rec_dur + self.between(300, 1_200)
        self.corr += 1
        corr = self.corr
        self.wait_event_id += 1
        ready = self.stream_free[COPY_STREAM]
        if ready > self.stream_free[MAIN_STREAM]:
            self.stream_free[MAIN_STREAM] = ready
        s_start = t2 + self.between(500, 1_500)
        extra = (
            f'      "wait_on_stream": {COPY_STREAM},\n'
            f'      "wait_on_cuda_event_record_corr_id": {rec_corr},\n'
            f'      "wait_on_cuda_event_id": {self.wait_event_id},\n'
        )
        kind = "Stream Wait Event"
        s_dur = self.between(1_000, 3_000)
        ev = self.sync_event(
            kind, MAIN_STREAM, MAIN_STREAM, s_start, s_dur, ext, corr, extra
        )
        dur = self.jit(3_000)
        self.emit_pair(
            tid, "cudaStreamWaitEvent", t2, dur, ext, corr, ev, MAIN_STREAM, s_start
        )
        return t2 + dur

    def run_device_sync(self, tid: int, t: int, ext: int) -> int:
        """``torch.cuda.synchronize()``: returns once every stream is done."""
        self.corr += 1
        corr = self.corr
        done = max(self.stream_free.values())
        end = max(t + self.between(3_000, 6_000), done + self.between(2_000, 5_000))
        s_start = t + self.between(800, 2_000)
        s_dur = end - self.between(500, 1_200) - s_start
        kind = "Context Sync"
        ev = self.sync_event(kind, SYNC_TID, CONTEXT_STREAM, s_start, s_dur, ext, corr)
        self.emit_pair(
            tid, "cudaDeviceSynchronize", t, end - t, ext, corr, ev, SYNC_TID, s_start
        )
        return end

    def run_item(self, tid: int, t: int, ext: int) -> int:
        """``loss.item()``: 4-byte DtoH copy, then cudaStreamSynchronize."""
        t = self.run_copy(ITEM_COPY, tid, t, ext) + self.between(300, 1_000)
        self.corr += 1
        corr = self.corr
        done = self.stream_free[MAIN_STREAM]
        end = max(t + self.between(2_500, 5_000), done + self.between(2_000, 4_000))
        s_start = t + self.between(800, 2_000)
        s_dur = end - self.between(500, 1_200) - s_start
        ev = self.sync_event(
            "Stream Sync", MAIN_STREAM, MAIN_STREAM, s_start, s_dur, ext, corr
        )
        self.emit_pair(
            tid,
            "cudaStreamSynchronize",
            t,
            end - t,
            ext,
            corr,
            ev,
            MAIN_STREAM,
            s_start,
        )
        return end

    def run_backward(self, t: int) -> int:
        """The autograd engine runs the tape on its own thread; main waits."""
        tid = self.bwd_tid
        out = self.out_bwd
        between = self.between
        cur = t + between(15_000, 40_000)
        for entry in reversed(self.tape):
            cur = self.run_bwd_node(entry, tid, cur, out) + between(1_000, 6_000)
            for _ in range(entry.grad.params):
                cur = self.run_op(ACCUMULATE, tid, cur, out) + between(800, 3_000)
        self.tape.clear()
        return cur + between(8_000, 25_000)

    def run_bwd_node(
        self, entry: _Tape, tid: int, t: int, out: list[str | None]
    ) -> int:
        """``evaluate_function: XBackward0`` > ``XBackward0`` > its body."""
        grad = entry.grad
        between = self.between
        outer_ext, inner_ext = self.ext + 1, self.ext + 2
        outer_idx, inner_idx = self.ev_idx, self.ev_idx + 1
        self.ext += 2
        self.ev_idx += 2
        outer_slot = len(out)
        out.append(None)
        out.append(None)
        inner_start = t + between(800, 2_500)
        self.open_op(outer_ext, grad.eval_name, 0, t)
        self.open_op(inner_ext, grad.node, outer_ext, inner_start)
        if not self.old:
            flow = self.flow("f", "fwdbwd", entry.flow, self.pid, tid, inner_start)
            out.append(flow)
        cur = inner_start + between(700, 2_500)
        for child in grad.body:
            cur = self.run(child, tid, cur, inner_ext, out) + between(150, 1_200)
        inner_end = cur + between(500, 2_000)
        outer_end = inner_end + between(600, 3_000)
        extra = f'"Sequence number": {entry.seq}, "Fwd thread id": 1, '
        self.count("cpu_op", grad.eval_name)
        self.count("cpu_op", grad.node)
        self.close_op(inner_ext, inner_end - inner_start)
        self.close_op(outer_ext, outer_end - t)
        out[outer_slot] = self.cpu_event(
            "cpu_op",
            grad.eval_json,
            tid,
            t,
            outer_end - t,
            outer_ext,
            extra,
            outer_idx,
            "",
        )
        out[outer_slot + 1] = self.cpu_event(
            "cpu_op",
            grad.node_json,
            tid,
            inner_start,
            inner_end - inner_start,
            inner_ext,
            extra,
            inner_idx,
            "",
        )
        return outer_end

    def step(self, number: int, t: int, children: Sequence[Node]) -> int:
        """Run ``ProfilerStep#number`` from ``t``; returns its end."""
        self.zones = []
        node = ann(f"ProfilerStep#{number}", 12_000, *children)
        end = self.run_op(node, self.main_tid, t, self.out_main)
        self.first_step = False
        return end

    def take_gpu_annotations(self) -> list[str]:
        """This step's ``gpu_user_annotation`` events (annotation spans)."""
        out: list[str] = []
        if self.old:  # that profiler wrote no GPU-side annotation spans
            self.gpu_ann.clear()
            return out
        for node, ext, stream, s, e in self.gpu_ann:
            self.count("gpu_user_annotation", node.name)
            out.append(
                GPU_ANN_FMT % (node.name_json, DEVICE, stream, _us(s), _us(e - s), ext)
            )
        self.gpu_ann.clear()
        return out

    def account_step(self, number: int, start: int, end: int) -> None:
        """Fold this step's zones, GPU intervals and ops into the ground truth."""
        self.fold_ops()
        stats = self.stats
        merged = _merge(self.carry + self.gpu_iv)
        self.gpu_iv = []
        zones: dict[str, int] = {}
        idle_lecture = 0
        for name, a, b in self.zones:
            zones[name] = zones.get(name, 0) + (b - a)
            total = stats.zone_totals.setdefault(name, [0, 0])
            total[0] += 1
            total[1] += b - a
            if name == "lecture_batch_cpu":
                idle_lecture += (b - a) - _covered(merged, a, b)
        stats.idle_in_lecture_ns += idle_lecture
        # Later GPU work starts after a later launch, so after ``end``:
        # segments that end by then are final.
        keep: list[tuple[int, int]] = []
        for s, e in merged:
            if e <= end:
                stats.busy_ns += e - s
            else:
                keep.append((s, e))
        self.carry = keep
        stats.steps.append(
            {
                "name": f"ProfilerStep#{number}",
                "ts_ns": start,
                "dur_ns": end - start,
                "zones_ns": zones,
                "gpu_busy_ns": _covered(merged, start, end),
                "gpu_idle_in_lecture_batch_cpu_ns": idle_lecture,
            }
        )

    def finish(self) -> None:
        self.stats.busy_ns += sum(e - s for s, e in _merge(self.carry))
        self.carry = []


# --------------------------------------------------------------------------
# Writing the file
# --------------------------------------------------------------------------

DEVICE_PROPERTIES = (
    "[\n    {\n"
    '      "id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 84987740160,\n'
    '      "computeMajor": 8, "computeMinor": 0,\n'
    '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
    '      "regsPerBlock": 65536, "warpSize": 32,\n'
    '      "sharedMemPerBlock": 49152, "numSms": 108\n'
    '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 166912,'
    ' "sharedMemPerMultiprocessor": 167936\n'
    "    }\n  ]"
)


def _old_header() -> str:
    """The header PyTorch 1.8-1.10 wrote: no distributed info, no trace id."""
    return (
        "\n{\n"
        '  "schemaVersion": 1,\n'
        f'  "deviceProperties": {DEVICE_PROPERTIES},\n'
        '  "traceEvents": [\n'
    )


def _header(trace_id: str) -> str:
    pg = {
        "pg_name": "0",
        "pg_desc": "default_pg",
        "backend_config": "cuda:nccl",
        "pg_size": 1,
        "ranks": [0],
    }
    dist = {
        "backend": "nccl",
        "rank": 0,
        "world_size": 1,
        "pg_count": 1,
        "pg_config": [pg],
        "nccl_version": "2.21.5",
    }
    return (
        "\n{\n"
        '  "schemaVersion": 1,\n'
        f'  "deviceProperties": {DEVICE_PROPERTIES},\n'
        '  "cupti_version": 24,\n'
        '  "cuda_runtime_version": 12040,\n'
        '  "cuda_driver_version": 12040,\n'
        '  "with_flops": 0,\n'
        '  "record_shapes": 1,\n'
        '  "profile_memory": 0,\n'
        '  "with_stack": 0,\n'
        f'  "trace_id": "{trace_id}",\n'
        f'  "distributedInfo": {json.dumps(dist)},\n'
        '  "traceEvents": [\n'
    )


def _meta(name: str, ts: int, pid: int | str, tid: int, key: str, value: Any) -> str:
    return META_FMT % (name, _us(ts), json.dumps(pid), tid, key, json.dumps(value))


def _old_trailer_events(
    pid: int, bwd_tid: int, t_start: int, t_end: int, stats: _Stats
) -> list[str]:
    """Metadata, the profiler span and instants as PyTorch 1.8-1.10 ended a trace.

    Thread ids are strings here too; there are no sort indexes and no stream names.
    """
    proc = "python3.8"
    ts = t_start // 1000
    out = [
        OLD_PROCESS_FMT % (name, ts, p, k, v)
        for name, p, k, v in (
            ("process_name", pid, "name", proc),
            ("process_labels", pid, "labels", "CPU"),
            ("process_name", DEVICE, "name", proc),
            ("process_labels", DEVICE, "labels", f"GPU {DEVICE}"),
        )
    ]
    for tid, label in ((pid, proc), (bwd_tid, "pt_autograd_0")):
        out.append(OLD_THREAD_FMT % (ts, pid, tid, tid, label))
    span_start = (t_start - 4_873_211) // 1000
    span_end = (t_end + 2_113_407) // 1000
    out.append(
        f'  {{\n    "ph": "X", "cat": "Trace", "ts": {span_start}, '
        f'"dur": {span_end - span_start},\n'
        '    "pid": "Traces", "tid": "PyTorch Profiler",\n'
        '    "name": "PyTorch Profiler (0)",\n'
        '    "args": {\n      "Op count": 0\n    }\n  }'
    )
    out.append(
        '  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
        f'    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": {span_start}\n  }}'
    )
    out.append(
        '  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
        f'    "pid": "", "tid": "", "ts": {span_end}\n  }}'
    )
    stats.by_ph["M"] += 6
    stats.by_ph["X"] += 1
    stats.by_ph["i"] += 2
    stats.by_cat["Trace"] = stats.by_cat.get("Trace", 0) + 1
    stats.calls["Trace", "PyTorch Profiler (0)"] = 1
    return out


def _trailer_events(
    pid: int, bwd_tid: int, t_start: int, t_end: int, stats: _Stats
) -> list[str]:
    """Metadata, the profiler span and instants, as Kineto ends a trace."""
    proc = "python3.11"
    main = f"thread {pid} ({proc})"
    items: list[tuple[str, int | str, int, str, Any]] = [
        ("process_name", pid, 0, "name", proc),
        ("process_labels", pid, 0, "labels", "CPU"),
        ("process_sort_index", pid, 0, "sort_index", pid),
        ("process_name", DEVICE, 0, "name", proc),
        ("process_labels", DEVICE, 0, "labels", f"GPU {DEVICE}"),
        ("process_sort_index", DEVICE, 0, "sort_index", 16777216 + DEVICE),
        ("thread_name", DEVICE, SYNC_TID, "name", f"Device {DEVICE}"),
        ("thread_sort_index", DEVICE, SYNC_TID, "sort_index", SYNC_TID),
        ("thread_name", DEVICE, MAIN_STREAM, "name", f"stream {MAIN_STREAM} "),
        ("thread_sort_index", DEVICE, MAIN_STREAM, "sort_index", MAIN_STREAM),
        ("thread_name", DEVICE, COPY_STREAM, "name", f"stream {COPY_STREAM} "),
        ("thread_sort_index", DEVICE, COPY_STREAM, "sort_index", COPY_STREAM),
        ("thread_name", pid, pid, "name", main),
        ("thread_sort_index", pid, pid, "sort_index", pid),
        # Kineto writes the main thread twice; readers must cope.
        ("thread_name", pid, pid, "name", main),
        ("thread_sort_index", pid, pid, "sort_index", pid),
        ("thread_name", pid, bwd_tid, "name", f"thread {bwd_tid} (pt_autograd_0)"),
        ("thread_sort_index", pid, bwd_tid, "sort_index", bwd_tid),
    ]
    out = [_meta(name, t_start, p, t, k, v) for name, p, t, k, v in items]
    span_start = t_start - 4_873_211
    span_end = t_end + 2_113_407
    out.append(
        f'  {{\n    "ph": "X", "cat": "Trace", "ts": {_us(span_start)}, '
        f'"dur": {_us(span_end - span_start)},\n'
        '    "pid": "Spans", "tid": "PyTorch Profiler",\n'
        '    "name": "PyTorch Profiler (0)",\n'
        '    "args": {\n      "Op count": 0\n    }\n  }'
    )
    out.append(
        f'  {{\n    "name": "process_sort_index", "ph": "M", "ts": {_us(span_start)},\n'
        '    "pid": "Spans", "tid": 0,\n'
        '    "args": {\n      "sort_index": 536870912\n    }\n  }'
    )
    out.append(
        '  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
        f'    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": {_us(span_start)}\n  }}'
    )
    out.append(
        '  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
        f'    "pid": "", "tid": "", "ts": {_us(span_end)}\n  }}'
    )
    stats.by_ph["M"] += len(items) + 1
    stats.by_ph["X"] += 1
    stats.by_ph["i"] += 2
    stats.by_cat["Trace"] = stats.by_cat.get("Trace", 0) + 1
    stats.calls["Trace", "PyTorch Profiler (0)"] = 1
    return out


class _Writer:
    """Joins events with Kineto's separators and counts the raw bytes."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        self.raw = 0
        self.first = True

    def text(self, text: str) -> None:
        data = text.encode("ascii")
        self.raw += len(data)
        self.f.write(data)

    def events(self, items: Sequence[str | None]) -> None:
        if not items:
            return
        body = ",\n".join(x for x in items if x is not None)
        self.text(body if self.first else ",\n" + body)
        self.first = False


class GenerationResult:
    """What ``generate`` wrote, and how fast."""

    def __init__(
        self, path: Path, expected: dict[str, Any], raw_bytes: int, seconds: float
    ) -> None:
        self.path = path
        self.expected = expected
        self.raw_bytes = raw_bytes
        self.seconds = seconds

    @property
    def events(self) -> int:
        return int(self.expected["events"]["total"])

    @property
    def expected_path(self) -> Path:
        return expected_path_for(self.path)


def expected_path_for(path: str | os.PathLike[str]) -> Path:
    """``PATH.expected.json``, next to the trace."""
    p = Path(path)
    return p.with_name(p.name + ".expected.json")


def generate(
    path: str | os.PathLike[str],
    steps: int | None = None,
    seed: int = 0,
    *,
    size_bytes: int | None = None,
    gzip_output: bool = False,
    first_step: int = 2,
    base_ts_ns: int = DEFAULT_BASE_TS_NS,
    depth: int = 6,
    batch: int = 32,
    samples: int = 16,
    sync_probability: float = 0.3,
    item_probability: float = 0.5,
    gpu_scale: float = 0.5,
    style: str = "current",
    progress: Callable[[int, int, int], None] | None = None,
) -> GenerationResult:
    """Write a synthetic Kineto trace to ``path`` and ``PATH.expected.json``.

    Give ``steps`` (the exact number of ``ProfilerStep``) or ``size_bytes``
    (stop after the first step that brings the uncompressed JSON to that
    size).  Refuses to overwrite either file.  Same arguments, same bytes.
    ``gpu_scale`` multiplies every GPU duration (higher: GPU-bound steps).
    ``style`` is "current" (torch 2.x) or "1.9" (what PyTorch 1.8-1.10 wrote:
    string thread ids, ``Operator``/``Runtime``/``Kernel``/``Memcpy``/``Memset``
    categories, ``async`` launch flows, whole microseconds).
    ``progress(steps, raw_bytes, events)`` is called after each step.
    """
    if (steps is None) == (size_bytes is None):
        raise ValueError("give exactly one of steps or size_bytes")
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}")
    if style == "1.9":
        base_ts_ns -= base_ts_ns % 1_000
    if steps is not None and steps < 1:
        raise ValueError("steps must be >= 1")
    out_path = Path(path)
    exp_path = expected_path_for(out_path)
    if exp_path.exists():
        raise FileExistsError(f"{exp_path} exists; refusing to overwrite")
    t0 = time.perf_counter()
    rng = random.Random(seed)
    pid = rng.randrange(100_000, 4_000_000)
    bwd_tid = pid + rng.randrange(60, 900)
    trace_id = f"{rng.getrandbits(128):032X}"
    width = rng.choice((384, 512, 768))
    model = ModelBuilder(
        rng, batch=batch, width=width, depth=depth, gpu_scale=gpu_scale
    )
    zones = (
        data_loading(samples, decode_us=rng.choice((350, 420, 480))),
        transfer(batch, 3 * 128 * 128 * 4),
        training(model, model.forward(), model.optimizer()),
    )
    item = op("aten::item", 2_500, op("aten::_local_scalar_dense", 4_000, Node(ITEM)))
    sync = Node(DEVSYNC, "cudaDeviceSynchronize")

    stats = _Stats()
    sim = _Sim(rng, pid, bwd_tid, base_ts_ns, stats, style)
    f = open(out_path, "xb")  # noqa: SIM115 - closed below, removed on error
    ok = False
    try:
        gz = (
            gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0)
            if gzip_output
            else None
        )
        sink: IO[bytes] = io.BufferedWriter(gz, 1 << 22) if gz is not None else f
        w = _Writer(sink)
        w.text(_old_header() if sim.old else _header(trace_id))
        t = base_ts_ns
        n = 0
        while True:
            tail = []
            if rng.random() < item_probability:
                tail.append(item)
            if rng.random() < sync_probability:
                tail.append(sync)
            number = first_step + n
            end = sim.step(number, t, (*zones, *tail))
            sim.account_step(number, t, end)
            w.events(sim.out_main)
            w.events(sim.out_bwd)
            w.events(sim.out_gpu)
            w.events(sim.take_gpu_annotations())
            sim.out_main.clear()
            sim.out_bwd.clear()
            sim.out_gpu.clear()
            n += 1
            t = end + sim.between(4_000, 30_000)
            if progress is not None:
                progress(n, w.raw, sum(stats.by_ph.values()))
            if n == steps or (size_bytes is not None and w.raw >= size_bytes):
                break
        sim.finish()
        trailer = _old_trailer_events if sim.old else _trailer_events
        w.events(trailer(pid, bwd_tid, base_ts_ns, t, stats))
        w.text(
            f'\n  ],\n  "traceName": "{out_path.name}",\n  "displayTimeUnit": "ms"\n}}'
        )
        if gz is not None:
            sink.flush()
            gz.close()
        ok = True
    finally:
        f.close()
        if not ok:
            out_path.unlink(missing_ok=True)
    seconds = time.perf_counter() - t0
    expected = _expected(
        stats,
        out_path,
        w.raw,
        gzip_output,
        seed,
        pid,
        bwd_tid,
        base_ts_ns,
        first_step,
        style,
    )
    with open(exp_path, "x", encoding="utf-8") as ef:
        json.dump(expected, ef, indent=1)
        ef.write("\n")
    return GenerationResult(out_path, expected, w.raw, seconds)


# The figures of one ``ops`` entry: torch's key_averages() per name, in ns.
OP_FIGURES = ("calls", "self_cpu_ns", "total_cpu_ns", "self_gpu_ns", "total_gpu_ns")


def _expected(
    stats: _Stats,
    path: Path,
    raw: int,
    gz: bool,
    seed: int,
    pid: int,
    bwd_tid: int,
    base_ts_ns: int,
    first_step: int,
    style: str,
) -> dict[str, Any]:
    calls: dict[str, dict[str, int]] = {}
    for (cat, name), n in sorted(stats.calls.items()):
        calls.setdefault(cat, {})[name] = n
    lecture = stats.zone_totals.get("lecture_batch_cpu", [0, 0])
    durations = [s["dur_ns"] for s in stats.steps]
    dev = str(DEVICE)
    return {
        "schema": "steptrace-synthetic-expected/1",
        "generator": "benchmarks/gen_trace.py",
        "seed": seed,
        "style": style,
        "trace": path.name,
        "gzip": gz,
        "raw_bytes": raw,
        "time_unit": "ns",
        "note": (
            "Times are exact integer nanoseconds, read from the 3-decimal "
            "microsecond text of ts/dur. At epoch scale a float64 microsecond "
            "has a resolution of about 0.25 us: a reader that parses ts as a "
            "float should compare with about 1 us of tolerance per boundary."
        ),
        "pid": pid,
        "main_tid": pid,
        "backward_tid": bwd_tid,
        "gpu": {
            "device": DEVICE,
            "streams": [MAIN_STREAM, COPY_STREAM],
            "sync_tid": SYNC_TID,
        },
        "first_step_ts_ns": base_ts_ns,
        "steps": {
            "count": len(durations),
            "first": f"ProfilerStep#{first_step}",
            "durations_ns": durations,
            "total_ns": sum(durations),
        },
        "zones": {
            name: {"count": c, "total_ns": ns}
            for name, (c, ns) in sorted(stats.zone_totals.items())
        },
        "lecture_batch_cpu_total_ns": lecture[1],
        "gpu_busy_ns": {dev: stats.busy_ns},
        "gpu_busy_definition": (
            "length of the union of the kernel, gpu_memcpy and gpu_memset intervals "
            "of the device, all streams together"
        ),
        "gpu_idle_in_lecture_batch_cpu_ns": {dev: stats.idle_in_lecture_ns},
        "gpu_activity": {
            (OLD_CATEGORIES[cat] if style == "1.9" else cat): {
                "count": stats.gpu_counts[cat],
                "sum_ns": stats.gpu_sums[cat],
            }
            for cat in GPU_BUSY_CATS
        },
        "events": {
            "total": sum(stats.by_ph.values()),
            "by_ph": dict(sorted(stats.by_ph.items())),
            "by_cat": dict(sorted(stats.by_cat.items())),
            "without_cat": stats.by_ph["M"] + stats.by_ph["i"],
        },
        "distinct_names": len({name for _cat, name in stats.calls}),
        "calls": calls,
        "ops": {
            name: dict(zip(OP_FIGURES, figures, strict=True))
            for name, figures in sorted(stats.ops.items())
        },
        "per_step": stats.steps,
    }


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Write a realistic synthetic Kineto trace and its ground truth.",
        epilog="See benchmarks/README.md.",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument(
        "--size-gb",
        type=float,
        help="stop once the uncompressed JSON reaches this many GB (1e9 bytes)",
    )
    size.add_argument("--steps", type=int, help="exact number of ProfilerStep")
    p.add_argument(
        "-o", "--output", required=True, help="trace to create (never overwritten)"
    )
    p.add_argument(
        "--gzip", action="store_true", help="gzip it (sizes stay uncompressed)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--style",
        choices=STYLES,
        default="current",
        help="current: torch 2.x; 1.9: what PyTorch 1.8-1.10 wrote (string tids, "
        "Operator/Runtime/Kernel categories, async flows, whole microseconds)",
    )
    p.add_argument(
        "--depth", type=int, default=6, help="transformer blocks (default 6)"
    )
    p.add_argument(
        "--first-step", type=int, default=2, help="first ProfilerStep number"
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    out = Path(args.output)
    if args.gzip and not out.name.endswith(".gz"):
        print(
            "gen_trace: with --gzip the output name should end in .gz", file=sys.stderr
        )
        return 2
    for p in (out, expected_path_for(out)):
        if p.exists():
            print(f"gen_trace: {p} exists; refusing to overwrite", file=sys.stderr)
            return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    size_bytes = None if args.size_gb is None else int(args.size_gb * GB)
    last = [time.perf_counter()]

    def progress(n: int, raw: int, events: int) -> None:
        now = time.perf_counter()
        if not args.quiet and now - last[0] > 10:
            last[0] = now
            print(
                f"  {n} steps, {raw / 1e6:.0f} MB, {events} events",
                file=sys.stderr,
                flush=True,
            )

    result = generate(
        out,
        steps=args.steps,
        seed=args.seed,
        size_bytes=size_bytes,
        gzip_output=args.gzip,
        first_step=args.first_step,
        depth=args.depth,
        style=args.style,
        progress=progress,
    )
    exp = result.expected
    secs = result.seconds
    print(
        f"wrote {out}: {out.stat().st_size / 1e6:.1f} MB on disk, "
        f"{result.raw_bytes / 1e6:.1f} MB of JSON, {exp['steps']['count']} steps, "
        f"{result.events} events, {exp['distinct_names']} distinct names"
    )
    print(
        f"generated in {secs:.2f} s: {result.events / secs:,.0f} events/s, "
        f"{result.raw_bytes / 1e6 / secs:.1f} MB/s"
    )
    print(f"ground truth: {result.expected_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
