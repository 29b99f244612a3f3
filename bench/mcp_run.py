"""Benchmark of a long MCP run (not a test; run by hand): an agent served by `mpcbench mcp`, driven
through the official MCP SDK's client in-process, answers INSTANCES instances of one level one
after another: on each, CALLS cheap tool calls and a submission (the gold answer on even
instances, a wrong one on odd ones). It times the whole run (opening it, every call, closing it)
and the submissions, first and last tenth apart (the final one, which completes the run, alone): a run that rewrites its tables after every
submission pays more for each one as its journal grows (quadratic in the run's length).

    .venv/bin/python bench/mcp_run.py                        # builds build/bench-mcp.duckdb if missing
    .venv/bin/python bench/mcp_run.py --repeat 5 --json /tmp/mcp.json
    .venv/bin/python bench/mcp_run.py --src /path/to/other/checkout   # the same run on another version
    .venv/bin/python bench/mcp_run.py --smoke --db build/mpcbench.duckdb   # only shows it works

`--src` imports mpcbench from another checkout (its `open_external_run` and `make_server`), so a
before/after comparison runs this same script on both versions, on the same build.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
from mcp import Client

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = 100
LEVEL = 1
CALLS = (("get_current_time", {}), ("list_policies", {}))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=ROOT / "build" / "bench-mcp.duckdb",
                        help="the build to serve (built with INSTANCES instances of level 1 if missing)")
    parser.add_argument("--instances", type=int, default=INSTANCES)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the figures are their medians")
    parser.add_argument("--src", type=Path, default=ROOT, help="the checkout whose mpcbench is measured")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works: 2 instances, once; its figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        args.instances, args.repeat = 2, 1
    return args


async def drive(run, make_server, golds: dict) -> tuple[list[float], list[float]]:
    """One run through the SDK client: (seconds per submission, seconds per other call)."""
    submits, calls = [], []
    async with Client(make_server(run)) as client:
        for position, instance_id in enumerate(list(golds)):
            for name, arguments in CALLS:
                started = time.perf_counter()
                await client.call_tool(name, arguments)
                calls.append(time.perf_counter() - started)
            keys = golds[instance_id] if position % 2 == 0 else [("2026-01-01T00:00", None)]
            started = time.perf_counter()
            reply = await client.call_tool("submit_candidates", {"candidates": [{"start": s} for s, _ in keys]})
            submits.append(time.perf_counter() - started)
            assert not reply.is_error, reply.content[0].text
    return submits, calls


def one_run(db_path: Path, instances: int, work: Path) -> dict:
    from mpcbench.grading.scoring import gold_keys
    from mpcbench.harness.config import EvalConfig
    from mpcbench.harness.session import open_external_run
    from mpcbench.integrations.mcp_server import make_server
    from mpcbench.warehouse import db

    con = db.open_existing(db_path)
    try:
        ids = [i for (i,) in con.execute("select instance_id from instances where level = $l order by position",
                                         {"l": LEVEL}).fetchall()][:instances]
        golds = gold_keys(con, ids)
    finally:
        con.close()
    if len(ids) < instances:
        raise SystemExit(f"{db_path} holds {len(ids)} instances of level {LEVEL}, not {instances}")
    out = work / f"run-{time.monotonic_ns()}"
    started = time.perf_counter()
    run = open_external_run(EvalConfig(agent="mcp", db=str(db_path), out=str(out), levels=(LEVEL,),
                                       instances=instances))
    try:
        submits, calls = asyncio.run(drive(run, make_server, {i: golds[i] for i in ids}))
    finally:
        run.close()
    total = time.perf_counter() - started
    tenth = max(len(submits) // 10, 1)
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs.height == instances and runs["exact_match"].sum() == (instances + 1) // 2, runs
    return {"seconds": total, "submit_ms_first_tenth": 1000 * statistics.median(submits[:tenth]),
            "submit_ms_last_tenth": 1000 * statistics.median(submits[-tenth - 1:-1]),
            "last_submit_ms": 1000 * submits[-1],
            "call_ms": 1000 * statistics.median(calls)}


def main() -> None:
    args = parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    import mpcbench
    print(f"mpcbench from {Path(mpcbench.__file__).parent}", flush=True)
    if not args.db.exists():
        from mpcbench.warehouse import build
        print(f"building {args.db} ({args.instances} instances of level {LEVEL}) ...", flush=True)
        args.db.parent.mkdir(parents=True, exist_ok=True)
        build.build(args.db, (LEVEL,), args.instances)
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            figures.append(one_run(args.db, args.instances, Path(tmp)))
            print(f"run {k + 1}: " + ", ".join(f"{key} {value:.2f}" for key, value in figures[-1].items()), flush=True)
    median = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
    print(f"\nA {args.instances}-instance MCP run (level {LEVEL}, {len(CALLS)} calls and a submission each), "
          f"median of {args.repeat}:")
    print(f"  whole run {median['seconds']:.2f} s; a submission {median['submit_ms_first_tenth']:.1f} ms in the first "
          f"tenth, {median['submit_ms_last_tenth']:.1f} ms in the last (the final one, which completes the run, "
          f"{median['last_submit_ms']:.0f} ms); another call {median['call_ms']:.2f} ms")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(machine)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "runs": figures, "median": median}, indent=2))


if __name__ == "__main__":
    main()
