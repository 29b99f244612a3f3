"""Cost of code mode on a real build: sandbox start per episode, and a data-tool call made from a
cell over the same call made natively, both through the real Environment.

    .venv/bin/python bench/code_mode.py                   # builds build/code_mode.duckdb if missing
    .venv/bin/python bench/code_mode.py --db build/dev.duckdb --episodes 20 --calls 500
    .venv/bin/python bench/code_mode.py --smoke           # seconds, for CI (a temporary tiny build unless --db)

Start: `Environment(con, id, CodeMode())` as eval --mode code opens an episode (the
tool environment, then the sandboxed worker with the level's tool functions, until it has said
hello), timed for `--episodes` episodes after one warm-up, with the close (every process gone)
beside it. Tool calls: the scripted solver's calls on the first instance of each level are
replayed `--calls` times in all, natively (`env.call` in the harness: validation, query,
rendering, trace) and from cells (the function call to the returned text, timed inside the
worker: the socket, the harness's validation, the same query and trace), in chunks of 20 that
alternate, so that both paths meet the same load. The overhead is the difference of the medians;
the channel's part is paired call by call (the worker's latency less the harness's time on that
call, from the trace). The load average is printed: the figures are wall times.
Targets on a 2-core machine: start <= 150 ms, overhead <= 2 ms per tool call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpcbench.agents.scripted import plan  # noqa: E402
from mpcbench.episode.code import CodeMode  # noqa: E402
from mpcbench.episode.environment import Environment  # noqa: E402
from mpcbench.episode.tools import HiddenFacts  # noqa: E402
from mpcbench.warehouse import build, db  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
START_TARGET_MS, CALL_TARGET_MS = 150.0, 2.0

CELL = """
import json, time
lat = []
for name, arguments in json.loads({calls!r}):
    fn = globals()[name]
    t = time.perf_counter()
    text = fn(**arguments)
    lat.append(round((time.perf_counter() - t) * 1e6))
    assert not text.startswith("error:"), text
