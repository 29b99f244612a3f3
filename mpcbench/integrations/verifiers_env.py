"""MPCBench as a taskset of Prime Intellect's `verifiers` 0.4 (`verifiers.v1`; `pip install 'mpcbench[train]'`).

    vf-eval mpcbench --env.taskset.level 2 --env.taskset.db build/train.duckdb -m gpt-4.1-mini \\
        --client.base-url https://api.openai.com/v1 --client.api-key-var OPENAI_API_KEY -n 20 -r 3 --no-push

verifiers finds a taskset by the package its id names: the id `mpcbench` imports this package,
whose `__all__` hands over `MPCBenchTaskset` and its own harness `MPCBenchHarness` (verifiers
takes a taskset's bundled harness as the default one). Every option is a field of
`MPCBenchConfig` (`--env.taskset.<field>`, or `[env.taskset]` in a TOML file), and `load()` copies
the ones a rollout needs into each task's data (`MPCBenchData`): the task is all a worker gets,
so whichever process runs a rollout (vf-eval's, an env server's, a trainer's worker) runs it
with the options it was given.

A rollout is an episode of the engine (`harness.rollout.Rollout`): the harness sends the
conversation and the tools `mpcbench eval` gives the instance to the model, through verifiers'
interception endpoint (which records the trace), and hands each reply to `Episode.act`, so a tool
returns exactly the text `mpcbench tools call` prints and a valid `submit_candidates` call (or a
plain-text answer) ends the episode; the step budget is `max_steps` model replies, as in eval.
The episode's journal record is then scored by the oracle's grader, as eval scores it: the
reward `mpcbench` = sum(weight * metric) (`weights`, default f1 1.0), and the metrics `f1`,
`exact_match`, `precision`, `recall`, `first_correct`, `ndcg`, `over_submitted`, `parse_ok`,
`harness_error`, `failure_<cause>` (1 for the failure cause or its source, `failure_policy` for
`policy:blackout`) and, with `privacy_metrics`, the privacy track's figures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_type_hints

import verifiers.v1 as vf
from openai import AsyncOpenAI
from pydantic import Field, create_model
from verifiers.v1.envs.single_agent import SingleAgentEnvConfig

from mpcbench.episode.engine import Reply, View
from mpcbench.episode.prompts import system_prompt
from mpcbench.errors import InfrastructureError, UserError
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool
from mpcbench.warehouse import db as warehouse

# a metric per failure cause (its source for a violation: `policy:blackout` counts as `policy`)
CAUSES = ("answer", "calendar", "policy", "threads", "rooms", "ranking", "too_few_candidates", "parse_failure",
          "unexplained")


class _TasksetOptions(vf.TasksetConfig):
    level: int | None = Field(1, ge=1, le=4)
    """The level whose instances are the tasks (1-4; None: every level)."""
    split: str | None = None
    """The split the warehouse must hold (refused otherwise); without `db`, build/<split>.duckdb."""
    db: str | None = None
    """The warehouse (a DuckDB file or a `build --out` directory); default build/mpcbench.duckdb."""
    instances: int | None = None
    """Each level's first N instances (default: all)."""


# verifiers' TasksetConfig has a `task` of its own (the task's config): the spec's is named apart
CONFIG_NAMES = {"task": "scheduling_task"}


def config_name(field: str) -> str:
    """The config field of an EpisodeSpec field."""
    return CONFIG_NAMES.get(field, field)


def _episode_fields() -> dict[str, Any]:
    """The episode spec's fields as the config's: the same names (but `CONFIG_NAMES`), defaults and help."""
    hints = get_type_hints(EpisodeSpec)
    return {config_name(f.name): (Literal[f.metadata["choices"]] if f.metadata["choices"] else hints[f.name],
                                  Field(f.default, description=f.metadata["help"]))
            for f in dataclasses.fields(EpisodeSpec)}


MPCBenchConfig = create_model("MPCBenchConfig", __base__=_TasksetOptions, __doc__="The options of `vf-eval mpcbench` "
                              "(`--env.taskset.<name>`): the taskset's, then the episode's (harness.episode_spec).",
                              **_episode_fields())


class MPCBenchData(vf.TaskData):
    """One instance and the options its rollout runs with (copied from the config)."""
    instance_id: str
    level: int
    db: str
    episode: dict[str, Any]     # EpisodeSpec's fields


class MPCBenchState(vf.State):
    result: dict | None = None   # the harness's scored episode: reward, metrics, failure cause


def episode_of(config) -> EpisodeSpec:
    return EpisodeSpec(**{f.name: getattr(config, config_name(f.name)) for f in dataclasses.fields(EpisodeSpec)})


def pool_for(db: str, episode: EpisodeSpec) -> RolloutPool:
    """The pool of a warehouse and the episode's options."""
    return _pool(json.dumps({"db": db, "episode": dataclasses.asdict(episode)}, sort_keys=True))


