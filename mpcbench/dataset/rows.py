"""Dataset dicts (docs/dataset.md) in and out of the raw tables.

`load_dataset` writes worlds and instances into the raw tables (it is the only writer besides
the build's stats); `dump_world` and `dump_instances` read them back into the same dicts, so
export → import → export gives identical files.
"""

from __future__ import annotations

import datetime as dt
import json

import duckdb
import polars as pl
from polars.datatypes import DataType, DataTypeClass

from ..timestamps import TIME_FORMAT, zone_offset_minutes

LEVEL2_KEYS = ("policy_docs", "projects", "threads")
LEVEL3_KEYS = ("rooms", "room_bookings")
LEVEL4_KEYS = ("series",)   # and each person's timezone and working_hours

_SCHEMAS: dict[str, dict[str, type]] = {
    "worlds": {"world_id": str, "level": int, "seed": int, "timezone": str},
    "people": {"world_id": str, "person_id": str, "name": str, "email": str,
               "team": str, "title": str},
    "events": {"world_id": str, "event_id": str, "person_id": str, "starts_at": str,
               "ends_at": str, "status": str, "title": str},
    "person_hours": {"world_id": str, "person_id": str, "timezone": str, "offset_minutes": int,
                     "work_start": str, "work_end": str},
    "event_series": {"world_id": str, "series_id": str, "person_id": str, "starts_at": str,
                     "ends_at": str, "every_days": int, "occurrences": int, "status": str,
                     "title": str},
    "event_series_exceptions": {"world_id": str, "series_id": str, "original_start": str,
                                "action": str, "starts_at": str, "ends_at": str},
    "policies": {"world_id": str, "policy_id": str, "name": str, "position": int},
    "policy_rules": {"world_id": str, "policy_id": str, "rule_id": str,
                     "rule_type": str, "params": str, "position": int},
    "policy_docs": {"world_id": str, "doc_id": str, "title": str, "text": str,
                    "position": int},
    "projects": {"world_id": str, "project_id": str, "name": str, "position": int},
    "threads": {"world_id": str, "thread_id": str, "project_id": str, "channel": str,
                "title": str, "position": int},
    "messages": {"world_id": str, "message_id": str, "thread_id": str,
                 "author_id": str, "ts": str, "text": str, "position": int},
    "message_tags": {"world_id": str, "tag_id": str, "message_id": str,
                     "tag_type": str, "params": str, "position": int},
    "rooms": {"world_id": str, "room_id": str, "name": str, "building": str,
              "floor": int, "capacity": int, "features": list},
    "room_bookings": {"world_id": str, "booking_id": str, "room_id": str,
                      "starts_at": str, "ends_at": str, "position": int},
    "instances": {"instance_id": str, "level": int, "world_id": str, "prompt": str,
                  "now": str, "window_start": str, "window_end": str, "given": str,
                  "project_id": str, "position": int},
    "requirements": {"instance_id": str, "duration_minutes": int, "n": int,
                     "policy_id": str, "tie_break": str, "has_room_requirement": bool,
                     "room_min_capacity": int, "room_features": list,
                     "room_building": str},
    "requirement_participants": {"instance_id": str, "person_id": str, "position": int},
    "sensitive_items": {"world_id": str, "item_id": str, "source_table": str, "source_id": str,
                        "person_id": str, "category": str, "phrase": str},
}


def canonical_json(value: object) -> str:
    """Compact JSON with keys in the order given: how params and `given` are stored and written."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


_ARROW_TYPES: dict[type, DataTypeClass | DataType] = {
    str: pl.String, int: pl.Int64, bool: pl.Boolean, list: pl.List(pl.String)}


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Insert rows as an Arrow table built column by column (5x faster than binding Python lists;
    the build inserts and drops candidates by the thousand); DuckDB casts text to timestamps."""
    if not rows:
        return
    schema = _SCHEMAS[table]
    columns = []
    for (name, kind), values in zip(schema.items(), zip(*rows)):
        column = pl.Series(name, values, dtype=_ARROW_TYPES[kind], strict=False)   # 4.0 is an integer
        if column.null_count() != values.count(None):
            raise ValueError(f"{table}.{name}: a value that is not {kind.__name__}")
        columns.append(column)
    frame = pl.DataFrame(columns)
    con.register("incoming_rows", frame.__arrow_c_stream__(None))   # a PyCapsule: no pyarrow needed
    try:
        con.execute(f"insert into {table} ({', '.join(schema)}) select * from incoming_rows")
    finally:
        con.unregister("incoming_rows")


