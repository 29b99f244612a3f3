"""Run logs, judge inputs, the two-axis judge and the pipeline: the seed's fields, schema-valid
artifacts, judge replies parsed and range-checked (retried, then recorded as judge failures),
the model agent's tool loop, and the offline pipeline end to end."""

from __future__ import annotations

import asyncio
import json

import polars as pl
import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAI, reply_text, reply_tool_calls, status
from legacykit import AXES, files_under, judge_input_of, judge_reply, mock_warehouse
from mpcbench.cli import app
from mpcbench.legacy import archive, validate
from mpcbench.legacy.backend import ToolBackend
from mpcbench.legacy.judge import build_judge_input, heuristic, judge, judge_result
from mpcbench.legacy.models import Endpoint
from mpcbench.legacy.run import run_task

SECRET = "sk-legacy-SECRET-42"
SEED_RUN_LOG = {"task_id", "task_type", "user_prompt", "tool_trace_steps", "raw_tool_calls", "final_answer", "rationale"}
SEED_JUDGE_INPUT = {"task_id", "task_type", "user_prompt", "answer_requirements", "tool_trace_steps", "raw_tool_calls",
                    "tool_trace", "final_answer", "rationale"}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


@pytest.fixture(scope="module")
def con():
    con = mock_warehouse()
    yield con
    con.close()


def task(task_id: str) -> dict:
    return archive.load_task(archive.task_path(task_id))


def endpoint(srv, **kw) -> Endpoint:
    return Endpoint(base_url=srv.base_url, max_retries=0, **kw)


def test_the_run_log_holds_the_seeds_fields_with_full_tool_results(con):
    spec = task("aurora_go_no_go")
    log = asyncio.run(run_task(con, spec, "offline:scripted"))
    assert SEED_RUN_LOG <= set(log) and validate.problems(log, "run_log") == []
    assert (log["task_id"], log["task_type"], log["user_prompt"]) == (spec["task_id"], spec["task_type"], spec["user_prompt"])
    assert [c["tool_name"] for c in log["raw_tool_calls"]] == [s["tool"] for s in spec["expected_tool_sequence"]]
    assert log["tool_trace_steps"][0] == 'Step 1: Gmail.search_threads(query="go/no-go")'
    with ToolBackend(con, spec["scenario_id"]) as tools:   # the recorded result is the tool's whole text
        for call in log["raw_tool_calls"]:
            assert call["result"] == tools.call(call["tool_name"], call["arguments"])
    assert "2025-06-17" in log["final_answer"] and log["rationale"]


def test_the_judge_input_holds_the_seeds_fields_and_nothing_about_the_agent(con):
    spec = task("reply_ravi_privacy")
    log = asyncio.run(run_task(con, spec, "offline:scripted"))
    data = build_judge_input(log, spec)
    assert set(data) == SEED_JUDGE_INPUT and validate.problems(data, "judge_input") == []
    assert data["answer_requirements"] == spec["answer_requirements"]
    assert data["raw_tool_calls"] == log["raw_tool_calls"] and data["tool_trace_steps"] == log["tool_trace_steps"]
    assert [(t["step_index"], t["tool_name"], t["result"]) for t in data["tool_trace"]] == [
        (c["step"], c["tool_name"], c["result"]) for c in log["raw_tool_calls"]]
    assert "offline:scripted" not in json.dumps(data)


def test_the_offline_judge_passes_the_scripted_agent_and_fails_the_bad_one(con):
    spec = task("nadia_schedule")
    good = heuristic(build_judge_input(asyncio.run(run_task(con, spec, "offline:scripted")), spec))
    bad_log = asyncio.run(run_task(con, spec, "offline:bad"))
    bad = heuristic(build_judge_input(bad_log, spec))
    assert (good[AXES[0]]["score"], good[AXES[1]]["score"]) == (5, 5)
    assert bad_log["raw_tool_calls"] == []
    # none of the requirements' terms is in the bad answer; its two facts (a date, a time) back nothing
    assert (bad[AXES[0]]["score"], bad[AXES[1]]["score"]) == (0, 0)
    assert "not found: 2025-01-06, 09:00" in bad[AXES[1]]["justification"]


