"""`legacy pipeline`: every task x agent model x judge model, end to end, into one scores table.

    config = PipelineConfig(agent_models=("offline:scripted", "offline:bad"),
                            judge_models=("offline:heuristic",), provider="mock")
    scores = run_pipeline(config, Endpoint())      # -> build/legacy/scores.parquet

For each task (default: every task of the archive) the scenario's data is generated when it is
missing (with `provider`; `regenerate` always) and loaded into the legacy DuckDB file; then
each agent model runs the task (`<task>__agent-<model>_run.json`) and each judge model scores
it (`..._judge_input.json`, `..._judge_result.json`), the seed's per-file logs under `logs/`.
`scores.parquet` has one row per (task, agent model, judge model); `pipeline.json` the
options (no secret). Episodes run concurrently, at most `concurrency` at a time.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import polars as pl

from .archive import load_task, task_paths
from .generate import generate
from .judge import AXES, JUDGE_ATTEMPTS, build_judge_input, judge, judge_result
from .layout import DEFAULT_ROOT, Layout, write_json, write_parquet
from .models import Endpoint
from .run import MAX_STEPS, run_task
from .warehouse import open_warehouse

SCORES = "scores.parquet"
SCORE_SCHEMA = {"scenario_id": pl.String, "task_id": pl.String, "task_type": pl.String, "agent_model": pl.String,
                "judge_model": pl.String, "judge_status": pl.String, AXES[0]: pl.Int64, AXES[1]: pl.Int64,
                "judge_attempts": pl.Int64, "judge_error": pl.String, "tool_calls": pl.Int64, "tool_errors": pl.Int64,
                "answer_parse_ok": pl.Boolean, "agent_steps": pl.Int64, "agent_error": pl.String}


@dataclasses.dataclass
class PipelineConfig:
    agent_models: tuple[str, ...]
    judge_models: tuple[str, ...]
    root: Path = DEFAULT_ROOT
    provider: str = "replay"                 # how missing data is generated: mock | replay | openai
    regenerate: bool = False
    tasks: tuple[Path, ...] = ()             # default: every task of the archive
    concurrency: int = 4
    max_steps: int = MAX_STEPS
    judge_attempts: int = JUDGE_ATTEMPTS
    judge_constrained: bool = False          # send the judge reply's JSON Schema as response_format


class Progress:
    """What the pipeline reports as it goes (the CLI draws a bar); this one reports nothing."""

    def start(self, total: int) -> None:
        pass

    def advance(self, what: str) -> None:
        pass


def run_pipeline(config: PipelineConfig, endpoint: Endpoint, progress: Progress | None = None) -> Path:
    progress = progress or Progress()
    layout = Layout(config.root)
    tasks = [load_task(p) for p in (config.tasks or task_paths())]
    scenarios = sorted({t["scenario_id"] for t in tasks})
    for scenario_id in scenarios:
        if config.regenerate or not layout.data(scenario_id).is_dir():
            generate(scenario_id, config.provider, layout, endpoint=endpoint if config.provider == "openai" else None)
    con = open_warehouse(layout, scenarios)
    try:
        progress.start(len(tasks) * len(config.agent_models))
        rows = asyncio.run(_run_all(con, tasks, config, endpoint, layout, progress))
    finally:
        con.close()
    write_json(layout.root / "pipeline.json", {
        "tasks": [t["task_id"] for t in tasks], "agent_models": list(config.agent_models),
        "judge_models": list(config.judge_models), "provider": config.provider, "max_steps": config.max_steps,
        "judge_attempts": config.judge_attempts, "endpoint": endpoint.public()})
    frame = pl.DataFrame(rows, schema=SCORE_SCHEMA, orient="row").sort("scenario_id", "task_id", "agent_model", "judge_model")
    return write_parquet(layout.root / SCORES, frame)


async def _run_all(con, tasks: list[dict], config: PipelineConfig, endpoint: Endpoint, layout: Layout,
                   progress: Progress) -> list[dict]:
    limit = asyncio.Semaphore(config.concurrency)

    async def episode(task: dict, agent: str) -> list[dict]:
        async with limit:
            log = await run_task(con, task, agent, endpoint, config.max_steps)
            write_json(layout.run_log(task["task_id"], agent), log)
            rows = []
            for judge_model in config.judge_models:
                judge_input = build_judge_input(log, task)
                write_json(layout.judge_input(task["task_id"], agent, judge_model), judge_input)
                outcome = await judge(judge_input, judge_model, endpoint, attempts=config.judge_attempts,
                                      constrained=config.judge_constrained)
                write_json(layout.judge_result(task["task_id"], agent, judge_model),
                           judge_result(task["task_id"], agent, judge_model, outcome))
                rows.append(_row(task, log, judge_model, outcome))
            progress.advance(f"{task['task_id']} · {agent}")
            return rows

    try:
        done = await asyncio.gather(*(episode(t, a) for t in tasks for a in config.agent_models))
    finally:
        await endpoint.aclose()
    return [row for rows in done for row in rows]


def _row(task: dict, log: dict, judge_model: str, outcome: dict) -> dict:
    score = {axis: outcome[axis]["score"] if outcome[axis] else None for axis in AXES}
    calls = log["raw_tool_calls"]
    return {"scenario_id": task["scenario_id"], "task_id": task["task_id"], "task_type": task["task_type"],
            "agent_model": log["agent_model"], "judge_model": judge_model, "judge_status": outcome["status"], **score,
            "judge_attempts": outcome["attempts"], "judge_error": outcome["error"], "tool_calls": len(calls),
            "tool_errors": sum(1 for c in calls if c["error"]), "answer_parse_ok": log["answer_parse_ok"],
            "agent_steps": log["steps"], "agent_error": log["error"]}