def thread_rows(world_id: str, projects: list[dict], threads: list[dict],
                first_position: int = 0) -> dict[str, list[tuple]]:
    """Rows for projects and their threads (a world's, or a batch of candidates' own)."""
    w = world_id
    return {
        "projects": [(w, p["project_id"], p["name"], first_position + i) for i, p in enumerate(projects)],
        "threads": [(w, t["thread_id"], t["project_id"], t["channel"], t["title"], first_position + i)
                    for i, t in enumerate(threads)],
        "messages": [(w, m["message_id"], t["thread_id"], m["author_id"], m["ts"], m["text"], i)
                     for t in threads for i, m in enumerate(t["messages"])],
        "message_tags": [(w, f"{m['message_id']}#{i}", m["message_id"], tag["type"],
                          canonical_json(tag["params"]), i)
                         for t in threads for m in t["messages"] for i, tag in enumerate(m["tags"])],
    }


def sensitive_item_rows(world_id: str, items: list[dict]) -> dict[str, list[tuple]]:
    """Rows of sensitive items (a world's, or a batch of candidates' own: world/privacy.py)."""
    return {"sensitive_items": [(world_id, i["item_id"], i["source_table"], i["source_id"], i["person_id"],
                                 i["category"], i["phrase"]) for i in items]}


def horizon_days(world: dict) -> tuple[dt.date, dt.date]:
    """The first and last day any event or series occurrence of the world touches (level 4: a
    person's zone offset must be the same on all of them)."""
    moments = [dt.datetime.fromisoformat(e[key]) for e in world["events"] for key in ("start", "end")]
    for s in world.get("series", []):
        last = dt.timedelta(days=s["every_days"] * (s["occurrences"] - 1))
        moments += [dt.datetime.fromisoformat(s["start"]), dt.datetime.fromisoformat(s["end"]) + last]
        moments += [dt.datetime.fromisoformat(x[key]) for x in s["exceptions"] for key in ("start", "end") if x.get(key)]
    if not moments:
        return dt.date(2000, 1, 1), dt.date(2000, 1, 1)
    return min(moments).date(), max(moments).date()


def level4_rows(world: dict) -> dict[str, list[tuple]]:
    """Level 4: people's zones and hours (the offset derived here) and the event series."""
    w = world["world_id"]
    zoned = [p for p in world["people"] if "timezone" in p]
    first, last = horizon_days(world) if zoned else (dt.date.min, dt.date.min)   # read only with zoned people
    return {
        "person_hours": [(w, p["person_id"], p["timezone"],
                          zone_offset_minutes(world["timezone"], p["timezone"], first, last),
                          p["working_hours"]["start"], p["working_hours"]["end"]) for p in zoned],
        "event_series": [(w, s["series_id"], s["person_id"], s["start"], s["end"], s["every_days"],
                          s["occurrences"], s["status"], s["title"]) for s in world.get("series", [])],
        "event_series_exceptions": [(w, s["series_id"], x["original_start"], x["action"], x.get("start"), x.get("end"))
                                    for s in world.get("series", []) for x in s["exceptions"]],
    }


