"""The name lookups the figures ask (`Trace.name_ids_matching`,
`name_ids_starting`, steps, zone choices) select exactly what a pass over
every name with the plain rule selects, duplicated names included."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders.traces import cpu, write_trace
from tui.core.base.vocab import ZoneSource
from tui.core.figures.zones import (
    DATALOADER_GROUP,
    DATALOADER_PREFIX,
    ZoneChoice,
    default_zone_choice,
    zone_group,
)
from tui.core.ingest.load import load_trace
from tui.core.model.steps import STEP_NAME, step_name_ids
from tui.core.model.trace import Trace

NAMES = st.one_of(
    st.sampled_from(
        [
            "ProfilerStep#1",
            "ProfilerStep#12",
            "ProfilerStep#x",
            "ProfilerStep#3\n",
            "profilerstep#4",
            "lecture_batch_cpu",
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
            "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
            DATALOADER_GROUP,
            "enumerate(DataPipe)#x",
            "aten::mm",
            "nccl:all_reduce",
            "5",
            "",
        ]
    ),
    st.text(max_size=6),
)


@functools.cache
def _base(folder: Path) -> Trace:
    path = write_trace(folder / "base.json", [cpu("aten::mm", 0, 10)])
    return load_trace(path)


def _with_names(names: list[str]) -> Trace:
    import tempfile

    folder = Path(tempfile.gettempdir()) / "steptrace-name-lookups"
    folder.mkdir(exist_ok=True)
    return dataclasses.replace(_base(folder), names=names)


def _ids(found: np.ndarray) -> list[int]:
    return [int(value) for value in found.tolist()]


@settings(max_examples=200, deadline=None)
@given(names=st.lists(NAMES, max_size=30), wanted=st.sets(NAMES, max_size=6))
def test_matching_and_prefixes_are_a_pass_over_the_names(
    names: list[str], wanted: set[str]
) -> None:
    trace = _with_names(names)
    assert _ids(trace.name_ids_matching(wanted)) == [
        index for index, name in enumerate(names) if name in wanted
    ]
    for prefix in ("ProfilerStep#", DATALOADER_PREFIX, "", "5"):
        assert _ids(trace.name_ids_starting(prefix)) == [
            index for index, name in enumerate(names) if name.startswith(prefix)
        ]
        # Asked again: the kept answer.
        assert trace.name_ids_starting(prefix) is trace.name_ids_starting(prefix)
    assert _ids(step_name_ids(trace)) == (
        [index for index, name in enumerate(names) if STEP_NAME.match(name)] or [-1]
    )


@settings(max_examples=200, deadline=None)
@given(names=st.lists(NAMES, max_size=30), chosen=st.lists(NAMES, max_size=4))
def test_a_zone_choice_selects_by_group(names: list[str], chosen: list[str]) -> None:
    trace = _with_names(names)
    wanted = set(chosen)
    got = _ids(ZoneChoice(tuple(chosen), ZoneSource.CHOSEN).name_ids(trace))
    assert got == (
        [index for index, name in enumerate(names) if zone_group(name) in wanted]
        or [-1]
    )


@settings(max_examples=300, deadline=None)
@given(present=st.lists(NAMES, max_size=12), described=st.none() | NAMES)
def test_the_default_choice_reads_the_groups_present(
    present: list[str], described: str | None
) -> None:
    trace = dataclasses.replace(
        _with_names(["aten::mm"]), description={"zones": {"data": described}}
    )
    assert trace.capture.data_zone == (described or None)
    groups = {zone_group(name) for name in present}
    expected: list[str] = []
    for name in (described, "lecture_batch_cpu", DATALOADER_GROUP):
        if name and name in groups and name not in expected:
            expected.append(name)
    for form in (present, frozenset(present), iter(present)):
        assert list(default_zone_choice(trace, form).names) == expected


def test_duplicated_names_take_the_pass() -> None:
    # A non-string name is shown as its JSON text, which a string name can share.
    trace = _with_names(["5", "aten::mm", "5"])
    assert _ids(trace.name_ids_matching({"5"})) == [0, 2]
    assert re.fullmatch(r"\d", trace.names[2])
