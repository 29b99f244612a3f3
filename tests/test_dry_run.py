"""`mpcbench eval --dry-run` plans the run and sizes its first requests without a chat call; the
sizes it prints are what the run then sends (within 5 %), measured on the bytes a fake endpoint
receives; where the server offers a tokenizer (vLLM's or llama.cpp's `/tokenize`) the tokens are
its count of the very request the run then sends."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from evalkit import GoldModel
from fake_openai import Behaviour, FakeOpenAI
from mpcbench.cli import app
from mpcbench.episode.engine import DEFAULT_MAX_STEPS

runner = CliRunner()


def eval_args(db_path, base_url, *more) -> list[str]:
    return ["eval", "--agent", "openai", "--model", "gpt-4o-mini", "--base-url", base_url, "--db", str(db_path),
            "--instances", "1", *more]


def dry_rows(output: str) -> dict[int, list[str]]:
    """The dry run's table: level -> its cells."""
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in output.splitlines() if line.startswith("│")]
    return {int(row[0]): row for row in rows}


@pytest.mark.parametrize("protocol,mode", [("native", "tools"), ("mint", "context")])
def test_the_dry_runs_first_requests_are_what_the_run_sends(db_path, tmp_path, monkeypatch, protocol, mode):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dry")
    options = ["--protocol", protocol, "--mode", mode]
    model = GoldModel(db_path)
    with FakeOpenAI(model) as srv:
        dry = runner.invoke(app, eval_args(db_path, srv.base_url, *options, "--dry-run"))
        assert srv.requests == [] and srv.get_requests == []   # no chat call, not even the probe
        assert dry.exit_code == 0, dry.output
        assert not (tmp_path / "run").exists()
        run = runner.invoke(app, eval_args(db_path, srv.base_url, *options, "--out", str(tmp_path / "run")))
        assert run.exit_code == 0, run.output
        sent = {}
        for request in srv.chat_requests:
            if len(request.messages) == 2:   # an episode's first request
                sent[model.instance(request.messages)[1]] = len(request.raw.decode("utf-8"))
    planned = dry_rows(dry.output)
    assert sorted(planned) == sorted(sent) == [1, 2, 3, 4]
    for level, row in planned.items():
        chars = int(row[2])
        assert abs(chars - sent[level]) <= 0.05 * sent[level], (level, chars, sent[level])
        assert row[3] == f"≈ {round(chars / 4)}"   # the fake offers no tokenizer: characters / 4
        assert f"level {level}: L{level}-0001" in dry.output
    assert "within about ±15% of real tokenizers" in dry.output


