"""``python -m tests.support.tracegen``: write one synthetic trace and its ground truth."""

from __future__ import annotations

from tests.support.tracegen.cli import main

raise SystemExit(main())
