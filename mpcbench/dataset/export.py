"""`mpcbench export`: write the dataset files of docs/dataset.md.

    export_dataset(con, Path("dataset"))       # worlds/, instances/, oracles/, schema/

Export writes what `rows.dump_world` and `rows.dump_instances` read back from the raw tables,
plus the oracle's answers, so export → import → export gives identical bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import UserError
from ..sources import LEVELS
from ..timestamps import timestamp_text
from .layout import SCHEMA_DIR, SCHEMA_NAMES, instances_file, oracle_file, world_file
from .rows import canonical_json, dump_instances, dump_world


@dataclass
class ExportedLevel:
    level: int
    world_id: str
    instances: int


def oracle_lines(con: duckdb.DuckDBPyConnection, level: int) -> list[dict]:
    """The gold answer of every instance of a level, in instance order (the oracle line format)."""
    rows = con.execute("""
        select i.instance_id, s.n_feasible, a.starts_at, a.ends_at, a.room_id
        from instances as i
        join oracle_summary as s on s.instance_id = i.instance_id
        left join oracle_answers as a on a.instance_id = i.instance_id
        where i.level = $1
        order by i.position, i.instance_id, a.rank
    """, [level]).fetchall()
    lines: dict[str, dict] = {}
    for instance_id, n_feasible, starts_at, ends_at, room_id in rows:
        line = lines.setdefault(instance_id, {"instance_id": instance_id, "n_feasible": n_feasible,
                                              "candidates": []})
        if starts_at is not None:
            line["candidates"].append({"start": timestamp_text(starts_at), "end": timestamp_text(ends_at),
                                       "room_id": room_id})
    return list(lines.values())


def _jsonl(records: list[dict]) -> str:
    return "".join(canonical_json(r) + "\n" for r in records)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}") from e


def export_dataset(con: duckdb.DuckDBPyConnection, out_dir: Path) -> list[ExportedLevel]:
    """Write the levels present in the warehouse as the files of docs/dataset.md. Files of
    the layout for levels the warehouse lacks are removed, so the directory holds one dataset."""
    out_dir = Path(out_dir)
    worlds = con.execute("select level, world_id from worlds order by level, world_id").fetchall()
    per_level = Counter(level for level, _ in worlds)
    if any(count > 1 for count in per_level.values()):
        raise UserError(f"the database holds several worlds for one level ({dict(per_level)}); "
                        "the dataset format has one world per level")
    exported = []
    for level, world_id in worlds:
        instances = dump_instances(con, level)
        _write(out_dir / world_file(level),
               json.dumps(dump_world(con, world_id), indent=2, ensure_ascii=False) + "\n")
        _write(out_dir / instances_file(level), _jsonl(instances))
        _write(out_dir / oracle_file(level), _jsonl(oracle_lines(con, level)))
        exported.append(ExportedLevel(level, world_id, len(instances)))
    for level in set(LEVELS) - set(per_level):
        for name in (world_file(level), instances_file(level), oracle_file(level)):
            (out_dir / name).unlink(missing_ok=True)
    for name in SCHEMA_NAMES:
        _write(out_dir / "schema" / f"{name}.schema.json",
               (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return exported
