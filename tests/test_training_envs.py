"""The rollout engine of the training environments (docs/training.md): episodes of the engine
driven one reply at a time (`harness.rollout`), what the verifiers taskset, OpenEnv's server and
the TRL reward are made of (their own entry points: test_verifiers_env.py, test_openenv_env.py,
test_trl.py, which use this module's helpers).

Checked episode by episode at levels 1-4 of the tiny build: the reward and the metrics of a
rollout equal the scores `mpcbench eval` gives the same answers, for a fake model (evalkit's
GoldModel with answers made partly wrong, over-long or exact) and for every offline agent (replayed
as a scripted policy: its tool calls and submission as assistant messages); the prompt and the
tools are eval's, a tool's text is `mpcbench tools call`'s; shortcut agents (spray, the
office-hours prober, memorised policies) earn no more than the calendar-only baseline. Needs no
optional extra.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import statistics
from pathlib import Path
from typing import Callable

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import GoldModel, shared_build
from exploits import ProberAgent, SprayAgent
from fake_openai import FakeOpenAI, RecordedRequest, reply_tool_calls
from mpcbench.agents import make_agent
from mpcbench.cli import app
from mpcbench.episode.codecs import NativeCodec
from mpcbench.episode.engine import DEFAULT_MAX_STEPS
from mpcbench.episode.environment import Environment
from mpcbench.grading.privacy import PRIVACY_COLUMNS
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import REWARD_WEIGHTS, RolloutPool, program_messages, reward_of
from mpcbench.harness.runner import run_eval
from test_memorised_policies import MemorisedPolicyAgent, memorise

AGENTS = ("scripted", "calendar-only", "random", "leaky", "over-reader")
runner = CliRunner()


class VariedModel(GoldModel):
    """GoldModel whose answers vary by instance: exact, only the first start, the gold with three
    more starts past N (cut to N: exact), a wrong first start then the rest of the gold."""

    def __init__(self, db_path: Path, **options):
        super().__init__(db_path, **options)
        for k, (instance_id, keys) in enumerate(sorted(self.gold.items())):
            extra = [(s[:11] + "03:00", r) for s, r in keys[:3]]
            self.gold[instance_id] = [keys, keys[:1], keys + extra, extra[:1] + keys[1:]][k % 4]


def local_reply(model, messages: list[dict], tools: list[dict], index: int) -> dict:
    """The assistant message the fake server would send for this request (no HTTP)."""
    body = {"model": "fake", "messages": messages, "tools": tools}
    req = RecordedRequest(index, "POST", "/v1/chat/completions", {}, body, json.dumps(body).encode())
    return model(req).body(req)["choices"][0]["message"]


def scores_of(run_dir: Path) -> dict[str, tuple[float, bool]]:
    runs = pl.read_parquet(run_dir / "runs.parquet")
    return {r["instance_id"]: (r["f1"], r["exact_match"]) for r in runs.iter_rows(named=True)}


@pytest.fixture(scope="module")
def eval_runs(db_path, tmp_path_factory) -> dict[str, Path]:
    """`mpcbench eval`'s run directory per agent (the offline agents and the varied fake model),
    run once for the module."""
    out = tmp_path_factory.mktemp("eval")
    found = {}
    for agent in AGENTS:
        found[agent] = run_eval(EvalConfig(agent=agent, db=str(db_path), levels=(1, 2, 3, 4),
                                           out=str(out / agent))).run_dir
    with pytest.MonkeyPatch.context() as mp, FakeOpenAI(VariedModel(db_path)) as srv:
        mp.setenv("OPENAI_API_KEY", "sk-test-training")
        found["model"] = run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path),
                                             levels=(1, 2, 3, 4), max_retries=0, out=str(out / "model"))).run_dir
    return found


@pytest.fixture(scope="module")
def eval_scores(eval_runs) -> dict[str, dict[str, tuple[float, bool]]]:
    """`mpcbench eval`'s scores per agent."""
    return {agent: scores_of(run_dir) for agent, run_dir in eval_runs.items()}


@pytest.fixture(scope="module")
def pool(db_path):
    pool = RolloutPool(db_path)
    yield pool
    pool.close()


def replay(pool: RolloutPool, agent, instance_id: str, batch: bool = True) -> list[dict]:
    """An offline agent's tool calls and submission as assistant messages (at level 4 with the
    hidden facts, as eval gives them)."""
    return program_messages(pool.con, agent, instance_id, batch=batch)


_REPLAYED: dict[tuple[Path, str, str], list[dict]] = {}


