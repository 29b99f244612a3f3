"""Cost of the code sandbox: worker start per episode, and a tool call from code over the same
call made natively by the harness.

    .venv/bin/python bench/sandbox.py                 # --starts 20 --calls 500
    .venv/bin/python bench/sandbox.py --smoke         # seconds, for CI: 3 starts, 20 calls

Start: `CodeWorker(...)` until the sandboxed worker has said hello (bwrap, the interpreter,
the worker's limits and tool functions), timed `--starts` times after one warm-up; close, an
empty cell's round trip and the CPU time the sandbox's processes used (which, unlike wall
time, does not grow when other work shares the cores) are shown beside it. Tool calls: `call_tool` is trivial (it echoes
a 200-character text), so the figure is the channel's overhead alone. Each of `--calls` calls
is timed inside the worker (function call to returned text), and the same call_tool is timed
directly in the harness; the overhead is the difference of the medians.
Targets on a 2-core machine: start <= 150 ms, overhead <= 2 ms per tool call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpcbench.sandbox import CodeWorker, ToolFunction, sandbox_status  # noqa: E402
from mpcbench.sandbox._bwrap import sandbox_plan  # noqa: E402

START_TARGET_MS, CALL_TARGET_MS = 150.0, 2.0
ECHO = ToolFunction("echo", {"type": "object", "properties": {"text": {"type": "string"}}})
TEXT = "x" * 200


def call_tool(name: str, arguments: dict) -> str:
    return arguments["text"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _children_cpu_s() -> float:
    """CPU time (user + system) of reaped children: bwrap and, through it, the worker."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_start(starts: int) -> dict:
    CodeWorker([ECHO], call_tool).close()                  # warm-up: page cache, probe done
    start_ms, cell_ms, close_ms = [], [], []
    cpu_before = _children_cpu_s()
    for _ in range(starts):
        t0 = time.perf_counter()
        worker = CodeWorker([ECHO], call_tool)
        t1 = time.perf_counter()
        worker.run_cell("pass")
        t2 = time.perf_counter()
        worker.close()
        t3 = time.perf_counter()
        start_ms.append((t1 - t0) * 1000)
        cell_ms.append((t2 - t1) * 1000)
        close_ms.append((t3 - t2) * 1000)
    cpu_ms = (_children_cpu_s() - cpu_before) * 1000 / starts
    return {"n": starts, "start_p50_ms": statistics.median(start_ms), "start_p90_ms": percentile(start_ms, 0.9),
            "sandbox_cpu_ms": cpu_ms,
            "start_max_ms": max(start_ms), "empty_cell_p50_ms": statistics.median(cell_ms),
            "close_p50_ms": statistics.median(close_ms)}


CELL = """
import json, time
lat = []
for i in range({calls}):
    t = time.perf_counter()
    r = echo(text={text!r})
    lat.append((time.perf_counter() - t) * 1e6)
assert r == {text!r}
lat.sort()
print(json.dumps({{"p50_us": lat[len(lat) // 2], "p90_us": lat[int(len(lat) * 0.9)], "mean_us": sum(lat) / len(lat)}}))
"""


def bench_calls(calls: int) -> dict:
    native = []
    for _ in range(calls):
        t = time.perf_counter()
        call_tool("echo", {"text": TEXT})
        native.append((time.perf_counter() - t) * 1e6)
    with CodeWorker([ECHO], call_tool, max_output_chars=10_000) as worker:
        worker.run_cell(CELL.format(calls=20, text=TEXT))             # warm-up
        result = worker.run_cell(CELL.format(calls=calls, text=TEXT))
    code = json.loads(result.output)
    if len(result.tool_calls) != calls:
        raise RuntimeError(f"expected {calls} calls, saw {len(result.tool_calls)}")
    native_p50 = statistics.median(native)
    return {"n": calls, "native_p50_us": native_p50, "code_p50_us": code["p50_us"], "code_p90_us": code["p90_us"],
            "code_mean_us": code["mean_us"], "overhead_p50_ms": (code["p50_us"] - native_p50) / 1000}


def report(start: dict, calls: dict, meta: dict) -> str:
    start_ok = start["start_p50_ms"] <= START_TARGET_MS
    call_ok = calls["overhead_p50_ms"] <= CALL_TARGET_MS
    return "\n".join([
        f"Code sandbox — {meta['machine']}, {meta['cpus']} CPUs, harness Python {meta['python']}, "
        f"worker {meta['worker_python']}, bwrap {meta['bwrap']}", "",
        "| measure | median | p90 | max | target |", "|---|---:|---:|---:|---|",
        f"| worker start (n={start['n']}) | {start['start_p50_ms']:.1f} ms | {start['start_p90_ms']:.1f} ms | "
        f"{start['start_max_ms']:.1f} ms | <= {START_TARGET_MS:.0f} ms {'ok' if start_ok else 'MISSED'} |",
        f"| CPU time of one sandbox (start, a cell, close; mean) | {start['sandbox_cpu_ms']:.1f} ms | | | |",
        f"| empty cell round trip | {start['empty_cell_p50_ms']:.2f} ms | | | |",
        f"| close (every process gone) | {start['close_p50_ms']:.2f} ms | | | |",
        f"| tool call, native (n={calls['n']}) | {calls['native_p50_us']:.1f} µs | | | |",
        f"| tool call, from code (n={calls['n']}) | {calls['code_p50_us']:.1f} µs | {calls['code_p90_us']:.1f} µs | | |",
        f"| overhead per call from code | {calls['overhead_p50_ms']:.3f} ms | | | <= {CALL_TARGET_MS:.0f} ms "
        f"{'ok' if call_ok else 'MISSED'} |",
        "", f"First use in a process also probes the interpreter once: {meta['probe_ms']:.0f} ms."])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=20, help="worker starts to time (>= 10)")
    parser.add_argument("--calls", type=int, default=500, help="tool calls to time (>= 200)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): 3 starts and 20 calls (unless "
                             "given); where the sandbox cannot start, says why and exits 0; figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        for name, value in {"starts": 3, "calls": 20}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    t = time.perf_counter()
    try:
        plan = sandbox_plan()
    except Exception:  # noqa: BLE001 - no bwrap, or it cannot start: sandbox_status says why
        plan = None
    probe_ms = (time.perf_counter() - t) * 1000
    ok, why = sandbox_status()
    if plan is None or not ok:
        message = f"the code sandbox cannot start here, nothing measured: {why}"
        if args.smoke:
            print(message)
            return
        sys.exit(message)
    start, calls = bench_start(args.starts), bench_calls(args.calls)
    with CodeWorker([], call_tool) as worker:
        worker_python = worker.run_cell("import sys\nprint(sys.version.split()[0])").output.strip()
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "worker_python": f"{plan.python} {worker_python}", "bwrap": plan.bwrap, "probe_ms": probe_ms}
    print(report(start, calls, meta))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "start": start, "calls": calls}, indent=2))


if __name__ == "__main__":
    main()