print(json.dumps(lat))
"""
CHUNK = 20      # calls per chunk; native and code chunks alternate, so both meet the same load


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def first_instances(con) -> list[str]:
    return [row[0] for row in con.execute(
        "select instance_id from instances where position = (select min(position) from instances i "
        "where i.level = instances.level) order by level").fetchall()]


def bench_start(con, ids: list[str], episodes: int) -> dict:
    Environment(con, ids[0], CodeMode()).close()            # warm-up: probe, page cache
    start_ms, close_ms = [], []
    for k in range(episodes):
        t0 = time.perf_counter()
        env = Environment(con, ids[k % len(ids)], CodeMode())
        t1 = time.perf_counter()
        env.close()
        close_ms.append((time.perf_counter() - t1) * 1000)
        start_ms.append((t1 - t0) * 1000)
    return {"n": episodes, "start_p50_ms": statistics.median(start_ms), "start_p90_ms": percentile(start_ms, 0.9),
            "start_max_ms": max(start_ms), "close_p50_ms": statistics.median(close_ms)}


def solver_calls(con, instance_id: str) -> list[tuple[str, dict]]:
    with Environment(con, instance_id) as env:
        plan(env, HiddenFacts(env.data))
        return [(c.tool, json.loads(c.arguments)) for c in env.trace if c.tool != "submit_candidates"]


def bench_calls(con, ids: list[str], calls: int) -> dict:
    """Native and code chunks of CHUNK calls, alternating; for each call from code, its latency in
    the worker and the harness's time on it (the trace's latency), so that the channel's own cost
    (round trip, framing, validation, the wake-ups of both processes) is paired call by call."""
    native, code, channel = [], [], []
    per_level = -(-calls // len(ids))
    for instance_id in ids:
        plan = solver_calls(con, instance_id)
        replay = [plan[i % len(plan)] for i in range(per_level)]
        env = Environment(con, instance_id, CodeMode(timeout_s=300))
        try:
            for name, arguments in replay[:CHUNK]:                       # warm-up of both paths
                env.call_data(name, arguments)
            env.call("python", {"code": CELL.format(calls=json.dumps(replay[:CHUNK]))})
            for i in range(0, len(replay), CHUNK):
                chunk = replay[i:i + CHUNK]
                for name, arguments in chunk:
                    t = time.perf_counter()
                    env.call_data(name, arguments)
                    native.append((time.perf_counter() - t) * 1e6)
                output = env.call("python", {"code": CELL.format(calls=json.dumps(chunk))})
                try:
                    latencies = json.loads(output)
                except ValueError:
                    raise RuntimeError(f"the timing cell failed: {output[:500]}") from None
                harness = [c.latency_ms * 1000 for c in env.trace if c.via == "code"][-len(chunk):]
                code += latencies
                channel += [worker - spent for worker, spent in zip(latencies, harness)]
        finally:
            env.close()
    native_p50, code_p50 = statistics.median(native), statistics.median(code)
    return {"n": len(code), "native_p50_us": native_p50, "native_p90_us": percentile(native, 0.9),
            "code_p50_us": code_p50, "code_p90_us": percentile(code, 0.9),
            "channel_p50_us": statistics.median(channel), "channel_p90_us": percentile(channel, 0.9),
            "overhead_p50_ms": (code_p50 - native_p50) / 1000}


def report(start: dict, calls: dict, meta: dict) -> str:
    start_ok = start["start_p50_ms"] <= START_TARGET_MS
    call_ok = calls["overhead_p50_ms"] <= CALL_TARGET_MS
    return "\n".join([
        f"Code mode — {meta['machine']}, {meta['cpus']} CPUs, Python {meta['python']}, "
        f"load average {meta['load_before']} before, {meta['load_after']} after", "",
        "| measure | median | p90 | max | target |", "|---|---:|---:|---:|---|",
        f"| sandbox start per episode (n={start['n']}) | {start['start_p50_ms']:.1f} ms | "
        f"{start['start_p90_ms']:.1f} ms | {start['start_max_ms']:.1f} ms | <= {START_TARGET_MS:.0f} ms "
        f"{'ok' if start_ok else 'MISSED'} |",
        f"| episode close (every process gone) | {start['close_p50_ms']:.1f} ms | | | |",
        f"| data-tool call, native (n={calls['n']}) | {calls['native_p50_us']:.0f} µs | "
        f"{calls['native_p90_us']:.0f} µs | | |",
        f"| the same call from code (n={calls['n']}) | {calls['code_p50_us']:.0f} µs | "
        f"{calls['code_p90_us']:.0f} µs | | |",
        f"| overhead per call from code (difference of the medians) | {calls['overhead_p50_ms']:.3f} ms | | | "
        f"<= {CALL_TARGET_MS:.0f} ms {'ok' if call_ok else 'MISSED'} |",
        f"| the channel's part of a call from code (paired) | {calls['channel_p50_us']:.0f} µs | "
        f"{calls['channel_p90_us']:.0f} µs | | |"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=None,
                        help="the build (default: build/code_mode.duckdb, built if missing)")
    parser.add_argument("--episodes", type=int, default=20, help="episode starts to time (>= 10)")
    parser.add_argument("--calls", type=int, default=300, help="tool calls to time, over the levels (>= 200)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): 2 episode starts and 20 calls "
                             "(unless given), on a temporary build of 2 instances a level unless --db; where the "
                             "code sandbox cannot start, says why and exits 0; its figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        for name, value in {"episodes": 2, "calls": 20}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    elif args.episodes < 10 or args.calls < 200:
        parser.error("--episodes must be >= 10 and --calls >= 200")
    from mpcbench.sandbox import sandbox_status
    ok, why = sandbox_status()
    if not ok:
        message = f"the code sandbox cannot start here, nothing measured: {why}"
        if args.smoke:
            print(message)
            return
        sys.exit(message)
    with tempfile.TemporaryDirectory(prefix="mpcbench-code-mode-") as tmp:
        db_path = args.db or (Path(tmp) / "smoke.duckdb" if args.smoke else ROOT / "build" / "code_mode.duckdb")
        per_level = 2 if args.smoke else 4
        if not db_path.exists():
            print(f"building {db_path} ({per_level} instances per level) ...", flush=True)
            db_path.parent.mkdir(parents=True, exist_ok=True)
            build.build(db_path, (1, 2, 3), per_level)
        run(args, db_path)


def run(args: argparse.Namespace, db_path: Path) -> None:
    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    con = db.connect(db_path, read_only=True)
    try:
        ids = first_instances(con)
        start, calls = bench_start(con, ids, args.episodes), bench_calls(con, ids, args.calls)
    finally:
        con.close()
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "load_before": load_before, "load_after": ", ".join(f"{x:.1f}" for x in os.getloadavg())}
    print(report(start, calls, meta))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "start": start, "calls": calls}, indent=2))


if __name__ == "__main__":
    main()