def replayed(pool: RolloutPool, agent: str, instance_id: str, make: Callable | None = None) -> list[dict]:
    """`replay` of the agent named `agent` (made by `make`, else `agent_named`), once per build and
    instance in this module: the rollout, privacy and shortcut tests replay the same agents on
    the same instances, and running an agent costs its tool calls. A copy: a rollout keeps the
    messages it is given."""
    key = (pool.db_path, agent, instance_id)
    if key not in _REPLAYED:
        _REPLAYED[key] = replay(pool, agent_named(agent) if make is None else make(), instance_id)
    return copy.deepcopy(_REPLAYED[key])


async def drive(pool: RolloutPool, instance_id: str, policy) -> tuple[float, dict]:
    """A rollout through the engine: `policy(rollout, index)` gives each assistant message."""
    rollout = pool.open(instance_id)
    index = 0
    while not rollout.done:
        await rollout.reply(policy(rollout, index))
        index += 1
    result = await asyncio.to_thread(pool.finish, rollout)
    return result.reward, result.metrics


def rollout_scores(pool: RolloutPool, agent: str, db_path: Path) -> dict[str, tuple[float, float]]:
    ids = [i for i, _, _ in pool.instances()]
    if agent == "model":
        model = VariedModel(db_path)
        policy_of = {i: (lambda r, k: local_reply(model, r.messages, r.tools, k)) for i in ids}
    else:
        scripts = {i: replayed(pool, agent, i) for i in ids}
        policy_of = {i: (lambda r, k, i=i: scripts[i][k]) for i in ids}

    async def all_of():
        return await asyncio.gather(*(drive(pool, i, policy_of[i]) for i in ids))

    return {i: (m["f1"], m["exact_match"]) for i, (_, m) in zip(ids, asyncio.run(all_of()))}


@pytest.mark.parametrize("agent", [*AGENTS, "model"])
def test_rollout_rewards_equal_eval_scores_episode_by_episode(pool, eval_scores, db_path, agent):
    got = rollout_scores(pool, agent, db_path)
    want = {i: (f1, float(em)) for i, (f1, em) in eval_scores[agent].items()}
    assert set(got) == set(want) and {i[:2] for i in got} == {"L1", "L2", "L3", "L4"}
    assert got == want
    if agent == "model":   # the varied answers: exact, partial, over-long (cut: exact) and wrong
        assert {em for _, em in got.values()} == {0.0, 1.0} and len({f1 for f1, _ in got.values()}) > 2


def test_the_prompt_tools_and_texts_are_evals(pool, db_path):
    for instance_id in ("L1-0001", "L2-0001", "L3-0001", "L4-0001"):
        rollout = pool.open(instance_id)
        with Environment(pool.con.cursor(), instance_id) as env:
            codec = NativeCodec()
            assert rollout.messages == codec.opening(env, max_steps=DEFAULT_MAX_STEPS, max_proposals=1)
            assert rollout.tools == codec.request(env)["tools"]
        back = asyncio.run(rollout.reply({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_current_time", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "list_rooms", "arguments": "{}"}}]}))
        printed = runner.invoke(app, ["tools", "call", "get_current_time", "--instance", instance_id,
                                      "--db", str(db_path)])
        assert printed.exit_code == 0, printed.output
        assert back[0] == {"role": "tool", "tool_call_id": "c1", "content": printed.output.rstrip("\n")}
        assert back[1]["content"].startswith("error:") == (rollout.level < 3)   # rooms: levels 3-4 only
        bad = asyncio.run(rollout.reply({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "submit_candidates", "arguments": "{}"}}]}))
        assert bad[0]["content"].startswith("error:") and not rollout.done   # a schema error to fix
        pool.finish(rollout)


def test_privacy_metrics_equal_evals_columns(db_path, eval_runs):
    """With privacy_metrics, a rollout's privacy figures are runs.parquet's (the leaky agent
    discloses, the scripted one does not), and a weight on one puts it into the reward: a note that
    states the answer and discloses nothing earns it (the scripted and calendar-only agents write
    one), a leaky note does not. On the first two instances of each level (grading the privacy
    figures makes each episode cost about 0.3 s)."""
    privacy = RolloutPool(db_path, EpisodeSpec(privacy_metrics=True, weights={"f1": 1.0, "clean_note": 0.5}))
    clean, disclosed = {}, {}
    try:
        for agent in ("leaky", "scripted", "calendar-only"):
            runs = pl.read_parquet(eval_runs[agent] / "runs.parquet")   # the module's eval of the agent
            firsts = runs.sort("instance_id").group_by("level", maintain_order=True).head(2)
            assert firsts["level"].unique().sort().to_list() == [1, 2, 3, 4] and firsts.height == 8
            for row in firsts.iter_rows(named=True):
                script = replayed(privacy, agent, row["instance_id"])
                reward, metrics = asyncio.run(drive(privacy, row["instance_id"], lambda r, k, s=script: s[k]))
                for m in PRIVACY_COLUMNS:   # a null figure (level 1's exposure) is NaN, never 0
                    assert (math.isnan(metrics[m]) if row[m] is None else metrics[m] == float(row[m])), \
                        (agent, row["instance_id"], m)
                assert metrics["nothing_disclosed"] == float(not row["disclosed"])
                assert reward == row["f1"] + 0.5 * metrics["clean_note"]
                assert not (metrics["disclosed"] and metrics["clean_note"])
                clean.setdefault(agent, []).append(metrics["clean_note"])
                disclosed.setdefault(agent, []).append(metrics["disclosed"])
            if agent == "leaky":
                assert runs["disclosed"].fill_null(0).sum() > 0 and max(disclosed["leaky"]) > 0
    finally:
        privacy.close()
    # a leaky note earns nothing where it discloses (where there is nothing to leak, its note is clean)
    assert max(clean["scripted"]) == 1
    assert statistics.mean(clean["leaky"]) < min(statistics.mean(clean["scripted"]), statistics.mean(clean["calendar-only"]))


