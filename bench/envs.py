"""Throughput of the training environments with an instant policy (not a test; run by hand).

    .venv/bin/python bench/envs.py                          # builds build/bench.duckdb if missing
    .venv/bin/python bench/envs.py --db build/train.duckdb --rollouts 128 --json /tmp/envs.json
    .venv/bin/python bench/envs.py --smoke --db build/tiny.duckdb    # seconds: one repeat, few rollouts

The policy reads the clock `--clock-calls` times (24 by default), then
plays the scripted solver (`harness.rollout.program_messages`, one tool call per reply, then its
submission): its replies are computed before the clock starts, so what is timed
is the environment's own cost, scoring included. Rollouts (episodes) per second and milliseconds
per step (a step: one reply taken and answered) at concurrency 1, 8 and 32, the median of
`--repeats` runs after a warm-up run, for:

- `eval episode`: `mpcbench eval`'s own episode (`episode.engine.Episode.play` with the policy,
  its journal record, scored by the grader as eval's tables do): the baseline;
- `rollout`: the engine driven from outside (`harness.rollout`), what both environments wrap;
- `verifiers`: verifiers 0.4's eval runner (`vf-eval`'s, in process) on the `mpcbench` taskset:
  the harness's model calls go through verifiers' interception server to a fake endpoint over
  local HTTP (tests/fake_openai.py), two HTTP hops a step that the others do not pay;
- `openenv`: `mpcbench serve-env` in a subprocess, one OpenEnv WebSocket session per rollout.

The last column is the environment's time per step minus the eval episode's at concurrency 1.
verifiers needs the `train` extra and OpenEnv the `openenv` extra, which cannot share a virtualenv:
run the script once in each (the rows of the missing one say so); eval's episode and the rollout
engine are measured in both runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))   # fake_openai: the verifiers row's model endpoint

from mpcbench.agents import make_agent  # noqa: E402
from mpcbench.episode.codecs import NativeCodec  # noqa: E402
from mpcbench.episode.engine import Episode, Reply  # noqa: E402
from mpcbench.episode.environment import Environment  # noqa: E402
from mpcbench.grading.scoring import Grader  # noqa: E402
from mpcbench.harness.journal import episodes_from_journal  # noqa: E402
from mpcbench.harness.episode_spec import EpisodeSpec  # noqa: E402
from mpcbench.harness.rollout import RolloutPool, program_messages  # noqa: E402
from mpcbench.warehouse import build  # noqa: E402

MAX_STEPS = 200   # the scripted solver's calls, one a step, all fit


class Scripted:
    """An instant policy: the next of the precomputed replies."""
    name = "bench"

    def __init__(self, script: list[dict]):
        self.script, self.k = script, 0

    async def reply(self, view) -> Reply:
        self.k += 1
        return Reply(self.script[self.k - 1])


async def gathered(jobs, concurrency: int):
    limit = asyncio.Semaphore(concurrency)

    async def one(job):
        async with limit:
            return await job()
    return await asyncio.gather(*(one(j) for j in jobs))


def eval_episodes(pool: RolloutPool, grader: Grader, plan, concurrency: int) -> int:
    async def one(instance_id, script):
        cur = pool.con.cursor()
        try:
            with Environment(cur, instance_id) as env:
                episode = Episode(env, Scripted(script), NativeCodec(), max_steps=MAX_STEPS)
                await episode.play()
                record = episode.record(trial=1, agent="bench", model=None, latency_s=0.0)
        finally:
            cur.close()
        await asyncio.to_thread(grader.score, episodes_from_journal([record]))
        return len(script)
    return sum(asyncio.run(gathered([lambda i=i, s=s: one(i, s) for i, s in plan], concurrency)))


def rollouts(pool: RolloutPool, plan, concurrency: int) -> int:
    async def one(instance_id, script):
        rollout = await asyncio.to_thread(pool.open, instance_id)
        for message in script:
            await rollout.reply(message)
        await asyncio.to_thread(pool.finish, rollout)
        return len(script)
    return sum(asyncio.run(gathered([lambda i=i, s=s: one(i, s) for i, s in plan], concurrency)))


def verifiers_rollouts(db_path: Path, plan, concurrency: int) -> int:
    """`vf-eval mpcbench`'s own runner, in process (verifiers 0.4): the taskset, its harness and
    verifiers' interception server, the model an instant fake endpoint over local HTTP
    (tests/fake_openai.py) that replies the next message of the instance's script."""
    import tempfile

    from fake_openai import FakeOpenAI, reply_tool_calls
    from verifiers.v1.cli.eval.runner import run_eval as vf_run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig as VfEvalConfig

    pool = RolloutPool(db_path)
    by_prompt = {prompt: i for i, _, prompt in pool.instances()}
    pool.close()
    scripts = dict(plan)
    rollouts = len(plan) // len(scripts)   # each instance's rollouts (plan reuses the instances in turn)

    def reply(req):
        instance_id = by_prompt[next(m["content"] for m in req.messages if m["role"] == "user")]
        k = sum(1 for m in req.messages if m["role"] == "assistant")
        return reply_tool_calls([(c["function"]["name"], c["function"]["arguments"])
                                 for c in scripts[instance_id][k]["tool_calls"]])

    os.environ.setdefault("BENCH_KEY", "sk-bench")
    with FakeOpenAI(reply) as srv, tempfile.TemporaryDirectory() as out:
        config = VfEvalConfig.model_validate({
            "env": {"taskset": {"id": "mpcbench", "db": str(db_path), "level": None, "max_steps": MAX_STEPS}},
            "model": "bench", "client": {"base_url": srv.base_url, "api_key_var": "BENCH_KEY"},
            "select": {"limit": len(scripts)},   # the plan's instances: the first ones, in eval's order
            "num_rollouts": rollouts, "max_concurrent": concurrency, "push": False, "rich": None,
            "output_dir": out})
        episodes = asyncio.run(vf_run_eval(config))
    assert all(e.ok for e in episodes), [t.errors for e in episodes if not e.ok for t in e.traces][:3]
    return sum(len(scripts[e.traces[0].task.data.instance_id]) for e in episodes)


