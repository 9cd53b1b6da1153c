"""Scrub by structure: a trace seeded with each kind of identifier that lists
could not know (UNC paths, IPv6 and MAC addresses, host names under any
top-level domain, job and cluster keys and environment variables in event
args, user names inside relative paths, a path with a space in it) is listed
by `--check` and scrubbed clean, with the same figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.app_traces import write_training_trace
from tests.real_traces.test_scrub_figures import COMMANDS, assert_same, figures
from tui.cli import main
from tui.scrub import check_file, detect, scrub_file

# Each identifier, and the parts of it that must not survive either.
SEEDED = {
    "unc": (
        "\\\\fileserver\\share\\dave\\exp7\\train.py",
        ["fileserver", "dave", "exp7"],
    ),
    "ipv6 master": ("fd00:1234:5678::17", ["fd00:1234"]),
    "ipv6 free": ("2001:db8:85a3::8a2e:370:7334", ["2001:db8", "8a2e:370"]),
    "mac": ("0c:42:a1:3f:5e:9b", ["0c:42:a1"]),
    "host": ("r12.dc1.acme.cloud", ["r12.dc1", "acme"]),
    "job": ("llama-pretrain-xyz", ["llama-pretrain"]),
    "cluster": ("hpc-westfalen", ["westfalen"]),
    "slurm id": ("4242421", ["4242421"]),
    "nodelist": ("gpu-node[01-16]", ["gpu-node"]),
    "relative": ("data/mallory2/shard-0001.bin", ["mallory2"]),
    "space": (
        "/srv/teams/Vision Team/zoe-q/ckpt.pt",
        ["Vision Team", "zoe-q", "Team/"],
    ),
}
LEAKS = sorted({part for _, parts in SEEDED.values() for part in parts})


def write_seeded_trace(path: Path) -> Path:
    """The training fixture with every kind of identifier seeded in it."""
    plain = write_training_trace(path.with_name("plain-" + path.name))
    document = json.loads(plain.read_text())
    document["distributedInfo"] = {
        "backend": "nccl",
        "rank": 0,
        "world_size": 1,
        "master_addr": SEEDED["ipv6 master"][0],
        "master_port": "29500",
    }
    first = next(e for e in document["traceEvents"] if e.get("ph") == "X")
    document["traceEvents"] += [
        {
            "ph": "i",
            "s": "p",
            "cat": "user_annotation",
            "name": "ProfilerStep#0",
            "pid": first["pid"],
            "tid": first["tid"],
            "ts": first["ts"],
            "args": {
                "script": SEEDED["unc"][0] + "(3): step",
                "peer": f"connect to [{SEEDED['ipv6 free'][0]}]:29500 refused",
                "nic": f"eth0 mac {SEEDED['mac'][0]} up",
                "where": f"running on {SEEDED['host'][0]} now",
                "job_name": SEEDED["job"][0],
                "cluster": SEEDED["cluster"][0],
                "slurm_job_id": int(SEEDED["slurm id"][0]),
                "SLURM_NODELIST": SEEDED["nodelist"][0],
                "shard": f"reading {SEEDED['relative'][0]} (3 of 9)",
                "checkpoint": f"saved {SEEDED['space'][0]}",
            },
        }
    ]
    path.write_text(json.dumps(document))
    return path


def _all_text(value: Any) -> str:
    """Every key, string and number of a JSON value, one per line."""
    if isinstance(value, dict):
        return "\n".join(f"{key}\n{_all_text(item)}" for key, item in value.items())
    if isinstance(value, list):
        return "\n".join(_all_text(item) for item in value)
    return str(value)


@pytest.fixture
def seeded(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_seeded_trace(tmp_path / "seeded.json")


def test_the_seeded_trace_holds_every_identifier(seeded: Path) -> None:
    text = _all_text(json.loads(seeded.read_text()))
    assert all(leak in text for leak in LEAKS)


def test_check_lists_every_kind(seeded: Path) -> None:
    report = check_file(seeded)
    listed = "\n".join(value for kind in report.kinds for value in kind.values)
    missed = [name for name, (value, _) in SEEDED.items() if value not in listed]
    assert missed == [], listed


def test_the_scrubbed_copy_holds_none_of_them(seeded: Path, tmp_path: Path) -> None:
    copy = tmp_path / "out" / "seeded.json"
    copy.parent.mkdir()
    scrub_file(seeded, copy)
    text = _all_text(json.loads(copy.read_text()))
    assert [leak for leak in LEAKS if leak in text] == []


def test_the_scrubbed_copy_gives_the_same_figures(
    seeded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "out" / "seeded.json"
    copy.parent.mkdir()
    assert main(["scrub", str(seeded), "-o", str(copy)]) == 0
    capsys.readouterr()
    for command in COMMANDS:
        assert_same(figures(command, seeded, capsys), figures(command, copy, capsys))


@pytest.mark.parametrize(
    "text",
    [
        "c10::Half",
        "c10::d::ProcessGroup",
        "at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
        "aten::add",
        "memory bandwidth (GB/s)",
        "Torch-Compiled Region: 0/0",
        "torch/nn/modules/module.py(1501): _call_impl",
        "torch.nn.functional",
        "torch.utils.data.dataloader",
        "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        "model.tar.gz",
        "10:52:41",
        "2024-07-15 10:52:41.123",
        "cudaLaunchKernel",
        "Memcpy HtoD (Pageable -> Device)",
        "thread 1074 (pt_main_thread)",
        "nn.Module: Linear_0",
    ],
)
def test_ordinary_strings_stay(text: str) -> None:
    assert detect.find_sensitive(text) == []


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("SLURM_NODELIST", detect.METADATA),
        ("PBS_JOBID", detect.METADATA),
        ("MY_SITE_RACK", detect.METADATA),
        ("master_addr", detect.HOST),
        ("Input Dims", None),
        ("External id", None),
    ],
)
def test_keys_by_their_shape(key: str, kind: str | None) -> None:
    assert detect.key_kind(key) == kind


PEM_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDzOpUdx0Hq9V5N1+3fM6cQ2rG8uKqZ5pJ7nH4wXyZ1AAAAmJ2n1yWdp9cl\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
# Each secret, and the part of it that must not survive.
SECRETS = {
    "pem body": (PEM_KEY, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE"),
    "dotted mac": ("001a.2b3c.4d60", "001a.2b3c"),
    "tilde home": ("~alice/runs/exp1/ckpt.pt", "alice"),
}
PLACES = ("event name", "args key", "args value", "metadata", "thread name")


def _seed_one(path: Path, secret: str, place: str) -> Path:
    """The training fixture with one secret put in one place of the trace."""
    plain = write_training_trace(path.with_name("plain-" + path.name))
    document = json.loads(plain.read_text())
    first = next(e for e in document["traceEvents"] if e.get("ph") == "X")
    where = {"pid": first["pid"], "tid": first["tid"], "ts": first["ts"]}
    if place == "event name":
        document["traceEvents"].append(
            {"ph": "X", "cat": "user_annotation", "name": f"load {secret}", "dur": 1}
            | where
        )
    elif place == "args key":
        first.setdefault("args", {})[f"note {secret}"] = 1
    elif place == "args value":
        first.setdefault("args", {})["note"] = f"saved to {secret} ok"
    elif place == "metadata":
        document["run_notes"] = f"by {secret}"
    else:
        document["traceEvents"].append(
            {"ph": "M", "name": "thread_name", "args": {"name": f"w {secret}"}} | where
        )
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("name", sorted(SECRETS))
def test_a_secret_in_any_place_is_scrubbed(
    name: str, place: str, tmp_path: Path, isolated_data_dir: Path
) -> None:
    secret, part = SECRETS[name]
    seeded = _seed_one(tmp_path / "one.json", secret, place)
    assert part in seeded.read_text()
    copy = tmp_path / "out" / "one.json"
    copy.parent.mkdir()
    scrub_file(seeded, copy)
    text = _all_text(json.loads(copy.read_text()))
    assert part not in text
