"""MPCBench as an environment of Prime Intellect's `verifiers` (`pip install 'mpcbench[train]'`).

    vf-eval mpcbench -a '{"level": 2, "db": "build/train.duckdb"}' -m gpt-4.1-mini -n 20 -r 3
    env = vf.load_environment("mpcbench", level=2, db="build/train.duckdb")     # or, in Python
    env = load_environment(level=2, split="train")                             # this module

`verifiers` finds an environment by importing the module its id names and calling its
`load_environment`: the id `mpcbench` imports the package, whose `load_environment` is this
module's (the id `mpcbench.integrations.verifiers_env` names this module itself).

`load_environment` returns a `vf.ToolEnv` whose dataset is the warehouse's instances of one
level and whose every rollout is an episode of the engine (`harness.rollout.Rollout`): the
system prompt, the task and the tools (the level's, with their JSON Schemas, and
`submit_candidates` with `maxItems` = N at levels 1-2) are the ones `mpcbench eval` gives that
instance; each assistant message goes through `Episode.act`, so a tool returns exactly the text
`mpcbench tools call` prints, a submission that fails its schema comes back as an error to fix,
and a valid `submit_candidates` call (or a plain-text answer) ends the rollout. The step budget is
`max_steps` model replies, as in eval.

The rubric scores the episode's journal record with the oracle's grader, as `mpcbench eval`
does: reward = sum(weight * metric) over `f1` and `exact_match` (default weights: f1 1.0,
exact_match 0.0; `weights=` to change them), with `f1`, `exact_match`, `precision`, `recall`,
`first_correct`, `ndcg`, `over_submitted`, `parse_ok`, `harness_error` and `failure_<cause>` (1
for the episode's failure cause or its source, e.g. `failure_policy` for `policy:blackout`) as metrics. Answers past N are
cut as in eval. Nothing the policy writes reaches the labels: the tools only read.
"""

from __future__ import annotations

import asyncio
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import verifiers as vf  # verifiers 0.2.x: the ToolEnv API
from datasets import Dataset
from verifiers.utils.message_utils import normalize_messages

from mpcbench.episode.prompts import system_prompt
from mpcbench.errors import UserError
from mpcbench.grading.scoring import gold_keys
from mpcbench.harness.rollout import METRICS, PRIVACY_METRICS, Rollout, RolloutPool
from mpcbench.sources import LEVELS
from mpcbench.warehouse import db as warehouse

ROLLOUT, RESULT = "mpcbench_rollout", "mpcbench_result"
# a metric per failure cause (its source for a violation: `policy:blackout` counts as `policy`)
CAUSES = ("answer", "calendar", "policy", "threads", "rooms", "ranking", "too_few_candidates", "parse_failure",
          "unexplained")


@cache
def _pool(db: str, mode: str, max_steps: int, privacy_instructions: str, weights: str,
          privacy_metrics: bool) -> RolloutPool:
    pool = RolloutPool(db, mode=mode, max_steps=max_steps, privacy_instructions=privacy_instructions,
                       weights=json.loads(weights) if weights else None, privacy_metrics=privacy_metrics)
    pool.warm()
    return pool


def _message(message: Any) -> dict:
    """A verifiers assistant message as the engine reads it (OpenAI's shape)."""
    calls = getattr(message, "tool_calls", None) or []
    content = getattr(message, "content", None)
    return {"role": "assistant", "content": content if isinstance(content, str) or content is None else str(content),
            "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                           for c in calls] or None}


def cause_metric(cause: str | None) -> str | None:
    """The metric of a failure cause: `policy:blackout` -> `failure_policy`, `ranking` -> `failure_ranking`."""
    return None if cause is None else "failure_" + re.sub(r"[^a-z0-9]+", "_", cause.split(":")[0].lower()).strip("_")


class MPCBenchEnv(vf.ToolEnv):
    """The ToolEnv whose rollouts are episodes of the engine (see the module docstring)."""

    def __init__(self, pool: RolloutPool, **kwargs):
        self.pool = pool
        super().__init__(tools=[], max_turns=pool.max_steps, **kwargs)

    async def setup_state(self, state: vf.State) -> vf.State:
        info = state["info"]
        rollout = await asyncio.to_thread(self.pool.open, info["instance_id"])
        state[ROLLOUT] = rollout
        state["prompt"] = normalize_messages(rollout.messages[:2], field_name="input.prompt")
        state["tool_defs"] = self._normalize_tool_defs([f["function"] for f in rollout.tools]) or []
        return await super().setup_state(state)

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs) -> vf.Messages:
        rollout: Rollout = state[ROLLOUT]
        back = await rollout.reply(_message(messages[-1]))
        out = [vf.ToolMessage(tool_call_id=m.get("tool_call_id") or "", content=m["content"]) for m in back]
        if rollout.done:
            state["final_env_response"] = out
        return out

    @vf.cleanup(priority=50)
    async def score_episode(self, state: vf.State) -> None:
        """End the episode (a last plain-text reply is its answer, as in eval) and score it."""
        rollout: Rollout | None = state.get(ROLLOUT)
        if rollout is None or state.get(RESULT) is not None:
            return
        last = state["trajectory"][-1]["completion"][-1] if state["trajectory"] else None
        if not rollout.done and last is not None and getattr(last, "role", None) == "assistant" \
                and not getattr(last, "tool_calls", None):
            await rollout.reply(_message(last))
        result = await asyncio.to_thread(self.pool.finish, rollout)
        metrics = dict(result.metrics)
        for cause in CAUSES:
            metrics[f"failure_{cause}"] = 0.0
        name = cause_metric(result.failure_cause)
        if name is not None:
            metrics[name] = 1.0
        state[RESULT] = {"reward": result.reward, "metrics": metrics, "failure_cause": result.failure_cause,
                         "record": result.record}
        state[ROLLOUT] = None


