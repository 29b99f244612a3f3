"""Benchmark of `mpcbench build` and of the SQL oracle (not a test; run by hand).

    python bench/build.py                    # default build, 4 x 10,000 instances, oracle vs reference
    python bench/build.py --instances 2000   # a quicker run
    python bench/build.py --smoke            # seconds, for CI: level 1 x 2 instances, no default build

Prints one table of figures; docs/performance.md quotes a run of this script.
Measures, each in a fresh process where it matters:
  1. `mpcbench build` with the default configs (wall seconds, peak memory);
  2. `mpcbench build --instances N` for the four levels (wall seconds, peak memory);
  3. the oracle alone on that database: recomputing every oracle layer from the raw tables
     (instances/s and grid slots/s); that is every instance's answer *and* its necessity
     scenarios (the answer again without each required source);
  4. the plain-Python reference oracle (tests/reference_oracle.py) on the same instances doing
     the same work (`necessity`: the answer and every scenario), and the ratio of the two
     throughputs; also the reference's answers alone, for scale.
Peak memory is the largest sum of resident memory over the build's whole process tree (the
CLI builds levels in worker processes), sampled every 100 ms from /proc.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mpcbench.dataset import rows  # noqa: E402
from mpcbench.warehouse import db  # noqa: E402
import reference_oracle  # noqa: E402
from proctree import process_tree  # noqa: E402


def tree_rss_bytes(root: int) -> int:
    """Resident memory of a process and all its descendants, from /proc."""
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in process_tree(root):
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
        except OSError:
            continue
    return total


def timed_build(db_path: Path, *args: str) -> tuple[float, float]:
    """Wall seconds and peak resident memory (GiB, the whole process tree) of `mpcbench build`."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mpcbench", "build", "--db", str(db_path), *args],
                            cwd=ROOT, stdout=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_bytes(proc.pid))
        time.sleep(0.1)
    seconds = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"mpcbench build failed (exit {proc.returncode})")
    return seconds, peak / 2**30


def oracle_throughput(db_path: Path) -> tuple[int, int, float]:
    con = db.connect(db_path)
    instances = con.execute("select count(*) from instances").fetchone()[0]
    slots = con.execute("select count(*) from int_grid").fetchone()[0]
    started = time.perf_counter()
    db.refresh(con)
    con.execute("select count(*) from oracle_answers").fetchall()
    seconds = time.perf_counter() - started
    con.close()
    return instances, slots, seconds


def reference_throughput(db_path: Path, sample: int | None, solve) -> tuple[int, float]:
    con = db.connect(db_path, read_only=True)
    levels = [row[0] for row in con.execute("select level from worlds order by level").fetchall()]
    work = []
    for level in levels:
        world_id = con.execute("select world_id from worlds where level = $1", [level]).fetchone()[0]
        world = rows.dump_world(con, world_id)
        instances = rows.dump_instances(con, level)
        work += [(world, inst) for inst in instances[: sample or None]]
    con.close()
    started = time.perf_counter()
    for world, instance in work:
        solve(world, instance)
    return len(work), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=10_000, help="instances per level for the big build")
    parser.add_argument("--reference-sample", type=int, default=None,
                        help="instances per level for the reference oracle (default: all)")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): no default build, and the big "
                             "build is level 1 with 2 instances (unless --instances); its figures mean nothing")
    args = parser.parse_args()
    levels: tuple[str, ...] = ()
    if args.smoke:
        levels = ("--levels", "1")
        if args.instances == parser.get_default("instances"):
            args.instances = 2
    with tempfile.TemporaryDirectory() as tmp:
        default_s = default_gib = None
        if not args.smoke:
            default_s, default_gib = timed_build(Path(tmp) / "default.duckdb")
        big = Path(tmp) / "big.duckdb"
        big_s, big_gib = timed_build(big, "--instances", str(args.instances), *levels)
        instances, slots, oracle_s = oracle_throughput(big)
        ref_n, ref_s = reference_throughput(big, args.reference_sample, reference_oracle.necessity)
        answers_n, answers_s = reference_throughput(big, args.reference_sample, reference_oracle.solve)
    sql_rate = instances / oracle_s
    ref_rate = ref_n / ref_s
    rows = [
        ("default build (levels 1-4: 3 x 100 + 50 instances)", "skipped" if default_s is None else f"{default_s:.1f} s",
         "--smoke" if default_gib is None else f"peak {default_gib:.2f} GiB"),
        (f"build {args.instances:,} instances a level ({'level 1' if levels else 'levels 1-4'})", f"{big_s:.1f} s",
         f"peak {big_gib:.2f} GiB"),
        ("SQL oracle, all layers recomputed", f"{oracle_s:.2f} s",
         f"{sql_rate:,.0f} instances/s, {slots / oracle_s:,.0f} grid slots/s"),
        (f"Python reference, answers and necessity ({ref_n:,})", f"{ref_s:.2f} s", f"{ref_rate:,.1f} instances/s"),
        ("SQL / reference throughput, same work", f"{sql_rate / ref_rate:.0f}x", ""),
        (f"Python reference, answers only ({answers_n:,})", f"{answers_s:.2f} s",
         f"{answers_n / answers_s:,.1f} instances/s (SQL does more: {sql_rate / (answers_n / answers_s):.0f}x)"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>10}  {note}")


if __name__ == "__main__":
    main()
