"""MPCBench as an OpenEnv environment (`openenv-core`; `pip install 'mpcbench[train]'`), served over
HTTP by OpenEnv's own server: `mpcbench serve-env --db build/train.duckdb --level 2 --port 8000`.

    from openenv.core import GenericEnvClient
    async with GenericEnvClient(base_url="http://127.0.0.1:8000") as env:     # one session = one episode
        result = await env.reset(instance_id="L2-0007")       # or seed=3, or nothing: the next instance
        result.observation["messages"]   # the system prompt and the task (mpcbench eval's)
        result.observation["tools"]      # the tools, OpenAI function entries (submit_candidates last)
        result = await env.step({"tool": "list_threads", "arguments": {"project_id": "P-01"}})
        result.observation["text"]       # exactly what `mpcbench tools call` prints
        result = await env.step({"tool": "submit_candidates", "arguments": {"candidates": [...]}})
        result.done, result.reward, result.observation["metrics"]   # f1, exact_match, failure cause, ...

An action is one tool call (`tool`, `arguments`) or a whole assistant message in OpenAI's shape
(`message`: `content` and `tool_calls`; a message without tool calls is a plain-text answer).
Every step goes through the engine (`Episode.step`, via `harness.rollout.Rollout`, as the MCP
session does), so the texts, the schema errors of a bad submission, the step budget and the end
of the episode are `mpcbench eval`'s; after a valid submission (or a text answer, or the last
step) the episode is scored from its journal record by the oracle's grader and the observation
has `done`, the `reward` (weights as in `harness.rollout.REWARD_WEIGHTS`) and the metrics.

Each WebSocket session (`/ws`, what OpenEnv's clients open) has an environment of its own, so
sessions run side by side (up to `max_sessions`); they share one read-only warehouse and grader.
OpenEnv's stateless HTTP `/reset` and `/step` make an environment per request and cannot hold an
episode: use a client (a session).
"""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from mpcbench.episode.answers import SUBMIT_TOOL_NAME
from mpcbench.episode.codecs import tool_call, tool_call_message
from mpcbench.harness.rollout import Result, Rollout, RolloutPool


class MPCBenchAction(Action):
    tool: str | None = Field(default=None, description="A tool to call (or submit_candidates)")
    arguments: dict[str, Any] | str | None = Field(default=None, description="Its arguments (JSON object or text)")
    message: dict[str, Any] | None = Field(default=None, description="Or a whole assistant message (OpenAI shape)")


class MPCBenchObservation(Observation):
    instance_id: str = ""
    level: int = 0
    messages: list[dict[str, Any]] = Field(default_factory=list, description="The new messages (reset: system, task)")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The tools offered (on reset)")
    text: str = Field(default="", description="The tool's text (the texts of a message's calls, one per line)")
    is_error: bool = False
    steps_left: int = 0
    metrics: dict[str, float] = Field(default_factory=dict, description="When done: f1, exact_match, ...")
    failure_cause: str | None = None


class MPCBenchState(State):
    instance_id: str | None = None
    level: int | None = None
    split: str = "dev"


class MPCBenchEnvironment(Environment):
    """One session's environment: one episode at a time, of the pool's instances of `level`."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, pool: RolloutPool, level: int | None = None, instances: list[str] | None = None):
        super().__init__()
        self.pool = pool
        self.ids = instances if instances is not None else [i for i, _, _ in pool.instances(level)]
        self.rollout: Rollout | None = None
        self.result: Result | None = None
        self._state = MPCBenchState(split=pool.split())
        self._next = 0

    def _instance(self, seed: int | None, instance_id: str | None) -> str:
        if instance_id is not None:
            return instance_id
        if seed is not None:
            return random.Random(seed).choice(self.ids)
        chosen = self.ids[self._next % len(self.ids)]
        self._next += 1
        return chosen

    def reset(self, seed: int | None = None, episode_id: str | None = None, instance_id: str | None = None,
              **kwargs: Any) -> MPCBenchObservation:
        self.close()
        rollout = self.pool.open(self._instance(seed, instance_id))
        self.rollout, self.result = rollout, None
        self._state = MPCBenchState(episode_id=episode_id, step_count=0, instance_id=rollout.instance_id,
                                    level=rollout.level, split=self._state.split)
        return MPCBenchObservation(instance_id=rollout.instance_id, level=rollout.level,
                                   messages=list(rollout.messages), tools=rollout.tools,
                                   steps_left=rollout.steps_left, done=False, reward=None)

    async def step_async(self, action: MPCBenchAction, timeout_s: float | None = None,
                         **kwargs: Any) -> MPCBenchObservation:
        rollout = self.rollout
        if rollout is None:
            return MPCBenchObservation(text="error: no episode; call reset first", is_error=True, done=True)
        message = action.message or tool_call_message(
            tool_call(action.tool or "", action.arguments, f"call_{self._state.step_count + 1}"))
        back = await rollout.reply(message)
        self._state.step_count += 1
        calls = [c for c in rollout.env.trace[-len(back):]] if back else []
        observation = MPCBenchObservation(
            instance_id=rollout.instance_id, level=rollout.level, messages=back,
            text="\n".join(m["content"] for m in back), is_error=any(c.error for c in calls),
            steps_left=rollout.steps_left, done=False, reward=None)
        if rollout.done:
            self.result = result = await asyncio.to_thread(self.pool.finish, rollout)
            self.rollout = None
            observation.done, observation.reward = True, result.reward
            observation.metrics, observation.failure_cause = result.metrics, result.failure_cause
        return observation

    def step(self, action: MPCBenchAction, timeout_s: float | None = None,
             **kwargs: Any) -> MPCBenchObservation:
        return asyncio.run(self.step_async(action, timeout_s, **kwargs))

    @property
    def state(self) -> MPCBenchState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="mpcbench", version="1", description=(
            "MPCBench: propose the N earliest meeting times that break no constraint, reading calendars, "
            f"policies, threads, people and rooms through tools; the last tool is {SUBMIT_TOOL_NAME}."))

    def close(self) -> None:
        if self.rollout is not None:
            self.rollout.close()
            self.rollout = None


def make_app(pool: RolloutPool, level: int | None = None, max_sessions: int = 64):
    """The FastAPI app of OpenEnv's server: a session's environment per WebSocket connection."""
    ids = [i for i, _, _ in pool.instances(level)]
    if not ids:
        raise ValueError(f"the warehouse holds no instance of level {level}")
    pool.warm()
    lock = threading.Lock()
    count = [0]

    def factory() -> MPCBenchEnvironment:
        env = MPCBenchEnvironment(pool, instances=ids)
        with lock:   # sessions start at different instances
            env._next, count[0] = count[0], count[0] + 1
        return env

    return create_fastapi_app(factory, MPCBenchAction, MPCBenchObservation, max_concurrent_envs=max_sessions)
