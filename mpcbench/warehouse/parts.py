"""The partitioned Parquet dataset that `mpcbench build --out DIR` writes: its layout, its manifest,
and the check every reader makes before it trusts the files.

    DIR/manifest.json                             written last: every file with its row count
    DIR/<table>/level=<L>/part=<P>/data.parquet   partition P's rows of a raw or label table
    DIR/<table>/level=<L>/part=0/world.parquet    the level's world (people, events, policies, the
                                                  noise projects and threads ...): one copy per level
    DIR/build_info/data.parquet, DIR/build_stats/data.parquet

Partition P of a level holds the instances kept among candidates P*size .. (P+1)*size - 1 (the
manifest's `partition_size`), with their projects, threads and labels. DuckDB reads any table
directly, e.g. `read_parquet('DIR/oracle_answers/*/*/*.parquet', hive_partitioning = true)`; a
reader that trusts a glob must first check the manifest (`check_dataset`): a missing, short or
stray file is a one-line error, never a dataset that looks complete.

    >>> part_path("oracle_answers", 2, 7)
    'oracle_answers/level=2/part=7/data.parquet'
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from ..errors import UserError

MANIFEST = "manifest.json"
FORMAT = "mpcbench-parquet/1"
LABEL_TABLES = ("oracle_answers", "oracle_summary", "oracle_necessity")
META_TABLES = ("build_info", "build_stats")


def part_path(table: str, level: int, part: int, name: str = "data") -> str:
    return f"{table}/level={level}/part={part}/{name}.parquet"


def meta_path(table: str) -> str:
    return f"{table}/data.parquet"


def table_glob(root: Path, table: str) -> str:
    """The glob that reads every file of a table (partitioned, or a meta table's one file)."""
    return str(Path(root) / (meta_path(table) if table in META_TABLES else f"{table}/*/*/*.parquet"))


def row_counts(root: Path, files: list[str]) -> dict[str, int]:
    """Rows per file (relative paths), from the Parquet footers only."""
    if not files:
        return {}
    con = duckdb.connect(":memory:")
    try:
        rows = con.execute("select file_name, num_rows from parquet_file_metadata($files)",
                           {"files": [str(Path(root) / f) for f in files]}).fetchall()
    finally:
        con.close()
    return {str(Path(name).relative_to(root)): count for name, count in rows}


def write_manifest(root: Path, manifest: dict) -> None:
    """Write manifest.json last and atomically: before it exists, the directory is not a dataset."""
    tmp = Path(root) / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    tmp.replace(Path(root) / MANIFEST)


def check_dataset(root: Path) -> dict:
    """The manifest of a complete dataset; a UserError naming the first problem otherwise: no
    manifest (a build that did not finish), a file it lists missing or with other row counts, or
    a Parquet file it does not list (a stray partition a glob would read)."""
    root = Path(root)
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except FileNotFoundError:
        raise UserError(f"{root} is not a complete mpcbench dataset: no {MANIFEST} (a build that did not "
                        f"finish?); rebuild it with `mpcbench build --out {root}`") from None
    except (OSError, json.JSONDecodeError) as e:
        raise UserError(f"{root}/{MANIFEST} cannot be read: {e}") from None
    if manifest.get("format") != FORMAT:
        raise UserError(f"{root}/{MANIFEST}: format {manifest.get('format')!r}, expected {FORMAT!r}")
    listed: dict[str, int] = manifest["files"]
    on_disk = {str(p.relative_to(root)) for p in root.rglob("*.parquet")}
    missing = sorted(set(listed) - on_disk)
    if missing:
        raise UserError(f"{root} is incomplete: {len(missing)} partition file(s) of the manifest are missing, "
                        f"e.g. {missing[0]}")
    stray = sorted(on_disk - set(listed))
    if stray:
        raise UserError(f"{root} holds {len(stray)} Parquet file(s) its manifest does not list, e.g. {stray[0]}; "
                        "remove them or rebuild")
    counts = row_counts(root, sorted(listed))
    for name, rows in listed.items():
        if counts.get(name) != rows:
            raise UserError(f"{root}/{name} has {counts.get(name)} rows, its manifest says {rows}: the dataset "
                            "is damaged; rebuild it")
    return manifest
