"""The SQL layers: a view reads only earlier layers (the grading layer included), and every oracle
and grading view and column is documented as a DuckDB comment."""

from __future__ import annotations

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from mpcbench.grading import layer
from mpcbench.warehouse import db

# Every layer in order: a view may read the tables of 00_raw and 05_seeds, the views of earlier
# layers and the views of its own layer (created in dependency order); the grading views also
# read their inputs.
LAYERS = (db.TABLE_LAYER, db.SEED_LAYER, *db.VIEW_LAYERS, layer.LAYER)
DOCUMENTED = ("30_oracle", layer.LAYER)


def raw_tables() -> set[str]:
    names = set()
    for path in [*(db.SQL_DIR / db.TABLE_LAYER).glob("*.sql"), *(db.SQL_DIR / db.SEED_LAYER).glob("*.sql")]:
        names |= {s.find(exp.Table).name for s in sqlglot.parse(path.read_text(), read="duckdb")
                  if isinstance(s, exp.Create)}
    return names


def read_tables(sql: str) -> set[str]:
    tree = sqlglot.parse_one(sql, read="duckdb")
    return {t.name for t in tree.find_all(exp.Table)} - {cte.alias for cte in tree.find_all(exp.CTE)}


def layer_reads() -> list[tuple[str, str, set[str], set[str]]]:
    """(layer, view, what it reads, what it may read) for every view of every layer."""
    allowed = raw_tables()
    out = []
    for name in LAYERS[2:]:
        views = dict(db.layer_views(name))
        own = set(views) | (set(layer.grading_inputs()) if name == layer.LAYER else set())
        out += [(name, view, read_tables(sql), allowed | own) for view, sql in views.items()]
        allowed = allowed | set(views)
    return out


@pytest.mark.parametrize("layer_name, view, reads, may_read", layer_reads(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_view_reads_only_earlier_layers_and_its_own(layer_name, view, reads, may_read):
    assert reads <= may_read, f"{layer_name}/{view} reads {sorted(reads - may_read)}"


def test_the_layer_check_sees_a_view_that_reads_a_later_layer():
    later = {view for layer_name, view, _, _ in layer_reads() if layer_name == layer.LAYER}
    oracle_may_read = next(may for layer_name, _, _, may in layer_reads() if layer_name == "30_oracle")
    assert "grading_candidate_checks" in later and "grading_candidate_checks" not in oracle_may_read
    assert not read_tables("select * from grading_failures join oracle_answers using (instance_id)") <= oracle_may_read


def test_the_grading_layer_replaces_the_eval_queries():
    assert not list((db.SQL_DIR / "queries").glob("eval_*.sql"))
    views = dict(db.layer_views(layer.LAYER))
    for check in ("grading_unknown_room", "grading_room_unfit", "grading_room_booked", "grading_room_tie_break"):
        assert check in views, f"the room check {check} is a view of its own"
    assert set(layer.MATERIALIZED) <= set(views)
    order = [name for name, _ in db.layer_views(layer.LAYER)]
    assert [name for name in order if name in layer.MATERIALIZED] == list(layer.MATERIALIZED)
    # every materialized view is computed by some caller's refresh (one left out would stay empty)
    assert set(layer.SCORING) | set(layer.PRIVACY) == set(layer.MATERIALIZED)
    assert set(layer.CHECKS_ONLY) <= set(layer.SCORING) and set(layer.SCORING_EXACT) < set(layer.SCORING)


@pytest.fixture(scope="module")
def documented():
    """An empty warehouse with the grading layer, in memory: every view exists and is commented."""
    con = db.connect(None)
    db.create_warehouse(con)
    layer.create_grading(con)
    yield con
    con.close()


def documented_views() -> list[str]:
    return [name for layer_name in DOCUMENTED for name, _ in db.layer_views(layer_name)]


@pytest.mark.parametrize("view", documented_views())
def test_every_oracle_and_grading_view_and_column_has_a_comment(documented, view):
    comment = documented.execute("select comment from duckdb_views() where view_name = $v", {"v": view}).fetchall()
    assert comment and comment[0][0], f"{view} has no description"
    columns = documented.execute("select column_name, comment from duckdb_columns() where table_name = $v",
                                 {"v": view}).fetchall()
    assert columns and [name for name, note in columns if not note] == []


def test_a_column_note_must_name_a_column_of_the_view():
    con = duckdb.connect()
    con.execute("create view v as select 1 as a")
    with pytest.raises(duckdb.Error):
        db.document(con, "v", "-- A view.\n-- column: b  No such column.\nselect 1 as a")
    db.document(con, "v", "-- A view\n--   on two lines.\n-- column: a  The one\n--   column.\nselect 1 as a")
    assert con.execute("select comment from duckdb_views() where view_name = 'v'").fetchone() == ("A view on two lines.",)
    assert con.execute("select comment from duckdb_columns() where table_name = 'v'").fetchone() == ("The one column.",)
