"""`mpcbench explain --start` tells the truth about every kind of start, and the list of rejected
starts says how much of it is shown."""

from __future__ import annotations

import datetime as dt

import pytest
from typer.testing import CliRunner

from mpcbench.cli import app

runner = CliRunner()
ID = "L1-0001"


@pytest.fixture(scope="module")
def facts(con):
    now, first, last, n = con.execute(
        "select i.now, i.window_start, i.window_end, s.n from instances i join stg_instances s using (instance_id) "
        "where instance_id = $1", [ID]).fetchone()
    return {"now": now, "first": first, "last": last, "n": n}


def said(db_path, instance_id: str, start: dt.datetime | str) -> str:
    text = start if isinstance(start, str) else f"{start:%Y-%m-%dT%H:%M}"
    result = runner.invoke(app, ["explain", instance_id, "--start", text, "--db", str(db_path)],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


def test_a_start_before_the_window_and_before_now(db_path, facts):
    start = dt.datetime.combine(facts["first"] - dt.timedelta(days=7), dt.time(9, 15))
    line = said(db_path, ID, start)
    assert line.startswith(f"{start:%Y-%m-%dT%H:%M}: not a candidate")
    assert f"outside the window ({facts['first']} .. {facts['last']})" in line
    assert f"before now ({facts['now']:%Y-%m-%dT%H:%M})" in line
    assert "feasible" not in line


def test_a_start_a_year_later_is_outside_the_window(db_path, facts):
    start = dt.datetime.combine(facts["first"].replace(year=facts["first"].year + 1), dt.time(10, 0))
    line = said(db_path, ID, start)
    assert "outside the window" in line and "before now" not in line


def test_an_off_grid_start(db_path, facts):
    line = said(db_path, ID, dt.datetime.combine(facts["last"], dt.time(9, 7)))
    assert line.endswith("not a candidate: off the 15-minute grid (minute 00, 15, 30 or 45)")


def test_the_gold_starts_say_gold_and_their_rank(db_path, con):
    for rank, start in con.execute("select rank, starts_at from oracle_answers where instance_id = $1 "
                                   "order by rank", [ID]).fetchall():
        assert said(db_path, ID, start).endswith(f": gold, rank {rank}")


def test_a_feasible_start_past_the_answer_says_its_rank(db_path, con, facts):
    rank, start = con.execute("select rank, starts_at from oracle_candidates where instance_id = $1 "
                              "and rank = $2", [ID, facts["n"] + 3]).fetchone()
    assert said(db_path, ID, start).endswith(
        f": feasible, rank {rank} among feasible starts (the answer is the first {facts['n']})")


def test_a_killed_start_names_what_kills_it(db_path, con):
    start, kinds = con.execute("select starts_at, list(distinct constraint_kind order by constraint_kind) as kinds "
                               "from int_violations where instance_id = $1 group by starts_at "
                               "order by len(kinds) desc, starts_at limit 1", [ID]).fetchone()
    line = said(db_path, ID, start)
    assert line.startswith(f"{start:%Y-%m-%dT%H:%M}: breaks ")
    assert sorted(line.split("breaks ")[1].split(" (")[0].split(", ")) == kinds


def test_a_level_3_start_with_no_free_room(db_path, con):
    instance_id, start = con.execute("""
        select f.instance_id, f.starts_at from int_framed_grid f join instances i using (instance_id)
        where i.level = 3
          and not exists (select 1 from int_violations v where v.instance_id = f.instance_id and v.starts_at = f.starts_at)
          and not exists (select 1 from oracle_candidates c where c.instance_id = f.instance_id and c.starts_at = f.starts_at)
        order by f.instance_id, f.starts_at limit 1""").fetchone()
    assert said(db_path, instance_id, start).endswith("breaks no time constraint, but no room that fits is free then")


def test_the_rejected_list_says_it_shows_the_first_5_of_all(db_path, con):
    total = con.execute("select count(*) from int_framed_grid f where instance_id = $1 and not exists "
                        "(select 1 from oracle_candidates c where c.instance_id = f.instance_id "
                        "and c.starts_at = f.starts_at)", [ID]).fetchone()[0]
    assert total > 5
    first = runner.invoke(app, ["explain", ID, "--db", str(db_path)], env={"COLUMNS": "250"})
    assert f"the first 5 of {total} rejected in-hours starts (--all lists every one)" in first.output
    every = runner.invoke(app, ["explain", ID, "--all", "--db", str(db_path)], env={"COLUMNS": "250"})
    assert f"all {total} rejected in-hours starts" in every.output
    listed = {line.split("│")[1].strip() for line in every.output.splitlines()  # the violations table's
              if line.startswith("│") and len(line.split("│")[1].strip()) == 16}   # first column: starts
    assert len(listed) == total


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_the_room_requirements_are_shown_from_level_3_only(db_path, con, level):
    """Below level 3 an instance has no room and no tie-break (null in the dataset files)."""
    instance_id = con.execute("select instance_id from instances where level = ? order by position limit 1",
                              [level]).fetchone()[0]
    result = runner.invoke(app, ["explain", instance_id, "--db", str(db_path)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    line = " ".join(result.output.split("requirements:")[1].split("feasible starts:")[0].split())
    assert ("tie_break" in line and "room min_capacity" in line) == (level >= 3), line
