"""`mpcbench mcp` through the official MCP SDK's own client: in-process for the tool-by-tool
checks, and once over stdio as a user's agent would start it. Every tool's text equals what
`mpcbench tools call` prints, submissions are scored into runs.parquet, bad arguments are tool
errors, and a run serves its instances one after another."""

from __future__ import annotations

import asyncio
import json
import sys

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import submission
from mpcbench.agents.scripted import plan
from mpcbench.cli import app
from mpcbench.episode.answers import submit_tool
from mpcbench.episode.toolfiles import catalog
from mpcbench.episode.codecs import codec_for
from mpcbench.episode.environment import Environment
from mpcbench.errors import UserError
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.session import open_external_run

mcp = pytest.importorskip("mcp", reason="the mcp SDK is an optional dependency: pip install 'mpcbench[mcp]'")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from mpcbench.integrations.mcp_server import make_server  # noqa: E402

cli = CliRunner()


def scripted_calls(con, instance_id: str) -> list[tuple[str, dict]]:
    """The tool calls the scripted solver makes on an instance (every source of its level)."""
    with Environment(con, instance_id) as env:
        plan(env)
        return [(c.tool, json.loads(c.arguments)) for c in env.trace]


BAD_CALLS = [
    ("get_person", {"person_id": "p-999"}),                        # unknown id
    ("get_busy_intervals", {"person_id": 7, "start": "x"}),         # wrong types
    ("list_rooms", {"min_capacity": "'; drop table events; --"}),   # an injection string
    ("no_such_tool", {}),
]


def serve(db_path, out, **selection):
    return open_external_run(EvalConfig(agent="mcp", db=str(db_path), out=str(out), **selection))


async def _session(run, script):
    try:
        async with Client(make_server(run)) as client:
            return await script(client)
    finally:
        await asyncio.to_thread(run.close)


def test_every_tool_text_equals_the_cli_and_a_submission_is_scored(db_path, con, golds, tmp_path):
    instance = "L3-0001"
    calls = scripted_calls(con, instance) + BAD_CALLS
    run = serve(db_path, tmp_path / "run", levels=(1, 2, 3), instance_ids=(instance,), model="my-agent")

    async def script(client):
        listed = (await client.list_tools()).tools
        results = [await client.call_tool(name, args) for name, args in calls]
        bad = await client.call_tool("submit_candidates", {"candidates": [{"start": "2026-03-02 09:30"}]})
        good = await client.call_tool("submit_candidates", submission(golds[instance], 3))
        after = await client.call_tool("list_rooms", {})
        return client.instructions, listed, results, bad, good, after

    instructions, listed, results, bad, good, after = asyncio.run(_session(run, script))

    expected = [t.spec.openai()["function"] for t in catalog(3)] + [submit_tool(3)["function"]]
    assert [(t.name, t.description, t.input_schema) for t in listed] == \
        [(f["name"], f["description"], f["parameters"]) for f in expected]
    assert instance in instructions and "submit_candidates" in instructions

    assert {name for name, _ in calls} >= {"search_people", "list_rooms", "read_thread"}
    for (name, args), result in zip(calls, results):
        printed = cli.invoke(app, ["tools", "call", name, "--instance", instance, "--db", str(db_path),
                                   "--args", json.dumps(args)])
        assert result.content[0].text + "\n" == printed.stdout, name
        assert result.is_error == (printed.exit_code == 1) == result.content[0].text.startswith("error:"), name
    assert sum(r.is_error for r in results) == len(BAD_CALLS)

    assert bad.is_error and "YYYY-MM-DDTHH:MM" in bad.content[0].text
    assert not good.is_error and "Recorded for L3-0001" in good.content[0].text
    assert after.is_error and "run is complete" in after.content[0].text

    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet").to_dicts()
    assert [(r["instance_id"], r["agent"], r["model"], r["f1"], r["exact_match"]) for r in runs] == \
        [(instance, "mcp", "my-agent", 1.0, True)]
    assert runs[0]["tool_calls"] == len(calls) and runs[0]["tool_errors"] == len(BAD_CALLS)
    tools = pl.read_parquet(tmp_path / "run" / "tool_calls.parquet")
    assert tools.filter(pl.col("tool") == "submit_candidates")["error"].is_null().to_list() == [False, True]
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["status"] == "complete" and meta["agent"] == "mcp"


def test_a_run_serves_its_instances_in_turn_and_continues_where_it_stopped(db_path, golds, tmp_path):
    out = tmp_path / "run"
    first = serve(db_path, out, levels=(2,), instances=3)
    wrong = {"candidates": [{"start": "2026-01-01T00:00"}]}

    async def one(client):
        task = (await client.get_prompt("task")).messages[0].content.text
        reply = await client.call_tool("submit_candidates", submission(golds["L2-0001"], 2))
        return task, reply.content[0].text

    task, reply = asyncio.run(_session(first, one))
    assert "Task L2-0001 (1 of 3)" in task and "Task L2-0002 (2 of 3)" in reply

    with pytest.raises(UserError, match=r"holds a run with other options: --levels 1 \(the run: 2\)"):
        serve(db_path, out, levels=(1,), instances=3)
    again = serve(db_path, out, levels=(2,), instances=3)

    async def rest(client):
        task = (await client.get_prompt("task")).messages[0].content.text
        replies = [(await client.call_tool("submit_candidates", wrong)).content[0].text for _ in range(2)]
        return task, replies

    task, replies = asyncio.run(_session(again, rest))
    assert "Task L2-0002 (2 of 3)" in task and "Task L2-0003 (3 of 3)" in replies[0]
    assert "run is complete" in replies[1]
    runs = pl.read_parquet(out / "runs.parquet").sort("instance_id")
    assert runs.select("instance_id", "f1").rows() == [("L2-0001", 1.0), ("L2-0002", 0.0), ("L2-0003", 0.0)]
    assert runs["failure_cause"].to_list()[1:] != [None, None]