def world_rows(world: dict) -> dict[str, list[tuple]]:
    w = world["world_id"]
    return {
        **level4_rows(world),
        "worlds": [(w, world["level"], world["seed"], world["timezone"])],
        "people": [(w, p["person_id"], p["name"], p["email"], p["team"], p["title"])
                   for p in world["people"]],
        "events": [(w, e["event_id"], e["person_id"], e["start"], e["end"], e["status"], e["title"])
                   for e in world["events"]],
        "policies": [(w, p["policy_id"], p["name"], i) for i, p in enumerate(world["policies"])],
        "policy_rules": [(w, p["policy_id"], r["rule_id"], r["type"], canonical_json(r["params"]), i)
                         for p in world["policies"] for i, r in enumerate(p["rules"])],
        "policy_docs": [(w, d["doc_id"], d["title"], d["text"], i)
                        for i, d in enumerate(world.get("policy_docs", []))],
        **thread_rows(w, world.get("projects", []), world.get("threads", [])),
        "rooms": [(w, r["room_id"], r["name"], r["building"], r["floor"], r["capacity"], r["features"])
                  for r in world.get("rooms", [])],
        "room_bookings": [(w, f"{b['room_id']}@{i}", b["room_id"], b["start"], b["end"], i)
                          for i, b in enumerate(world.get("room_bookings", []))],
        **sensitive_item_rows(w, world.get("sensitive_items", [])),
    }


def insert_rows(con: duckdb.DuckDBPyConnection, tables: dict[str, list[tuple]]) -> None:
    for table, rows in tables.items():
        _insert(con, table, rows)


def instance_rows(instances: list[dict]) -> dict[str, list[tuple]]:
    rows: dict[str, list[tuple]] = {"instances": [], "requirements": [], "requirement_participants": []}
    for position, inst in enumerate(instances):
        req = inst["requirements"]
        room = req.get("room")
        rows["instances"].append((
            inst["instance_id"], inst["level"], inst["world_id"], inst["prompt"], inst["now"],
            inst["window"]["start"], inst["window"]["end"], canonical_json(inst["given"]),
            inst.get("project_id"), position))
        rows["requirements"].append((
            inst["instance_id"], req["duration_min"], req["n"], req["policy_id"], req.get("tie_break"),
            room is not None, room and room.get("min_capacity"), room and room.get("features", []),
            room and room.get("building")))
        rows["requirement_participants"].extend(
            (inst["instance_id"], person_id, i) for i, person_id in enumerate(req["participants"]))
    return rows


def load_dataset(con: duckdb.DuckDBPyConnection, worlds: list[dict], instances: list[dict]) -> None:
    """Append worlds and instances to the raw tables."""
    for world in worlds:
        insert_rows(con, world_rows(world))
    insert_rows(con, instance_rows(instances))


# --- back to dicts ---------------------------------------------------------------------------

def _text(value: dt.datetime | dt.date) -> str:
    return value.strftime(TIME_FORMAT) if isinstance(value, dt.datetime) else value.isoformat()


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def dump_world(con: duckdb.DuckDBPyConnection, world_id: str) -> dict:
    q = lambda sql: _records(con, sql, [world_id])  # noqa: E731
    head = q("select world_id, level, seed, timezone from worlds where world_id = $1")
    if not head:
        raise KeyError(f"no world {world_id!r} in the database")
    world = head[0]
    world["people"] = q("select person_id, name, email, team, title from people "
                        "where world_id = $1 order by person_id")
    world["events"] = [
        {**e, "start": _text(e["start"]), "end": _text(e["end"])}
        for e in q("select event_id, person_id, starts_at as start, ends_at as end, status, title "
                   "from events where world_id = $1 order by event_id")
    ]
    rules = q("select policy_id, rule_id, rule_type as type, params from policy_rules "
              "where world_id = $1 order by policy_id, position")
    world["policies"] = [
        {"policy_id": p["policy_id"], "name": p["name"],
         "rules": [{"rule_id": r["rule_id"], "type": r["type"], "params": json.loads(r["params"])}
                   for r in rules if r["policy_id"] == p["policy_id"]]}
        for p in q("select policy_id, name from policies where world_id = $1 order by position")
    ]
    if world["level"] >= 2:
        world["policy_docs"] = q("select doc_id, title, text from policy_docs "
                                 "where world_id = $1 order by position")
        world["projects"] = q("select project_id, name from projects where world_id = $1 order by position")
        tags: dict[str, list] = {}
        for tag in q("select message_id, tag_type, params from message_tags "
                     "where world_id = $1 order by message_id, position"):
            tags.setdefault(tag["message_id"], []).append(
                {"type": tag["tag_type"], "params": json.loads(tag["params"])})
        messages: dict[str, list] = {}
        for m in q("select message_id, thread_id, author_id, ts, text from messages "
                   "where world_id = $1 order by thread_id, position"):
            messages.setdefault(m.pop("thread_id"), []).append(
                {**m, "ts": _text(m["ts"]), "tags": tags.get(m["message_id"], [])})
        world["threads"] = [
            {**t, "messages": messages.get(t["thread_id"], [])}
            for t in q("select thread_id, project_id, channel, title from threads "
                       "where world_id = $1 order by position")
        ]
    if world["level"] >= 3:
        world["rooms"] = [
            {**r, "features": list(r["features"])}
            for r in q("select room_id, name, building, floor, capacity, features from rooms "
                       "where world_id = $1 order by room_id")
        ]
        world["room_bookings"] = [
            {**b, "start": _text(b["start"]), "end": _text(b["end"])}
            for b in q("select room_id, starts_at as start, ends_at as end from room_bookings "
                       "where world_id = $1 order by position")
        ]
    if world["level"] == 4:
        _dump_level4(world, q)
    items = q("select item_id, source_table, source_id, person_id, category, phrase from sensitive_items "
              "where world_id = $1 order by item_id")
    if items:   # a world without sensitive items has no key: a dataset made before them exports unchanged
        world["sensitive_items"] = items
    return world


