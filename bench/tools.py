"""Latency and result size of every agent tool, in-process, on a built warehouse.

    .venv/bin/python bench/tools.py --db build/mpcbench.duckdb
    .venv/bin/python bench/tools.py --smoke            # seconds, for CI (a temporary tiny build unless --db)

The calls are realistic: every call the scripted solver makes on each instance (so each
tool sees the ids, date ranges and pages an agent would ask for), plus calls of the tools the
solver does not need, with arguments taken from the same instances. Each call is timed through
`Environment.call` (argument checks, query, rendering), after one warm-up pass, `--repeat`
times, with the tools' call cache off (`episode.tools.CALL_CACHE`: a repeated call would be a hit).
Sizes are the characters of the text the agent reads; tokens are estimated as chars / 4.
Targets: p50 <= 2 ms and p99 <= 10 ms for every tool.
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

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpcbench.agents.scripted import plan  # noqa: E402
from mpcbench.episode.toolfiles import catalog  # noqa: E402
from mpcbench.episode.environment import Environment  # noqa: E402
from mpcbench.episode.tools import CALL_CACHE, HiddenFacts  # noqa: E402
from mpcbench.warehouse import build, db  # noqa: E402

P50_TARGET_MS, P99_TARGET_MS = 2.0, 10.0
SEARCH_WORDS = ("budget", "[[ban", "[[ooo", "meeting", "Update", "the", "zzz")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def extra_calls(level: int, trace, k: int) -> list[tuple[str, dict]]:
    """Calls of tools the solver does not need, with arguments from its own calls."""
    calls: list[tuple[str, dict]] = [("list_policies", {})]
    busy = [{key: v for key, v in json.loads(c.arguments).items() if key in ("person_id", "start_date", "end_date")}
            for c in trace if c.tool in ("get_busy_intervals", "list_events")]
    if level >= 2:
        calls += [("list_projects", {}), ("list_projects", {"cursor": 20 * (k % 3)}),
                  ("search_messages", {"query": SEARCH_WORDS[k % len(SEARCH_WORDS)]}),
                  ("search_policy_docs", {})]
        calls += [("list_events", {**args, "limit": 20}) for args in busy]   # smaller pages than the solver's
    if level == 3:
        calls += [("get_person", {"person_id": args["person_id"]}) for args in busy]
        calls += [("search_people", {"query": ["Ana", "Ben", "Chloe", "Daniel", "Elena"][k % 5]}),
                  ("list_rooms", {"min_capacity": 6}), ("list_rooms", {"feature": "video"})]
    return calls


def bench_level(con: duckdb.DuckDBPyConnection, level: int, instances: int, repeat: int) -> dict:
    ids = [row[0] for row in con.execute(
        "select instance_id from instances where level = $level order by position limit $n",
        {"level": level, "n": instances}).fetchall()]
    latencies: dict[str, list[float]] = {tool.name: [] for tool in catalog(level)}
    sizes: dict[str, list[int]] = {tool.name: [] for tool in catalog(level)}
    episode_chars, episode_calls = [], []
    for k, instance_id in enumerate(ids):
        with Environment(con, instance_id) as env:
            plan(env, HiddenFacts(env.data))  # the warm-up pass, and the realistic calls
            solver = list(env.trace)
            episode_chars.append(sum(len(c.result) for c in solver))
            episode_calls.append(len(solver))
            calls = [(c.tool, json.loads(c.arguments)) for c in solver] + extra_calls(level, solver, k)
            for name, arguments in calls:
                for _ in range(repeat):
                    started = time.perf_counter()
                    text = env.call(name, arguments)
                    latencies[name].append((time.perf_counter() - started) * 1000)
                if env.trace[-1].error:
                    raise RuntimeError(f"{instance_id} {name}({arguments}): {text}")
                sizes[name].append(len(text))
    tools = {}
    for name in latencies:
        lat, size = latencies[name], sizes[name]
        if not lat:
            continue
        tools[name] = {"calls": len(lat), "p50_ms": percentile(lat, 0.50), "p99_ms": percentile(lat, 0.99),
                       "max_ms": max(lat), "chars_mean": statistics.fmean(size), "chars_max": max(size),
                       "tokens_mean": statistics.fmean(size) / 4}
    return {"level": level, "instances": len(ids), "tools": tools,
            "episode": {"calls_mean": statistics.fmean(episode_calls),
                        "chars_mean": statistics.fmean(episode_chars), "chars_max": max(episode_chars),
                        "tokens_mean": statistics.fmean(episode_chars) / 4}}


def report(results: list[dict], meta: dict) -> str:
    lines = [f"Tool latency and result size — {meta['db']} ({meta['machine']}, duckdb {meta['duckdb']}, "
             f"{meta['cpus']} CPUs, threads={meta['threads']})", ""]
    lines += ["| level | tool | calls | p50 ms | p99 ms | max ms | chars mean | chars max | ~tokens mean |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        for name, t in sorted(result["tools"].items()):
            flag = "" if t["p50_ms"] <= P50_TARGET_MS and t["p99_ms"] <= P99_TARGET_MS else " ⚠"
            lines.append(f"| {result['level']} | {name}{flag} | {t['calls']} | {t['p50_ms']:.2f} | {t['p99_ms']:.2f} | "
                         f"{t['max_ms']:.1f} | {t['chars_mean']:.0f} | {t['chars_max']} | {t['tokens_mean']:.0f} |")
    lines += ["", "Per episode of the scripted solver (what an agent that reads just enough takes in):", "",
              "| level | instances | tool calls | chars mean | chars max | ~tokens mean |", "|---|---:|---:|---:|---:|---:|"]
    for result in results:
        e = result["episode"]
        lines.append(f"| {result['level']} | {result['instances']} | {e['calls_mean']:.1f} | {e['chars_mean']:.0f} | "
                     f"{e['chars_max']} | {e['tokens_mean']:.0f} |")
    every = [t for r in results for t in r["tools"].values()]
    ok = all(t["p50_ms"] <= P50_TARGET_MS and t["p99_ms"] <= P99_TARGET_MS for t in every)
    lines += ["", f"Targets p50 <= {P50_TARGET_MS} ms, p99 <= {P99_TARGET_MS} ms: "
              + ("met by every tool." if ok else "missed where marked ⚠.")]
    return "\n".join(lines)


def main() -> None:
    CALL_CACHE.enabled = False   # the queries are what is timed
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=None, help=f"the build (default: {db.DEFAULT_DB})")
    parser.add_argument("--levels", default="1,2,3")
    parser.add_argument("--instances", type=int, default=100, help="instances per level (first N)")
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats of each call")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: DuckDB's)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works (CI): 2 instances a level and 1 repeat "
                             "(unless given), on a temporary build of 2 instances a level unless --db; "
                             "its figures mean nothing")
    args = parser.parse_args()
    if args.smoke:
        for name, value in {"instances": 2, "repeat": 1}.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    with tempfile.TemporaryDirectory(prefix="mpcbench-tools-") as tmp:
        if args.db is None and args.smoke:
            args.db = Path(tmp) / "smoke.duckdb"
            print(f"building {args.db} (2 instances per level) ...", flush=True)
            build.build(args.db, (1, 2, 3), 2)
        run(args, args.db or db.DEFAULT_DB)


def run(args: argparse.Namespace, db_path: Path) -> None:
    if not db_path.exists():
        sys.exit(f"{db_path} does not exist; run `mpcbench build` first (or pass --db)")
    con = db.connect(db_path, read_only=True)
    if args.threads:
        con.execute(f"set threads = {int(args.threads)}")
    threads = con.execute("select current_setting('threads')").fetchall()[0][0]
    meta = {"db": str(db_path), "machine": platform.platform(), "python": platform.python_version(),
            "duckdb": duckdb.__version__, "cpus": os.cpu_count(), "threads": threads}
    results = [bench_level(con, int(level), args.instances, args.repeat) for level in args.levels.split(",")]
    print(report(results, meta))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "levels": results}, indent=2))


if __name__ == "__main__":
    main()
