"""MPCBench for TRL: prompts and an episode-scored reward for `GRPOTrainer`, and the scripted
solver's episodes as conversations for `SFTTrainer` (examples/grpo.py, examples/sft.py,
`mpcbench trajectories`; docs/training.md).

    pool = RolloutPool("build/train.duckdb", EpisodeSpec(mode="context", max_steps=1))
    rows = grpo_rows(pool, level=1)               # prompt (eval's system prompt and task), instance_id
    reward = EpisodeReward(pool)                  # GRPOTrainer(reward_funcs=[reward], ...)
    reward([row["prompt"]], [[{"role": "assistant", "content": "{...}"}]], instance_id=[row["instance_id"]])

A completion is the policy's reply in an episode of the engine (`harness.rollout.Rollout`): a
reply without tool calls is a plain-text answer, read and scored as `mpcbench eval` reads and
scores it; a reply with tool calls (a chat template's parsed `tool_calls`) is run by the engine
too, and with `max_steps=1` the episode ends there, its last submission (if any) the answer. In
context mode (`mode="context"`) the prompt carries every source, so one reply can answer.
"""

from __future__ import annotations

import asyncio
import json

from ..agents import make_agent
from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.codecs import tool_call
from ..errors import UserError
from ..harness.rollout import RolloutPool, program_messages


def grpo_rows(pool: RolloutPool, level: int | None = None, instances: int | None = None) -> list[dict]:
    """One row per instance: `prompt` (the episode's opening messages: eval's system prompt and
    task, with the sources in context mode) and `instance_id` (handed to the reward)."""
    rows = []
    for instance_id, _, _ in pool.instances(level, instances):
        rollout = pool.open(instance_id)
        try:
            rows.append({"prompt": [dict(m) for m in rollout.messages], "instance_id": instance_id})
        finally:
            rollout.close()
    return rows


def _reply(completion) -> dict:
    """A TRL completion (text, or conversational: the generated messages) as an assistant message."""
    if isinstance(completion, str):
        return {"role": "assistant", "content": completion}
    message = dict(completion[-1])
    calls = [tool_call(c["function"]["name"], c["function"]["arguments"], c.get("id") or f"call_{k}")
             for k, c in enumerate(message.get("tool_calls") or [], 1)]
    return {"role": "assistant", "content": message.get("content"), "tool_calls": calls or None}


class EpisodeReward:
    """A GRPO reward function: each completion is played as the policy's reply in an episode of its
    instance and scored by the grader (`pool.finish`: sum(weight * metric), f1 by default).
    `self.scored` keeps (instance_id, reply, reward) of every completion, in order."""

    __name__ = "mpcbench"   # TRL logs a reward function under its name

    def __init__(self, pool: RolloutPool):
        self.pool = pool
        self.scored: list[tuple[str, dict, float]] = []

    def score(self, instance_id: str, reply: dict) -> float:
        rollout = self.pool.open(instance_id)
        try:
            asyncio.run(rollout.reply(reply))
        finally:
            result = self.pool.finish(rollout)
        return result.reward

    def __call__(self, prompts, completions, instance_id, **kwargs) -> list[float]:
        rewards = []
        for instance, completion in zip(instance_id, completions):
            reply = _reply(completion)
            rewards.append(self.score(instance, reply))
            self.scored.append((instance, reply, rewards[-1]))
        return rewards


def sft_rows(pool: RolloutPool, agent: str = "scripted", level: int | None = None) -> list[dict]:
    """An offline agent's episodes (the scripted solver's by default) as conversations, one tool
    call a reply, as the engine played them: `messages` (the system prompt, the task, the
    assistant's tool calls, the tools' texts, the submission) and `tools` (the function entries
    offered, as JSON). A train or dev warehouse only: demonstrations from a test split would leak
    it into training."""
    if pool.split() == "test":
        raise UserError("this warehouse holds the test split: trajectories are for training; build --split train")
    program = make_agent(agent)
    rows = []
    for instance_id, _, _ in pool.instances(level):
        rollout = pool.open(instance_id)
        try:
            for message in program_messages(pool.con, program, instance_id, batch=False):
                if rollout.done:
                    break
                asyncio.run(rollout.reply(message))
            messages, tools = [dict(m) for m in rollout.messages], json.dumps(rollout.tools)
        finally:
            result = pool.finish(rollout)
        if not any(c["function"]["name"] == SUBMIT_TOOL_NAME for m in messages for c in m.get("tool_calls") or []):
            continue   # the budget ended the episode before the submission: no demonstration
        rows.append({"messages": messages, "tools": tools, "instance_id": instance_id, "f1": result.metrics["f1"]})
    return rows
