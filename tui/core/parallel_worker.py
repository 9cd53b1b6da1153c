"""The helper process of parallel decoding: `python -m tui.core.parallel_worker SPEC`."""

from __future__ import annotations

import sys

from tui.core.parallel import serve

if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
