"""The op-tree templates: CPU ops, annotations, launches, copies and syncs to simulate.

A template is built once per trace and run by the simulator at every step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tests.support.tracegen.formats import MAIN_STREAM, json_name
from tests.support.tracegen.kernels import Kernel

# Node kinds of the op-tree templates (a small interpreter runs them).
OP, LAUNCH, COPY, MEMSET, RUNTIME, BACKWARD = range(6)
DEVSYNC, STREAMWAIT, ITEM, MALLOC, GAP = range(6, 11)


class Autograd:
    """The backward node a forward op creates, and what it runs."""

    __slots__ = ("body", "eval_json", "eval_name", "node", "node_json", "params")

    def __init__(self, node: str, body: Sequence[Node], params: int = 0) -> None:
        self.node = node
        self.node_json = json_name(node)
        self.eval_name = "autograd::engine::evaluate_function: " + node
        self.eval_json = json_name(self.eval_name)
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
        self.name_json = json_name(name)
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
    """A ``cudaLaunchKernel`` of `kernel` on `stream`."""
    return Node(LAUNCH, "cudaLaunchKernel", 5_000, kernel=kernel, stream=stream)


def runtime(name: str, time_ns: int) -> Node:
    """A runtime call with no GPU activity."""
    return Node(RUNTIME, name, time_ns)


def gap(time_ns: int) -> Node:
    """Time spent in untraced Python code (decoding an image, say)."""
    return Node(GAP, "", time_ns)


def empty_op(name: str = "aten::empty_strided") -> Node:
    """An allocation op."""
    return op(name, 1_900)


def view_op(name: str = "aten::view") -> Node:
    """A view op with no child."""
    return op(name, 1_800)


def strided_op(name: str, time_ns: int = 2_200, grad: Autograd | None = None) -> Node:
    """A view op: ``name`` > ``aten::as_strided``."""
    return op(name, time_ns, op("aten::as_strided", 700), grad=grad)


def t_op(grad: Autograd | None = None) -> Node:
    """``aten::t`` > ``aten::transpose`` > ``aten::as_strided``."""
    return op("aten::t", 2_600, strided_op("aten::transpose", 1_700), grad=grad)


def record_shapes(
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
