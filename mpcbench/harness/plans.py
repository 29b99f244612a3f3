"""How each episode's policy is made: an `AgentPlan` per run (the openai agent with its client
and response cache, an offline agent by name, or the replay of a recorded run), and which
episodes (instance, level, trial) a config asks for."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import duckdb

from ..agents import OFFLINE_AGENTS, make_agent
from ..agents.code_solver import ScriptedCodeAgent, ScriptedMintModel
from ..agents.memoriser import MemoriserAgent, fit_from
from ..agents.openai_agent import AgentOptions, ChatPolicy
from ..agents.replay import TrajectoryReplay
from ..episode.engine import Policy, ProgramPolicy
from ..errors import InfrastructureError, UserError
from ..interrupt import run_async
from ..limiter import AdaptiveLimit
from ..llm import ChatClient, EndpointConfig, ResponseCache
from .endpoint import ServerInfo, probe_endpoint
from .config import CACHE, RUN_JSON, EvalConfig
from .journal import recorded_run


@dataclass
class AgentPlan:
    """How to make the policy of each episode."""
    make: Callable[[str, int], Policy]        # (instance_id, trial) -> the episode's policy
    offline: bool                             # a program (or scripted model), not a model: in context mode its
                                              # tool calls are answered, and at level 4 it gets the hidden facts
    agent: str
    model: str | None
    episodes: list[tuple[str, int]] | None = None   # replay: the recorded episodes
    feedback_from: Path | None = None         # replay: the recorded run, whose feedback cache answers
    close: Callable[[], Any] | None = None    # async cleanup
    limit: AdaptiveLimit | None = None        # model calls in flight (the openai agent and llm feedback)
    notes: list[str] = field(default_factory=list)


def endpoint_config(config: EvalConfig, model: str) -> EndpointConfig:
    return EndpointConfig(model=model, base_url=config.base_url, api_key_env=config.api_key_env,
                          timeout_s=config.timeout_s, max_retries=config.max_retries,
                          backoff_base_s=config.backoff_base_s, backoff_max_s=config.backoff_max_s)


def required_model(config: EvalConfig) -> str:
    """The openai agent's model (EvalConfig.validate refuses the agent without one)."""
    if not config.model:
        raise UserError("--agent openai needs --model")
    return config.model


def replay_dir(config: EvalConfig) -> Path:
    """The recorded run a replay reads (EvalConfig.validate refuses the agent without one)."""
    if not config.replay_from:
        raise UserError("--agent replay needs --from RUN_DIR")
    return Path(config.replay_from)


def chat_client(config: EvalConfig, model: str, cache_path: Path, *, replay_only: bool = False,
                limit: AdaptiveLimit | None = None):
    """A client for `model` on the run's endpoint, with its retry options, a response cache and
    the run's limit on calls in flight."""
    return ChatClient(endpoint_config(config, model), cache=ResponseCache(cache_path), replay_only=replay_only,
                      limit=limit)


def agent_options(config: EvalConfig, trial: int) -> AgentOptions:
    """The sampling options of a trial's requests, the config's fields of the same names (trial t
    sends seed + t - 1)."""
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(AgentOptions)}
    if config.seed is not None:
        values["seed"] = config.seed + trial - 1
    return AgentOptions(**values)


def _openai_plan(config: EvalConfig, cache_path: Path, *, replay_only: bool = False, agent: str = "openai",
                 limit: AdaptiveLimit | None = None) -> AgentPlan:

    model = required_model(config)
    client = chat_client(config, model, cache_path, replay_only=replay_only, limit=limit)

    def make(instance_id: str, trial: int):
        return ChatPolicy(client, agent_options(config, trial))

    return AgentPlan(make, False, agent, model, close=client.aclose, limit=limit)


