"""Measure the attribution detector on the blind notes (issue 38): notes written and labelled by
someone who never saw the detector, about real items of the default build.

    python scripts/blind_notes.py context BUILD.duckdb tests/data/blind_notes.jsonl tests/data/blind_notes_context.json
    python scripts/blind_notes.py table tests/data/blind_notes.jsonl tests/data/blind_notes_context.json

`context` reads, read-only, what the detector needs of the build for the notes' worlds and
instances (each world's people and sensitive items with their owner and block start, as
sql/40_grading/grading_item_anchors.sql gives them; each instance's participants, the people an
episode shows at the least; its gold starts, the proposed times the labeller used) and writes it
beside the notes, so the test suite recomputes the figures without the build. `table` prints
docs/privacy.md's table (mpcbench.grading.leak_labels.blind_table).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb

from mpcbench.grading.leak_labels import blind_table, load_blind, load_context

ANCHORS = Path(__file__).parent.parent / "sql" / "40_grading" / "grading_item_anchors.sql"


def context(build: str, notes_path: str, out: str) -> None:
    notes = load_blind(Path(notes_path))
    worlds = sorted({n.world_id for n in notes})
    instances = sorted({n.instance_id for n in notes})
    con = duckdb.connect(build, read_only=True)
    people: dict[str, dict[str, str]] = {}
    for world_id, person_id, name in con.execute("select world_id, person_id, name from people where world_id in "
                                                 "(select unnest($w)) order by all", {"w": worlds}).fetchall():
        people.setdefault(world_id, {})[person_id] = name
    anchors = con.execute(f"select * from ({ANCHORS.read_text()}) where world_id in (select unnest($w)) "
                          "order by world_id, item_id", {"w": worlds})
    columns = [d[0] for d in anchors.description]
    items: dict[str, list[dict]] = {}
    for row in anchors.fetchall():
        record = dict(zip(columns, row))
        items.setdefault(record.pop("world_id"), []).append(record)
    participants: dict[str, list[str]] = {i: [] for i in instances}
    for instance_id, person_id in con.execute("select instance_id, person_id from requirement_participants where "
                                              "instance_id in (select unnest($i)) order by instance_id, position",
                                              {"i": instances}).fetchall():
        participants[instance_id].append(person_id)
    proposed: dict[str, list[str]] = {i: [] for i in instances}
    for instance_id, start in con.execute("select instance_id, strftime(starts_at, '%Y-%m-%dT%H:%M') from "
                                          "oracle_answers where instance_id in (select unnest($i)) "
                                          "order by instance_id, rank", {"i": instances}).fetchall():
        proposed[instance_id].append(start)
    Path(out).write_text(json.dumps({"people": people, "items": items, "participants": participants,
                                     "proposed": proposed}, ensure_ascii=False, sort_keys=True) + "\n",
                         encoding="utf-8")


def table(notes_path: str, context_path: str) -> None:
    print("\n".join(blind_table(load_blind(Path(notes_path)), load_context(Path(context_path)))))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"context": context, "table": table}[command](*args)