def test_the_heuristic_scores_are_shares_of_terms_rounded_half_up():
    data = {"final_answer": "Meet on 2025-06-06 at 14:00 with Marco.", "rationale": "",
            "answer_requirements": ["Says `2025-06-06`.", "Says `14:00` in `Elbe`.", "Names `Marco`.", "Names `Jun`."],
            "raw_tool_calls": [{"step": 1, "tool_name": "Calendar.list_events", "arguments": {},
                                "result": "2025-06-06T14:00 Elbe room", "error": None}]}
    scores = heuristic(data)
    assert scores[AXES[0]]["score"] == 3          # 2 of 4 requirements met: 5 x 0.5 = 2.5 -> 3
    assert scores[AXES[1]]["score"] == 5          # both facts appear in the tool result


def judge_of(srv, attempts=3, **kw):
    data = build_judge_input(asyncio.run(run_task(mock_warehouse(), task("nadia_schedule"), "offline:scripted")),
                             task("nadia_schedule"))
    return asyncio.run(judge(data, "judge-model", endpoint(srv, **kw), attempts=attempts)), data


def test_a_valid_judge_reply_is_parsed_and_the_judge_sees_the_input_without_tools():
    with FakeOpenAI([judge_reply(4, 2, "requirements mostly met")]) as srv:
        outcome, data = judge_of(srv)
        body = srv.requests[0].body
    assert outcome == {"status": "ok", AXES[0]: {"score": 4, "justification": "requirements mostly met"},
                       AXES[1]: {"score": 2, "justification": "requirements mostly met"}, "attempts": 1, "error": None}
    assert "tools" not in body and judge_input_of(srv.requests[0]) == data
    assert body["messages"][0]["content"] == archive.prompt_config()["evaluation"]["judge"]["system_prompt"]


@pytest.mark.parametrize("bad, path", [
    (judge_reply(7), "$.answer_requirements_satisfaction.score: 7 is greater than the maximum of 5"),
    (judge_reply(-1), "$.answer_requirements_satisfaction.score: -1 is less than the minimum of 0"),
    (judge_reply("4"), "$.answer_requirements_satisfaction.score: '4' is not of type 'integer'"),
    (judge_reply(4.5), "$.answer_requirements_satisfaction.score: 4.5 is not of type 'integer'"),
    (judge_reply(4, justification=""), "$.answer_requirements_satisfaction.justification: '' should be non-empty"),
    (reply_text('{"answer_requirements_satisfaction": {"score": 3, "justification": "x"}}'),
     "$: 'source_grounded_reasoning' is a required property"),
    (reply_text("The answer looks great, I'd give it a 5."), "$: the reply is not a JSON object"),
])
def test_an_invalid_judge_reply_is_retried_with_the_problem_then_recorded_as_a_judge_failure(bad, path):
    with FakeOpenAI([bad, bad, bad]) as srv:
        outcome, _ = judge_of(srv)
        assert len(srv.requests) == 3
        assert path in srv.requests[1].body["messages"][-1]["content"]
    assert outcome["status"] == "judge_failure" and outcome[AXES[0]] is None and outcome[AXES[1]] is None
    assert outcome["error"].startswith("invalid judge output after 3 attempts: ") and path in outcome["error"]
    result = judge_result("nadia_schedule", "offline:scripted", "judge-model", outcome)
    assert validate.problems(result, "judge_result") == []


def test_a_judge_reply_fixed_on_retry_counts_and_an_endpoint_failure_is_kept_apart():
    with FakeOpenAI([judge_reply(9), reply_text("```json\n" + json.dumps(
            {AXES[0]: {"score": 5, "justification": "a"}, AXES[1]: {"score": 1, "justification": "b"}}) + "\n```")]) as srv:
        outcome, _ = judge_of(srv)
    assert (outcome["status"], outcome["attempts"], outcome[AXES[0]]["score"], outcome[AXES[1]]["score"]) == ("ok", 2, 5, 1)
    with FakeOpenAI([status(401, message="bad key")]) as srv:
        outcome, _ = judge_of(srv)
    assert outcome["status"] == "infra_error" and outcome["error"].startswith("client_error: HTTP 401")