@cache
def _pool(options: str) -> RolloutPool:
    """One pool per process and set of options: a warehouse opened once for every rollout."""
    o = json.loads(options)
    pool = RolloutPool(o["db"], EpisodeSpec(**o["episode"]), surface="verifiers")
    pool.warm()
    return pool


class EndpointModel:
    """The model behind verifiers' interception endpoint as a policy of the engine: a call that
    fails is the endpoint's failure (InfrastructureError), which ends the episode as such."""

    name = "verifiers"

    def __init__(self, client: AsyncOpenAI, model: str):
        self.client, self.model = client, model

    async def reply(self, view: View) -> Reply:
        try:
            response = await self.client.chat.completions.create(model=self.model, messages=view.messages,  # type: ignore[arg-type]
                                                                 **view.request)
        except Exception as e:  # noqa: BLE001 - whatever the endpoint raised: the episode ends as infrastructure
            raise InfrastructureError("endpoint", f"{type(e).__name__}: {e}") from e
        return Reply(response.choices[0].message.model_dump(exclude_none=True))


def cause_metric(cause: str | None) -> str | None:
    """The metric of a failure cause: `policy:blackout` -> `failure_policy`, `ranking` -> `failure_ranking`."""
    return None if cause is None else "failure_" + re.sub(r"[^a-z0-9]+", "_", cause.split(":")[0].lower()).strip("_")


class MPCBenchTask(vf.Task[MPCBenchData, MPCBenchState]):
    """An instance; its reward and metrics are the harness's scored episode."""

    @property
    def key(self) -> str:
        return self.data.instance_id

    def _result(self, trace: vf.Trace) -> dict:
        result = trace.state.result
        if result is None:
            raise RuntimeError(f"no episode of {self.data.instance_id} was played: run it with the mpcbench harness")
        return result

    @vf.reward
    async def mpcbench(self, trace: vf.Trace) -> float:
        return self._result(trace)["reward"]

    @vf.metric
    async def metrics(self, trace: vf.Trace) -> dict[str, float]:
        return self._result(trace)["metrics"]


class MPCBenchTaskset(vf.Taskset[MPCBenchTask, MPCBenchConfig]):
    """The warehouse's instances of one level (eval's order), one task each."""

    def load(self) -> list[MPCBenchTask]:
        c = self.config
        if c.db is None:
            c.db = str(Path(warehouse.DEFAULT_DB).with_name(f"{c.split}.duckdb") if c.split else warehouse.DEFAULT_DB)
        try:   # a missing warehouse, another split, a bad option: one line, not a traceback
            episode = episode_of(c)
            pool = pool_for(c.db, episode)
            if c.split is not None and pool.split() != c.split:
                raise UserError(f"{c.db} holds the {pool.split()} split, not {c.split}")
        except (UserError, ValueError) as e:
            raise SystemExit(f"mpcbench: {e}") from None
        tasks, per_level = [], Counter[int]()
        for instance_id, level, prompt in pool.instances(c.level):   # eval's order
            per_level[level] += 1
            if c.instances is None or per_level[level] <= c.instances:
                # the prompts are eval's, for the trace's record: the harness sends the episode's own
                tasks.append(MPCBenchTask(MPCBenchData(
                    id=instance_id, name=instance_id, instance_id=instance_id, level=level, prompt=prompt,
                    system_prompt=system_prompt(level, mode=pool.spec.mode, privacy=episode.privacy_instructions == "on",
                                                task=episode.task),
                    db=c.db, episode=dataclasses.asdict(episode)), c.task))
        return tasks


class MPCBenchHarnessConfig(vf.HarnessConfig):
    id: str = "mpcbench"


class MPCBenchHarness(vf.Harness[MPCBenchHarnessConfig]):
    """Plays the episode in process: eval's conversation and tools to the model (through the
    interception endpoint), each reply through the engine, then the grader."""

    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace: vf.Trace, runtime, endpoint: str, secret: str, mcp_urls: dict[str, str],
                     data: vf.TaskData, **kwargs) -> vf.ProgramResult:
        assert isinstance(data, MPCBenchData), type(data)
        pool = pool_for(data.db, EpisodeSpec(**data.episode))
        rollout = await asyncio.to_thread(pool.open, data.instance_id)
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            try:
                await rollout.play(EndpointModel(client, ctx.model))
            finally:
                result = await asyncio.to_thread(pool.finish, rollout)
        metrics = {**result.metrics, **{f"failure_{c}": 0.0 for c in CAUSES}}
        if (name := cause_metric(result.failure_cause)) is not None:
            metrics[name] = 1.0
        trace.state.result = {"reward": result.reward, "metrics": metrics, "failure_cause": result.failure_cause}
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


class MPCBenchEnvConfig(SingleAgentEnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The one seat; its runtime is a local subprocess by default (the harness plays in process
    and runs no program: a remote sandbox would only cost time)."""


class MPCBenchEnv(vf.Env[MPCBenchEnvConfig]):
    """verifiers' single-agent env (`SingleAgentEnv`), with the local runtime as the default."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        await agents.agent.run(task)
