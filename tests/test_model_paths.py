"""Every path a real model can take, over the real protocol: a fake OpenAI-compatible model that
knows the gold answers (evalkit.GoldModel) drives the `openai` agent through every mode
(tools, context, code) x protocol (native, mint) x feedback (none, rule, llm with the fake as the
feedback model), at levels 1-4. The offline agents ignore prompts, schemas and attributes: these
tests are where those are checked. Also here: what each path tells the model (no prompt names a
tool or tag its protocol does not offer) and the same `submit_candidates` schema on every path.
"""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from evalkit import GoldModel
from fake_openai import FakeOpenAI
from mpcbench.episode.codecs import codec_for
from mpcbench.episode.environment import Environment
from mpcbench.episode.modes import make_mode
from mpcbench.episode.toolfiles import catalog
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from sandboxkit import SANDBOX_OK

ONE_PER_LEVEL = ("L1-0001", "L2-0001", "L3-0001", "L4-0001")
PATHS = [("tools", "native"), ("context", "native"), ("code", "native"), ("context", "mint"), ("code", "mint")]
DATA_TOOLS = sorted({tool.name for level in (1, 2, 3, 4) for tool in catalog(level)})


def path_params():
    for mode, protocol in PATHS:
        marks = [] if mode != "code" or SANDBOX_OK else [pytest.mark.skip(reason="no sandbox on this machine")]
        for feedback in ("none", "rule", "llm"):
            yield pytest.param(mode, protocol, feedback, marks=marks, id=f"{mode}-{protocol}-{feedback}")


@pytest.mark.parametrize("mode, protocol, feedback", list(path_params()))
def test_a_gold_model_scores_exact_on_every_path(db_path, tmp_path, monkeypatch, mode, protocol, feedback):
    """No error on any path; a gold answer is exact at turn 1, and after a wrong first answer
    every feedback path solves it at turn 2. On the native tools paths the model is asked what
    eval asks: the level's catalog, then submit_candidates, and the system prompt of the level
    (the same text the MCP server gives as its instructions)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-paths")
    model = GoldModel(db_path, wrong_first=feedback != "none")
    with FakeOpenAI(model) as srv:
        result = run_eval(EvalConfig(
            agent="openai", model="fake", base_url=srv.base_url, db=str(db_path), levels=(1, 2, 3, 4),
            instance_ids=ONE_PER_LEVEL, mode=mode, protocol=protocol, max_retries=0, feedback=feedback,
            max_turns=1 if feedback == "none" else 2, feedback_model="fake" if feedback == "llm" else None,
            out=str(tmp_path / "run")))
        assert not srv.unexpected
    runs = pl.read_parquet(result.run_dir / "runs.parquet").sort("level")
    assert runs["level"].to_list() == [1, 2, 3, 4]
    assert runs["error"].is_null().all(), runs["error"].to_list()
    assert runs["exact_match"].to_list() == [True] * 4
    assert runs["solved_turn"].to_list() == [1 if feedback == "none" else 2] * 4
    assert result.harness_errors == result.infrastructure_errors == 0
    seen = {(protocol_seen, mode_seen) for _, protocol_seen, mode_seen, _ in model.requests}
    assert seen == {(protocol, mode)}
    if mode != "context":   # the fake read one source the way the path allows
        calls = pl.read_parquet(result.run_dir / "tool_calls.parquet")
        assert set(calls.filter(pl.col("tool") != "submit_candidates")["tool"]) >= {"get_current_time"}
    if mode == "tools":
        first = {instance_id: body for instance_id, _, _, body in reversed(model.requests)}
        assert sorted(first) == list(ONE_PER_LEVEL)
        for instance_id, body in first.items():
            level = int(instance_id[1])
            names = [t["function"]["name"] for t in body["tools"]]
            assert names == [tool.name for tool in catalog(level)] + ["submit_candidates"]
            assert body["tool_choice"] == "auto" and json.dumps(body["messages"][0]).count("submit_candidates") >= 1


def test_every_path_offers_the_same_submit_schema(con):
    """submit_candidates carries maxItems = N where the prompt states N (levels 1-2), and is the
    same tool in eval, under Inspect and over MCP (they all take it from the engine's codec)."""
    for instance_id in ONE_PER_LEVEL:
        with Environment(con, instance_id) as env:
            submit = codec_for("native").request(env)["tools"][-1]["function"]
            schema = submit["parameters"]["properties"]["candidates"]
            assert submit["name"] == "submit_candidates"
            assert schema.get("maxItems") == (env.n_given if env.level <= 2 else None)
            assert (env.n_given is not None) == (env.level <= 2)


def _named(text: str, names: list[str]) -> set[str]:
    return {name for name in names if re.search(rf"\b{re.escape(name)}\b", text)}


def prompt_params():
    for mode in dict.fromkeys(mode for mode, _ in PATHS):
        marks = [] if mode != "code" or SANDBOX_OK else [pytest.mark.skip(reason="no sandbox on this machine")]
        yield pytest.param(mode, marks=marks, id=mode)


@pytest.mark.parametrize("mode", list(prompt_params()))
def test_no_prompt_names_a_tool_or_tag_its_path_does_not_offer(con, mode):
    """The system prompt and the instructions of the task (not the sources pasted in context mode,
    whose section headers name the call that produced them) name only what the path offers: each
    protocol of the mode (PATHS) on one environment an instance (a level-4 context prompt takes
    about 0.4 s to assemble)."""
    protocols = [protocol for m, protocol in PATHS if m == mode]
    for instance_id in ONE_PER_LEVEL:
        with Environment(con, instance_id, make_mode(mode)) as env:
            for protocol in protocols:
                system, task = codec_for(protocol).opening(env, max_steps=30, max_proposals=2)
                instructions = system["content"]
                if mode == "context":   # the header before the first section
                    header = env.prompt[len(env.request):].split("\n### ", 1)[0]
                    assert not _named(header, [*DATA_TOOLS, "submit_candidates", "python"]), header
                    instructions += "\n" + header
                callable_tools = {spec.name for spec in env.functions} if mode in ("tools", "code") else set()
                assert _named(instructions, DATA_TOOLS) <= callable_tools, (instance_id, _named(instructions, DATA_TOOLS))
                assert ("submit_candidates" in instructions) == (protocol == "native")
                assert ("<solution>" in instructions) == (protocol == "mint")
                assert ("<execute>" in instructions) == (protocol == "mint" and mode == "code")

