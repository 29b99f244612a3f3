"""The grading layer, `sql/40_grading/`: one view per check of the agents' answers, over input
tables that `00_inputs.sql` declares. It lives on one connection as temporary objects, so
grading never writes the warehouse file (and grades on a read-only one):

    >>> con = db.connect(None)
    >>> db.create_warehouse(con)
    >>> create_grading(con)
    >>> grading_inputs()[:4]
    ('grading_predictions', 'grading_episodes', 'grading_tool_calls', 'grading_tool_sources')
    >>> grading_inputs()[4:9]   # the privacy track's (mpcbench/grading/privacy.py)
    ('grading_privacy_episodes', 'grading_rows_read', 'grading_note_leaks', 'grading_note_categories', 'grading_note_starts')
    >>> grading_inputs()[9:]    # the booking task's (mpcbench/grading/booking.py)
    ('grading_booking_episodes', 'grading_booked_events', 'grading_posted_messages')
    >>> con.execute("select count(*) from grading_failures").fetchone()
    (0,)

`mpcbench/grading/scoring.py` fills the inputs, calls `refresh_grading` and selects from the views;
`mpcbench/grading/privacy.py` does the same for the privacy track's.
"""

from __future__ import annotations

from functools import cache

import duckdb
import sqlglot
from sqlglot import exp

from ..warehouse import db

LAYER = "40_grading"
INPUTS = db.SQL_DIR / LAYER / "00_inputs.sql"
# Views several later ones read, computed into `mat_<name>` tables (as `db.MATERIALIZED`), in
# the layer's order (grading_candidates: five views read it, the candidate checks and those under
# them; as a table, a scoring call's refresh takes a fifth less time, most of it planning). Each
# is planned once a call instead of once per reader, and a reader's plan is smaller: most of a
# call's time is DuckDB planning its views.
MATERIALIZED = ("grading_candidates", "grading_disclosures", "grading_source_reads", "grading_over_reads",
                "grading_room_candidates", "grading_candidate_checks", "grading_failures")
# what scoring an answer computes (`SCORING`; feedback, `CHECKS_ONLY`, judges the candidates
# alone: no failure cause or coverage of sources, which read every tool call), and what the
# privacy figures do (grading_privacy reads the over-reads twice; privacy.py reads both again)
SCORING = ("grading_candidates", "grading_source_reads", "grading_room_candidates", "grading_candidate_checks",
           "grading_failures")
CHECKS_ONLY = ("grading_candidates", "grading_room_candidates", "grading_candidate_checks")
# scoring answers that are all exact matches: they have no failure to explain (a third of a call)
SCORING_EXACT = tuple(name for name in SCORING if name != "grading_failures")
PRIVACY = ("grading_disclosures", "grading_over_reads")


@cache
def grading_inputs() -> tuple[str, ...]:
    """The input tables, as `00_inputs.sql` creates them."""
    return tuple(_created_table(statement) for statement in sqlglot.parse(INPUTS.read_text(), read="duckdb")
                 if isinstance(statement, exp.Create))


def _created_table(statement: exp.Create) -> str:
    table = statement.find(exp.Table)
    if table is None:
        raise ValueError(f"{INPUTS}: a create statement without a table: {statement.sql()}")
    return table.name


def create_grading(con: duckdb.DuckDBPyConnection, documented: bool = True) -> None:
    """The empty input tables and every grading view over them on this connection, with their
    comments unless `documented` is false (scoring needs none); the MATERIALIZED views as empty
    tables of their columns, so that the views after them bind to the table (binding the chains
    of views below is what makes creating the layer slow). `refresh_grading` computes them: an
    empty result is all they hold over the empty inputs, and it skips planning their joins."""
    con.execute(INPUTS.read_text())
    for name, sql in db.layer_views(LAYER):
        if name in MATERIALIZED:
            db.materialize(con, name, f"select * from (\n{sql}\n) where false", temp=True, documented=False)
        else:
            con.execute(f"create or replace temp view {name} as\n{sql}")
        if documented:
            db.document(con, name, sql)


def refresh_grading(con: duckdb.DuckDBPyConnection, only: tuple[str, ...]) -> None:
    """Recompute the materialized views of `only` (SCORING, CHECKS_ONLY or PRIVACY) after the
    input tables changed."""
    definitions = dict(db.layer_views(LAYER))
    for name in MATERIALIZED:
        if name in only:
            con.execute(f"create or replace temp table mat_{name} as\n{definitions[name]}")


def clear_grading(con: duckdb.DuckDBPyConnection) -> None:
    """Empty the input tables (the materialized views go stale until `refresh_grading`)."""
    for table in grading_inputs():
        con.execute(f"delete from {table}")