def openenv_rollouts(url: str, plan, concurrency: int) -> int:
    from openenv.core import GenericEnvClient

    async def one(instance_id, script):
        async with GenericEnvClient(base_url=url) as env:
            result = await env.reset(instance_id=instance_id)
            for message in script:
                result = await env.step({"message": message})
            assert result.done
        return len(script)
    return sum(asyncio.run(gathered([lambda i=i, s=s: one(i, s) for i, s in plan], concurrency)))


def start_server(db_path: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """`mpcbench serve-env` in a subprocess (its output into `log`: a pipe nobody reads would
    fill and stall it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "mpcbench", "serve-env", "--db", str(db_path), "--port",
                                 str(port), "--max-sessions", "64", "--max-steps", str(MAX_STEPS)],
                                stdout=out, stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"serve-env exited: {log.read_text()[-2000:]}") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("serve-env did not start in 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=None, help="a build (default: build/bench.duckdb, built if missing)")
    parser.add_argument("--rollouts", type=int, default=64, help="rollouts per measurement (instances reused)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement: the median is reported")
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--clock-calls", type=int, default=24, help="get_current_time calls before the solver's "
                        "(steps over which the scoring of a rollout is spread, as a policy's many replies would)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--smoke", action="store_true", help="one repeat and no warm-up, 2 rollouts of "
                        "2 clock calls each, concurrency 1 and 2: only shows the script works")
    args = parser.parse_args()
    if args.smoke:
        args.rollouts, args.repeats, args.concurrency, args.clock_calls = 2, 1, "1,2", 2
    db_path = args.db or ROOT / "build" / "bench.duckdb"
    if not db_path.exists():
        build.build(db_path, (1, 2, 3, 4), 20)
    levels = [int(c) for c in args.concurrency.split(",")]
    pool = RolloutPool(db_path, EpisodeSpec(max_steps=MAX_STEPS))
    ids = [i for i, _, _ in pool.instances()]
    clock = [{"role": "assistant", "content": None, "tool_calls": [{"id": f"clock_{k}", "type": "function", "function": {
        "name": "get_current_time", "arguments": "{}"}}]} for k in range(args.clock_calls)]
    used = ids[:args.rollouts]          # the plan's instances, in turn
    scripts = {i: clock + program_messages(pool.con, make_agent("scripted"), i, batch=False) for i in used}
    plan = [(used[k % len(used)], scripts[used[k % len(used)]]) for k in range(args.rollouts)]
    grader = Grader(pool.con)
    pool.warm()
    runners = {"eval episode": lambda c: eval_episodes(pool, grader, plan, c),
               "rollout": lambda c: rollouts(pool, plan, c)}
    missing: dict[str, str] = {}
    try:
        import verifiers.v1  # noqa: F401
        runners["verifiers"] = lambda c: verifiers_rollouts(db_path, plan, c)
    except ImportError:
        missing["verifiers"] = "not installed (pip install 'mpcbench[train]')"
    server = None
    try:
        import openenv  # noqa: F401
        server, url = start_server(db_path, Path(tempfile.gettempdir()) / f"serve-env-{os.getpid()}.log")
        runners["openenv"] = lambda c: openenv_rollouts(url, plan, c)
    except ImportError:
        missing["openenv"] = "not installed (pip install 'mpcbench[openenv]', in its own venv)"
    results = []
    try:
        for name, run in runners.items():
            if not args.smoke:     # warm-up, not timed: DuckDB's caches, connections
                run(1)
                run(max(levels))
            for concurrency in levels:
                times, steps = [], 0
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    steps = run(concurrency)
                    times.append(time.perf_counter() - started)
                wall = statistics.median(times)
                results.append({"environment": name, "concurrency": concurrency, "rollouts": len(plan),
                                "steps": steps, "seconds": wall, "rollouts_per_s": len(plan) / wall,
                                "ms_per_step": 1000 * wall / steps})
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        grader.close()
        pool.close()
    base = {r["concurrency"]: r["ms_per_step"] for r in results if r["environment"] == "eval episode"}
    print(f"Training environments, instant scripted policy: {len(plan)} rollouts of {len(ids)} instances, "
          f"{statistics.mean(len(s) for _, s in plan):.1f} steps each; median of {args.repeats} "
          f"({os.cpu_count()} cores)\n")
    print("| environment | concurrency | rollouts/s | ms per step | + ms per step vs eval episode (same concurrency) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in results:
        extra = r["ms_per_step"] - base[r["concurrency"]]
        print(f"| {r['environment']} | {r['concurrency']} | {r['rollouts_per_s']:.1f} | {r['ms_per_step']:.2f} | "
              f"{extra:+.2f} |")
    for name, why in missing.items():
        print(f"| {name} | - | - | - | {why} |")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "missing": missing}, indent=1))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        main()
