"""OpenEnv 0.10: `mpcbench serve-env` started as a user starts it (a subprocess) and played with
OpenEnv's own client over the WebSocket, sessions side by side. Rewards and metrics equal the
scores `mpcbench eval` gives the same answers, episode by episode at levels 1-4; the tools are
offered as OpenEnv's MCP-style actions (`list_tools`, `call_tool`) too; `--level` is enforced;
a client that closes its session leaves no traceback; shortcut agents earn no more than the
calendar-only baseline. OpenEnv cannot share an environment with verifiers 0.4 (their `mcp` pins
conflict), so `.ci/run` runs this module in a venv of its own (`.[openenv]`); it skips elsewhere.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from mpcbench.agents import make_agent
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool, program_messages
from mpcbench.harness.runner import run_eval
from test_training_envs import VariedModel, agent_named, local_reply, replay, scores_of

pytest.importorskip("openenv", reason="OpenEnv (the openenv extra) is not installed")
from openenv.core import GenericEnvClient  # noqa: E402

from fake_openai import FakeOpenAI  # noqa: E402


@pytest.fixture(scope="module")
def pool(db_path):
    pool = RolloutPool(db_path)
    yield pool
    pool.close()


class Server:
    """`mpcbench serve-env ARGS` in a subprocess, on a free port."""

    def __init__(self, db_path: Path, *args: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([sys.executable, "-m", "mpcbench", "serve-env", "--db", str(db_path),
                                         "--port", str(self.port), *args], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            assert self.process.poll() is None, self.process.stderr.read()
            time.sleep(0.2)
        raise AssertionError("serve-env did not start")

    def stop(self) -> str:
        """Stop the server (Ctrl-C), and what it printed."""
        self.process.send_signal(2)
        _, stderr = self.process.communicate(timeout=30)
        return stderr


@pytest.fixture(scope="module")
def server(db_path):
    server = Server(db_path, "--max-sessions", "32")
    yield server
    stderr = server.stop()
    assert "Traceback" not in stderr and "WebSocketDisconnect" not in stderr, stderr


async def play(url: str, instance_id: str, policy) -> tuple[float, dict]:
    """One episode in one session: `policy(messages, tools, k)` gives the k-th assistant message."""
    async with GenericEnvClient(base_url=url) as env:
        result = await env.reset(instance_id=instance_id)
        messages, tools, k = list(result.observation["messages"]), result.observation["tools"], 0
        while not result.done:
            message = policy(messages, tools, k)
            result = await env.step({"message": message})
            messages += [message, *result.observation["messages"]]
            k += 1
        return result.reward, result.observation["metrics"]


def side_by_side(url: str, pool: RolloutPool, policy_of) -> dict[str, tuple[float, dict]]:
    ids = [i for i, _, _ in pool.instances()]

    async def all_of():
        return await asyncio.gather(*(play(url, i, policy_of(i)) for i in ids))

    return dict(zip(ids, asyncio.run(all_of())))


@pytest.mark.parametrize("agent", ["model", "scripted"])
def test_sessions_side_by_side_reward_as_eval(db_path, pool, server, tmp_path, monkeypatch, agent):
    model = VariedModel(db_path)
    if agent == "model":
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        with FakeOpenAI(model) as srv:
            want = scores_of(run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path),
                                                 max_retries=0, out=str(tmp_path / "eval"))).run_dir)
        found = side_by_side(server.url, pool, lambda i: lambda m, t, k: local_reply(model, m, t, k))
    else:
        want = scores_of(run_eval(EvalConfig(agent=agent, db=str(db_path), out=str(tmp_path / "eval"))).run_dir)
        scripts = {i: replay(pool, make_agent(agent), i) for i, _, _ in pool.instances()}
        found = side_by_side(server.url, pool, lambda i: lambda m, t, k: scripts[i][k])
    assert {i[:2] for i in found} == {"L1", "L2", "L3", "L4"}
    assert {i: (m["f1"], m["exact_match"]) for i, (_, m) in found.items()} == {
        i: (f1, float(em)) for i, (f1, em) in want.items()}
    assert all(reward == m["f1"] for reward, m in found.values())


def test_mcp_style_tools_and_the_level_enforced(db_path, pool):
    server = Server(db_path, "--level", "2")

    async def script():
        async with GenericEnvClient(base_url=server.url) as env:
            result = await env.reset(instance_id="L2-0001")
            listed = await env.step({"type": "list_tools"})
            called = await env.step({"type": "call_tool", "tool_name": "get_current_time", "arguments": {}})
            try:
                await env.reset(instance_id="L3-0001")
            except Exception as e:  # noqa: BLE001 - the client's error for the server's
                refused = str(e)
            else:
                refused = ""
            return result, listed, called, refused

    try:
        result, listed, called, refused = asyncio.run(script())
    finally:
        stderr = server.stop()
    names = [t["name"] for t in listed.observation["tools"]]
    assert names == [t["function"]["name"] for t in result.observation["tools"]] and names[-1] == "submit_candidates"
    assert all(set(t) >= {"name", "description", "input_schema"} for t in listed.observation["tools"])
    rollout = pool.open("L2-0001")
    want = asyncio.run(rollout.reply({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_current_time", "arguments": "{}"}}]}))
    pool.finish(rollout)
    assert called.observation["result"] == want[0]["content"] and not called.done
    assert "L3-0001" in refused and "level 2" in refused, refused
    assert "Traceback" not in stderr, stderr


def test_shortcut_agents_earn_no_more_than_calendar_only(pool, server):
    means = {}
    for agent in ("calendar-only", "spray", "prober"):
        scripts = {i: replay(pool, agent_named(agent), i) for i, _, _ in pool.instances()}
        found = side_by_side(server.url, pool, lambda i, scripts=scripts: lambda m, t, k: scripts[i][k])
        means[agent] = statistics.mean(reward for reward, _ in found.values())
    assert means["spray"] <= means["calendar-only"] and means["prober"] <= means["calendar-only"], means


@pytest.mark.parametrize("agent", ["scripted", "calendar-only"])
def test_booking_rewards_over_openenv_are_evals_task_success(db_path, tmp_path, agent):
    """`serve-env --task book`: each episode's reward and parts equal `mpcbench eval --task book`'s
    runs.parquet, instance by instance at levels 1-4; the scripted agent books every one right."""
    server = Server(db_path, "--task", "book", "--max-sessions", "32")
    booking = RolloutPool(db_path, EpisodeSpec(task="book"))
    try:
        run = run_eval(EvalConfig(agent=agent, db=str(db_path), task="book", out=str(tmp_path / "eval")))
        want = {r["instance_id"]: r for r in pl.read_parquet(run.run_dir / "runs.parquet").to_dicts()}
        scripts = {i: program_messages(booking.con, make_agent(agent), i, task="book")
                   for i, _, _ in booking.instances()}
        found = side_by_side(server.url, booking, lambda i: lambda m, t, k: scripts[i][k])
    finally:
        booking.close()
        stderr = server.stop()
    assert "Traceback" not in stderr, stderr
    assert {i[:2] for i in found} == {"L1", "L2", "L3", "L4"} and set(found) == set(want)
    parts = ("task_success", "booked_start_ok", "attendees_ok", "room_ok", "confirmation_ok")
    for instance_id, (reward, metrics) in found.items():
        row = want[instance_id]
        assert reward == metrics["task_success"], instance_id
        assert {p: metrics[p] for p in parts} == {p: float(bool(row[p])) for p in parts}, instance_id
    assert all(float(bool(r["task_success"])) == 1.0 for r in want.values()) == (agent == "scripted")
