"""`mpcbench explain`: one instance, its gold answer, and what kills the starts it skipped; for a
start asked about, the whole truth: outside the window, before `now`, off the 15-minute grid,
the constraints it breaks, no fitting room (level 3), or feasible and its rank.

    result = explain(con, "L1-0003", [dt.datetime(2026, 3, 11, 10, 15)])
    result["verdicts"][dt.datetime(2026, 3, 11, 10, 15)]   # e.g. "breaks busy, buffer, min_notice"
"""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from . import db
from ..errors import UserError

SHOWN_REJECTED = 5


def verdict(start: dt.datetime, info: dict, kinds: list[str], rank: int | None) -> str:
    """What is true of one start: where it falls, what it breaks, or where it ranks."""
    n = info["n"]
    reasons = []
    if not info["window_start"] <= start.date() <= info["window_end"]:
        reasons.append(f"outside the window ({info['window_start']} .. {info['window_end']})")
    if start < info["now"]:
        reasons.append(f"before now ({info['now']:%Y-%m-%dT%H:%M})")
    if start.minute % 15 or start.second or start.microsecond:
        reasons.append("off the 15-minute grid (minute 00, 15, 30 or 45)")
    if reasons:
        return "not a candidate: " + "; ".join(reasons)
    if kinds:
        return "breaks " + ", ".join(dict.fromkeys(kinds)) + " (see the violations above)"
    if rank is None:
        return ("breaks no time constraint, but no room that fits is free then" if info["level"] >= 3
                else "breaks no constraint, yet is not among the feasible starts")
    if rank <= n:
        return f"gold, rank {rank}"
    return f"feasible, rank {rank} among feasible starts (the answer is the first {n})"


def explain(con: duckdb.DuckDBPyConnection, instance_id: str, starts: list[dt.datetime] | None,
            limit: int | None = SHOWN_REJECTED) -> dict:
    """The instance, its gold answer and the violations of `starts`, with a verdict for each
    start asked about; without `starts`, the first `limit` rejected in-hours starts (all with
    None) and how many there are."""
    overview = db.records(db.query(con, "instance_overview", instance_id=instance_id))
    if not overview:
        raise UserError(f"no instance {instance_id!r} in the database (try `mpcbench sql "
                        "\"select instance_id from instances limit 5\"`)")
    gold = db.records(db.query(con, "instance_gold", instance_id=instance_id))
    info = overview[0]
    info["given"] = json.loads(info["given"])
    n_rejected = None
    asked = bool(starts)
    if not starts:
        rows = db.query(con, "first_rejected_starts", instance_id=instance_id, limit=limit).fetchall()
        starts = [start for start, _ in rows]
        n_rejected = rows[0][1] if rows else 0
    violations = db.records(db.query(con, "start_violations", instance_id=instance_id, starts=starts))
    verdicts = {}
    if asked:
        ranks = {row["starts_at"]: row["rank"] for row in
                 db.records(db.query(con, "start_ranks", instance_id=instance_id, starts=starts))}
        for start in starts:
            kinds = [v["constraint_kind"] for v in violations if v["starts_at"] == start]
            verdicts[start] = verdict(start, info, kinds, ranks.get(start))
    return {"instance": info, "gold": gold, "starts": starts, "violations": violations,
            "verdicts": verdicts, "n_rejected": n_rejected}
