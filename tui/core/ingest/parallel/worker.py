"""The helper process of parallel decoding: `python -m tui.core.ingest.parallel.worker SPEC`."""

from __future__ import annotations

import sys

from tui.core.ingest.parallel.driver import serve

if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
