"""One module of tui (and one of the collector) reads the environment, and each
variable it documents takes effect where it should."""

from __future__ import annotations

import argparse
import ast
import gzip
import os
import sys
from pathlib import Path

import pytest

from collector import distributed, launch, zerocode
from tests.builders.traces import metadata, training_step_events, write_trace
from tui.commands._cluster import add_cluster_option
from tui.core.base.errors import TraceLoadError
from tui.core.base.settings import Settings, child_environment, settings
from tui.core.base.vocab import CacheUse
from tui.core.ingest import cache
from tui.core.ingest.load import load_trace
from tui.core.ingest.parallel.driver import scratch_root
from tui.core.ingest.source import default_max_bytes, read_trace_bytes
from tui.core.runs import summary_cache
from tui.notes.paths import data_dir

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"tui/core/base/settings.py", "collector/distributed.py"}
_ENVIRONMENT_NAMES = frozenset(
    {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
)


def environment_reads(source: str) -> list[int]:
    """Lines of `source` that reach the process environment through `os`."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        attribute = (
            isinstance(node, ast.Attribute)
            and node.attr in _ENVIRONMENT_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        )
        imported = (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(alias.name in _ENVIRONMENT_NAMES for alias in node.names)
        )
        if attribute or imported:
            lines.append(getattr(node, "lineno", 0))
    return lines


def test_environment_reads_are_found() -> None:
    assert environment_reads("import os\nx = os.environ.get('A')\n") == [2]
    assert environment_reads("import os\n\n\ny = os.getenv('A')\n") == [4]
    assert environment_reads("from os import environ as e\n") == [1]
    assert environment_reads("import os\nos.path.join('a')\nenviron = {}\n") == []


def test_only_the_settings_modules_read_the_environment() -> None:
    readers = {
        str(path.relative_to(ROOT)): environment_reads(path.read_text("utf-8"))
        for folder in ("tui", "collector")
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    found = {module for module, lines in readers.items() if lines}
    assert found <= ALLOWED, {module: readers[module] for module in found - ALLOWED}
    assert "tui/core/base/settings.py" in found


def test_unset_and_unusable_values_count_as_unset() -> None:
    assert Settings.of({}) == Settings()
    empty = {name: "" for name in ("STEPTRACE_CACHE_DIR", "STEPTRACE_NO_CACHE")}
    assert Settings.of(empty) == Settings()
    assert Settings.of({"STEPTRACE_MAX_BYTES": "lots"}).max_bytes is None
    assert Settings.of({"STEPTRACE_MAX_BYTES": "0"}).max_bytes == 1
    assert Settings.of({"XDG_CACHE_HOME": "relative/cache"}).xdg_cache_home is None
    assert Settings.of({"XDG_DATA_HOME": "relative/data"}).xdg_data_home is None


def test_settings_follow_the_environment_at_each_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STEPTRACE_CLUSTER", raising=False)
    assert settings().cluster is None
    monkeypatch.setenv("STEPTRACE_CLUSTER", "tcp://scheduler:8786")
    assert settings().cluster == "tcp://scheduler:8786"


def test_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "columns"))
    assert cache.cache_root() == tmp_path / "columns"


def test_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STEPTRACE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_root() == tmp_path / "steptrace" / "columns"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert cache.cache_root() == tmp_path / "home" / ".cache" / "steptrace" / "columns"


def test_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "columns"
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(root))
    path = write_trace(tmp_path / "t.json", metadata() + training_step_events(1, 0))
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    assert not summary_cache.enabled()
    load_trace(path, cache=CacheUse.ON)
    assert not root.exists()
    monkeypatch.delenv("STEPTRACE_NO_CACHE")
    assert summary_cache.enabled()
    load_trace(path, cache=CacheUse.ON)
    assert root.exists()


def test_scratch_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPTRACE_SCRATCH_DIR", str(tmp_path))
    assert scratch_root(1, memory_folder=str(tmp_path / "absent")) == str(tmp_path)
    monkeypatch.delenv("STEPTRACE_SCRATCH_DIR")
    assert scratch_root(1, memory_folder=str(tmp_path / "absent")) != str(tmp_path)


def test_max_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"[" + b" " * 2000 + b"]")
    monkeypatch.setenv("STEPTRACE_MAX_BYTES", "1000")
    assert default_max_bytes() == 1000
    with pytest.raises(TraceLoadError, match="limit"):
        read_trace_bytes(path)
    monkeypatch.setenv("STEPTRACE_MAX_BYTES", "100000")
    assert len(read_trace_bytes(path).data) == 2002


def test_max_bytes_lets_a_highly_compressed_file_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past 256 MB at over 500:1, gzip is taken for a bomb unless the limit was set."""
    monkeypatch.setattr("tui.core.ingest.source.BOMB_RATIO_AFTER", 1000)
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(b"[" + b" " * 2_000_000 + b"]"))
    monkeypatch.delenv("STEPTRACE_MAX_BYTES", raising=False)
    with pytest.raises(TraceLoadError, match="decompression bomb"):
        read_trace_bytes(path)
    monkeypatch.setenv("STEPTRACE_MAX_BYTES", str(10**9))
    assert len(read_trace_bytes(path).data) == 2_000_002


def test_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "data"


def test_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STEPTRACE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "steptrace"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", "relative")
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "steptrace"


def test_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    def cluster_default() -> object:
        parser = argparse.ArgumentParser()
        add_cluster_option(parser)
        return parser.parse_args([]).cluster

    monkeypatch.delenv("STEPTRACE_CLUSTER", raising=False)
    assert cluster_default() is None
    monkeypatch.setenv("STEPTRACE_CLUSTER", "tcp://scheduler:8786")
    assert cluster_default() == "tcp://scheduler:8786"


def test_child_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPTRACE_NO_CACHE", "1")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    child = child_environment(python_path_first="/here")
    assert child["STEPTRACE_NO_CACHE"] == "1"
    assert child["PYTHONPATH"] == os.pathsep.join(["/here", "/elsewhere"])
    monkeypatch.delenv("PYTHONPATH")
    assert child_environment(python_path_first="/here")["PYTHONPATH"] == "/here"
    assert "PYTHONPATH" not in child_environment()
    child["STEPTRACE_NO_CACHE"] = "changed"
    assert os.environ["STEPTRACE_NO_CACHE"] == "1"


def test_collector_reads_the_environment_through_distributed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    assert distributed.environment_rank() == 3
    assert distributed.environment_world_size() == 4
    assert zerocode._rank_prefix("run") == "rank 3: "
    script = launch.ScriptCommand(sys.executable, [], ["t.py"])
    assert launch.child_environment(script)["RANK"] == "3"
    monkeypatch.delenv("RANK")
    assert zerocode._rank_prefix("run") == ""
