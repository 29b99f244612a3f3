"""What one model episode sends, per level: the scripted agent's reading, replayed as a model's.

    .venv/bin/python bench/episode_size.py                        # build/mpcbench.duckdb, every instance
    .venv/bin/python bench/episode_size.py --instances 20 --json /tmp/size.json
    .venv/bin/python bench/episode_size.py --smoke --db build/tiny.duckdb   # one instance a level

The scripted agent reads every source it needs through the tools and answers exactly. Its tool
calls (from an offline run's tool_calls.parquet) are played back by a local OpenAI-compatible
server (tests/fake_openai.py) as a model's replies, one call per reply, to `mpcbench eval --agent
openai`: what the harness then sends is what a model that reads as the scripted agent does is
sent. Per level it prints the model calls per episode, the characters of the first request and of
all requests together (messages and tool schemas as JSON: each request re-sends the conversation),
and tokens at 4 characters a token (an estimate; a model's tokenizer gives its own count), and
the harness's wall time per episode with a server that answers at once.

At level 4 the scripted agent is handed the hidden facts that the prose states, so its reading
there is a floor: a model must read the prose as well. The replay runs at `--max-steps`' default
(80, `episode.engine.DEFAULT_MAX_STEPS`): read one call a reply, the reading and the submission
fit it at every level (52 model calls at most, at level 4), and the replay's exact match on every
instance shows it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI, RecordedRequest, reply_tool_calls  # noqa: E402

CHARS_PER_TOKEN = 4


def eval_run(db: Path, out: Path, instances: int | None, *options: str) -> float:
    """`mpcbench eval` as a user runs it; its wall seconds."""
    more = ["--instances", str(instances)] if instances else []
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mpcbench", "eval", "--db", str(db), "--out", str(out), *more, *options],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


class ScriptedReplay:
    """A fake model that makes the scripted agent's calls of each instance, one per reply, and
    keeps the size of every request it is sent."""

    def __init__(self, db: Path, calls: pl.DataFrame):
        con = duckdb.connect(str(db), read_only=True)
        self.by_prompt = dict(con.execute("select prompt, instance_id from instances").fetchall())
        con.close()
        self.calls = {i: list(zip(g["tool"], g["arguments"])) for (i,), g in
                      calls.sort("step").group_by("instance_id", maintain_order=True)}
        self.sizes: list[tuple[str, int]] = []      # (instance_id, characters of the request)
        self.lock = threading.Lock()

    def __call__(self, req: RecordedRequest):
        first = next(m["content"] for m in req.messages if m.get("role") == "user")
        instance_id = self.by_prompt[first]
        done = sum(1 for m in req.messages if m.get("role") == "assistant")
        with self.lock:
            self.sizes.append((instance_id, len(json.dumps(req.body["messages"])) + len(json.dumps(req.body["tools"]))))
        name, arguments = self.calls[instance_id][done]
        return reply_tool_calls([(name, arguments)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=ROOT / "build" / "mpcbench.duckdb")
    parser.add_argument("--instances", type=int, default=None, help="the first N of each level (default: all)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--smoke", action="store_true", help="one instance a level: shows the script works")
    args = parser.parse_args()
    if args.smoke:
        args.instances = 1
    if not args.db.exists():
        subprocess.run([sys.executable, "-m", "mpcbench", "build", "--db", str(args.db)], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        eval_run(args.db, Path(tmp) / "scripted", args.instances, "--agent", "scripted")
        calls = pl.read_parquet(Path(tmp) / "scripted" / "tool_calls.parquet")
        replay = ScriptedReplay(args.db, calls)
        with FakeOpenAI(replay) as srv:
            wall = eval_run(args.db, Path(tmp) / "model", args.instances, "--agent", "openai", "--model",
                            "scripted-replay", "--base-url", srv.base_url, "--concurrency", "1")
        runs = pl.read_parquet(Path(tmp) / "model" / "runs.parquet")
    assert runs["exact_match"].all(), "the replay did not answer as the scripted agent did"
    sizes = pl.DataFrame(replay.sizes, schema=["instance_id", "chars"], orient="row")
    per_episode = (sizes.group_by("instance_id").agg(calls=pl.len(), first=pl.col("chars").first(),
                                                      last=pl.col("chars").max(), total=pl.col("chars").sum())
                   .join(runs.select("instance_id", "level"), on="instance_id"))
    table = (per_episode.group_by("level").agg(
        episodes=pl.len(), calls_mean=pl.col("calls").mean(), calls_max=pl.col("calls").max(),
        first_chars=pl.col("first").mean(), last_chars_max=pl.col("last").max(), chars_mean=pl.col("total").mean(), chars_max=pl.col("total").max())
        .sort("level")
        .with_columns(tokens_mean=pl.col("chars_mean") / CHARS_PER_TOKEN, tokens_max=pl.col("chars_max") / CHARS_PER_TOKEN,
                      first_tokens=pl.col("first_chars") / CHARS_PER_TOKEN,
                      last_tokens_max=pl.col("last_chars_max") / CHARS_PER_TOKEN))
    with pl.Config(tbl_rows=10, tbl_cols=20, float_precision=0, tbl_width_chars=200):
        print(table)
    print(f"harness wall time, server answering at once, concurrency 1: {wall / runs.height:.2f} s per episode "
          f"({runs.height} episodes, {wall:.0f} s, start-up included)")
    if args.json:
        args.json.write_text(json.dumps({"levels": table.to_dicts(), "wall_s": wall, "episodes": runs.height}, indent=1))


if __name__ == "__main__":
    main()
