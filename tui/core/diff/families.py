"""A kernel's family: its name without what only the GPU architecture chose.

cuBLAS and cuDNN name one computation after the architecture it was tuned
for and the tile it picked (`volta_sgemm_128x32_nt` on a V100,
`ampere_sgemm_128x64_nn` on an A100); templates add their arguments. The
family drops the `void` and return type, the template arguments and the
parameter list, the architecture prefixes (`volta_`, `ampere_`, `sm80_`, …),
and tile and layout suffixes (`_128x32`, `_nt`, `_tn_n`, `_stages_32x6`), so
the same computation on two GPUs compares as one row.
"""

from __future__ import annotations

import re

ARCH_PREFIX = re.compile(
    r"^(?:(?:volta|turing|ampere|hopper|ada|blackwell|maxwell|pascal|kepler|sm\d{2,3}a?|"
    r"cutlass_?\d*|gfx\d+\w*)_)+",
    re.IGNORECASE,
)
# Tile sizes (128x32, 64x64x8), stage counts and layout letters at the end.
TILE_OR_LAYOUT = re.compile(
    r"(?:_(?:\d+x\d+(?:x\d+)?|stages?_?\w*|warpsize\w*|[nt]{1,2}(?:_[nt])?|"
    r"align\d+|splitk\w*|ldg\d+\w*|relu|tn|nn|nt|tt))+$",
    re.IGNORECASE,
)


def _strip_templates(name: str) -> str:
    """`ns::kernel<args>(params)` → `ns::kernel` (nested brackets handled)."""
    kept: list[str] = []
    depth = 0
    previous = ""
    for char in name:
        if char in "<(":
            depth += 1
        elif char in ">)" and previous != "-":
            depth = max(0, depth - 1)
        elif depth == 0:
            kept.append(char)
        previous = char
    return "".join(kept).strip()


def kernel_family(name: str) -> str:
    """The family of a kernel name (the name itself when nothing is architectural)."""
    core = _strip_templates(name).removeprefix("void ").strip()
    if not core or " " in core:
        return name  # not a kernel symbol (Memcpy HtoD …): kept whole
    stripped = ARCH_PREFIX.sub("", core)
    stripped = TILE_OR_LAYOUT.sub("", stripped)
    return stripped or core or name
