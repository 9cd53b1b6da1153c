"""The ranks table says what its figures are: a step time against the median
unsigned, the rank last at the collectives as the one waited for, the wait
column summed over the steps it says."""

from __future__ import annotations

from tests.builders.many_ranks import spread_run
from tui.core.base.vocab import RankSort
from tui.core.results.ranks import RanksResult
from tui.view.run_table import WAIT_TITLE, RunTable, median_words


def test_median_words_are_unsigned() -> None:
    assert median_words(-17.64) == "17.6% under the median"
    assert median_words(40.0) == "40.0% over the median"
    assert median_words(0.01) == "the median"


def _table() -> RunTable:
    """8 ranks, 8 steps, each with a straggler: rank 2 in steps 2-4 and 6-8."""
    run = spread_run(8, 8, slow=6, late=2, no_gpu=5, per_host=4)
    return RunTable(RanksResult.of(run))


def test_the_straggler_reads_as_waited_for_never_negative() -> None:
    table = _table()
    row = table.row_of_rank(2)
    assert row is not None
    late_step = next(
        index for index, step in enumerate(table.steps) if step.straggler == 2
    )
    said = table.cell_info(row, late_step).plain
    assert "last at the collectives" in said and "the others wait for it" in said
    assert "(-" not in said and "%)" not in said.replace("median)", "")
    assert f"{WAIT_TITLE} " in said and "summed over 8 steps" in said


def test_a_rank_that_waits_says_its_wait_and_the_sum() -> None:
    table = _table()
    row = table.row_of_rank(0)
    assert row is not None
    said = table.cell_info(row, 1).plain
    assert "last at the collectives" not in said
    assert ", wait " in said and "summed over 8 steps" in said
    assert table.header_left(RankSort.RANK, False).split()[-1] == WAIT_TITLE


def test_the_columns_say_their_unit_and_what_the_wait_sums() -> None:
    table = _table()
    assert table.columns_words() == (
        f"median, {WAIT_TITLE} in {table.unit} (Σ: over 8 steps)"
    )