def _metric(name: str):
    async def metric(state: vf.State) -> float:
        return float((state.get(RESULT) or {}).get("metrics", {}).get(name, 0.0))
    metric.__name__ = name
    return metric


async def reward(state: vf.State) -> float:
    """The episode's reward: sum(weight * metric), the weights of `load_environment(weights=...)`."""
    return float((state.get(RESULT) or {}).get("reward", 0.0))


def dataset(pool: RolloutPool, level: int, instances: int | None, mode: str, privacy: bool) -> Dataset:
    """One row per instance: the engine's system prompt and task (context and code mode: set
    again from the episode as it opens), the gold answer (for display only) and the instance."""
    rows = pool.instances(level, instances)
    gold = gold_keys(pool.con, [i for i, _, _ in rows])
    return Dataset.from_list([{
        "prompt": [{"role": "system", "content": system_prompt(lv, mode=mode, privacy=privacy)},
                   {"role": "user", "content": prompt}],
        "answer": json.dumps({"candidates": [{"start": s, **({"room_id": r} if lv >= 3 else {})}
                                             for s, r in gold[i]]}),
        "info": json.dumps({"instance_id": i, "level": lv})}
        for i, lv, prompt in rows])


def load_environment(level: int = 1, split: str | None = None, db: str | None = None, mode: str = "tools",
                     privacy_instructions: str = "off", instances: int | None = None, max_steps: int = 30,
                     weights: dict[str, float] | None = None, privacy_metrics: bool = False,
                     **kwargs) -> MPCBenchEnv:
    """The MPCBench ToolEnv of one level. `db`: the warehouse (a DuckDB file or `build --out`
    directory; default build/mpcbench.duckdb, or build/<split>.duckdb when `split` is given);
    `split`: the split the warehouse must hold (refused otherwise: train on `train`, report on a
    private `test`); `weights`: the reward's weights over the metrics (default {"f1": 1.0});
    `privacy_metrics`: the privacy track's figures as metrics too (on when a weight names one)."""
    level = int(level)
    if level not in LEVELS:
        raise UserError(f"level must be 1, 2, 3 or 4, not {level}")
    path = str(db or (Path(warehouse.DEFAULT_DB).with_name(f"{split}.duckdb") if split else warehouse.DEFAULT_DB))
    pool = _pool(path, mode, int(max_steps), privacy_instructions, json.dumps(weights, sort_keys=True) if weights else "",
                 bool(privacy_metrics))
    if split is not None and pool.split() != split:
        raise UserError(f"{path} holds the {pool.split()} split, not {split}")
    rubric = vf.Rubric(funcs=[reward], weights=[1.0])
    privacy = PRIVACY_METRICS if pool.privacy_metrics else ()
    for name in (*METRICS, *privacy, "harness_error", *(f"failure_{c}" for c in CAUSES)):
        rubric.add_metric(_metric(name))
    rows = dataset(pool, level, instances, mode, privacy_instructions == "on")
    return MPCBenchEnv(pool, dataset=rows, eval_dataset=rows, rubric=rubric, env_id="mpcbench",
                       env_args={"level": level, "split": split, "db": path, "mode": mode}, **kwargs)