def fake_tokens(text: str) -> int:
    """The fake server's tokenizer: words and single punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def chat_text(messages: list[dict], tools: list | None) -> str:
    """The fake server's chat template: every message's role and content, then the tools."""
    return "".join(f"<{m['role']}>{m.get('content') or ''}" for m in messages) + json.dumps(tools or [])


def vllm_tokenize(req) -> Behaviour:   # POST /tokenize with the messages: {"count": n, ...}
    return Behaviour(body={"count": fake_tokens(chat_text(req.body["messages"], req.body.get("tools"))),
                           "max_model_len": 32768, "tokens": []})


def llama_apply_template(req) -> Behaviour:   # POST /apply-template: {"prompt": text}
    return Behaviour(body={"prompt": chat_text(req.body["messages"], req.body.get("tools"))})


def llama_tokenize(req) -> Behaviour:   # POST /tokenize of a text: {"tokens": [...]}; without content, none
    return Behaviour(body={"tokens": list(range(fake_tokens(req.body.get("content") or "")))})


SERVERS = {"vLLM": {"/tokenize": vllm_tokenize},
           "llama.cpp": {"/tokenize": llama_tokenize, "/apply-template": llama_apply_template}}


@pytest.mark.parametrize("server", SERVERS)
def test_the_dry_runs_tokens_are_the_servers_count_of_the_request_the_run_sends(db_path, tmp_path, monkeypatch,
                                                                                 server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dry")
    model = GoldModel(db_path)
    with FakeOpenAI(model, posts=SERVERS[server]) as srv:
        dry = runner.invoke(app, eval_args(db_path, srv.base_url, "--dry-run"))
        assert dry.exit_code == 0, dry.output
        assert srv.requests == [] and srv.other_posts   # the tokenizer, never a chat call
        run = runner.invoke(app, eval_args(db_path, srv.base_url, "--out", str(tmp_path / "run")))
        assert run.exit_code == 0, run.output
        counted = {model.instance(r.messages)[1]: fake_tokens(chat_text(r.messages, r.body.get("tools")))
                   for r in srv.chat_requests if len(r.messages) == 2}
    planned = {level: int(row[3]) for level, row in dry_rows(dry.output).items()}
    assert planned == counted and len(counted) == 4
    assert "tokens are counted by the server's tokenizer" in dry.output and "/tokenize" in dry.output


def test_like_takes_the_steps_and_tokens_of_an_earlier_run(db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dry")
    with FakeOpenAI(GoldModel(db_path)) as srv:
        run = runner.invoke(app, eval_args(db_path, srv.base_url, "--levels", "1,2", "--out", str(tmp_path / "run")))
        assert run.exit_code == 0, run.output
        dry = runner.invoke(app, eval_args(db_path, srv.base_url, "--levels", "1,2,3", "--dry-run",
                                           "--like", str(tmp_path / "run")))
    assert dry.exit_code == 0, dry.output
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    rows = dry_rows(dry.output)
    for s in meta["summary"]:   # the earlier run's means, per level: 2 steps (a data tool, then the answer)
        row = rows[s["level"]]
        assert float(row[4]) == 2.0 and int(row[5].replace(",", "")) == round(s["mean_prompt_tokens"])
        assert row[7] != "n/a"   # gpt-4o-mini has a price
    assert float(rows[3][4]) == DEFAULT_MAX_STEPS   # no level 3 in the earlier run: every step of --max-steps
    assert "no episode at level(s) 3" in dry.output


def test_like_without_dry_run_and_a_bad_like_are_one_line(db_path, tmp_path):
    result = runner.invoke(app, ["eval", "--db", str(db_path), "--like", str(tmp_path)])
    assert result.exit_code == 2 and "--like goes with --dry-run" in result.output
    result = runner.invoke(app, ["eval", "--db", str(db_path), "--dry-run", "--like", str(tmp_path)])
    assert result.exit_code == 1 and "not a finished run directory" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("options", [("--mode", "tools"), ("--protocol", "mint", "--privacy-instructions", "on")])
def test_show_request_prints_the_very_request_the_run_sends_and_nothing_else(db_path, tmp_path, monkeypatch, options):
    """--show-request json is the body a fake endpoint then receives for that instance's first
    request, as JSON and in length (the SDK's key order may differ), so nothing of the gold can be
    in it that the model would not get;
    --show-request text holds each message whole and every tool's name; neither calls anything."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dry")
    model = GoldModel(db_path)
    with FakeOpenAI(model, posts=SERVERS["vLLM"]) as srv:
        shown = runner.invoke(app, eval_args(db_path, srv.base_url, "--instance", "L4-0001", *options,
                                             "--show-request", "json"))
        text = runner.invoke(app, eval_args(db_path, srv.base_url, "--instance", "L4-0001", *options,
                                            "--show-request", "text"))
        assert shown.exit_code == 0 and text.exit_code == 0, shown.output + text.output
        assert srv.requests == [] and srv.get_requests == [] and srv.other_posts == []
        run = runner.invoke(app, eval_args(db_path, srv.base_url, "--instance", "L4-0001", *options,
                                           "--out", str(tmp_path / "run")))
        assert run.exit_code == 0, run.output
        first = srv.chat_requests[0]
    body = json.loads(shown.output)
    assert body == json.loads(first.raw) and len(shown.output.strip()) == len(first.raw.decode("utf-8"))
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    for message in body["messages"]:
        assert message["content"] in text.output
    for tool in body.get("tools", []):
        assert f"\n{tool['function']['name']}: " in text.output
    assert text.output.startswith("=== L4-0001 (level 4): the first request")
    bad = runner.invoke(app, eval_args(db_path, "http://127.0.0.1:9/v1", "--show-request", "yaml"))
    assert bad.exit_code == 2 and "--show-request must be one of text, json" in bad.output
