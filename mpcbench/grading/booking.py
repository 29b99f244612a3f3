"""The booking task's grade (`--task book`): the state a booking episode left, by the view
`grading_booking` (sql/40_grading/grading_booking.sql), beside the oracle's answers.

    figures = grade_booking(grader, episodes)     # {(instance_id, trial): {"task_success": True, ...}}

Its inputs are the journal record's `writes` (what `episode.booking.Overlay` kept): every event
the episode created, cancelled ones included, and every message it posted. The confirmation's
disclosures are the privacy track's (a booking episode's note is what it posted:
`episode.booking.booked_answer`), counted as `confirmation_disclosed`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..timestamps import TIME_FORMAT
from ..warehouse import db
from .scoring import GradedEpisode, Grader

PARTS = ("booked_start_ok", "attendees_ok", "room_ok", "confirmation_ok", "extra_writes")
COLUMNS = ("task_success", *PARTS)


def booking_inputs(episodes: list[GradedEpisode]) -> dict[str, list[dict[str, Any]]]:
    """The rows of the booking inputs (00_inputs.sql) of the scored booking episodes."""
    out: dict[str, list[dict[str, Any]]] = {"grading_booking_episodes": [], "grading_booked_events": [],
                                            "grading_posted_messages": []}
    for e in episodes:
        if e.error is not None or e.writes is None:
            continue
        key = {"instance_id": e.instance_id, "trial": e.trial}
        out["grading_booking_episodes"].append({**key, "level": e.level})
        out["grading_booked_events"] += [
            {**key, "event_id": ev["event_id"], "starts_at": dt.datetime.strptime(ev["start"], TIME_FORMAT),
             "ends_at": dt.datetime.strptime(ev["end"], TIME_FORMAT), "room_id": ev.get("room_id"),
             "cancelled": ev["status"] == "cancelled", "attendees": sorted(ev.get("attendees") or [])}
            for ev in e.writes.get("events") or []]
        out["grading_posted_messages"] += [{**key, "message_id": m["message_id"], "thread_id": m["thread_id"],
                                            "text": m["text"]} for m in e.writes.get("messages") or []]
    return out


def grade_booking(grader: Grader, episodes: list[GradedEpisode]) -> dict[tuple[str, int], dict]:
    """Each scored booking episode's `task_success` and its parts; {} when none is a booking one."""
    inputs = booking_inputs(episodes)
    if not inputs["grading_booking_episodes"]:
        return {}
    with grader.cursor() as cur:
        for table, rows in inputs.items():
            if rows:
                cur.execute(f"insert into {table} by name select unnest($rows, recursive := true)", {"rows": rows})
        return {(r["instance_id"], r["trial"]): {k: r[k] for k in COLUMNS}
                for r in db.records(cur.execute("select * from grading_booking"))}
