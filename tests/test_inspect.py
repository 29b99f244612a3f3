"""The Inspect AI task with Inspect's own `mockllm` model: the tools Inspect offers are the level's
catalog, and one recorded trajectory (an `mpcbench eval` journal record, replayed as the model's
tool calls and submission) scores the same under Inspect as under `mpcbench eval`."""

from __future__ import annotations

import json
from importlib.metadata import version

import polars as pl
import pytest

from evalkit import instances, submission
from mpcbench.agents import make_agent
from mpcbench.episode.codecs import codec_for
from mpcbench.episode.environment import Environment
from mpcbench.episode.toolfiles import catalog
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.journal import read_journal
from mpcbench.harness.rollout import RolloutPool, program_messages
from mpcbench.harness.runner import run_eval
from mpcbench.warehouse import db

if tuple(int(part) for part in version("openai").split(".")[:2]) < (3, 4):   # before importing Inspect (seconds)
    pytest.skip("Inspect's OpenAI message conversion needs openai>=3.4, and verifiers 0.4 (the train extra) pins "
                "openai<3: .ci/run runs these tests in .venv-openenv", allow_module_level=True)
pytest.importorskip("inspect_ai", reason="Inspect AI is an optional dependency: pip install 'mpcbench[inspect]'")
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage  # noqa: E402

from mpcbench.integrations.inspect_task import scheduling  # noqa: E402


def recorded(db_path, tmp_path, agent: str, instance_id: str) -> tuple[dict, dict]:
    """An eval run of one instance: its journal record and its runs.parquet row."""
    result = run_eval(EvalConfig(agent=agent, db=str(db_path), levels=(2,), instance_ids=(instance_id,),
                                 out=str(tmp_path / agent)))
    record = read_journal(result.run_dir / "journal.jsonl")[(instance_id, 1)]
    return record, pl.read_parquet(result.run_dir / "runs.parquet").to_dicts()[0]


def replaying(records: dict[str, dict], seen_tools: list):
    """A mockllm model that plays each instance's recorded tool calls, then its recorded answer."""
    by_prompt = {r["transcript"][1]["content"] if r.get("transcript") else None: r for r in records.values()}

    def model(messages, tools, tool_choice, config):
        seen_tools.append(tools)
        prompt = next(m.text for m in messages if m.role == "user")
        record = next(r for p, r in by_prompt.items() if p == prompt)
        calls = [c for c in record["tool_calls"] if c["tool"] != "submit_candidates"]
        done = sum(1 for m in messages if m.role == "tool")
        if done < len(calls):
            out = ModelOutput.for_tool_call("mockllm/model", calls[done]["tool"], json.loads(calls[done]["arguments"]))
        else:
            answer = {"candidates": [json.loads(c["raw"]) for c in record["answers"][-1]["candidates"]]}
            out = ModelOutput.for_tool_call("mockllm/model", "submit_candidates", answer)
        out.usage = ModelUsage(input_tokens=1000, output_tokens=50, total_tokens=1050)
        return out

    return model


def test_a_recorded_trajectory_scores_the_same_under_inspect_and_eval(db_path, tmp_path, monkeypatch):
    wrong, wrong_row = recorded(db_path, tmp_path, "calendar-only", "L2-0001")
    right, right_row = recorded(db_path, tmp_path, "scripted", "L2-0002")
    prompts = dict(zip(("L2-0001", "L2-0002"), (wrong, right)))
    for instance_id, record in prompts.items():  # offline agents keep no transcript; give the prompt
        record["transcript"] = [None, {"content": _prompt(db_path, instance_id)}]
    seen_tools: list = []
    logs = inspect_eval(scheduling(level=2, db=str(db_path), instances=2), model="mockllm/model",
                        model_args={"custom_outputs": replaying(prompts, seen_tools)},
                        log_dir=str(tmp_path / "logs"), display="none", max_samples=1)
    assert logs[0].status == "success", logs[0].error
    samples = {s.id: s for s in logs[0].samples}

    for instance_id, record, row in (("L2-0001", wrong, wrong_row), ("L2-0002", right, right_row)):
        sample = samples[instance_id]
        score = sample.scores["oracle"]
        assert score.value == {"f1": row["f1"], "exact_match": float(row["exact_match"])}, instance_id
        assert score.metadata["failure_cause"] == row["failure_cause"]
        assert score.metadata["failure_stage"] == row["failure_stage"]
        texts = [m.text for m in sample.messages if m.role == "tool"]
        calls = [c for c in record["tool_calls"] if c["tool"] != "submit_candidates"]
        assert [len(t) for t in texts[:-1]] == [c["result_chars"] for c in calls]
        assert texts[-1].startswith("Submitted")
    assert wrong_row["f1"] < 1.0 and wrong_row["failure_cause"] and right_row["exact_match"]

    con = db.connect(db_path, read_only=True)
    try:   # the engine's tools for each instance: the catalog, then submit_candidates with maxItems = N
        expected = []
        for instance_id in prompts:
            with Environment(con, instance_id) as env:
                # Inspect's ToolParams states the defaults our schemas leave out: no required
                # argument, no other argument
                expected.append([(f["name"], f["description"],
                                  {"required": [], "additionalProperties": False, **f["parameters"]}) for f in
                                 (entry["function"] for entry in codec_for("native").request(env)["tools"])])
    finally:
        con.close()
    for tools in expected:   # Inspect's JSONSchema has no maxItems: there, N is in the description only
        limit = tools[-1][2]["properties"]["candidates"].pop("maxItems")
        assert f"At most {limit}:" in tools[-1][2]["properties"]["candidates"]["description"]
    offered = [(t.name, t.description, t.parameters.model_dump(exclude_none=True)) for t in seen_tools[0]]
    assert offered in expected
    assert [name for name, *_ in offered] == [t.name for t in catalog(2)] + ["submit_candidates"]


