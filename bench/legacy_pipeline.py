"""Wall time of the legacy pipeline offline (not a test; run by hand).

    python bench/legacy_pipeline.py                  # 3 runs of each provider (replay, mock)
    python bench/legacy_pipeline.py --repeats 5
    python bench/legacy_pipeline.py --smoke          # seconds, for CI: 1 run of each provider, one task

Each run is `mpcbench legacy pipeline --offline --provider P --root DIR` in a fresh process, from
an empty DIR: both archive scenarios generated (replayed or mocked), validated and loaded, then
12 tasks x 2 offline agents x 1 offline judge, with every run log, judge input and result and
scores.parquet written. Prints each run's wall and CPU seconds, the median wall time per
provider, and the load average before the runs (the machine is shared: quote it with the figure).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MPCBENCH = Path(sys.executable).with_name("mpcbench")


def one_run(provider: str, *options: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one pipeline from an empty root."""
    with tempfile.TemporaryDirectory(prefix="legacy-bench-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([str(MPCBENCH), "legacy", "pipeline", "--offline", "--provider", provider, "--root",
                        str(Path(tmp) / "legacy"), *options], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not (Path(tmp) / "legacy" / "scores.parquet").exists():
            raise SystemExit("the pipeline wrote no scores.parquet")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): one run of each provider "
                             "(unless --repeats), of the archive's first task only; its figures mean nothing")
    args = parser.parse_args()
    options: list[str] = []
    if args.smoke:
        if args.repeats == parser.get_default("repeats"):
            args.repeats = 1
        first = sorted((ROOT / "archive" / "tasks").glob("*/*.json"))[:1]    # none found: every task
        options = [arg for task in first for arg in ("--task", str(task))]
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    for provider in ("replay", "mock"):
        walls = []
        for i in range(args.repeats):
            wall, cpu = one_run(provider, *options)
            walls.append(wall)
            print(f"{provider} run {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(f"{provider}: median {statistics.median(walls):.2f} s wall over {args.repeats} runs")


if __name__ == "__main__":
    main()
