"""MPCBench as an Inspect AI task (needs `pip install 'mpcbench[inspect]'`).

    inspect eval mpcbench/scheduling -T level=2 --model openai/gpt-4o-mini          # the entry point
    inspect eval mpcbench/integrations/inspect_task.py -T level=2 -T instances=10 --model ...

The dataset is the warehouse's instances of one level (input: the prompt; target: the gold
answer as JSON, for the log viewer only). The solver plays the episode through the episode
engine (`episode.engine`) with Inspect's model as the policy: the same system prompt, the same
tools and the same `submit_candidates` schema as `mpcbench eval` (but for `maxItems` at levels 1-2,
which Inspect's `ToolParams` cannot hold: there N stays in the description),
the same step budget (`max_steps` model calls) and the same journal record. The scorer is the
oracle: the episode is scored by the warehouse's one `grading.scoring.Grader` exactly as
`mpcbench eval` scores a journal record, giving `f1` and `exact_match` as values and the failure cause, its
source and stage, precision and recall as metadata. An episode that ends in an error (the model
failed after Inspect's retries, or a harness error) raises, so Inspect records the sample as an
error, never as a miss.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import time
from functools import cache
from pathlib import Path
from typing import cast

import duckdb
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, Model, ModelOutput, get_model, messages_from_openai, messages_to_openai
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolInfo, ToolParams
from openai.types.chat import ChatCompletionMessageParam

# absolute imports: `inspect eval <this file>` loads it as a file, outside the package
from mpcbench.episode.answers import answer_arguments
from mpcbench.episode.engine import Reply, View
from mpcbench.errors import InfrastructureError, UserError
from mpcbench.grading.booking import grade_booking
from mpcbench.grading.scoring import Grader, gold_keys
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.journal import episodes_from_journal
from mpcbench.levels import LEVEL_NAMES, LEVELS
from mpcbench.warehouse import db

RECORD = "mpcbench_record"      # the episode's journal record, in the sample's store


@cache
def _connection(path: str) -> duckdb.DuckDBPyConnection:
    """One read-only connection per warehouse for the process; every sample takes its own cursor."""
    if not Path(path).exists():
        raise UserError(f"{path} does not exist; run `mpcbench build` first (or pass -T db=PATH)")
    con = db.open_existing(path, episodes=True)
    atexit.register(con.close)
    return con


@cache
def _grader(path: str) -> Grader:
    """One grader per warehouse for the process (its cursors hold the grading layer, which is
    slow to bind): every sample of every task on it is scored there."""
    grader = Grader(_connection(path))
    atexit.register(grader.close)
    return grader


def dataset(path: str, level: int, instances: int | None = None) -> MemoryDataset:
    con = _connection(path).cursor()
    rows = con.execute("select instance_id, prompt from instances where level = $level order by position",
                       {"level": level}).fetchall()[:instances]
    gold = gold_keys(con, [i for i, _ in rows])
    samples = [Sample(id=i, input=prompt, metadata={"level": level}, target=json.dumps(answer_arguments(level, gold[i])))
               for i, prompt in rows]
    return MemoryDataset(samples, name=f"mpcbench-level{level}")


async def _from_openai(messages: list[dict]) -> list[ChatMessage]:
    # the engine's conversation is OpenAI's message shape as plain dicts; Inspect types it as OpenAI's TypedDicts
    return await messages_from_openai(cast(list[ChatCompletionMessageParam], messages))


class InspectPolicy:
    """Inspect's model as a policy of the episode engine: the conversation and the tools are
    converted to Inspect's types and back (OpenAI's message shape is the engine's)."""

    name = "inspect"

    def __init__(self, model: Model):
        self.model = model
        self.output: ModelOutput | None = None

    async def reply(self, view: View) -> Reply:
        tools = [ToolInfo(name=f["name"], description=f["description"], parameters=ToolParams.model_validate(
            f["parameters"])) for f in (entry["function"] for entry in view.request["tools"])]
        try:
            self.output = await self.model.generate(await _from_openai(view.messages), tools)
        except Exception as e:  # noqa: BLE001 - the model failed after Inspect's own retries
            raise InfrastructureError("inspect_model", f"{type(e).__name__}: {e}") from e
        (message,) = await messages_to_openai([self.output.message])
        usage = self.output.usage
        return Reply(dict(message), usage.input_tokens if usage else 0, usage.output_tokens if usage else 0)


