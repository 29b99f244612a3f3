"""MPCBench as an Inspect AI task (needs `pip install 'mpcbench[inspect]'`).

    inspect eval mpcbench/scheduling -T level=2 --model openai/gpt-4o-mini          # the entry point
    inspect eval mpcbench/integrations/inspect_task.py -T level=2 -T instances=10 --model ...

The dataset is the warehouse's instances of one level (input: the prompt; target: the gold
answer as JSON, for the log viewer only). The solver is the eval agent's loop: the eval
agent's system prompt, the level's tools as Inspect tools whose description and schema come
from the tool files and whose text comes from the same SQL (`ToolEnvironment.call`), and
`submit_candidates`; it ends at the first valid submission, at a plain-text answer (parsed
leniently, as in `mpcbench eval`) or after `max_steps` model calls. The scorer is the oracle:
the episode is scored by `grading.scoring.score_episodes` exactly as `mpcbench eval` scores a
journal record, giving `f1` and `exact_match` as values and the failure cause, its source and
stage, precision and recall as metadata.
"""

from __future__ import annotations

import atexit
import json
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, execute_tools, get_model
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

# absolute imports: `inspect eval <this file>` loads it as a file, outside the package
from mpcbench.agents.openai_agent import system_prompt
from mpcbench.episode.answers import ParsedAnswer, parse_text_answer, submit_tool
from mpcbench.episode.contract import AgentOutput
from mpcbench.episode.submission import submit_call
from mpcbench.episode.tools import ToolEnvironment
from mpcbench.errors import UserError
from mpcbench.grading.scoring import gold_keys, score_episodes
from mpcbench.harness.journal import episode_record, episodes_from_journal, turn_answer
from mpcbench.sources import LEVELS
from mpcbench.warehouse import db

RECORD = "mpcbench_record"      # the episode's journal record, in the sample's store


@cache
def _connection(path: str) -> duckdb.DuckDBPyConnection:
    """One read-only connection per warehouse for the process; every sample takes its own cursor."""
    if not Path(path).exists():
        raise UserError(f"{path} does not exist; run `mpcbench build` first (or pass -T db=PATH)")
    con = db.open_existing(path)
    atexit.register(con.close)
    return con


def dataset(path: str, level: int, instances: int | None = None) -> MemoryDataset:
    con = _connection(path).cursor()
    rows = con.execute("select instance_id, prompt from instances where level = $level order by position",
                       {"level": level}).fetchall()[:instances]
    gold = gold_keys(con, [i for i, _ in rows])
    samples = [Sample(id=i, input=prompt, metadata={"level": level}, target=json.dumps(
        {"candidates": [{"start": s, **({"room_id": r} if level >= 3 else {})} for s, r in gold[i]]}))
        for i, prompt in rows]
    return MemoryDataset(samples, name=f"mpcbench-level{level}")


def episode_tools(env: ToolEnvironment, submitted: list[ParsedAnswer]) -> list:
    """The level's tools and submit_candidates as Inspect tools over one episode's environment."""

    def data_tool(name: str):
        async def call(**kwargs: Any) -> str:
            return env.call(name, kwargs)
        return call

    async def submit(**kwargs: Any) -> str:
        answer = submit_call(env, kwargs)
        if answer.parse_ok:
            submitted.append(answer)
        return env.trace[-1].result

    specs = [(spec.name, spec.description, spec.parameters, data_tool(spec.name)) for spec in env.tools]
    function = submit_tool(env.level)["function"]
    specs.append((function["name"], function["description"], function["parameters"], submit))
    return [ToolDef(call, name=name, description=description, parameters=ToolParams.model_validate(schema)).as_tool()
            for name, description, schema, call in specs]


@solver
def tool_loop(db_path: str, max_steps: int = 30):
    """The eval agent's loop, with Inspect's model and tool execution."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        level = int(state.metadata["level"])
        submitted: list[ParsedAnswer] = []
        with ToolEnvironment(_connection(db_path), str(state.sample_id)) as env:
            state.messages = [ChatMessageSystem(content=system_prompt(level)), ChatMessageUser(content=env.prompt)]
            state.tools = episode_tools(env, submitted)
            output = AgentOutput(answer=None)
            model = get_model()
            while output.steps < max_steps and not submitted:
                state.output = await model.generate(state.messages, state.tools)
                output.steps += 1
                output.prompt_tokens += state.output.usage.input_tokens if state.output.usage else 0
                output.completion_tokens += state.output.usage.output_tokens if state.output.usage else 0
                state.messages.append(state.output.message)
                if not state.output.message.tool_calls:
                    output.answer = parse_text_answer(state.output.message.text, level)
                    break
                state.messages.extend((await execute_tools(state.messages, state.tools)).messages)
            output.answer = submitted[-1] if submitted else output.answer
            state.store.set(RECORD, episode_record(
                instance_id=env.instance_id, trial=1, level=level, agent="inspect", model=str(state.model),
                mode="tools", output=output, answers=[turn_answer(output, level, 1)], trace=env.trace, latency_s=0.0))
        return state

    return solve


@scorer(metrics={"f1": [mean(), stderr()], "exact_match": [mean()]})
def oracle(db_path: str):
    """The oracle's score of the episode, as `mpcbench eval` computes it from a journal record."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(RECORD)
        row = score_episodes(_connection(db_path), episodes_from_journal([record])).final()[(record["instance_id"], 1)]
        answer = record["answers"][-1]
        return Score(value={"f1": row["f1"], "exact_match": float(row["exact_match"])},
                     answer=json.dumps([{"start": c["start"], "room_id": c["room_id"]} for c in answer["candidates"]]),
                     metadata={k: row.get(k) for k in ("precision", "recall", "n_pred", "n_correct", "parse_ok",
                                                       "failure_cause", "failure_source", "failure_stage",
                                                       "failure_detail")})

    return score


@task
def scheduling(level: int = 1, db: str = str(db.DEFAULT_DB), instances: int | None = None,
               max_steps: int = 30) -> Task:
    """MPCBench at one level: propose the N earliest meeting times that break no constraint."""
    level, instances = int(level), None if instances is None else int(instances)
    if level not in LEVELS:
        raise UserError(f"level must be 1, 2, 3 or 4, not {level}")
    return Task(dataset=dataset(db, level, instances), solver=tool_loop(db, int(max_steps)), scorer=oracle(db),
                name=f"mpcbench_level{level}")
