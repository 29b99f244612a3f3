"""`mpcbench explain`: one instance, its gold answer, and what kills the starts it skipped."""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from . import db
from ..errors import UserError


def explain(con: duckdb.DuckDBPyConnection, instance_id: str, starts: list[dt.datetime] | None,
            limit: int = 5) -> dict:
    overview = db.records(db.query(con, "instance_overview", instance_id=instance_id))
    if not overview:
        raise UserError(f"no instance {instance_id!r} in the database (try `mpcbench sql "
                        "\"select instance_id from instances limit 5\"`)")
    gold = db.records(db.query(con, "instance_gold", instance_id=instance_id))
    if not starts:
        starts = [row[0] for row in db.query(con, "first_rejected_starts",
                                             instance_id=instance_id, limit=limit).fetchall()]
    violations = db.records(db.query(con, "start_violations", instance_id=instance_id, starts=starts))
    info = overview[0]
    info["given"] = json.loads(info["given"])
    return {"instance": info, "gold": gold, "starts": starts, "violations": violations}
