"""Names known to identify no one: what scrubbing by shape leaves alone.

Scrubbing finds paths, hosts and addresses by their shape; these lists only
say which shapes are harmless after all: a relative path under a library's
own package (`torch/nn/modules/module.py`), a dotted name that is a Python
module (`torch.nn.functional`) or a file name (`model.tar.gz`).
"""

from __future__ import annotations

import sys

# Top folders of a relative path that name a library, not a person: Python's
# own modules and the ML frameworks' packages (`torch/nn/modules/module.py`).
KNOWN_ROOTS = frozenset(sys.stdlib_module_names) | frozenset(
    {
        "torch", "torchvision", "torchaudio", "torchtext", "torchrec", "torchdata",
        "torch_xla", "torch_npu", "functorch", "triton", "transformers",
        "accelerate", "deepspeed", "megatron", "apex", "fairscale", "fairseq",
        "xformers", "flash_attn", "lightning", "pytorch_lightning", "timm",
        "diffusers", "peft", "datasets", "tokenizers", "safetensors", "numpy",
        "scipy", "pandas", "sklearn", "jax", "jaxlib", "flax", "tensorflow",
        "keras", "cupy", "onnx", "onnxruntime", "vllm", "caffe2", "c10", "aten",
        "site-packages", "dist-packages", "lib", "lib64", "include", "python3",
    }
)  # fmt: skip
# Last labels that make a dotted token a file name, not a host name.
FILE_EXTENSIONS = frozenset(
    {
        "json", "gz", "py", "pyc", "pt", "pth", "txt", "log", "bin", "csv", "tsv",
        "jsonl", "yaml", "yml", "tar", "zip", "so", "ckpt", "npz", "npy", "h5",
        "onnx", "bz2", "xz", "zst", "md", "html", "cfg", "ini", "toml", "sh",
        "out", "err", "pkl", "pickle", "safetensors", "index", "lock", "tmp",
        "trace", "cpp", "cu", "cuh", "hpp", "h", "c", "cc", "png", "jpg", "svg",
        "parquet", "arrow", "whl", "egg", "ipynb", "xml", "proto", "pb", "ptx",
        "cubin", "mlir", "old", "bak", "new", "orig",
    }
)  # fmt: skip
