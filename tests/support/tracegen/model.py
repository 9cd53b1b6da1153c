"""The model of the training zone: a small conv stem, then transformer blocks; seeded variants."""

from __future__ import annotations

import random

from tests.support.tracegen.kernels import (
    ADD_F,
    ANON,
    CLAMP_F,
    DIV_F,
    FILL_F,
    GELU_BWD_F,
    GELU_F,
    MASKED_SCALE_F,
    THRESHOLD_BWD_F,
    KernelBook,
)
from tests.support.tracegen.nodes import (
    MEMSET,
    Autograd,
    Node,
    ann,
    empty_op,
    launch,
    op,
    record_shapes,
    runtime,
    strided_op,
    t_op,
    view_op,
)


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
        """The shape of the token activations."""
        return [self.batch, 64, self.width]

    def cast(self, dtype: str, dims: list[int]) -> list[Node]:
        """Autocast: ``aten::to`` of a weight before a low-precision op."""
        if dtype == "float":
            return []
        kern = self.k.copy("float", dtype, 4 + self.rng.random() * 6)
        back = [op("aten::to", 2_500, op("aten::_to_copy", 4_000, empty_op()))]
        grad = Autograd("ToCopyBackward0", back)
        copy = op("aten::copy_", 5_000, launch(kern))
        to_copy = op("aten::_to_copy", 4_500, empty_op(), copy, grad=grad)
        return [op("aten::to", 2_500, to_copy, shapes=record_shapes([dims]))]

    def linear(self, n_in: int, n_out: int, dtype: str, gemm_us: float) -> list[Node]:
        """``aten::linear`` with its gemm, its cast under autocast and its backward."""
        k = self.k
        self.params += 2
        bias_sum = k.reduce("sum", dtype, 6 + gemm_us * 0.05)
        bwd = Autograd(
            "AddmmBackward0",
            [
                t_op(),
                op("aten::mm", 9_000, launch(k.gemm(dtype, gemm_us * 1.1))),
                t_op(),
                op("aten::mm", 9_000, launch(k.gemm(dtype, gemm_us))),
                t_op(),
                op("aten::sum", 8_000, launch(bias_sum)),
                view_op(),
            ],
            params=2,
        )
        t_node = t_op(grad=Autograd("TBackward0", [t_op()]))
        dims = [[n_out], [self.batch * 64, n_in], [n_in, n_out]]
        shapes = record_shapes(dims, dtype, scalars=2)
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
        shapes = record_shapes([self.tokens_dims()], dtype)
        if inner:
            leaf = op(inner, 6_000, launch(kern), shapes=shapes)
            return [op(outer, 3_000, leaf, grad=grad)]
        return [op(outer, 6_000, launch(kern), shapes=shapes, grad=grad)]

    def relu(self, dtype: str) -> list[Node]:
        """A ReLU activation and its backward."""
        names = ("aten::relu", "aten::clamp_min")
        bwd = ("ReluBackward0", "aten::threshold_backward")
        return self.pointwise(names, (CLAMP_F, THRESHOLD_BWD_F), bwd, dtype, 9)

    def gelu(self, dtype: str) -> list[Node]:
        """A GELU activation and its backward."""
        bwd = ("GeluBackward0", "aten::gelu_backward")
        return self.pointwise(("aten::gelu", ""), (GELU_F, GELU_BWD_F), bwd, dtype, 14)

    def layer_norm(self, dtype: str) -> list[Node]:
        """A layer norm (two parameters) and its backward."""
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
            empty_op("aten::empty_like"),
            launch(b1),
            launch(b2),
        )
        grad = Autograd("NativeLayerNormBackward0", [body], params=2)
        dims = [self.tokens_dims(), [self.width], [self.width]]
        inner = op(
            "aten::native_layer_norm",
            9_000,
            empty_op("aten::empty"),
            empty_op("aten::empty"),
            launch(fwd),
            shapes=record_shapes(dims, dtype),
            grad=grad,
        )
        return [op("aten::layer_norm", 3_000, inner)]

    def dropout(self, dtype: str) -> list[Node]:
        """A fused dropout and its backward."""
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
            empty_op("aten::empty_like"),
            launch(fwd),
            grad=grad,
        )
        return [op("aten::dropout", 2_500, inner)]

    def residual(self, dtype: str) -> list[Node]:
        """The residual ``aten::add``."""
        kern = self.k.elementwise(ADD_F, dtype, 8)
        shapes = record_shapes([self.tokens_dims()] * 2, dtype, 1)
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
        """Scaled dot-product attention (memory-efficient kernels) and its reshapes."""
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
            empty_op("aten::empty"),
            op("aten::zeros", 4_000, empty_op("aten::empty"), zero),
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
            empty_op("aten::empty"),
            runtime("cudaFuncSetAttribute", 2_500),
            launch(fwd),
        )
        dims = [[self.batch, 8, 64, self.width // 8]] * 3
        sdpa = op(
            "aten::_scaled_dot_product_efficient_attention",
            5_000,
            forward,
            shapes=record_shapes(dims, dtype),
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
        selects = [strided_op("aten::select", 1_500) for _ in range(3)]
        view_grad = Autograd("ViewBackward0", [op("aten::reshape", 2_000, view_op())])
        perm_grad = Autograd("PermuteBackward0", [strided_op("aten::permute")])
        return [
            op("aten::view", 1_800, grad=view_grad),
            strided_op("aten::permute", grad=perm_grad),
            op(
                "aten::unbind",
                4_000,
                *selects,
                grad=Autograd("UnbindBackward0", [stack]),
            ),
            op("aten::scaled_dot_product_attention", 3_000, sdpa),
        ]

    def conv_bn_relu(self, c_in: int, c_out: int, hw: int) -> list[Node]:
        """A convolution, batch norm and ReLU, as cuDNN runs them, with backward."""
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
            empty_op("aten::empty"),
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
            empty_op("aten::empty"),
            launch(to_nhwc),
            launch(fprop),
            shapes=record_shapes(dims[:2]),
        )
        bias = op("aten::add_", 6_000, launch(k.elementwise(ADD_F, "float", 7)))
        conv = op(
            "aten::conv2d",
            3_000,
            op(
                "aten::convolution",
                3_500,
                op("aten::_convolution", 5_000, cudnn, bias),
                shapes=record_shapes(dims),
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
            empty_op("aten::empty_like"),
            launch(bn_bwd),
        )
        bn_grad = Autograd("CudnnBatchNormBackward0", [bn_body], params=2)
        cudnn_bn = op(
            "aten::cudnn_batch_norm",
            13_000,
            empty_op("aten::empty_like"),
            empty_op("aten::empty"),
            launch(bn_fwd),
            grad=bn_grad,
        )
        impl = op("aten::_batch_norm_impl_index", 4_000, cudnn_bn)
        return [conv, op("aten::batch_norm", 2_500, impl), *self.relu("float")]

    def max_pool(self) -> list[Node]:
        """A 2D max pooling and its backward."""
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
            empty_op("aten::empty_like"),
            copy,
            grad=Autograd("CloneBackward0", []),
        )
        view_grad = Autograd("ViewBackward0", [op("aten::reshape", 2_000, view_op())])
        t_grad = Autograd("TransposeBackward0", [strided_op("aten::transpose", 1_700)])
        return [
            op("aten::flatten", 2_500, op("aten::view", 1_800, grad=view_grad)),
            strided_op("aten::transpose", 1_700, grad=t_grad),
            op("aten::contiguous", 1_500, clone),
        ]

    def block(self) -> list[Node]:
        """One transformer block, in a seeded dtype and activation."""
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
        """Pooling, the classifier head and the cross-entropy loss."""
        k = self.k
        div = op("aten::div", 7_000, launch(k.elementwise(DIV_F, "float", 6)))
        mean_grad = Autograd("MeanBackward1", [strided_op("aten::expand", 2_500), div])
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
            empty_op("aten::empty"),
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
            empty_op("aten::empty"),
            launch(nll),
            grad=Autograd("NllLossBackward0", [nll_body]),
        )
        nll_loss = op(
            "aten::nll_loss_nd", 2_000, op("aten::nll_loss", 2_500, nll_forward)
        )
        shapes = record_shapes([[self.batch, classes], [self.batch]], "float")
        return [
            mean,
            *self.layer_norm("float"),
            *self.linear(self.width, classes, "float", 18),
            op("aten::cross_entropy_loss", 3_000, log_softmax, nll_loss, shapes=shapes),
        ]

    def forward(self) -> list[Node]:
        """The whole forward pass: stem, blocks, head and loss."""
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