@solver
def tool_loop(db_path: str, episode_options: dict | None = None):
    """The episode engine, with Inspect's model as the policy; `episode_options`: the EpisodeSpec's
    fields (mode, step budget, turns and feedback, privacy instructions)."""
    spec = EpisodeSpec(**(episode_options or {})).checked("inspect")
    feedback = spec.feedback_giver(_connection(db_path), grader=_grader(db_path))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        started = time.perf_counter()
        policy = InspectPolicy(get_model())
        with spec.environment(_connection(db_path), str(state.sample_id)) as env:
            episode = spec.episode(env, policy, feedback=feedback)
            await episode.play()
            state.messages = await _from_openai(episode.messages)
            if policy.output is not None:
                state.output = policy.output
            state.store.set(RECORD, episode.record(trial=1, agent="inspect", model=str(state.model),
                                                   latency_s=time.perf_counter() - started))
        if episode.out.error:
            raise RuntimeError(f"the episode of {state.sample_id} ended in an error, not an answer: {episode.out.error}")
        return state

    return solve


@scorer(metrics={"f1": [mean(), stderr()], "exact_match": [mean()]})
def oracle(db_path: str):
    """The oracle's score of the episode, as `mpcbench eval` computes it from a journal record."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(RECORD)
        scored = await asyncio.to_thread(_grader(db_path).score, episodes_from_journal([record]))
        row = scored.final()[(record["instance_id"], 1)]
        answer = record["answers"][-1]
        return Score(value={"f1": row["f1"], "exact_match": float(row["exact_match"])},
                     answer=json.dumps([{"start": c["start"], "room_id": c["room_id"]} for c in answer["candidates"]]),
                     metadata={k: row.get(k) for k in ("precision", "recall", "n_pred", "n_correct", "parse_ok",
                                                       "failure_cause", "failure_source", "failure_stage",
                                                       "failure_detail")})

    return score


@scorer(metrics={"task_success": [mean(), stderr()]})
def booking_oracle(db_path: str):
    """The booking task's score of the episode (-T task=book): task_success, as `mpcbench eval
    --task book` grades the state it left (grading/booking.py), and its parts as metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(RECORD)
        graded = await asyncio.to_thread(grade_booking, _grader(db_path), episodes_from_journal([record]))
        booked = graded.get((record["instance_id"], 1)) or {}
        return Score(value={"task_success": float(bool(booked.get("task_success")))},
                     metadata={k: booked.get(k) for k in ("booked_start_ok", "attendees_ok", "room_ok",
                                                          "confirmation_ok", "extra_writes")})

    return score


_SPEC = EpisodeSpec()


@task
def scheduling(level: int = 1, db: str = str(db.DEFAULT_DB), instances: int | None = None,
               mode: str = _SPEC.mode, protocol: str = _SPEC.protocol, code_timeout_s: float = _SPEC.code_timeout_s,
               max_steps: int = _SPEC.max_steps, max_turns: int = _SPEC.max_turns, feedback: str = _SPEC.feedback,
               feedback_detail: str = _SPEC.feedback_detail, feedback_model: str | None = _SPEC.feedback_model,
               privacy_instructions: str = _SPEC.privacy_instructions, task: str = _SPEC.task) -> Task:
    """MPCBench at one level: propose the N earliest meeting times that break no constraint (or,
    with -T task=book, book the earliest: scored by task_success). The episode's options are eval's (harness.episode_spec: `-T mode=code -T max_turns=2 -T feedback=rule`)."""
    level, instances = int(level), None if instances is None else int(instances)
    if level not in LEVELS:
        raise UserError(f"level must be one of {LEVEL_NAMES}, not {level}")
    spec = EpisodeSpec(mode=mode, protocol=protocol, code_timeout_s=float(code_timeout_s), max_steps=int(max_steps),
                       max_turns=int(max_turns), feedback=feedback, feedback_detail=feedback_detail,
                       feedback_model=feedback_model, privacy_instructions=privacy_instructions, task=task)
    spec.checked("inspect")   # a bad option fails here, before any sample
    return Task(dataset=dataset(db, level, instances), solver=tool_loop(db, spec.options()),
                scorer=booking_oracle(db) if spec.task == "book" else oracle(db), name=f"mpcbench_level{level}")
