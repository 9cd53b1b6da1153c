"""Generate a realistic PyTorch profiler (Kineto) Chrome trace of a given size.

The output copies what torch 2.x exports for a CUDA training loop: the header
(``schemaVersion``, ``deviceProperties``, ``distributedInfo``,
``record_shapes``...), ``traceEvents`` in Kineto's own pretty layout, and the
trailer (``traceName``, ``displayTimeUnit``).  Each step is a
``ProfilerStep#N`` holding three labelled zones (``zones``):

* ``lecture_batch_cpu``: the batch is read on the CPU (DataLoader
  ``__next__``, per-sample transforms, collate, pin_memory).  No GPU work is
  launched there, though the GPU may still be finishing the previous step;
* ``transfert``: ``aten::to`` > ``aten::_to_copy`` > ``aten::copy_`` >
  ``cudaMemcpyAsync`` > ``Memcpy HtoD`` on a copy stream (20); the compute
  stream (7) then waits for it;
* ``entrainement``: zero_grad, a forward pass nested 3 to 5 deep (``model``),
  the loss, the backward pass on the autograd thread (linked by ``fwdbwd``
  flows) and an Adam ``foreach`` optimizer step.

Some steps then call ``loss.item()`` (DtoH copy + ``cudaStreamSynchronize``)
or ``torch.cuda.synchronize()`` (``cudaDeviceSynchronize`` + ``cuda_sync``).
Kernels (``kernels``) start after their launch, never overlap on a stream,
and are tied to their runtime call by ``ac2g`` flows whose id is the
correlation id (``simulator``).

The trace is written step by step (never whole in memory, ``writing``), is
fully decided by the seed, and comes with ``PATH.expected.json``: what the
generator knows exactly (``truth``: step durations, zone totals, GPU busy
time as the union of kernel, copy and set intervals, GPU idle time inside
``lecture_batch_cpu``, event counts per category, calls per name).
``check`` recomputes it.  ``ranks`` writes a run
folder, one trace per rank (``tests.support.tracegen.ranks.generate_run``).

Usage::

    python -m tests.support.tracegen --steps 3 -o small.json
    python -m tests.support.tracegen --size-gb 1.2 -o bench-out/big.json [--gzip] [--seed 7]
    python -m tests.support.tracegen --steps 3 --style 1.9 -o old.json   # as PyTorch 1.8-1.10 wrote it
    python -m tests.support.tracegen.ranks --ranks 8 --size-mb 140 -o bench-out/ranks/run8

Tests call ``generate(path, steps=..., seed=...)`` for small traces.
"""

from __future__ import annotations

from tests.support.tracegen.trace import GenerationResult, expected_path_for, generate
from tests.support.tracegen.truth import OP_FIGURES

__all__ = [
    "OP_FIGURES",
    "GenerationResult",
    "expected_path_for",
    "generate",
]