def _dump_level4(world: dict, q) -> None:
    hours = {h["person_id"]: h for h in q("select person_id, timezone, work_start, work_end from person_hours "
                                          "where world_id = $1")}
    for person in world["people"]:
        h = hours.get(person["person_id"])
        if h:
            person["timezone"] = h["timezone"]
            person["working_hours"] = {"start": h["work_start"], "end": h["work_end"]}
    exceptions: dict[str, list] = {}
    for x in q("select series_id, original_start, action, starts_at as start, ends_at as end "
               "from event_series_exceptions where world_id = $1 order by series_id, original_start"):
        exceptions.setdefault(x.pop("series_id"), []).append(
            {"original_start": _text(x["original_start"]), "action": x["action"],
             "start": x["start"] and _text(x["start"]), "end": x["end"] and _text(x["end"])})
    world["series"] = [
        {**s, "start": _text(s["start"]), "end": _text(s["end"]), "exceptions": exceptions.get(s["series_id"], [])}
        for s in q("select series_id, person_id, starts_at as start, ends_at as end, every_days, occurrences, "
                   "status, title from event_series where world_id = $1 order by series_id")
    ]


def dump_instances(con: duckdb.DuckDBPyConnection, level: int) -> list[dict]:
    participants: dict[str, list] = {}
    for row in _records(con, "select rp.instance_id, rp.person_id from requirement_participants rp "
                        "join instances i using (instance_id) where i.level = $1 "
                        "order by rp.instance_id, rp.position", [level]):
        participants.setdefault(row["instance_id"], []).append(row["person_id"])
    rows = _records(con, """
        select i.*, r.duration_minutes, r.n, r.policy_id, r.tie_break, r.has_room_requirement,
               r.room_min_capacity, r.room_features, r.room_building
        from instances i join requirements r using (instance_id)
        where i.level = $1 order by i.position, i.instance_id""", [level])
    return [
        {
            "instance_id": r["instance_id"], "level": r["level"], "world_id": r["world_id"],
            "prompt": r["prompt"], "now": _text(r["now"]),
            "window": {"start": _text(r["window_start"]), "end": _text(r["window_end"])},
            "given": json.loads(r["given"]), "project_id": r["project_id"],
            "requirements": {
                "participants": participants.get(r["instance_id"], []),
                "duration_min": r["duration_minutes"], "n": r["n"], "policy_id": r["policy_id"],
                "tie_break": r["tie_break"],
                "room": {"min_capacity": r["room_min_capacity"], "features": list(r["room_features"]),
                         "building": r["room_building"]} if r["has_room_requirement"] else None,
            },
        }
        for r in rows
    ]
