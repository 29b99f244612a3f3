"""The data tests (sql/checks/*.sql): they pass on a build, and each one catches the broken
warehouse it is written for (a temporary view shadows the real one on a cursor of the build)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalkit import altered_copy
from mpcbench.cli import app
from mpcbench.warehouse import db
from mpcbench.warehouse.checks import CHECKS_DIR, run_checks

# The gold answer as oracle_answers defines it (a view cannot read the view it shadows).
GOLD = "(select c.* from oracle_candidates as c join stg_instances as i using (instance_id) where c.rank <= i.n)"
# check -> (view to shadow, its broken definition)
BROKEN = {
    "gold_starts_on_grid_in_window": ("oracle_answers", f"""
        select instance_id, rank, starts_at + case when rank = 1 then interval '5' minute else interval '0' minute end
            as starts_at, ends_at, room_id
        from {GOLD}"""),
    "gold_candidates_violate_nothing": ("oracle_candidates", """
        select instance_id, row_number() over (partition by instance_id order by starts_at) as rank, starts_at,
            ends_at, room_id
        from int_candidates
        union all
        select instance_id, 99 as rank, starts_at, starts_at as ends_at, null as room_id
        from (select * from int_violations order by all limit 1)"""),
    "gold_answers_ranked": ("oracle_answers", f"""
        select instance_id, case rank when 1 then 2 when 2 then 1 else rank end as rank, starts_at, ends_at, room_id
        from {GOLD}"""),
    "gold_answer_sizes": ("oracle_answers", f"select * from {GOLD} where rank > 1"),
    "enough_feasible_starts": ("oracle_summary", """
        select instance_id, level, n, 0 as n_feasible, false as has_enough_feasible from stg_instances"""),
    "gold_rooms_fit": ("oracle_answers", f"""
        select instance_id, rank, starts_at, ends_at,
            case when rank = 1 then coalesce(room_id || '-x', 'R-000') else room_id end as room_id
        from {GOLD}"""),
}


def test_every_check_is_tested_here():
    assert set(BROKEN) == {p.stem for p in CHECKS_DIR.glob("*.sql")}


def test_every_check_passes_on_a_build(con):
    results = run_checks(con)
    assert [r.name for r in results] == sorted(BROKEN)
    assert [(r.name, r.sample) for r in results if r.failed] == []
    assert all(r.description for r in results)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_check_catches_its_broken_warehouse(con, name):
    view, sql = BROKEN[name]
    cur = con.cursor()
    try:
        cur.execute(f"create temp view {view} as {sql}")
        failed = {r.name: r for r in run_checks(cur) if r.failed}
    finally:
        cur.close()
    assert name in failed
    assert failed[name].n_rows >= 1 and failed[name].sample


def test_cli_check_prints_each_failing_check_with_a_row_and_exits_nonzero(db_path, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["check", "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    assert f"{len(BROKEN)} data tests passed" in result.output

    broken = altered_copy(db_path, tmp_path / "broken.duckdb",
                          "create or replace view oracle_answers as select * from oracle_candidates where rank = 1")
    result = runner.invoke(app, ["check", "--db", str(broken)])
    assert result.exit_code == 1
    assert "FAIL gold_answer_sizes" in result.output and "first: {'instance_id'" in result.output
    assert "ok   gold_rooms_fit" in result.output and "data tests failed" in result.output


def test_build_check_runs_the_data_tests(tmp_path):
    result = CliRunner().invoke(app, ["build", "--db", str(tmp_path / "b.duckdb"), "--levels", "1",
                                      "--instances", "2", "--check"])
    assert result.exit_code == 0, result.output
    assert "ok   gold_answers_ranked" in result.output and "data tests passed" in result.output
    con = db.connect(tmp_path / "b.duckdb", read_only=True)
    assert con.execute("select count(*) from instances").fetchone() == (2,)
    con.close()
