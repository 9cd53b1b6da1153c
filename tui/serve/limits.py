"""How many app processes a server keeps, and for how long: light enough for the
command's parser to read without importing the server."""

from __future__ import annotations

# Each session is an app process (about 100 MB): past this many, a new
# connection is refused with a page that says why (`--max-sessions`).
DEFAULT_MAX_SESSIONS = 8
# A session with no key, resize or focus from its page for this long ends
# (`--idle-timeout`): a forgotten tab does not hold an app for ever.
DEFAULT_IDLE_TIMEOUT_S = 1800.0