def agent_plan(config: EvalConfig, run_dir: Path, limit: AdaptiveLimit | None = None) -> AgentPlan:
    if config.agent == "openai":
        return _openai_plan(config, run_dir / CACHE, limit=limit)
    if config.agent == "scripted" and config.protocol == "mint":
        return AgentPlan(lambda instance_id, trial: ScriptedMintModel(), True, config.agent, None)
    if config.agent == "scripted" and config.mode == "code":
        return AgentPlan(lambda instance_id, trial: ProgramPolicy(ScriptedCodeAgent()), True, config.agent, None)
    if config.agent == "memoriser":
        memory = fit_from(config.train_db)   # once: every episode reads with the same memory
        return AgentPlan(lambda instance_id, trial: ProgramPolicy(MemoriserAgent(memory)), True, config.agent, None)
    if config.agent in OFFLINE_AGENTS:
        return AgentPlan(lambda instance_id, trial: ProgramPolicy(make_agent(config.agent,
                                                                             (config.seed or 0) + trial - 1)),
                         True, config.agent, None)
    source_dir = replay_dir(config)
    if not (source_dir / RUN_JSON).is_file():
        raise UserError(f"--from {source_dir}: not a run directory (no run.json there)")
    try:
        saved, records = recorded_run(source_dir)
    except (ValueError, OSError) as e:
        raise UserError(f"--from {source_dir}: cannot read the recorded run ({e})") from None
    episodes = sorted(records)
    source = saved.get("options") or {}
    if saved.get("agent") == "openai":
        base = EvalConfig.from_public(source, base_url=None, out=config.out, concurrency=config.concurrency)
        plan = _openai_plan(base, source_dir / CACHE, replay_only=True, agent="replay", limit=limit)
    else:
        plan = AgentPlan(lambda instance_id, trial: TrajectoryReplay(records[(instance_id, trial)]),
                         True, "replay", saved.get("model"))
    plan.episodes = episodes
    plan.feedback_from = source_dir
    plan.notes.append(f"replay of {saved.get('run_id')} ({saved.get('agent')}, model {saved.get('model')})")
    return plan


def preflight(config: EvalConfig) -> ServerInfo:
    """Before an `openai` run: the key is set, the endpoint answers (one cheap request), and how
    many requests the server serves at once where it says. A UserError (exit status 2) otherwise."""
    endpoint = endpoint_config(config, required_model(config))
    if endpoint.api_key() is None:
        raise UserError(f"--agent openai: {endpoint.missing_key()}", 2)
    try:
        return run_async(lambda: probe_endpoint(endpoint))
    except InfrastructureError as e:
        raise UserError(f"{e.message}; check --base-url (nothing was run)", 2) from None


def concurrency_limit(config: EvalConfig, server: ServerInfo | None,
                      note: Callable[[str], None]) -> AdaptiveLimit:
    """The run's limit on model calls in flight: --concurrency, capped to the server's slots."""
    slots = server.slots if server else None
    if server and slots and slots < config.concurrency:
        note(f"the server at {server.url} serves {slots} request(s) at a time ({server.slots_from}): "
             f"model calls run {slots} at a time, not {config.concurrency} (give the server more slots, "
             f"e.g. llama-server --parallel N, or pass --concurrency {slots})")
    return AdaptiveLimit(config.concurrency, slots, note=note)


REPLAYED = ("mode", "protocol", "code_timeout_s", "max_steps", "max_turns", "feedback", "feedback_detail", "feedback_model")


def replayed_protocol(config: EvalConfig) -> EvalConfig:
    """A replay runs the recorded run's mode, turns and feedback (they shape its conversations)."""
    path = replay_dir(config) / RUN_JSON
    try:
        saved = (json.loads(path.read_text()).get("options") or {}) if path.exists() else {}
    except (ValueError, AttributeError) as e:
        raise UserError(f"--from {config.replay_from}: run.json is not readable ({e})") from None
    return dataclasses.replace(config, **{k: saved[k] for k in REPLAYED if k in saved})


def parse_shard(text: str) -> tuple[int, int]:
    """`i/n` (1 <= i <= n) as (i, n); a UserError otherwise.

    >>> parse_shard("2/3")
    (2, 3)
    """
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise UserError(f"--shard takes i/n (e.g. 2/4), not {text!r}", 2) from None
    if not 1 <= i <= n:
        raise UserError(f"--shard {text}: i must be between 1 and n", 2)
    return i, n


def plan_episodes(con: duckdb.DuckDBPyConnection, config: EvalConfig) -> list[tuple[str, int, int]]:
    """(instance_id, level, trial) of every episode, in level and position order; with `shard` i/n,
    those of the instances at places i, i + n, i + 2n ... of that order."""
    rows = con.execute(
        "select instance_id, level, row_number() over (partition by level order by position) as k "
        "from instances where list_contains($levels, level) "
        "and (len($ids) = 0 or list_contains($ids, instance_id)) order by level, position",
        {"levels": list(config.levels), "ids": list(config.instance_ids)}).fetchall()
    if config.instance_ids:
        missing = sorted(set(config.instance_ids) - {r[0] for r in rows})
        if missing:
            raise UserError(f"no such instance(s) at levels {','.join(map(str, config.levels))}: {', '.join(missing)}")
    chosen = [(i, level) for i, level, k in rows if config.instances is None or k <= config.instances]
    if config.shard is not None:
        # a deterministic split of the instances (every trial of one in the same shard)
        shard, shards = parse_shard(config.shard)
        chosen = chosen[shard - 1::shards]
    return [(i, level, trial) for i, level in chosen for trial in range(1, config.trials + 1)]
