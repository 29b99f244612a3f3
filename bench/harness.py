"""Benchmark of the eval harness against a local OpenAI-compatible server (not a test; run by hand).

    .venv/bin/python bench/harness.py                      # builds build/bench.duckdb if missing
    .venv/bin/python bench/harness.py --db build/dev.duckdb --json /tmp/harness.json

The server (`bench/harness.py serve`, started in a subprocess so it never competes with the
harness for the GIL) is a minimal asyncio HTTP/1.1 server with keep-alive that plays a model:
each episode makes STEPS - 1 tool calls (one per reply, cheap tools) and then submits. It
answers after `--delay` seconds and counts the time it spends on each request itself.

1. Overhead per agent step, server at zero latency, concurrency 1, per level: the wall time of
   the episodes divided by their model calls, minus the server's own time per request. What is
   left is the harness: the openai SDK and HTTP client, building and hashing the request, the
   response cache, running the tool through DuckDB, and the journal. Target: <= 5 ms.
2. Throughput with a server that answers in 200 ms, at concurrency 1, 8, 32 and 64 (episodes
   per second over the episode phase, from the first episode started to the last one
   journaled). Target: speed-up >= 0.8 x concurrency up to 32.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STEPS = 3
OVERHEAD_TARGET_MS = 5.0
SPEEDUP_TARGET = 0.8
TOOLS = ("get_current_time", "list_policies")
MODEL = "bench-model"


# --- the server -------------------------------------------------------------------------------

def reply(body: dict, index: int) -> dict:
    messages = body.get("messages") or []
    done = sum(1 for m in messages if m.get("role") == "assistant")
    level3 = any(t["function"]["name"] == "list_rooms" for t in body.get("tools") or [])
    if done < STEPS - 1:
        name, args = TOOLS[done % len(TOOLS)], {}
    else:
        candidate = {"start": "2026-03-02T09:00", **({"room_id": "R-1"} if level3 else {})}
        name, args = "submit_candidates", {"candidates": [candidate]}
    message = {"role": "assistant", "content": None,
               "tool_calls": [{"id": f"call_{index}", "type": "function",
                               "function": {"name": name, "arguments": json.dumps(args)}}]}
    return {"id": f"chatcmpl-{index}", "object": "chat.completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}


def answer_get(path: str, stats: dict) -> tuple[str, dict]:
    """A GET as a real server answers it: `/v1/models` (what `mpcbench eval --agent openai` asks
    before a run) lists the one model, anything else but the bench's `/stats` is a 404 (as
    OpenAI answers llama.cpp's `/props` and `/slots`, which the preflight also tries)."""
    if path == "/stats":
        return "200 OK", stats
    if path in ("/v1/models", "/models"):
        return "200 OK", {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0,
                                                      "owned_by": "bench"}]}
    return "404 Not Found", {"error": {"message": f"no such path: {path}", "type": "invalid_request_error",
                                       "param": None, "code": None}}