def test_a_bad_submission_is_a_tool_error_and_a_plain_text_answer_is_parsed(db_path, golds, tmp_path):
    gold = golds["L1-0001"]
    steps = iter([
        ModelOutput.for_tool_call("mockllm/model", "submit_candidates", {"candidates": [{"start": "tomorrow"}]}),
        ModelOutput.from_content("mockllm/model", "```json\n" + json.dumps(
            {"candidates": [{"start": s.replace("T", " ")} for s, _ in gold]}) + "\n```"),
    ])

    def model(messages, tools, tool_choice, config):
        out = next(steps)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    logs = inspect_eval(scheduling(level=1, db=str(db_path), instances=1), model="mockllm/model",
                        model_args={"custom_outputs": model}, log_dir=str(tmp_path / "logs"), display="none")
    sample = logs[0].samples[0]
    tool_messages = [m for m in sample.messages if m.role == "tool"]
    # the engine checks the submission as on every path, and the model reads why it was refused
    assert len(tool_messages) == 1 and tool_messages[0].text.startswith("error:")
    assert "tomorrow" in tool_messages[0].text and "YYYY-MM-DDTHH:MM" in tool_messages[0].text
    assert sample.scores["oracle"].value == {"f1": 1.0, "exact_match": 1.0}
    assert logs[0].results.scores[0].metrics["mean"].value == 1.0


def _prompt(db_path, instance_id: str) -> str:
    return next(p for i, _, p in instances(db_path) if i == instance_id)


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_a_gold_submission_is_exact_under_inspect_at_every_level(db_path, golds, tmp_path, level):
    """Inspect's eval() with a mockllm that submits each instance's gold answer."""
    prompts = {p: i for i, lv, p in instances(db_path) if lv == level}

    def model(messages, tools, tool_choice, config):
        instance_id = prompts[next(m.text for m in messages if m.role == "user")]
        out = ModelOutput.for_tool_call("mockllm/model", "submit_candidates", submission(golds[instance_id], level))
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    logs = inspect_eval(scheduling(level=level, db=str(db_path), instances=2), model="mockllm/model",
                        model_args={"custom_outputs": model}, log_dir=str(tmp_path / "logs"), display="none")
    assert logs[0].status == "success", logs[0].error
    assert [s.scores["oracle"].value for s in logs[0].samples] == [{"f1": 1.0, "exact_match": 1.0}] * 2


def test_the_booking_task_under_inspect_scores_task_success(db_path, tmp_path):
    """-T task=book: a mockllm that makes the scripted agent's booking calls, one a reply, gets
    task_success 1.0 from the booking scorer on each sample (levels 1 and 3)."""
    pool = RolloutPool(db_path, EpisodeSpec(task="book"))
    calls = {}
    try:
        for instance_id, level, _ in pool.instances():
            if level in (1, 3) and sum(i[:2] == instance_id[:2] for i in calls) < 2:
                rollout = pool.open(instance_id)
                task = rollout.messages[1]["content"]
                rollout.close()
                (message,) = program_messages(pool.con, make_agent("scripted"), instance_id, task="book")
                calls[task] = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
                               for c in message["tool_calls"]]
    finally:
        pool.close()
    made: dict[str, int] = {}

    def model(messages, tools, tool_choice, config):
        task = next(m.text for m in messages if m.role == "user")
        k = made[task] = made.get(task, -1) + 1
        out = ModelOutput.for_tool_call("mockllm/model", *calls[task][k])
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)   # else Inspect counts with tiktoken
        return out

    for level in (1, 3):
        logs = inspect_eval(scheduling(level=level, db=str(db_path), instances=2, task="book"), model="mockllm/model",
                            model_args={"custom_outputs": model}, log_dir=str(tmp_path / f"logs{level}"), display="none")
        assert logs[0].status == "success", logs[0].error
        assert [s.scores["booking_oracle"].value for s in logs[0].samples] == [{"task_success": 1.0}] * 2
