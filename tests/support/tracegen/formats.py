"""What a Kineto trace looks like, event by event: tracks, call ids, text layouts.

Each kind of event is a %-format template in Kineto's own pretty layout,
with the layout PyTorch 1.8-1.10 (the TensorBoard-plugin era) wrote beside
it, and the number formats of both.
"""

from __future__ import annotations

import json

MAIN_STREAM = 7
COPY_STREAM = 20
SYNC_TID = -1  # Kineto's track for device-wide syncs ("Device 0")
DEVICE = 0
CONTEXT_STREAM = 4294967295
GPU_BUSY_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

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


def json_name(name: str) -> str:
    """The JSON text of a name (computed once per template)."""
    return json.dumps(name)


def us_text(ns: int) -> str:
    """Nanoseconds as Kineto writes microseconds: three decimals, exact."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def us_whole(ns: int) -> str:
    """Nanoseconds as PyTorch <= 1.10 wrote microseconds: whole, truncated."""
    return str(ns // 1000)