async def serve(port: int, delay: float) -> None:
    stats = {"requests": 0, "busy_s": 0.0}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                length = 0
                while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = header.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                data = await reader.readexactly(length) if length else b""
                method, path = (line.decode("latin-1").split() + ["", ""])[:2]
                started = time.perf_counter()
                if method == "GET":          # the harness's preflight and the bench's /stats: not counted
                    status, body = answer_get(path.split("?")[0], stats)
                else:
                    status = "200 OK"
                    stats["requests"] += 1
                    body = reply(json.loads(data), stats["requests"])
                    stats["busy_s"] += time.perf_counter() - started
                    if delay:
                        await asyncio.sleep(delay)
                payload = json.dumps(body).encode()
                writer.write(f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: "
                             f"{len(payload)}\r\n\r\n".encode() + payload)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=512)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class Server:
    """`bench/harness.py serve` in a subprocess."""

    def __init__(self, delay: float):
        self.proc = subprocess.Popen([sys.executable, __file__, "serve", "--delay", str(delay)],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict:
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as r:
            return json.loads(r.read())

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait()


# --- the harness ------------------------------------------------------------------------------

def timed_run(db_path: Path, base_url: str, out: Path, **options) -> tuple[float, dict]:
    """Run an eval; (seconds from the first episode to the last, the run's summary)."""
    from mpcbench.harness.config import EvalConfig
    from mpcbench.harness.runner import Progress, run_eval

    class Clock(Progress):
        first = last = 0.0

        def start(self, total: int, done: int) -> None:
            self.first = time.perf_counter()

        def episode(self, record: dict, f1, exact) -> None:
            self.last = time.perf_counter()

    clock = Clock()
    result = run_eval(EvalConfig(agent="openai", model=MODEL, base_url=base_url, db=str(db_path),
                                 out=str(out), max_steps=STEPS + 2, **options), progress=clock)
    return clock.last - clock.first, {"episodes": result.episodes, "summary": result.summary}


def overhead(db_path: Path, work: Path, episodes: int, warm_up: bool = True) -> list[dict]:
    rows = []
    with Server(0.0) as server:
        if warm_up:
            timed_run(db_path, server.base_url, work / "warmup", levels=(1,), instances=2, concurrency=1)
        for level in (1, 2, 3):
            before = server.stats()
            seconds, _ = timed_run(db_path, server.base_url, work / f"overhead-l{level}", levels=(level,),
                                   instances=episodes, concurrency=1)
            after = server.stats()
            calls = after["requests"] - before["requests"]
            server_ms = (after["busy_s"] - before["busy_s"]) * 1000 / calls
            per_step = seconds * 1000 / calls
            rows.append({"level": level, "episodes": episodes, "model_calls": calls, "ms_per_step": per_step,
                         "server_ms_per_step": server_ms, "harness_ms_per_step": per_step - server_ms})
    return rows


def throughput(db_path: Path, work: Path, levels: tuple[int, ...], concurrencies: list[int],
               delay: float, per_slot: int, warm_up: bool = True) -> list[dict]:
    rows = []
    with Server(delay) as server:
        if warm_up:
            timed_run(db_path, server.base_url, work / "warmup-t", levels=(1,), instances=1, concurrency=1)
        per_trial = count_instances(db_path, levels)
        for c in concurrencies:
            episodes = max(8, per_slot * c)
            if episodes <= per_trial:
                size = {"instances": episodes}
            else:
                size = {"trials": -(-episodes // per_trial)}
            seconds, info = timed_run(db_path, server.base_url, work / f"tp-{c}", levels=levels, concurrency=c,
                                      **size)
            n = info["episodes"]
            rows.append({"concurrency": c, "episodes": n, "seconds": seconds, "episodes_per_s": n / seconds,
                         "ideal_per_s": c / (STEPS * delay)})
    base = rows[0]["episodes_per_s"]
    for row in rows:
        row["speedup"] = row["episodes_per_s"] / base
        row["target"] = SPEEDUP_TARGET * row["concurrency"] if row["concurrency"] <= 32 else None
        row["meets_target"] = row["target"] is None or row["speedup"] >= row["target"]
    return rows


def count_instances(db_path: Path, levels: tuple[int, ...]) -> int:
    from mpcbench.warehouse import db
    con = db.connect(db_path, read_only=True)
    try:
        return con.execute("select count(*) from instances where list_contains($l, level)",
                           {"l": list(levels)}).fetchall()[0][0]
    finally:
        con.close()


SMOKE = {"overhead_episodes": 2, "delay": 0.02, "concurrency": "1,4", "per_slot": 1}   # --smoke: seconds, for CI


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--db", type=Path, default=None,
                        help="the build to run on (default: build/bench.duckdb, built if missing)")
    parser.add_argument("--overhead-episodes", type=int, default=20, help="episodes per level for the overhead")
    parser.add_argument("--delay", type=float, default=0.2, help="the slow server's answer time (s)")
    parser.add_argument("--concurrency", default="1,8,32,64")
    parser.add_argument("--per-slot", type=int, default=4, help="episodes per concurrency slot")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run that only shows the bench works: a temporary build of 2 instances a level "
                             "(unless --db), 2 overhead episodes a level, a 20 ms server at concurrency 1 and 4 "
                             "(options given explicitly still count), no warm-up runs; its figures mean nothing")
    args = parser.parse_args()
    if args.command == "serve":
        asyncio.run(serve(args.port, args.delay))
        return
    if args.smoke:
        for name, value in SMOKE.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-local")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db_path = args.db or (work / "smoke.duckdb" if args.smoke else ROOT / "build" / "bench.duckdb")
        if not db_path.exists():
            from mpcbench.warehouse import build
            per_level = 2 if args.smoke else 20
            print(f"building {db_path} ({per_level} instances per level) ...", flush=True)
            db_path.parent.mkdir(parents=True, exist_ok=True)
            build.build(db_path, (1, 2, 3), per_level)
        over = overhead(db_path, work, args.overhead_episodes, warm_up=not args.smoke)
        tp = throughput(db_path, work, (1,), [int(c) for c in args.concurrency.split(",")], args.delay,
                        args.per_slot, warm_up=not args.smoke)

    print(f"\nHarness overhead per agent step (zero-latency server, concurrency 1, {STEPS} model calls/episode)")
    print(f"{'level':>5} {'calls':>6} {'ms/step':>8} {'server ms':>10} {'harness ms':>11}  target <= {OVERHEAD_TARGET_MS} ms")
    for r in over:
        ok = "ok" if r["harness_ms_per_step"] <= OVERHEAD_TARGET_MS else "MISSED"
        print(f"{r['level']:>5} {r['model_calls']:>6} {r['ms_per_step']:>8.2f} {r['server_ms_per_step']:>10.2f} "
              f"{r['harness_ms_per_step']:>11.2f}  {ok}")
    print(f"\nThroughput (server answers in {args.delay * 1000:.0f} ms, level 1, {STEPS} model calls/episode)")
    print(f"{'conc.':>5} {'episodes':>8} {'seconds':>8} {'ep/s':>7} {'ideal':>7} {'speed-up':>9} {'target':>7}")
    for r in tp:
        target = "—" if r["target"] is None else f">={r['target']:.1f}"
        flag = "" if r["meets_target"] else "  MISSED"
        print(f"{r['concurrency']:>5} {r['episodes']:>8} {r['seconds']:>8.2f} {r['episodes_per_s']:>7.2f} "
              f"{r['ideal_per_s']:>7.2f} {r['speedup']:>9.2f} {target:>7}{flag}")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"\n{machine}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "overhead": over, "throughput": tp}, indent=2))


if __name__ == "__main__":
    main()
