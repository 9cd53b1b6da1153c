"""One way to open things, for the CLI and the app alike.

- `zones`: the data zone asked for (or remembered) resolved to a choice, or a
  refusal with the closest names;
- `capture`: a capture read with its zone, and what its first screen shows;
- `run`: a run folder's ranks read across (on `core.runs.read_run`).
"""
