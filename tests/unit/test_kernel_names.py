"""Kernel names keep the kernel: one rule, every table."""

from __future__ import annotations

from rich.cells import cell_len

from tui.report.kernel_names import kernel_label, kernel_labels

FILL = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<{t}>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<{t}>, "
    "at::detail::Array<char*, 1>)"
)
CUTLASS = (
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4"
    "<{a}, 128, 6, 7, 3, 3, 5, {b}, 512> >(Params)"
)


def test_void_namespaces_and_parameters_go_first() -> None:
    assert kernel_label(FILL.format(t="float"), 80) == (
        "vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 1>>"
    )


def test_alike_kernels_keep_their_own_name_and_differ() -> None:
    names = [FILL.format(t=t) for t in ("float", "int", "half", "long", "bool")]
    for width in (40, 48, 60):
        labels = kernel_labels(names, width)
        assert len(set(labels)) == len(names), labels
        for label in labels:
            assert cell_len(label) <= width
            assert label.startswith("vectorized_elementwise_kernel<"), label
            assert "void" not in label


def test_a_lone_long_kernel_folds_its_template_arguments() -> None:
    label = kernel_label(CUTLASS.format(a=1, b="false"), 30)
    assert label == "Kernel<…>"
    labels = kernel_labels(
        [CUTLASS.format(a=1, b="false"), CUTLASS.format(a=1, b="true")], 60
    )
    assert len(set(labels)) == 2, labels
    assert all(label.startswith("Kernel<") for label in labels), labels


def test_overloads_that_differ_by_parameters_stay_distinct() -> None:
    names = [
        "void split_embedding_backward_codegen_kernel(float*, long)",
        "void split_embedding_backward_codegen_kernel(c10::Half*, long)",
    ]
    labels = kernel_labels(names, 40)
    assert len(set(labels)) == 2, labels
    assert all("void" not in label and cell_len(label) <= 40 for label in labels)


def test_names_that_are_not_signatures_are_kept() -> None:
    assert kernel_label("ampere_sgemm_128x64_nn", 30) == "ampere_sgemm_128x64_nn"


def test_long_names_of_their_own_differ_where_they_differ() -> None:
    stem = "sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
    names = [
        stem + "tilesize128x64x32_stage3_warpsize2x2x1_g1_tensor16x8x8_kernel",
        stem + "tilesize256x64x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel",
    ]
    labels = kernel_labels(names, 34)
    assert len(set(labels)) == 2 and not any("#" in label for label in labels)
    assert "128x64x32" in labels[0] and "256x64x16" in labels[1], labels


def test_a_long_name_is_cut_at_its_end_never_its_middle() -> None:
    name = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"
    assert kernel_label(name, 24) == "ncclKernel_SendRecv_RIN…"
    assert kernel_label(name, len(name)) == name
