"""`python -m tui` runs the steptrace command line."""

from tui.cli import main

raise SystemExit(main())
