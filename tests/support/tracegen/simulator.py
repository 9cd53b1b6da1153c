"""The simulator: runs the templates, times CPU threads and GPU streams, formats the events."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tests.support.tracegen.formats import (
    CBID,
    CONTEXT_STREAM,
    COPY_ARGS_FMT,
    COPY_STREAM,
    CPU_FMT,
    DEVICE,
    FLOW_F_FMT,
    FLOW_S_FMT,
    GPU_ANN_FMT,
    GPU_FMT,
    KERNEL_ARGS_FMT,
    MAIN_STREAM,
    OLD_CATEGORIES,
    OLD_COPY_ARGS_FMT,
    OLD_CPU_FMT,
    OLD_FLOW_F_FMT,
    OLD_FLOW_S_FMT,
    OLD_GPU_FMT,
    OLD_KERNEL_ARGS_FMT,
    OLD_RUNTIME_FMT,
    RUNTIME_FMT,
    SYNC_FMT,
    SYNC_TID,
    json_name,
    us_text,
    us_whole,
)
from tests.support.tracegen.nodes import (
    BACKWARD,
    COPY,
    DEVSYNC,
    GAP,
    ITEM,
    LAUNCH,
    MALLOC,
    MEMSET,
    OP,
    RUNTIME,
    STREAMWAIT,
    Autograd,
    Node,
    ann,
)
from tests.support.tracegen.truth import Stats, covered, merge
from tests.support.tracegen.zones import ACCUMULATE, ITEM_COPY


class Tape:
    """One autograd node recorded by the forward pass."""

    __slots__ = ("flow", "grad", "seq")

    def __init__(self, seq: int, grad: Autograd, flow: int) -> None:
        self.seq = seq
        self.grad = grad
        self.flow = flow


class Simulator:
    """Times CPU threads and GPU streams while it formats the events."""

    def __init__(
        self,
        rng: random.Random,
        pid: int,
        bwd_tid: int,
        base_ns: int,
        stats: Stats,
        style: str = "current",
    ) -> None:
        self.r = rng.random
        self.old = style == "1.9"
        # 1.9-era files hold whole microseconds: every time is a multiple of it,
        # so what is written is exactly what was simulated.
        self.quantum = 1_000 if self.old else 1
        self.us = us_whole if self.old else us_text
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
        self.tape: list[Tape] = []
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
        """A duration drawn evenly in [lo, hi) ns."""
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
        """One flow event (``s`` or ``f``), counted."""
        st = self.stats
        st.by_ph[ph] += 1
        written = self.cat(cat)
        st.by_cat[written] = st.by_cat.get(written, 0) + 1
        if self.old:
            fmt = OLD_FLOW_S_FMT if ph == "s" else OLD_FLOW_F_FMT
            return fmt % (fid, pid, tid, self.us(ts))
        fmt = FLOW_S_FMT if ph == "s" else FLOW_F_FMT
        return fmt % (fid, pid, tid, us_text(ts), cat, cat)

    def runtime_event(
        self, name: str, tid: int, ts: int, dur: int, ext: int, corr: int
    ) -> str:
        """One CUDA runtime call, counted and charged to its op."""
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
            us_text(ts),
            us_text(dur),
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
        """One kernel, copy or set on a stream, counted and charged to its op."""
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
        return GPU_FMT % (
            cat,
            name_json,
            DEVICE,
            stream,
            us_text(ts),
            us_text(dur),
            args,
        )

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
        """One ``cuda_sync`` event (none in the 1.9 style)."""
        if self.old:  # PyTorch <= 1.10 wrote no cuda_sync events
            return None
        self.count("cuda_sync", kind)
        return SYNC_FMT % (
            kind,
            DEVICE,
            tid,
            us_text(ts),
            us_text(dur),
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
        """Run a CPU op or annotation and its children; returns its end."""
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
            self.tape.append(Tape(self.seq, grad, self.flow_id))
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
            us_text(ts),
            us_text(dur),
            ext,
            extra,
            idx,
            shapes,
        )

    def run_launch(self, node: Node, tid: int, t: int, ext: int) -> int:
        """A kernel launch: the runtime call and the kernel on its stream."""
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
        """An async copy: the runtime call and the copy on its stream."""
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
        """An async set: the runtime call and the set on its stream."""
        self.corr += 1
        corr = self.corr
        stream = node.stream
        g_dur = self.quant(max(1_000, node.nbytes // 600 + 1_000))
        g_start = self.enqueue(stream, t, g_dur, tid)
        args = self.copy_args(ext, stream, corr, node.nbytes, g_dur)
        name = "Memset (Device)"
        ev = self.gpu_event(
            "gpu_memset", name, json_name(name), stream, g_start, g_dur, args, ext
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

    def run_bwd_node(self, entry: Tape, tid: int, t: int, out: list[str | None]) -> int:
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
                GPU_ANN_FMT
                % (node.name_json, DEVICE, stream, us_text(s), us_text(e - s), ext)
            )
        self.gpu_ann.clear()
        return out

    def account_step(self, number: int, start: int, end: int) -> None:
        """Fold this step's zones, GPU intervals and ops into the ground truth."""
        self.fold_ops()
        stats = self.stats
        merged = merge(self.carry + self.gpu_iv)
        self.gpu_iv = []
        zones: dict[str, int] = {}
        idle_lecture = 0
        for name, a, b in self.zones:
            zones[name] = zones.get(name, 0) + (b - a)
            total = stats.zone_totals.setdefault(name, [0, 0])
            total[0] += 1
            total[1] += b - a
            if name == "lecture_batch_cpu":
                idle_lecture += (b - a) - covered(merged, a, b)
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
                "gpu_busy_ns": covered(merged, start, end),
                "gpu_idle_in_lecture_batch_cpu_ns": idle_lecture,
            }
        )

    def finish(self) -> None:
        """Count the GPU work still open after the last step."""
        self.stats.busy_ns += sum(e - s for s, e in merge(self.carry))
        self.carry = []
