"""A headless command imports only what it needs: no UI, no hashing, no scrubbing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import shared_traces as shared

REPO = Path(__file__).resolve().parents[2]
TRACE = shared.FOLDER / "trace_file_list-inference_rank_1.json.gz"
NOT_NEEDED = (
    "textual",
    "rich",
    "hashlib",
    "tui.app",
    "tui.scrub",
    "tui.notes",
    "torch",
    "duckdb",
    "pyarrow",
)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("command", ["summary", "ops", "gaps"])
def test_headless_commands_import_only_what_they_need(command: str) -> None:
    probe = (
        "import sys, json\n"
        "from tui.cli import main\n"
        f"status = main([{command!r}, {str(TRACE)!r}, '--json'])\n"
        "print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    environment = {**os.environ, "STEPTRACE_NO_CACHE": "1", "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        env=environment,
        timeout=60,
        check=True,
    )
    status, modules = json.loads(result.stderr.decode().strip().splitlines()[-1])
    assert status == 0
    assert "tui.core.ingest.load" in modules
    imported = [
        module
        for module in modules
        if any(module == name or module.startswith(name + ".") for name in NOT_NEEDED)
    ]
    assert imported == []


@pytest.mark.parametrize(
    "words", [["--help"], ["--version"], ["summry"], ["notes", "--help"]]
)
def test_help_version_and_usage_errors_read_no_numpy(words: list[str]) -> None:
    """What answers at once (help, version, a misspelt command) builds every
    parser and no figure: neither numpy nor textual is imported for it."""
    probe = (
        "import sys, json\n"
        "from tui.cli import main\n"
        "try:\n"
        f"    main({words!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numpy', 'textual', 'orjson', 'tui.notes', 'duckdb', 'pyarrow')"
        " if m in sys.modules]\n"
        "print(json.dumps(heavy), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=True,
    )
    assert json.loads(result.stderr.decode().strip().splitlines()[-1]) == []


@pytest.mark.usefixtures("shared_traces")
def test_a_cached_command_reads_no_query_engine(tmp_path: Path) -> None:
    """`ops` from a cache entry never imports DuckDB or Arrow; `sql` on the same
    entry does, and reads the cache rather than the file."""
    environment = {
        **os.environ,
        "STEPTRACE_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": str(REPO),
    }
    environment.pop("STEPTRACE_NO_CACHE", None)
    fill = (
        "from tui.core.ingest.load import load_trace\n"
        f"load_trace({str(TRACE)!r}, cache='on')\n"
    )
    subprocess.run(
        [sys.executable, "-c", fill], env=environment, timeout=60, check=True
    )
    probe = (
        "import sys, json\n"
        "from tui.core.ingest import load\n"
        "def no_parse(*args, **kwargs):\n"
        "    raise AssertionError('parsed again')\n"
        "load._parse = no_parse\n"
        "from tui.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "engines = [m for m in ('duckdb', 'pyarrow') if m in sys.modules]\n"
        "print(json.dumps([status, engines]), file=sys.stderr)\n"
    )
    found = {}
    for words in (["ops", str(TRACE), "--json"], ["sql", str(TRACE), "select 1"]):
        result = subprocess.run(
            [sys.executable, "-c", probe, *words],
            capture_output=True,
            env=environment,
            timeout=60,
            check=True,
        )
        found[words[0]] = json.loads(result.stderr.decode().strip().splitlines()[-1])
    assert found == {"ops": [0, []], "sql": [0, ["duckdb"]]}
