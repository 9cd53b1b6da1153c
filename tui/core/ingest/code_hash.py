"""What code a cache entry depends on: the source of the modules that build it, hashed.

An entry's key holds a digest of the source of the code that built it (and of
every tui.core module that code imports, found in the source), so a changed
loader or figure never reads an old entry. Sources are read as files
(importlib.resources): nothing is imported to hash it.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

_CORE_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+tui\.core((?:\.\w+)*)[ \t]+import[ \t]+"
    rb"(\([^)]*\)|[\w \t,]+)"
    rb"|import[ \t]+tui\.core((?:\.\w+)+))",
    re.MULTILINE,
)


def module_sources(
    package: Traversable, roots: tuple[str, ...]
) -> list[tuple[str, bytes]]:
    """(path, bytes) of each module of `roots` under `package` (tui.core), sorted.

    The `roots` (a folder counts with every module under it) and every
    tui.core module these import. OSError when one cannot be read: its code
    would otherwise go unseen.
    """
    files: dict[str, Traversable] = {}
    for root in roots:
        _add_tree(package, root, files)
    sources: dict[str, bytes] = {}
    pending = list(files)
    while pending:
        name = pending.pop()
        if name in sources:
            continue
        data = files[name].read_bytes()
        sources[name] = data
        required, optional = _imported_modules(data)
        for module in sorted(required | optional):
            found = None
            for candidate in (f"{module}.py", f"{module}/__init__.py"):
                path = _child(package, candidate)
                if path is not None and path.is_file():
                    found = candidate
                    if candidate not in files:
                        files[candidate] = path
                        pending.append(candidate)
                    break
            if found is None and module in required:
                raise FileNotFoundError(f"{name} imports tui.core {module}: not found")
    return sorted(sources.items())


def _child(package: Traversable, relative: str) -> Traversable | None:
    node = package
    for part in relative.split("/"):
        if not part:
            return None
        node = node.joinpath(part)
    return node


def _add_tree(
    package: Traversable, relative: str, files: dict[str, Traversable]
) -> None:
    node = _child(package, relative)
    if node is None:
        return
    if relative.endswith(".py"):
        files[relative] = node  # read later: a missing root fails there
        return
    for item in node.iterdir():
        if item.is_dir() and item.name != "__pycache__":
            _add_tree(package, f"{relative}/{item.name}", files)
        elif item.name.endswith(".py"):
            files[f"{relative}/{item.name}"] = item


def _with_parents(dotted: str) -> list[str]:
    """`a.b.c` → `a`, `a/b`, `a/b/c`: importing a module runs its packages too."""
    parts = [part for part in dotted.replace("/", ".").split(".") if part]
    return ["/".join(parts[: end + 1]) for end in range(len(parts))]


def _imported_modules(source: bytes) -> tuple[set[str], set[str]]:
    """Paths (`a/b`, from tui.core) a source imports: those that must exist, and
    names after `from … import` that are modules only where such a file exists."""
    required: set[str] = set()
    optional: set[str] = set()
    for match in _CORE_IMPORT.finditer(source):
        if match.group(3):
            required.update(_with_parents(match.group(3).decode().strip(".")))
            continue
        package = (match.group(1) or b"").decode().strip(".").replace(".", "/")
        required.update(_with_parents(package))
        listed = re.sub(rb"#[^\n]*", b"", match.group(2)).strip(b"()")
        for part in listed.split(b","):
            words = part.split()
            if words:
                name = words[0].decode()
                optional.add(f"{package}/{name}" if package else name)
    return required, optional


def source_version(sources: list[tuple[str, bytes]]) -> str:
    """A short digest of named source files: changes when any name or byte does."""
    digest = hashlib.sha256()
    for name, data in sources:
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:20]
