"""A model's limits count against the model: a request refused as longer than the model's context
(`context_exceeded`) or a server refusing the model's own output after the retries
(`model_output_rejected`) ends the episode scored, F1 0, with that cause; timeouts, connection
errors and other refusals stay infrastructure errors. The refusals are the servers' own wordings,
answered by a fake OpenAI-compatible endpoint."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import submit
from fake_openai import Behaviour, FakeOpenAI, reply_text, reply_tool_calls
from mpcbench.cli import app
from mpcbench.errors import ModelLimitError
from mpcbench.llm import ChatClient, EndpointConfig, InfrastructureError, ResponseCache
from mpcbench.model_limits import CONTEXT_WORDINGS, OUTPUT_WORDINGS, model_limit

KEY = "sk-test-limits"
runner = CliRunner()

# Each server's refusal, as its source or its users' reports give it (status, body).
CONTEXT_REFUSALS = {
    "OpenAI": (400, {"error": {"message": "This model's maximum context length is 128000 tokens. However, your "
                                          "messages resulted in 130412 tokens. Please reduce the length of the "
                                          "messages.", "type": "invalid_request_error", "param": "messages",
                               "code": "context_length_exceeded"}}),
    "OpenAI, the code alone": (400, {"error": {"message": "Request too large.", "type": "invalid_request_error",
                                               "param": None, "code": "context_length_exceeded"}}),
    "llama.cpp": (400, {"error": {"code": 400, "message": "request (18612 tokens) exceeds the available context size "
                                                          "(16384 tokens), try increasing it",
                                  "type": "exceed_context_size_error", "n_prompt_tokens": 18612, "n_ctx": 16384}}),
    "vLLM": (400, {"object": "error", "message": "This model's maximum context length is 16384 tokens. However, you "
                                                 "requested 18900 tokens (18612 in the messages, 288 in the "
                                                 "completion). Please reduce the length of the messages or "
                                                 "completion.", "type": "BadRequestError", "param": None, "code": 400}),
    "vLLM, the engine": (400, {"error": {"message": "The decoder prompt (length 18612) is longer than the maximum "
                                                    "model length of 16384. Make sure that `max_model_len` is no "
                                                    "smaller than the number of text tokens.",
                                         "type": "BadRequestError", "code": 400}}),
    "SGLang": (400, {"object": "error", "message": "The input (18612 tokens) is longer than the model's context "
                                                   "length (16384 tokens).", "type": "BadRequestError", "code": 400}),
    "SGLang, max_tokens": (400, {"object": "error", "message": "Requested token count exceeds the model's maximum "
                                                               "context length of 16384 tokens. You requested a total "
                                                               "of 18900 tokens.", "code": 400}),
}
OUTPUT_REFUSALS = {
    "llama.cpp": (500, {"error": {"code": 500, "message": "The model produced output that does not match the "
                                                          "expected peg-native format", "type": "server_error"}}),
    "llama.cpp, the chat parser": (500, {"error": {"code": 500, "message": "Failed to parse input at pos 12: "
                                                                           "</tool_call>", "type": "server_error"}}),
    "vLLM, gpt-oss": (500, {"object": "error", "message": "unexpected tokens remaining in message header: "
                                                          "Some(\"to=functions.list_free\")",
                            "type": "InternalServerError", "code": 500}),
}
NOT_THE_MODEL = {  # the endpoint's faults: infrastructure errors, whatever words they hold
    "unknown model": (400, {"error": {"message": "model 'x' not found", "type": "invalid_request_error"}}),
    "a plain 500": (500, {"error": {"message": "CUDA out of memory", "type": "server_error"}}),
    "context words in a 5xx": (503, {"error": {"message": "request exceeds the available context size"}}),
    "output words in a 4xx": (400, {"error": {"message": "Failed to parse input at pos 3: bad JSON in the request"}}),
}


def refusal(code: int, body: dict) -> Behaviour:
    return Behaviour(status=code, body=body)


class Sleeps(list):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def complete(srv, *, cache=None, replay_only=False, max_retries=2):
    config = EndpointConfig(model="fake-model", base_url=srv.base_url, timeout_s=5, max_retries=max_retries)

    async def go():
        async with ChatClient(config, cache=cache, replay_only=replay_only, rng=random.Random(0),
                              sleep=Sleeps()) as client:
            return await client.complete({"messages": [{"role": "user", "content": "Find a slot."}]})

    return asyncio.run(go())


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.mark.parametrize("server", CONTEXT_REFUSALS)
def test_a_context_refusal_is_the_models_limit_at_once(server):
    with FakeOpenAI(lambda req: refusal(*CONTEXT_REFUSALS[server])) as srv:
        with pytest.raises(ModelLimitError) as ei:
            complete(srv)
        assert len(srv.requests) == 1  # a 4xx: retrying cannot help
    assert ei.value.cause == "context_exceeded" and "HTTP 400" in ei.value.message


@pytest.mark.parametrize("server", OUTPUT_REFUSALS)
def test_an_output_rejection_is_the_models_after_the_retries(server):
    with FakeOpenAI(lambda req: refusal(*OUTPUT_REFUSALS[server])) as srv:
        with pytest.raises(ModelLimitError) as ei:
            complete(srv, max_retries=2)
        assert len(srv.requests) == 3
    assert ei.value.cause == "model_output_rejected" and ei.value.attempts == 3


def test_an_output_rejection_that_passes_on_a_retry_is_no_failure():
    with FakeOpenAI([refusal(*OUTPUT_REFUSALS["llama.cpp"]), submit([], 1)]) as srv:
        result = complete(srv)
    assert result.attempts == 2 and result.message["tool_calls"]


@pytest.mark.parametrize("case", NOT_THE_MODEL)
def test_the_endpoints_faults_stay_infrastructure_errors(case):
    with FakeOpenAI(lambda req: refusal(*NOT_THE_MODEL[case])) as srv:
        with pytest.raises(InfrastructureError) as ei:
            complete(srv, max_retries=1)
    assert ei.value.kind in ("client_error", "server_error")


def test_a_refusal_is_cached_so_a_replay_meets_it_again(tmp_path):
    cache = ResponseCache(tmp_path / "llm_cache.jsonl")
    with FakeOpenAI(lambda req: refusal(*CONTEXT_REFUSALS["llama.cpp"])) as srv:
        with pytest.raises(ModelLimitError):
            complete(srv, cache=cache)
        with pytest.raises(ModelLimitError) as again:  # replay-only: no request is sent
            complete(srv, cache=ResponseCache(tmp_path / "llm_cache.jsonl"), replay_only=True)
        assert len(srv.requests) == 1
    assert again.value.cause == "context_exceeded" and "16384 tokens" in again.value.message


def test_the_docs_list_the_wordings_recognised():
    """docs/evaluating.md names every wording model_limits matches, and no other."""
    text = (Path(__file__).parents[1] / "docs" / "evaluating.md").read_text()
    section = text.split("### A model's limits", 1)[1].split("\n## ", 1)[0]
    listed = {w.lower() for w in re.findall(r"`([^`]+)`", section)}
    wordings = {w for table in (CONTEXT_WORDINGS, OUTPUT_WORDINGS) for group in table.values() for w in group}
    assert wordings <= listed
    assert model_limit(400, "x") is None and model_limit(429, "context_length_exceeded") is None


# --- through `mpcbench eval`, as a user runs it --------------------------------------------------

def eval_run(db_path, out, base_url, *more) -> object:
    return runner.invoke(app, ["eval", "--agent", "openai", "--model", "fake-model", "--base-url", base_url,
                               "--db", str(db_path), "--out", str(out), "--levels", "1,2", *more])


def test_an_endpoint_answering_context_length_exceeded_scores_every_episode(db_path, tmp_path):
    with FakeOpenAI(lambda req: refusal(*CONTEXT_REFUSALS["OpenAI"])) as srv:
        result = eval_run(db_path, tmp_path / "run", srv.base_url)
    assert result.exit_code == 0, result.output
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs.height == 8 and runs["error"].is_null().all()
    assert (runs["f1"] == 0).all() and (~runs["exact_match"]).all()
    assert set(runs["failure_cause"]) == {"context_exceeded"}
    assert runs["failure_detail"].str.contains("maximum context length is 128000").all()
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["episodes"]["context_exceeded"] == 8 and meta["episodes"]["infrastructure_errors"] == 0
    assert [(s["level"], s["scored"], s["context_exceeded"], s["parse_failures"]) for s in meta["summary"]] == \
        [(1, 4, 4, 0), (2, 4, 4, 0)]
    header = next(line for line in result.output.splitlines() if "┃ level" in line)
    column = [c.strip() for c in header.split("┃")].index("context exceeded")
    rows = [[c.strip() for c in line.split("│")] for line in result.output.splitlines() if line.startswith("│")]
    assert [(row[1], row[column]) for row in rows] == [("1", "4"), ("2", "4")]  # the count, shown per level
    report = runner.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report"),
                                 "--trajectories", "none"])
    assert report.exit_code == 0, report.output
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| Level 1 | fake-model | 4 |" in text.split("| context exceeded |", 1)[1]  # the report's outcomes


def test_a_rejected_tool_call_after_a_good_one_ends_the_episode_scored(db_path, tmp_path):
    """Each episode: one tool call answered, then the server rejects the model's output (llama.cpp's
    HTTP 500) on every retry: scored, two steps (the rejected reply is one), `model_output_rejected`;
    the journal keeps it."""
    def script(req):
        if len(req.messages) <= 2:  # the opening request
            return reply_tool_calls([("get_current_time", {})])
        return refusal(*OUTPUT_REFUSALS["llama.cpp"])

    with FakeOpenAI(script) as srv:
        result = eval_run(db_path, tmp_path / "run", srv.base_url, "--max-retries", "0", "--levels", "1")
    assert result.exit_code == 0, result.output
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs["error"].is_null().all() and (runs["f1"] == 0).all() and (runs["steps"] == 2).all()
    assert set(runs["failure_cause"]) == {"model_output_rejected"}
    records = [json.loads(line) for line in (tmp_path / "run" / "journal.jsonl").read_text().splitlines()]
    assert {r["end"] for r in records} == {"model_output_rejected"}
    assert all("expected peg-native format" in r["end_detail"] for r in records)


def table_counts(output: str, level: str) -> dict[str, str]:
    """One level's row of a rich table printed by the CLI, by column name."""
    header = [[c.strip() for c in line.split("┃")] for line in output.splitlines() if line.startswith("┃")]
    names = [" ".join(filter(None, parts)) for parts in zip(*header)]   # a header may wrap onto two lines
    row = next(line for line in output.splitlines() if line.startswith("│") and line.split("│")[1].strip() == level)
    return dict(zip(names, [c.strip() for c in row.split("│")]))


