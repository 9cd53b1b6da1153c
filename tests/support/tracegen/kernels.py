"""GPU kernels: names as the CUDA libraries spell them, launch configurations, durations."""

from __future__ import annotations

import random

from tests.support.tracegen.formats import json_name


class Kernel:
    """A GPU kernel: its name, launch configuration and typical duration."""

    __slots__ = ("base_ns", "name", "name_json", "tail")

    def __init__(self, name: str, base_ns: int, rng: random.Random) -> None:
        self.name = name
        self.name_json = json_name(name)
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
        """The kernel of this name, made once (its launch shape is seeded)."""
        kernel = self._cache.get(name)
        if kernel is None:
            kernel = Kernel(name, int(base_us * 1000 * self.scale), self.rng)
            self._cache[name] = kernel
        return kernel

    def gemm(self, dtype: str, base_us: float) -> Kernel:
        """A matrix-multiply kernel of this dtype, named as cuBLAS, xmma or CUTLASS do."""
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
        """A vectorized or unrolled elementwise kernel applying `functor`."""
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
        """A reduction kernel (sum, mean) of this dtype."""
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
        """A copy or cast kernel from `src` to `dst` dtype."""
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
        """A `foreach` kernel of the optimizer over `depth` tensor lists."""
        meta = f"{ANON}TensorListMetadata<{depth}>"
        f = ANON + functor
        name = (
            f"void {ANON}multi_tensor_apply_kernel<{meta}, {f}, float>"
            f"({meta}, {f}, float)"
        )
        return self.get(name, base_us)