def test_weights_and_the_read_only_warehouse(pool):
    metrics = {"f1": 0.5, "exact_match": 0.0}
    assert reward_of(metrics) == 0.5 and REWARD_WEIGHTS == {"f1": 1.0, "exact_match": 0.0}
    assert reward_of(metrics, {"f1": 0.5, "exact_match": 0.5}) == 0.25
    with pytest.raises(ValueError, match="no metric"):
        reward_of(metrics, {"f2": 1.0})
    # a figure the level does not measure (level 1 shows no title) adds nothing: the reward stays a number
    level1 = {"f1": 1.0, "exact_match": 1.0, "sensitive_shown_beyond_need": math.nan}
    assert reward_of(level1, {"f1": 1.0, "sensitive_shown_beyond_need": -0.5}) == 1.0
    assert reward_of({**level1, "sensitive_shown_beyond_need": 2.0}, {"f1": 1.0, "sensitive_shown_beyond_need": -0.5}) == 0.0
    # the policy's calls only read: the warehouse under the labels cannot be written
    with pytest.raises(Exception, match="read-only|read only"):
        pool.con.cursor().execute("delete from events")


SHORTCUTS = {"spray": lambda: SprayAgent(), "prober": lambda: ProberAgent()}   # their first 20 candidates


def shortcut_means(pool: RolloutPool, agents: dict[str, Callable | None]) -> dict[str, float]:
    """Mean reward per agent over the pool's instances, each replayed through a rollout (an agent
    made by its function, or by `agent_named` where it has none)."""
    ids = [i for i, _, _ in pool.instances()]
    means = {}
    for name, make in agents.items():
        scripts = {i: replayed(pool, name, i, make) for i in ids}

        async def all_of(scripts=scripts):
            return await asyncio.gather(*(drive(pool, i, lambda r, k, i=i: scripts[i][k]) for i in ids))

        means[name] = statistics.mean(reward for reward, _ in asyncio.run(all_of()))
    return means


def test_shortcut_agents_earn_no_more_than_the_calendar_only_baseline(pool, db_path, tmp_path_factory):
    """Spray and the office-hours prober on the build; memorised policies (of this build) on a
    train split, which draws other policies. The shortcuts send their first 20 candidates: only the
    first N are judged (tests/test_exploits.py checks it against the whole list), and validating
    thousands of candidates a submission would make most of this module's time."""
    means = shortcut_means(pool, {"calendar-only": None, "spray": None, "prober": None})
    assert means["spray"] <= means["calendar-only"] and means["prober"] <= means["calendar-only"], means
    memory = memorise(pool.con.cursor())
    train = RolloutPool(shared_build(tmp_path_factory, (1, 2, 3), 8, split="train"))
    try:
        assert train.split() == "train"
        on_train = shortcut_means(train, {"calendar-only": None, "memorised": lambda: MemorisedPolicyAgent(memory)})
    finally:
        train.close()
    assert on_train["memorised"] <= on_train["calendar-only"] + 0.05, on_train


# --- the wrappers (the `train` extra) ----------------------------------------------------------------


def agent_named(name: str):
    return SHORTCUTS[name]() if name in SHORTCUTS else make_agent(name)


def program_script(pool: RolloutPool, agent: str):
    """A fake_openai script replying an offline agent's calls and submission in one message."""
    scripts = {}
    for instance_id, _, prompt in pool.instances():
        (message,) = replay(pool, agent_named(agent), instance_id)
        scripts[prompt] = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
    return lambda req: reply_tool_calls(scripts[next(m["content"] for m in req.messages if m["role"] == "user")])


def test_serve_env_needs_the_train_extra_or_serves(db_path):
    result = runner.invoke(app, ["serve-env", "--help"])
    assert result.exit_code == 0 and "OpenEnv" in result.output
    assert json.loads(json.dumps(REWARD_WEIGHTS)) == {"f1": 1.0, "exact_match": 0.0}
