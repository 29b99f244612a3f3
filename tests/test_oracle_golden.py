"""Golden worlds: the SQL oracle and the reference oracle against answers worked out by hand."""

from __future__ import annotations

import datetime as dt

import pytest

import reference_oracle as ref
import golden_worlds
from golden_worlds import BY_NAME, CASES, Case
from mpcbench.warehouse import db
from oracle_harness import (fresh_warehouse, keys, load, sql_answer_rows, sql_answers,
                            sql_candidates, sql_n_feasible, sql_necessity)


def top(case: Case) -> list:
    return case.expected[: case.instance()["requirements"]["n"]]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case):
    """One world in a fresh warehouse: the SQL oracle and the reference both give the hand answer."""
    instance = case.instance()
    instance_id = instance["instance_id"]
    con = fresh_warehouse()
    load(con, [case.world()], [instance])
    assert sql_answers(con).get(instance_id, []) == top(case)
    assert sql_candidates(con).get(instance_id, []) == case.expected
    assert sql_n_feasible(con)[instance_id] == len(case.expected)
    answer = ref.solve(case.world(), instance)
    assert keys(answer.candidates) == case.expected
    assert keys(answer.top) == top(case)
    assert answer.n_feasible == len(case.expected)
    if case.necessity is not None:
        assert ref.necessity(case.world(), instance) == case.necessity
        assert sql_necessity(con)[instance_id] == case.necessity
    else:  # no hand-worked necessity: the two oracles still agree
        assert sql_necessity(con)[instance_id] == ref.necessity(case.world(), instance)
    con.close()


@pytest.fixture(scope="module")
def warehouse():
    """Every golden world in one warehouse: their ids differ, so nothing may leak between them."""
    con = fresh_warehouse()
    load(con, [c.world() for c in CASES], [c.instance() for c in CASES])
    yield con
    con.close()


def test_all_golden_worlds_together(warehouse):
    assert sql_answers(warehouse) == {c.instance()["instance_id"]: top(c) for c in CASES if c.expected}
    assert sql_n_feasible(warehouse) == {c.instance()["instance_id"]: len(c.expected) for c in CASES}


def test_answer_rows_carry_rank_and_end(warehouse):
    case = BY_NAME["room_tie_break_capacity"]
    assert sql_answer_rows(warehouse, case.instance()["instance_id"]) == [
        (1, "2026-03-02T09:00", "2026-03-02T09:30", "R-3"),
        (2, "2026-03-02T09:15", "2026-03-02T09:45", "R-3"),
        (3, "2026-03-02T09:30", "2026-03-02T10:00", "R-2"),
    ]


def test_summary_flags_too_few_feasible():
    case = BY_NAME["ban"]
    instance = case.instance()
    instance["requirements"]["n"] = len(case.expected) + 1
    con = fresh_warehouse()
    load(con, [case.world()], [instance])
    rows = con.execute("select level, n, n_feasible, has_enough_feasible from oracle_summary").fetchall()
    assert rows == [(2, 4, 3, False)]
    con.close()


@pytest.mark.parametrize("case", [c for c in CASES if c.level >= 3], ids=lambda c: c.name)
def test_level3_tags_resolve_to_requirements(case: Case):
    """Stale requirement tags are superseded: the latest tag per kind gives the requirements."""
    assert ref.resolve_level3_requirements(case.world(), case.instance()) == case.instance()["requirements"]


def test_resolution_ties_go_to_greater_message_id():
    case = BY_NAME["room_tie_break_room_id"]
    world, instance = case.world(), case.instance()
    same_ts = "2026-02-28T12:00"
    world["threads"].append({"thread_id": "t-tie", "project_id": "PRJ-1", "channel": "#c", "title": "t",
                             "messages": [
                                 {"message_id": "PRJ-1-z2", "author_id": "p1", "ts": same_ts, "text": "",
                                  "tags": [{"type": "duration", "params": {"minutes": 45}}]},
                                 {"message_id": "PRJ-1-z1", "author_id": "p1", "ts": same_ts, "text": "",
                                  "tags": [{"type": "duration", "params": {"minutes": 60}}]}]})
    assert ref.resolve_level3_requirements(world, instance)["duration_min"] == 45


CATALOG = {
    "tables": "select table_name, sql, comment from duckdb_tables() where database_name = 'memory' order by all",
    "views": "select view_name, sql, comment from duckdb_views() where not internal and database_name = 'memory' "
             "order by all",
    "columns": "select table_name, column_name, data_type, comment, column_default, is_nullable from duckdb_columns() "
               "where database_name = 'memory' order by all",
    "constraints": "select table_name, constraint_type, constraint_text from duckdb_constraints() "
                   "where database_name = 'memory' order by all",
    "macros": "select function_name, macro_definition from duckdb_functions() where database_name = 'memory' "
              "and not internal order by all",
}


@pytest.mark.parametrize("keys", [True, False])
def test_a_fresh_warehouse_is_what_create_warehouse_makes(keys):
    """fresh_warehouse copies a template (oracle_harness.py) instead of creating every view again:
    the copy has the same catalog (tables, keys, views, comments) and the same seed rows."""
    made = db.connect(None)
    db.create_warehouse(made, keys)
    copied = fresh_warehouse(keys)
    for name, query in CATALOG.items():
        assert made.execute(query).fetchall() == copied.execute(query).fetchall(), name
    for (table,) in made.execute("select table_name from duckdb_tables() where database_name = 'memory'").fetchall():
        assert made.execute(f"select * from {table} order by all").fetchall() == \
            copied.execute(f"select * from {table} order by all").fetchall(), table
    made.close()
    copied.close()


def test_golden_expectations_are_on_the_grid_and_ranked():
    """Guard against typos in the hand-written answers themselves."""
    for case in CASES:
        starts = [dt.datetime.fromisoformat(s) for s, _ in case.expected]
        assert starts == sorted(set(starts)), case.name
        assert all(s.minute % 15 == 0 for s in starts), case.name
        assert all((room is None) == (case.level < 3) for _, room in case.expected), case.name


def test_necessity_when_fewer_than_n_feasible():
    """Working hours 09:00-10:00, p1 busy 09:00-09:30, 30 minutes, N = 3: the answer is [09:30];
    without the calendar it is [09:00, 09:15, 09:30], so the calendar changes the answer."""
    case = Case("necessity_under_filled",
                policies=[golden_worlds.policy("POL-A", golden_worlds.hours("09:00", "10:00"))],
                events=[golden_worlds.event("e1", "p1", "09:00", "09:30")],
                expected=golden_worlds.starts("09:30"), n=3)
    expected = {"calendar": True, "policy": False}
    assert ref.necessity(case.world(), case.instance()) == expected
    con = fresh_warehouse()
    load(con, [case.world()], [case.instance()])
    assert sql_answers(con)[case.instance()["instance_id"]] == case.expected
    assert sql_necessity(con)[case.instance()["instance_id"]] == expected
