"""Data tests: `sql/checks/*.sql` hold invariants of the warehouse, each a query that must return
no row (`mpcbench check`, `mpcbench build --check`); a failing check shows its first row.

    >>> con = db.connect(None)
    >>> db.create_warehouse(con)
    >>> [(r.name, r.n_rows) for r in run_checks(con)][:2]
    [('enough_feasible_starts', 0), ('gold_answer_sizes', 0)]
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from . import db

CHECKS_DIR = db.SQL_DIR / "checks"


@dataclass(frozen=True)
class CheckResult:
    name: str
    description: str
    n_rows: int                 # rows that break the invariant
    sample: dict | None         # the first of them

    @property
    def failed(self) -> bool:
        return self.n_rows > 0


def run_checks(con: duckdb.DuckDBPyConnection) -> list[CheckResult]:
    """Every check on the warehouse, by file name."""
    results = []
    for path in sorted(CHECKS_DIR.glob("*.sql")):
        sql = path.read_text()
        n_rows = db.value(con.execute(f"select count(*) from (\n{sql}\n)"))
        sample = db.records(con.execute(f"select * from (\n{sql}\n) limit 1")) if n_rows else []
        results.append(CheckResult(path.stem, db.view_docs(sql)[0], n_rows, sample[0] if sample else None))
    return results