def test_eval_run_json_and_report_agree_on_every_count(db_path, tmp_path):
    """Episodes that end five ways in one run — a model's limit, a parse failure, out of steps, an
    endpoint's outage, an answer — are counted once each, and alike by eval's table, run.json,
    report.md and report.html. Which way depends on the instance (its opening prompt), so retries
    agree; the tiny build's eight instances at levels 1-2 take the ways in turn."""
    ways: dict[str, int] = {}

    def script(req):
        way = ways.setdefault(req.messages[1]["content"], len(ways) % 5)
        if way == 0:
            return refusal(*OUTPUT_REFUSALS["llama.cpp"])
        if way == 1:
            return reply_text("I cannot tell which times work.")
        if way == 2:
            return refusal(503, {"error": {"message": "overloaded"}})
        if way == 3:
            return reply_tool_calls([("get_current_time", {})])   # never answers: out of steps
        return reply_tool_calls([("submit_candidates", {"candidates": []})])

    with FakeOpenAI(script) as srv:
        result = eval_run(db_path, tmp_path / "run", srv.base_url, "--max-retries", "0", "--max-steps", "2",
                          "--concurrency", "1")
    assert result.exit_code == 0, result.output
    assert len(ways) == 8
    n = [sum(1 for w in ways.values() if w == k) for k in range(5)]   # 2, 2, 2, 1, 1
    expected = {"model_output_rejected": n[0], "parse_failures": n[1], "infrastructure_errors": n[2],
                "step_budget": n[3], "harness_errors": 0, "context_exceeded": 0}
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert {k: meta["episodes"][k] for k in expected} == expected
    assert {k: sum(s[k] for s in meta["summary"]) for k in expected} == expected
    shown = [table_counts(result.output, level) for level in ("1", "2")]
    columns = {"parse failures": "parse_failures", "out of steps": "step_budget",
               "model output rejected": "model_output_rejected", "infra errors": "infrastructure_errors"}
    assert {key: sum(int(row[column]) for row in shown) for column, key in columns.items()} == \
        {key: expected[key] for key in columns.values()}
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs.filter(pl.col("failure_cause") == "model_output_rejected")["steps"].to_list() == [1] * n[0]
    assert runs.filter(pl.col("end") == "step_budget")["steps"].to_list() == [2] * n[3]

    report = runner.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report"),
                                 "--trajectories", "none"])
    assert report.exit_code == 0, report.output
    md = (tmp_path / "report" / "report.md").read_text()
    results = md.split("## Results", 1)[1].split("\n## ", 1)[0]
    header = [c.strip() for c in next(line for line in results.splitlines() if line.startswith("| Level |")).split("|")]
    rows = [dict(zip(header, [c.strip() for c in line.split("|")])) for line in results.splitlines()
            if line.startswith("| Level 1 |") or line.startswith("| Level 2 |")]
    report_columns = {"Parse failures": "parse_failures", "Out of steps": "step_budget",
                      "Model limits": "model_output_rejected", "Infra errors": "infrastructure_errors"}
    assert {key: sum(int(row[column]) for row in rows) for column, key in report_columns.items()} == \
        {key: expected[key] for key in report_columns.values()}
    html = (tmp_path / "report" / "report.html").read_text()
    assert ">Model limits<" in html and ">Out of steps<" in html


def test_the_feedback_models_limit_is_not_the_evaluated_models(db_path, golds, tmp_path):
    """--feedback llm: the feedback model's context refusal ends the episode as an infrastructure
    error of the feedback (`feedback_context_exceeded`), never as the evaluated model's failure."""
    keys = golds["L1-0001"]

    def script(req):
        if req.body["model"] == "critic":
            return refusal(*CONTEXT_REFUSALS["vLLM"])
        return submit([(keys[0][0][:11] + "03:00", None)], 1)   # wrong: the feedback model is asked

    with FakeOpenAI(script) as srv:
        result = eval_run(db_path, tmp_path / "run", srv.base_url, "--levels", "1", "--instance", "L1-0001",
                          "--max-turns", "2", "--feedback", "llm", "--feedback-model", "critic")
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs["error_kind"].to_list() == ["feedback_context_exceeded"] and runs["f1"].is_null().all()
    assert "every episode" in result.output   # a run of nothing but infrastructure errors fails