def test_stdio_server_started_as_a_user_would(db_path, golds, tmp_path):
    out = tmp_path / "run"
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "mpcbench", "mcp", "--instance", "L1-0002", "--db", str(db_path), "--run", str(out)])

    async def script():
        async with Client(stdio_client(params)) as client:   # a transport: mcp 2.0 (verifiers' pin) to 2.x
            names = [t.name for t in (await client.list_tools()).tools]
            reply = await client.call_tool("submit_candidates", submission(golds["L1-0002"], 1))
            return names, reply

    names, reply = asyncio.run(script())
    assert names == [t.name for t in catalog(1)] + ["submit_candidates"]
    assert not reply.is_error
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs.select("instance_id", "exact_match").rows() == [("L1-0002", True)]


def test_an_agent_that_never_submits_is_recorded_at_the_budget_over_stdio_at_level_4(db_path, tmp_path):
    """`mpcbench mcp --level 4 --max-steps 3` started as a user would: the level-4 catalog is
    served, the third call ends the instance (the reply says so and gives the next task), and the
    instance is scored as eval scores an episode whose budget ran out: no answer, F1 0."""
    out = tmp_path / "run"
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "mpcbench", "mcp", "--level", "4", "--instances", "2", "--max-steps", "3", "--db", str(db_path),
        "--run", str(out)])

    async def script():
        async with Client(stdio_client(params)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            replies = [await client.call_tool("get_current_time", {}) for _ in range(3)]
            task = (await client.get_prompt("task")).messages[0].content.text
            return client.instructions, names, replies, task

    instructions, names, replies, task = asyncio.run(script())
    assert names == [t.name for t in catalog(4)] + ["submit_candidates"]
    assert "Task L4-0001 (1 of 2)" in instructions
    texts = [r.content[0].text for r in replies]
    assert "last of the 3 steps" not in texts[1]
    assert "last of the 3 steps of L4-0001" in texts[2] and "no answer" in texts[2]
    assert "Task L4-0002 (2 of 2)" in texts[2] and "Task L4-0002 (2 of 2)" in task
    runs = pl.read_parquet(out / "runs.parquet").to_dicts()
    assert [(r["instance_id"], r["steps"], r["tool_calls"], r["f1"], r["error"]) for r in runs] == \
        [("L4-0001", 3, 3, 0.0, None)]
    assert runs[0]["parse_ok"] is False and runs[0]["failure_cause"] is not None
    (record,) = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert record["end"] == "step_budget"
    assert json.loads((out / "run.json").read_text())["status"] == "incomplete"


def test_a_failed_submission_on_the_last_step_is_the_answer(db_path, golds, tmp_path):
    """The budget's end keeps the last submission attempt, as eval does: a start off the format
    is the answer, scored (parse failure), and its instance is recorded."""
    run = serve(db_path, tmp_path / "run", levels=(2,), instance_ids=("L2-0001",), max_steps=2)

    async def script(client):
        first = await client.call_tool("list_projects", {})
        last = await client.call_tool("submit_candidates", {"candidates": [{"start": "2026-03-02 09:30"}]})
        return first, last

    first, last = asyncio.run(_session(run, script))
    assert not first.is_error and last.is_error
    assert "YYYY-MM-DDTHH:MM" in last.content[0].text and "your last submission" in last.content[0].text
    assert "run is complete" in last.content[0].text
    (row,) = pl.read_parquet(tmp_path / "run" / "runs.parquet").to_dicts()
    assert (row["steps"], row["parse_ok"], row["f1"], row["error"]) == (2, False, 0.0, None)


def test_mcp_command_errors_are_one_line(db_path, tmp_path):
    result = cli.invoke(app, ["mcp", "--db", str(db_path)])
    assert result.exit_code == 2 and "--instance ID" in result.stderr
    result = cli.invoke(app, ["mcp", "--instance", "L9-0001", "--db", str(db_path), "--run", str(tmp_path / "r")])
    assert result.exit_code == 1 and "no such instance" in result.stderr and "Traceback" not in result.stderr
    serve(db_path, tmp_path / "mcp-run", levels=(1, 2, 3), instance_ids=("L1-0001",)).close()
    result = cli.invoke(app, ["eval", "--resume", "--out", str(tmp_path / "mcp-run"), "--db", str(db_path)])
    assert result.exit_code == 1 and "mpcbench mcp --run" in result.stderr


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_the_sdk_client_scores_a_gold_submission_exact_at_every_level(db_path, con, golds, tmp_path, level):
    """Through the MCP SDK client: the tools listed for each instance are the engine's (with
    maxItems = N at levels 1-2, listed again after each submission), and gold is exact."""
    ids = [f"L{level}-0001", f"L{level}-0002"]
    run = serve(db_path, tmp_path / "run", levels=(level,), instance_ids=tuple(ids))

    async def script(client):
        listed = []
        for instance_id in ids:
            listed.append({t.name: t.input_schema for t in (await client.list_tools()).tools})
            await client.call_tool("submit_candidates", submission(golds[instance_id], level))
        return listed

    listed = asyncio.run(_session(run, script))
    for instance_id, tools in zip(ids, listed):
        with Environment(con, instance_id) as env:
            engine = {f["name"]: f["parameters"] for f in
                      (entry["function"] for entry in codec_for("native").request(env)["tools"])}
        assert tools == engine
        assert tools["submit_candidates"]["properties"]["candidates"].get("maxItems") == env.n_given
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs["exact_match"].to_list() == [True, True] and runs["error"].is_null().all()
