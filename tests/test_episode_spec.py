"""One episode spec (harness/episode_spec.py) on every surface: `mpcbench eval`, `mpcbench mcp`,
`mpcbench serve-env`, the verifiers taskset, the Inspect task and the rollout pool offer its
options with its defaults and help, refuse what they cannot carry with the reason, and honour
what they take: an MCP run and a rollout play feedback turns and context mode as eval does."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from evalkit import submission
from sandboxkit import needs_sandbox
from mpcbench.cli import app
from mpcbench.episode.answers import SUBMIT_TOOL_NAME
from mpcbench.episode.codecs import tool_call, tool_call_message
from mpcbench.episode.context import CONTEXT_HEADER
from mpcbench.episode.contract import EndReason
from mpcbench.episode.environment import Environment
from mpcbench.errors import InfrastructureError, UserError
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import SURFACES, EpisodeSpec, fields, flag, surface_table
from mpcbench.harness.rollout import RolloutPool
from mpcbench.harness.session import open_external_run

SPEC = EpisodeSpec()
COMMANDS = {"eval": "eval", "mcp": "mcp", "serve-env": "serve-env"}


def offered(surface: str) -> tuple[dataclasses.Field, ...]:
    return fields() + (fields(rewards=True) if SURFACES[surface].rewards else ())


@pytest.mark.parametrize("surface", sorted(COMMANDS))
def test_each_command_offers_every_episode_option_with_the_specs_default_and_help(surface):
    params = {p.name: p for p in typer.main.get_command(app).commands[COMMANDS[surface]].params}
    for f in offered(surface):
        assert f.name in params, (surface, f.name)
        param = params[f.name]
        assert param.opts[0] == flag(f.name), (surface, param.opts)
        assert param.help == f.metadata["help"], (surface, f.name)
        want = f.default if f.name != "weights" else None
        assert param.default == want, (surface, f.name, param.default)
    # a surface without a reward offers no reward option: nothing it would silently ignore
    assert not {f.name for f in fields(rewards=True)} & set(params) or SURFACES[surface].rewards


def test_eval_config_and_the_inspect_task_take_the_specs_defaults():
    assert {f.name: getattr(EvalConfig(), f.name) for f in fields()} == SPEC.options()
    inspect_task = pytest.importorskip("mpcbench.integrations.inspect_task", reason="Inspect is in the second venv")
    signature = inspect.signature(inspect_task.scheduling)
    assert {f.name: signature.parameters[f.name].default for f in fields()} == SPEC.options()


def test_the_verifiers_config_is_the_spec():
    verifiers_env = pytest.importorskip("mpcbench.integrations.verifiers_env", reason="verifiers: the train extra")
    model_fields = verifiers_env.MPCBenchConfig.model_fields
    for f in offered("verifiers"):
        field = model_fields[verifiers_env.config_name(f.name)]   # `task` is verifiers' own: scheduling_task
        assert field.default == f.default and field.description == f.metadata["help"]
    config = verifiers_env.MPCBenchConfig(mode="context", max_turns=2, feedback="rule")
    assert verifiers_env.episode_of(config) == EpisodeSpec(mode="context", max_turns=2, feedback="rule")


@pytest.mark.parametrize("surface, args, says", [
    ("mcp", ["--level", "1", "--protocol", "mint"], "mcp cannot take --protocol mint: its agent calls tools"),
    ("mcp", ["--level", "1", "--max-turns", "2", "--feedback", "llm", "--feedback-model", "m"],
     "mcp cannot take --feedback llm: the feedback model needs an endpoint"),
    ("serve-env", ["--max-turns", "2", "--feedback", "llm", "--feedback-model", "m"],
     "serve-env cannot take --feedback llm"),
    ("eval", ["--mode", "paste"], "--mode must be one of tools, context, code, not 'paste'"),
    ("mcp", ["--level", "1", "--max-steps", "0"], "--max-steps must be at least 1"),
    ("serve-env", ["--weight", "f1"], "--weight takes NAME=W"),
    ("serve-env", ["--max-turns", "2"], "--max-turns above 1 and --feedback other than none go together"),
])
def test_a_value_a_surface_cannot_carry_is_refused_with_the_reason(db_path, surface, args, says):
    result = CliRunner().invoke(app, [COMMANDS[surface], *args, "--db", str(db_path)])
    assert result.exit_code == 2 and says in " ".join(result.output.split()), result.output


def test_the_training_surfaces_refuse_a_feedback_model_and_an_unknown_weight(db_path):
    with pytest.raises(UserError, match="verifiers cannot take --feedback llm"):
        RolloutPool(db_path, EpisodeSpec(max_turns=2, feedback="llm", feedback_model="m"), surface="verifiers")
    with pytest.raises(UserError, match="no metric f2 to weigh"):
        RolloutPool(db_path, EpisodeSpec(weights={"f2": 1.0}))
    with pytest.raises(UserError, match="eval computes no reward"):
        EpisodeSpec(privacy_metrics=True).checked("eval")


def wrong_then_right(gold: list[tuple], level: int) -> tuple[dict, dict]:
    right = submission(gold, level)
    wrong = json.loads(json.dumps(right))
    wrong["candidates"][0]["start"] = "2026-01-05T03:00"     # before any window: never a right answer
    return wrong, right


def test_an_mcp_run_plays_feedback_turns_and_context_mode_as_eval(db_path, golds, tmp_path):
    instance = "L2-0001"
    run = open_external_run(EvalConfig(agent="mcp", db=str(db_path), out=str(tmp_path / "run"), levels=(2,),
                                       instance_ids=(instance,), mode="context", max_turns=2, feedback="rule"))
    try:
        assert [t["function"]["name"] for t in run.tool_entries()] == [SUBMIT_TOOL_NAME]   # context: no data tools
        assert CONTEXT_HEADER in run.task_text()                                          # the sources, in the task
        wrong, right = wrong_then_right(golds[instance], 2)
        text, is_error = run.call(SUBMIT_TOOL_NAME, wrong)
        assert not is_error and run.instance_id == instance      # not recorded: the feedback opens turn 2
        assert "Submitted" in text and "2026-01-05T03:00" in text
        text, _ = run.call(SUBMIT_TOOL_NAME, right)
        assert f"Recorded for {instance}" in text
    finally:
        run.close()
    record = json.loads((tmp_path / "run" / "journal.jsonl").read_text().splitlines()[0])
    assert record["mode"] == "context" and record["turns"] == 2 and len(record["answers"]) == 2
    assert record["answers"][0]["feedback"] and record["end"] == EndReason.ANSWERED.value


class Down:
    """A policy whose endpoint is down."""
    name = "down"

    async def reply(self, view):
        raise InfrastructureError("endpoint", "ConnectionError: refused")


def test_a_rollout_plays_feedback_turns_and_reports_the_endpoints_failure_as_infrastructure(db_path, golds):
    pool = RolloutPool(db_path, EpisodeSpec(max_turns=2, feedback="binary"))
    try:
        instance = "L1-0001"
        rollout = pool.open(instance)
        wrong, right = wrong_then_right(golds[instance], 1)
        back = asyncio.run(rollout.reply(tool_call_message(tool_call(SUBMIT_TOOL_NAME, wrong, "c1"))))
        assert not rollout.done and back[-1]["role"] == "user"    # binary feedback, then turn 2
        asyncio.run(rollout.reply(tool_call_message(tool_call(SUBMIT_TOOL_NAME, right, "c2"))))
        result = pool.finish(rollout)
        assert result.record["turns"] == 2 and result.metrics["exact_match"] == 1.0

        rollout = pool.open(instance)
        asyncio.run(rollout.play(Down()))
        result = pool.finish(rollout)
        assert result.record["end"] == EndReason.INFRASTRUCTURE.value and result.reward == 0.0
        assert (result.metrics["infrastructure_error"], result.metrics["harness_error"]) == (1.0, 0.0)
    finally:
        pool.close()


def test_the_verifiers_harness_ends_an_episode_whose_endpoint_fails_as_infrastructure(db_path):
    verifiers_env = pytest.importorskip("mpcbench.integrations.verifiers_env", reason="verifiers: the train extra")

    class Refused:
        class chat:
            class completions:
                @staticmethod
                async def create(**request):
                    raise ConnectionError("connection refused")

    pool = RolloutPool(db_path, surface="verifiers")
    try:
        rollout = pool.open("L1-0001")
        asyncio.run(rollout.play(verifiers_env.EndpointModel(Refused(), "m")))
        result = pool.finish(rollout)
    finally:
        pool.close()
    assert result.record["end"] == EndReason.INFRASTRUCTURE.value
    assert "ConnectionError: connection refused" in result.record["error"]
    assert result.metrics["infrastructure_error"] == 1.0


def test_a_rollout_speaks_mint_when_the_spec_says_so(db_path, golds):
    pool = RolloutPool(db_path, EpisodeSpec(protocol="mint", mode="context"))
    try:
        rollout = pool.open("L1-0001")
        assert rollout.tools == [] and "<solution>" in rollout.messages[0]["content"]
        asyncio.run(rollout.reply(rollout.codec.submission(submission(golds["L1-0001"], 1))))
        assert rollout.done
        assert pool.finish(rollout).metrics["exact_match"] == 1.0
    finally:
        pool.close()


def test_the_docs_surface_table_is_the_specs():
    text = (Path(__file__).parent.parent / "docs" / "evaluating.md").read_text(encoding="utf-8")
    for line in surface_table():
        assert line in text, line
    for surface in SURFACES.values():     # each refusal's reason is in the docs
        for reason in surface.refuses.values():
            assert " ".join(reason.split()) in " ".join(text.split()), reason


@needs_sandbox
def test_an_mcp_run_in_code_mode_offers_the_python_tool_with_the_data_tools_inside(db_path, con, golds, tmp_path):
    with Environment(con, "L1-0001") as env:
        clock = env.call("get_current_time", {})
    run = open_external_run(EvalConfig(agent="mcp", db=str(db_path), out=str(tmp_path / "run"), levels=(1,),
                                       instance_ids=("L1-0001",), mode="code"))
    try:
        assert [t["function"]["name"] for t in run.tool_entries()] == ["python", SUBMIT_TOOL_NAME]
        text, is_error = run.call("python", {"code": "print(get_current_time())"})
        assert not is_error and text.strip() == clock.strip()   # the tool's text, called inside the sandbox
        text, _ = run.call(SUBMIT_TOOL_NAME, submission(golds["L1-0001"], 1))
        assert "Recorded for L1-0001" in text
    finally:
        run.close()
    record = json.loads((tmp_path / "run" / "journal.jsonl").read_text().splitlines()[0])
    tools = [c["tool"] for c in record["tool_calls"]]    # the data tools the cell called, then the submission
    assert record["mode"] == "code" and tools[0] == "get_current_time" and tools[-1] == SUBMIT_TOOL_NAME
