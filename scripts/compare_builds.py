"""Compare two builds, two exports or two eval runs: the check that a refactor changed nothing.

    python scripts/compare_builds.py db BEFORE.duckdb AFTER.duckdb
    python scripts/compare_builds.py export BEFORE_DIR AFTER_DIR
    python scripts/compare_builds.py run BEFORE_RUN AFTER_RUN

- `db`: every table (raw, `build_*`, materialized `mat_*`) and the oracle's views, row for row
  (`except all` both ways, then a sha256 over the rows in a canonical order).
- `export`: every file byte for byte (sha256 per file).
- `run`: every Parquet table in file order with the columns that differ run to run left out
  (`VOLATILE_COLUMNS`: the run id and wall-clock timings), the journal with its timings left
  out, `reference_calls.json` byte for byte, and run.json without `VOLATILE_RUN_JSON`.

Prints one line per item with its hash and `same` or `DIFFERS`; exits 1 if anything differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import duckdb
import polars as pl

VIEWS = ("oracle_candidates", "oracle_answers", "oracle_summary", "oracle_necessity", "int_violations")
VOLATILE_COLUMNS = ("run_id", "latency_s", "latency_ms")
# run.json keys that name the run, its directory or the wall clock (dotted paths)
VOLATILE_RUN_JSON = ("run_id", "created_at", "finished_at", "options.out", "options.db", "build.db")
JOURNAL_VOLATILE = ("latency_s",)
CALL_VOLATILE = ("latency_ms",)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _report(name: str, a: str, b: str) -> bool:
    same = a == b
    print(f"{'same   ' if same else 'DIFFERS'} {name}: {a}" + ("" if same else f" != {b}"))
    return same


def compare_db(before: Path, after: Path) -> bool:
    con = duckdb.connect()
    con.execute(f"attach '{before}' as a (read_only)")
    con.execute(f"attach '{after}' as b (read_only)")
    names = {}
    for alias in ("a", "b"):
        names[alias] = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() where database_name = $db order by table_name",
            {"db": alias}).fetchall()]
    ok = _report("table list", ",".join(names["a"]), ",".join(names["b"]))
    for name in [*names["a"], *VIEWS]:
        if name not in VIEWS and name not in names["b"]:
            continue
        columns = [[d[0] for d in con.execute(f"select * from {x}.{name} limit 0").description] for x in ("a", "b")]
        if columns[0] != columns[1]:
            ok &= _report(f"columns of {name}", ",".join(columns[0]), ",".join(columns[1]))
            continue
        only = []
        for x, y in (("a", "b"), ("b", "a")):
            only.append(con.execute(f"select count(*) from (select * from {x}.{name} except all "
                                    f"select * from {y}.{name})").fetchone()[0])
        digests = []
        for x in ("a", "b"):
            digests.append(con.execute(
                f"select count(*) || ':' || md5(coalesce(string_agg(t::varchar, chr(10) order by t::varchar), '')) "
                f"from {x}.{name} as t").fetchone()[0])
        kind = "view" if name in VIEWS else "table"
        ok &= _report(f"{kind} {name} (rows only in before/after: {only[0]}/{only[1]})",
                      digests[0], digests[1]) and only == [0, 0]
    return ok


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


def compare_export(before: Path, after: Path) -> bool:
    a, b = _files(before), _files(after)
    ok = _report("file list", ",".join(a), ",".join(b))
    for name in sorted(a.keys() & b.keys()):
        ok &= _report(name, _sha(a[name].read_bytes()), _sha(b[name].read_bytes()))
    return ok


def _drop(data: dict, dotted: str) -> None:
    *path, last = dotted.split(".")
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    if isinstance(data, dict):
        data.pop(last, None)


def _stable_journal(path: Path) -> bytes:
    records = []
    for line in path.read_bytes().splitlines():
        rec = json.loads(line)
        for key in JOURNAL_VOLATILE:
            rec.pop(key, None)
        for call in rec.get("tool_calls") or []:
            for key in CALL_VOLATILE:
                call.pop(key, None)
        records.append(rec)
    records.sort(key=lambda r: (r["instance_id"], r["trial"]))   # episodes finish in any order
    return json.dumps(records, sort_keys=True).encode()


def compare_run(before: Path, after: Path) -> bool:
    ok = True
    tables = sorted({p.name for p in before.glob("*.parquet")} | {p.name for p in after.glob("*.parquet")})
    for name in tables:
        frames = []
        for root in (before, after):
            df = pl.read_parquet(root / name)
            frames.append(df.drop([c for c in VOLATILE_COLUMNS if c in df.columns]))
        digests = [_sha(json.dumps(f.to_dicts(), default=str).encode() + str(f.schema).encode()) for f in frames]
        dropped = [c for c in VOLATILE_COLUMNS if c in pl.read_parquet_schema(before / name)]
        ok &= _report(f"{name} ({frames[0].height} rows; without {', '.join(dropped)})", *digests)
    ok &= _report("journal.jsonl (without latencies)", _sha(_stable_journal(before / "journal.jsonl")),
                  _sha(_stable_journal(after / "journal.jsonl")))
    for name in ("reference_calls.json",):
        if (before / name).exists() or (after / name).exists():
            ok &= _report(name, _sha((before / name).read_bytes()), _sha((after / name).read_bytes()))
    metas = []
    for root in (before, after):
        meta = json.loads((root / "run.json").read_text())
        for key in VOLATILE_RUN_JSON:
            _drop(meta, key)
        metas.append(_sha(json.dumps(meta, sort_keys=True).encode()))
    ok &= _report(f"run.json (without {', '.join(VOLATILE_RUN_JSON)})", *metas)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("db", "export", "run"))
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    compare = {"db": compare_db, "export": compare_export, "run": compare_run}[args.kind]
    ok = compare(args.before, args.after)
    print("all the same" if ok else "DIFFERENCES FOUND")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