def test_a_judge_result_with_scores_on_a_failure_or_none_on_success_is_invalid():
    ok = {"task_id": "t", "agent_model": "a", "judge_model": "j", "status": "ok", AXES[0]: None, AXES[1]: None,
          "attempts": 1, "error": None}
    assert validate.problems(ok, "judge_result")
    failed = {**ok, "status": "judge_failure", AXES[0]: {"score": 3, "justification": "x"}, "error": "bad"}
    assert validate.problems(failed, "judge_result")


def test_the_model_agent_calls_tools_and_answers_with_the_seeds_json(con):
    spec = task("peter_debrief_prep")
    final = {"final_answer": "Debrief on 2025-06-05 at 15:00 in the Isar room; Isabel Costa's feedback is missing (HIR-23).",
             "rationale": "Calendar.list_events and Jira.get_issue."}
    script = [reply_tool_calls([("calendar_list_events", {"start_date": "2025-06-02", "end_date": "2025-06-06",
                                                          "query": "Debrief"}),
                                ("Jira.get_issue", '{"key": "HIR-23"}')]),
              reply_tool_calls([("jira_get_issue", {"key": 23})]),
              reply_text("Here you go:\n" + json.dumps(final))]
    with FakeOpenAI(script) as srv:
        log = asyncio.run(run_task(con, spec, "agent-model", endpoint(srv)))
        second = srv.requests[1].body["messages"]
    assert (log["final_answer"], log["rationale"], log["answer_parse_ok"], log["steps"]) == (
        final["final_answer"], final["rationale"], True, 3)
    assert [c["tool_name"] for c in log["raw_tool_calls"]] == ["Calendar.list_events", "Jira.get_issue", "Jira.get_issue"]
    assert "Isar room" in log["raw_tool_calls"][0]["result"]
    assert log["raw_tool_calls"][2]["result"].startswith("error: key must be a string")
    assert [m["content"] for m in second if m["role"] == "tool"] == [c["result"] for c in log["raw_tool_calls"][:2]]
    assert validate.problems(log, "run_log") == []


def test_a_final_reply_that_is_not_the_json_is_kept_as_the_answer(con):
    with FakeOpenAI([reply_text("The debrief is on Thursday.")]) as srv:
        log = asyncio.run(run_task(con, task("peter_debrief_prep"), "agent-model", endpoint(srv)))
    assert (log["final_answer"], log["answer_parse_ok"], log["error"]) == ("The debrief is on Thursday.", False, None)


def test_the_offline_pipeline_end_to_end_is_valid_and_deterministic(tmp_path):
    runner = CliRunner()
    for root in ("a", "b"):
        result = runner.invoke(app, ["legacy", "pipeline", "--provider", "mock", "--offline", "--root", str(tmp_path / root)])
        assert result.exit_code == 0, result.output
    scores = pl.read_parquet(tmp_path / "a" / "scores.parquet")
    tasks = archive.task_paths()
    assert scores.height == len(tasks) * 2 and set(scores["judge_status"]) == {"ok"}
    means = dict(scores.group_by("agent_model").agg(pl.col(AXES[0]).mean()).iter_rows())
    assert means == {"offline:scripted": 5.0, "offline:bad": 0.0}
    logs = tmp_path / "a" / "logs"
    assert len(list(logs.glob("*_run.json"))) == len(tasks) * 2
    for path in logs.iterdir():
        kind = next(k for k in ("judge_input", "judge_result", "run") if path.name.endswith(f"_{k}.json"))
        assert validate.problems(json.loads(path.read_text()), {"run": "run_log"}.get(kind, kind)) == [], path.name
    a, b = files_under(tmp_path / "a" / "logs"), files_under(tmp_path / "b" / "logs")
    assert a == b


