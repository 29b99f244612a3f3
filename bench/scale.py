"""Benchmark of the partitioned build (`mpcbench build --out DIR`) at scale (not a test; run by hand).

    python bench/scale.py                                   # 10,000 and 100,000 a level, local and ray
    python bench/scale.py --sizes 10000,100000 --engines local --levels 1,2,3   # the issue's three levels
    python bench/scale.py --sizes 1000000 --engines local --levels 1 --no-oracle   # a million (level 1)
    python bench/scale.py --smoke                           # seconds, for CI: 2 instances of level 1, local

For each engine and size: `mpcbench build --out TMP --instances N` for the levels in a fresh
process: wall seconds, CPU seconds (of the build and the descendants it waited for: the local
pool's workers, not Ray's, whose workers belong to Ray's own processes), peak memory of the whole
process tree as the sum of PSS (so shared pages, e.g. Ray's object store, count once),
instances/s of wall time and per CPU second (the per-core throughput, which a machine shared with
other work does not distort); then the log-log fit of wall and CPU time against N per engine (an
exponent near 1 is linear cost). Then the oracle alone on the
first size's dataset, on one DuckDB thread: every oracle layer recomputed from the raw tables
(answers and necessity), as instances/s per core: the labels as the build computes them, and
with every violation row stored too, as the DuckDB warehouse does for grading. Prints Markdown tables; docs/performance.md quotes them.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mpcbench.warehouse import db, parts
from proctree import process_tree

ROOT = Path(__file__).resolve().parent.parent


def tree_memory_bytes(root: int) -> int:
    """Proportional set size (PSS; RSS where smaps_rollup is unreadable) of a process and all its
    descendants, from /proc."""
    tree = process_tree(root)
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except OSError:
            continue
    return total


def timed_build(out: Path, instances: int, engine: str, jobs: int, levels: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (the build and every descendant it waited for) and peak memory
    (GiB, the whole process tree) of one `mpcbench build --out`."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mpcbench", "build", "--out", str(out), "--levels", levels,
                             "--instances", str(instances), "--engine", engine, "--jobs", str(jobs)],
                            cwd=ROOT, stdout=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_memory_bytes(proc.pid))
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"mpcbench build --engine {engine} --instances {instances} failed (exit {proc.returncode})")
    return seconds, usage.ru_utime + usage.ru_stime, peak / 2**30


def oracle_per_core(dataset: Path, judging: bool) -> tuple[int, float]:
    """Instances and seconds to recompute every oracle layer on one thread from the dataset's raw
    tables: the labels, as the build's judging computes them (`judging`), or with
    every violation row stored too, as the warehouse does for grading (`db.refresh`)."""
    source = db.open_partitioned(dataset)
    con = db.connect(None)
    con.execute("set threads = 1")
    db.create_tables(con)
    for table in db.RAW_TABLES:
        con.execute(f"insert into {table} select * from read_parquet({db.quote_literal(parts.table_glob(dataset, table))}"
                    ", hive_partitioning = false, union_by_name = true)")
    source.close()
    db.create_views(con)
    started = time.process_time()        # CPU time: one thread, so a busy machine does not inflate it
    db.refresh(con, judging=judging)
    for view in parts.LABEL_TABLES:
        con.execute(f"select count(*) from {view}").fetchall()
    seconds = time.process_time() - started
    instances = con.execute("select count(*) from instances").fetchone()[0]
    con.close()
    return instances, seconds


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(seconds) against log(size)."""
    if len(points) < 2:
        return None
    xs, ys = [math.log(n) for n, _ in points], [math.log(s) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="instances per level, comma-separated")
    parser.add_argument("--engines", default="local,ray")
    parser.add_argument("--levels", default="1,2,3,4")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers (= cores used)")
    parser.add_argument("--no-oracle", action="store_true",
                        help="skip the oracle-alone figure (it loads the first size's whole dataset into memory)")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): 2 instances of level 1, the local "
                             "engine (Ray is optional), 1 worker (unless given), and the oracle alone only as the warehouse runs it; its "
                             "figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        for name, value in {"sizes": "2", "engines": "local", "levels": "1", "jobs": 1}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    sizes = [int(s) for s in args.sizes.split(",")]
    levels = len(args.levels.split(","))
    rows, fits = [], {}
    with tempfile.TemporaryDirectory(prefix="mpcbench-scale-") as tmp:
        kept = None
        for engine in args.engines.split(","):
            points = []
            for n in sizes:
                out = Path(tmp) / f"{engine}-{n}"
                seconds, cpu, peak = timed_build(out, n, engine, args.jobs, args.levels)
                rows.append((engine, n, seconds, cpu, peak, levels * n / seconds, levels * n / cpu))
                print(f"{engine} {levels} x {n:,}: {seconds:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.2f} GiB, "
                      f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
                points.append((n, seconds, cpu))
                if kept is None:
                    kept = out
                else:
                    shutil.rmtree(out)
            fits[engine] = (slope([(n, w) for n, w, _ in points]), slope([(n, c) for n, _, c in points]))
        if not args.no_oracle:
            variants = (True,) if args.smoke else (False, True)    # --smoke: the warehouse's, a superset
            oracle = {stored: oracle_per_core(kept, judging=not stored) for stored in variants}
    print(f"| engine | instances a level | wall s | CPU s | peak GiB | instances/s (wall, {args.jobs} workers) "
          "| instances per CPU second |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for engine, n, wall, cpu, peak, rate, per_cpu in rows:
        # Ray's workers are not the build's descendants: its CPU time is the driver's only
        cpu_text, per_cpu_text = (f"{cpu:.1f}", f"{per_cpu:,.0f}") if engine == "local" else (f"{cpu:.1f} (driver)", "n/a")
        print(f"| {engine} | {n:,} | {wall:.1f} | {cpu_text} | {peak:.2f} | {rate:,.0f} | {per_cpu_text} |")
    print()
    for engine, (wall_fit, cpu_fit) in fits.items():
        shown = ["n/a" if f is None or (engine != "local" and f is cpu_fit) else f"{f:.3f}" for f in (wall_fit, cpu_fit)]
        print(f"log-log exponent against size, {engine}: wall {shown[0]}, CPU {shown[1]}")
    if not args.no_oracle:
        for stored, what in ((False, "the labels"), (True, "the labels and every violation row (the warehouse's)")):
            if stored not in oracle:
                continue
            instances, seconds = oracle[stored]
            print(f"oracle alone, one thread, {what}: {instances:,} instances in {seconds:.1f} s = "
                  f"{instances / seconds:,.0f} instances/s per core")


if __name__ == "__main__":
    main()
