"""A real local model server, end to end (opt-in: `pytest -m live tests/test_live_local_model.py`).

Start a server first, e.g. the small model and template of docs/evaluating.md
("A small model on the CPU"), kept serving after its tool-calling check:

    SERVE=1 MODEL=path/to/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \\
        TEMPLATE=bench/templates/qwen2.5-tools.jinja bench/local_model.sh

then, in another shell:

    MPCBENCH_LIVE_BASE_URL=http://127.0.0.1:8089/v1 .venv/bin/python -m pytest -m live tests/test_live_local_model.py

Settings: MPCBENCH_LIVE_BASE_URL (the server's /v1; unset or unreachable: the server tests skip),
MPCBENCH_LIVE_MODEL (the served name; default `local`, which llama-server ignores),
MPCBENCH_LIVE_TOOL_CHOICE (default `required`), MPCBENCH_LIVE_MAX_STEPS (default 4: a call on a
CPU takes 10-90 s).

What is checked: the tool-calling check of docs/evaluating.md returns `tool_calls`; a one-instance
eval at level 1 ends scored (no infrastructure error), every reply of the model came back as
`tool_calls` or as text that is not a tool call written out, and the episode did not end in a
parse failure of a text reply (what a chat template that gives no tool calls produces). The
model may still be wrong, or run out of steps: that is its score, not the server's.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request

import polars as pl
import pytest
from typer.testing import CliRunner

from mpcbench.cli import app

pytestmark = pytest.mark.live

BASE_URL = os.environ.get("MPCBENCH_LIVE_BASE_URL", "").rstrip("/")
MODEL = os.environ.get("MPCBENCH_LIVE_MODEL", "local")
TOOL_CHOICE = os.environ.get("MPCBENCH_LIVE_TOOL_CHOICE", "required")
MAX_STEPS = int(os.environ.get("MPCBENCH_LIVE_MAX_STEPS", "4"))
CHECK_TOOL = {"type": "function", "function": {"name": "get_current_time", "description": "The current time.",
                                               "parameters": {"type": "object", "properties": {}}}}
FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def call_written_as_text(content: str | None, tool_names: set[str]) -> bool:
    """Whether a reply's text is a tool call written out (a JSON object naming one of the tools,
    bare, in a code fence or in <tool_call> tags) rather than sent as `tool_calls`."""
    text = FENCE.sub("", (content or "").strip())
    text = re.sub(r"^<tool_call>\s*|\s*</tool_call>$", "", text)
    try:
        value = json.loads(text)
    except ValueError:
        match = re.search(r"\{.*\}", text, re.DOTALL)
        if not match:
            return False
        try:
            value = json.loads(match.group(0))
        except ValueError:
            return False
    return isinstance(value, dict) and value.get("name") in tool_names


@pytest.fixture(scope="module")
def server() -> str:
    if not BASE_URL:
        pytest.skip("set MPCBENCH_LIVE_BASE_URL to a running server's /v1 (e.g. http://127.0.0.1:8089/v1; "
                    "SERVE=1 MODEL=... TEMPLATE=... bench/local_model.sh starts one)")
    try:
        with urllib.request.urlopen(f"{BASE_URL}/models", timeout=10) as response:
            json.load(response)
    except (OSError, ValueError) as error:
        pytest.skip(f"no server answers at {BASE_URL}/models ({error})")
    return BASE_URL


def post(base_url: str, body: dict) -> dict:
    request = urllib.request.Request(f"{base_url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)


def test_the_detector_tells_a_call_written_as_text_from_an_answer():
    """The eval test's assertion can fail: a call as text is caught however it is wrapped."""
    names = {"get_current_time", "submit_candidates"}
    assert call_written_as_text('{"name": "get_current_time", "arguments": {}}', names)
    assert call_written_as_text('```json\n{"name": "get_current_time", "arguments": {}}\n```', names)
    assert call_written_as_text('<tool_call>\n{"name": "submit_candidates", "arguments": {}}\n</tool_call>', names)
    assert call_written_as_text('Sure: {"name": "get_current_time", "arguments": {}} is the call.', names)
    assert not call_written_as_text('{"candidates": [{"start": "2026-03-17T09:00"}]}', names)
    assert not call_written_as_text("It is nine o'clock.", names)
    assert not call_written_as_text(None, names)


def test_the_tool_calling_check_returns_tool_calls(server):
    """docs/evaluating.md's check: one tool, tool_choice and max_tokens; the call must come back
    as `tool_calls`, not as JSON text in `content`."""
    body = post(server, {"model": MODEL, "max_tokens": 256, "tool_choice": TOOL_CHOICE,
                         "messages": [{"role": "user", "content": "What time is it? Use the tool."}],
                         "tools": [CHECK_TOOL]})
    message = body["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    assert calls, (f"no tool_calls (finish_reason {body['choices'][0].get('finish_reason')!r}); content: "
                   f"{(message.get('content') or '')[:300]!r}: the chat template or the server's parser gives "
                   "this model no tool calls (docs/evaluating.md, 'Tool calling depends on the chat template')")
    assert calls[0]["function"]["name"] == "get_current_time"
    json.loads(calls[0]["function"]["arguments"] or "{}")   # the arguments are JSON


def test_a_level_1_episode_ends_without_a_template_parse_failure(server, db_path, tmp_path):
    out = tmp_path / "live-local"
    result = CliRunner().invoke(app, [
        "eval", "--agent", "openai", "--base-url", server, "--model", MODEL, "--db", str(db_path),
        "--levels", "1", "--instances", "1", "--tool-choice", TOOL_CHOICE, "--max-steps", str(MAX_STEPS),
        "--max-tokens", "512", "--timeout", "600", "--max-retries", "1", "--concurrency", "1", "--out", str(out)],
        env={"OPENAI_API_KEY": "sk-local-no-auth"})
    assert result.exit_code == 0, result.output
    rows = pl.read_parquet(out / "runs.parquet").to_dicts()
    assert len(rows) == 1
    row = rows[0]
    assert row["error"] is None, f"the endpoint failed: {row['error']}"

    records = [json.loads(line) for line in (out / "llm_cache.jsonl").read_text().splitlines()]
    assert records, "the run sent no model request"
    tool_names = {t["function"]["name"] for t in records[0]["request"]["tools"]}
    replies = [r["response"]["choices"][0]["message"] for r in records]
    with_calls = [m for m in replies if m.get("tool_calls")]
    as_text = [m["content"] for m in replies if not m.get("tool_calls") and call_written_as_text(m.get("content"), tool_names)]
    assert with_calls, f"no reply came back with tool_calls; the first: {replies[0]!r}"
    assert not as_text, f"{len(as_text)} tool call(s) came back as text in content, e.g. {as_text[0][:300]!r}"
    if TOOL_CHOICE == "required":
        assert len(with_calls) == len(replies), "under tool_choice=required a reply came back without tool_calls"

    # the episode's end: a parse failure of a text reply is what a template without tool calls gives
    assert not (row["answer_path"] == "text" and not row["parse_ok"]), (
        f"the episode ended in a parse failure of a text reply: {row['parse_error']}")
    assert row["answer_path"] == "tool" or row["tool_calls"] >= 1, row
    assert 1 <= row["steps"] <= MAX_STEPS
