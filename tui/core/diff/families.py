"""A kernel's family: its name without what only the GPU architecture chose.

cuBLAS and cuDNN name one computation after the architecture it was tuned
for and the tile it picked (`volta_sgemm_128x32_nt` on a V100,
`ampere_sgemm_128x64_nn` on an A100); templates add their arguments. The
family drops `void`, the parameter list, the template arguments that only
tune (numbers, booleans), the architecture prefixes (`volta_`, `ampere_`,
`sm80_`, `cutlass_80_`, …) and tile and layout suffixes (`_128x32`, `_nt`,
`_tn_n`, `_stages_32x6`, `_align4`), so the same computation on two GPUs
compares as one row; functor and type arguments stay, so two different
element-wise kernels never merge.
"""

from __future__ import annotations

import re

ARCH_PREFIX = re.compile(
    r"^(?:(?:volta|turing|ampere|hopper|ada|blackwell|maxwell|pascal|kepler|sm\d{2,3}a?|"
    r"cutlass_?\d*|gfx\d+\w*)_)+",
    re.IGNORECASE,
)
# Tile sizes (128x32, 64x64x8), stage counts, alignments and layout letters at the end.
TILE_OR_LAYOUT = re.compile(
    r"(?:_(?:\d+x\d+(?:x\d+)?|stages?_?\w*|warpsize\w*|[nt]{1,2}(?:_[nt])?|"
    r"align\d+|splitk\w*|ldg\d+\w*))+$",
    re.IGNORECASE,
)
# Brackets that are part of a name, not a parameter list.
ANONYMOUS = "(anonymous namespace)"
_ANONYMOUS_MARK = "\x01anonymous\x01"
# A template argument that only tunes (a number, a boolean): dropped.
TUNING_ARGUMENT = re.compile(r"^(?:-?\d+[uUlL]*|true|false)$")


def _split(text: str) -> tuple[str, list[str]]:
    """`ns::kernel<a, b<c>>(params)` → (`ns::kernel`, [`a`, `b<c>`]); parameters dropped.
    An arrow (`->`) is text, not a bracket."""
    base: list[str] = []
    arguments: list[str] = []
    current: list[str] = []
    depth = 0
    in_parameters = False
    previous = ""
    for char in text:
        closing = char in ">)" and previous != "-"
        if depth == 0 and char == "(":
            in_parameters = True
        if char in "<(":
            depth += 1
            if depth > 1 and not in_parameters:
                current.append(char)
        elif closing:
            depth = max(0, depth - 1)
            if depth >= 1 and not in_parameters:
                current.append(char)
            elif depth == 0 and not in_parameters:
                arguments.append("".join(current).strip())
                current = []
            if depth == 0:
                in_parameters = False
        elif depth == 0:
            if not in_parameters:
                base.append(char)
        elif depth == 1 and char == "," and not in_parameters:
            arguments.append("".join(current).strip())
            current = []
        elif not in_parameters:
            current.append(char)
        previous = char
    return "".join(base).strip(), [argument for argument in arguments if argument]


def _family_of_symbol(symbol: str) -> str:
    stripped = TILE_OR_LAYOUT.sub("", ARCH_PREFIX.sub("", symbol))
    return stripped or symbol


def kernel_family(name: str) -> str:
    """The family of a kernel name (the name itself when nothing is architectural).

    Template arguments that are numbers or booleans are dropped; the others
    (functors, types, a wrapped kernel's name) keep the computation's identity
    and are reduced the same way.
    """
    text = name.strip().removeprefix("void ").strip()
    base, arguments = _split(text.replace(ANONYMOUS, _ANONYMOUS_MARK))
    if not base or " " in base:
        return name  # not a kernel symbol (Memcpy HtoD …): kept whole
    head, _, symbol = base.rpartition("::")
    family = (head + "::" if head else "") + _family_of_symbol(symbol)
    kept = [
        argument if " " in argument or "(" in argument else kernel_family(argument)
        for argument in arguments
        if not TUNING_ARGUMENT.match(argument)
    ]
    whole = f"{family}<{', '.join(kept)}>" if kept else family
    return whole.replace(_ANONYMOUS_MARK, ANONYMOUS)