def test_the_pipeline_with_a_model_writes_no_secret_and_records_judge_failures(tmp_path):
    def script(req):
        if "tools" in req.body:  # the agent
            return reply_text(json.dumps({"final_answer": "Nothing found.", "rationale": "No tools used."}))
        return reply_text("I cannot judge this.")
    with FakeOpenAI(script) as srv:
        result = CliRunner().invoke(app, [
            "legacy", "pipeline", "--provider", "mock", "--agent-model", "agent-x", "--judge-model", "judge-y",
            "--judge-model", "offline:heuristic", "--task", "nadia_schedule", "--task", "reply_oliver_headcount",
            "--base-url", srv.base_url.replace("http://", "http://user:hidden@"), "--max-retries", "0", "--attempts", "2",
            "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    scores = pl.read_parquet(tmp_path / "scores.parquet")
    assert scores.height == 4
    assert sorted(scores.filter(pl.col("judge_model") == "judge-y")["judge_status"]) == ["judge_failure"] * 2
    assert set(scores.filter(pl.col("judge_model") == "judge-y")["judge_attempts"]) == {2}
    for name, content in files_under(tmp_path).items():
        assert SECRET.encode() not in content and b"hidden" not in content, name


def test_pipeline_and_judge_with_constrained_send_the_reply_schema_and_a_prose_judge_then_passes(tmp_path):
    """A small model writes prose unless its sampling is constrained: with --constrained the judge
    request carries the reply's JSON Schema as response_format, and the judgements validate."""
    def script(req):
        if "tools" in req.body:  # the agent
            return reply_text(json.dumps({"final_answer": "Nothing found.", "rationale": "No tools used."}))
        if not req.body.get("response_format"):
            return reply_text("I would say this is about a four.")
        return judge_reply(3, 2)

    def pipeline(root, *extra):
        with FakeOpenAI(script) as srv:
            result = CliRunner().invoke(app, [
                "legacy", "pipeline", "--provider", "mock", "--agent-model", "agent-x", "--judge-model", "judge-y",
                "--task", "nadia_schedule", "--base-url", srv.base_url, "--max-retries", "0", "--attempts", "1",
                "--root", str(root), *extra])
        assert result.exit_code == 0, result.output
        return pl.read_parquet(root / "scores.parquet").row(0, named=True)

    assert pipeline(tmp_path / "plain")["judge_status"] == "judge_failure"
    row = pipeline(tmp_path / "constrained", "--constrained")
    assert (row["judge_status"], row[AXES[0]], row[AXES[1]]) == ("ok", 3, 2)
    judge_input = next((tmp_path / "constrained" / "logs").glob("*_judge_input.json"))
    with FakeOpenAI(script) as srv:
        args = ["legacy", "judge", "--input", str(judge_input), "--model", "judge-y", "--base-url", srv.base_url,
                "--max-retries", "0", "--attempts", "1", "--output", str(tmp_path / "one.json"),
                "--cache", str(tmp_path / "judge_cache.jsonl")]   # not build/legacy/ of the repository
        assert CliRunner().invoke(app, args).exit_code == 1                     # prose: a judge failure
        result = CliRunner().invoke(app, [*args, "--constrained"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "one.json").read_text())[AXES[1]]["score"] == 2


def test_run_judge_input_and_judge_commands_write_the_seeds_files(tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["legacy", "generate", "--scenario", "hiring_loop", "--provider", "mock",
                               "--root", str(tmp_path)]).exit_code == 0
    result = runner.invoke(app, ["legacy", "run", "--task", str(archive.task_path("nadia_schedule")),
                                 "--agent-model", "offline:scripted", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    log = tmp_path / "logs" / "nadia_schedule__agent-offline-scripted_run.json"
    result = runner.invoke(app, ["legacy", "judge-input", "--log", str(log), "--judge-model", "offline:heuristic"])
    assert result.exit_code == 0, result.output
    judge_input = tmp_path / "logs" / "nadia_schedule__agent-offline-scripted__judge-offline-heuristic_judge_input.json"
    result = runner.invoke(app, ["legacy", "judge", "--input", str(judge_input), "--model", "offline:heuristic",
                                 "--cache", str(tmp_path / "judge_cache.jsonl")])   # not build/legacy/ of the repository
    assert result.exit_code == 0, result.output
    saved = json.loads(judge_input.with_name(judge_input.name.replace("_judge_input", "_judge_result")).read_text())
    assert (saved["agent_model"], saved["status"], saved[AXES[0]]["score"]) == ("offline:scripted", "ok", 5)
    result = runner.invoke(app, ["legacy", "run", "--task", "aurora_go_no_go", "--agent-model", "offline:scripted",
                                 "--root", str(tmp_path)])
    assert result.exit_code == 1 and "run `mpcbench legacy generate --scenario product_launch` first" in result.output
    result = runner.invoke(app, ["legacy", "run", "--task", "nadia_schedule", "--agent-model", "offline:genius",
                                 "--root", str(tmp_path)])
    assert result.exit_code == 1 and "no offline agent 'offline:genius'" in result.output
