"""`legacy generate`: every artifact valid, deterministic; a model that answers badly is retried
with the problem fed back, then fails naming scenario, source and JSON path, and nothing is
half-written."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAI, reply_text, status
from legacykit import files_under
from mpcbench.cli import app
from mpcbench.legacy import archive, mock, validate
from mpcbench.legacy.generate import GenerationError, generate
from mpcbench.legacy.layout import STEPS, Layout
from mpcbench.legacy.models import Endpoint
from mpcbench.legacy.warehouse import mock_sources

SCENARIO = "product_launch"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-legacy")


def valid_replies(scenario_id: str = SCENARIO) -> dict[str, str]:
    """What a well-behaved model would answer at each step (the mock provider's data)."""
    return {step: json.dumps(data) for step, data in mock_sources(scenario_id).items()}


def step_of(req) -> str:
    system = req.messages[0]["content"]
    return next(step for step, p in archive.prompt_config()["generator"].items() if p["system_prompt"] == system)


def serve(overrides: dict[str, list]):
    """A fake model: each step's replies in order from `overrides` (the last repeats), else valid."""
    replies, counts = valid_replies(), {}

    def script(req):
        step = step_of(req)
        k = counts[step] = counts.get(step, 0) + 1
        if step in overrides:
            return overrides[step][min(k, len(overrides[step])) - 1]
        return reply_text(replies[step])
    return FakeOpenAI(script)


def run_generate(root, srv, **kw):
    return generate(SCENARIO, "openai", Layout(root), endpoint=Endpoint(base_url=srv.base_url, max_retries=0), **kw)


@pytest.mark.parametrize("provider", ["mock", "replay"])
def test_every_generated_artifact_is_valid_and_generation_is_deterministic(tmp_path, provider):
    for scenario_id in archive.scenario_ids():
        first = generate(scenario_id, provider, Layout(tmp_path / "a"))
        generate(scenario_id, provider, Layout(tmp_path / "b"))
        assert sorted(p.name for p in first.iterdir()) == sorted(f"{s}.json" for s in STEPS)
        for step in STEPS:
            data = json.loads((first / f"{step}.json").read_text())
            assert validate.problems(data, step) == [], (scenario_id, step)
    assert files_under(tmp_path / "a") == files_under(tmp_path / "b")


def test_mock_keeps_every_scenario_fact_the_tasks_rely_on():
    scenario = archive.load_scenario("hiring_loop")
    state = mock.world_state(scenario)
    jira = mock.source(state, "jira")
    assert {s["key"] for p in scenario["projects"] for s in p["jira_seeds"]} <= {i["key"] for i in jira["issues"]}
    calendar = mock.source(state, "calendar")
    titles = {e["title"] for e in calendar["events"]}
    assert {b["event"]["title"] for s in scenario["sub_scenarios"] for b in s["beats"] if "event" in b} <= titles
    drive = mock.source(state, "drive")
    assert {d["id"] for p in scenario["projects"] for d in p["documents"]} <= {f["id"] for f in drive["files"]}


def test_replay_answers_from_the_recording_and_its_retry_is_recorded_too(tmp_path):
    lines = [json.loads(line) for line in archive.recorded_cache(SCENARIO).read_text().splitlines()]
    slack = [r for r in lines if r["request"]["messages"][0]["content"]
             == archive.prompt_config()["generator"]["slack"]["system_prompt"]]
    assert len(slack) == 2 and len(slack[1]["request"]["messages"]) == 4  # the retry carries the problem back
    assert "Your reply was rejected: $.messages[0].ts" in slack[1]["request"]["messages"][3]["content"]
    directory = generate(SCENARIO, "replay", Layout(tmp_path))
    assert validate.problems(json.loads((directory / "slack.json").read_text()), "slack") == []


@pytest.mark.parametrize("bad, step, message", [
    (reply_text('{"scenario_id": "product_launch", "title": '), "world_state", r"\$: the reply is not a JSON object"),
    (reply_text("Sure! Here is a lovely Slack workspace for the launch team."), "slack",
     r"\$: the reply is not a JSON object \(it starts 'Sure! Here"),
    (reply_text("[1, 2, 3]"), "gmail", r"\$: the reply is a JSON list, not an object"),
])
def test_broken_json_and_prose_are_retried_then_fail_naming_scenario_source_and_path(tmp_path, bad, step, message):
    with serve({step: [bad]}) as srv:
        with pytest.raises(GenerationError, match=rf"^scenario product_launch, source {step}: {message}.*after 3 attempts"):
            run_generate(tmp_path, srv)
        asked = [r for r in srv.requests if step_of(r) == step]
    assert len(asked) == 3
    assert "Your reply was rejected: $: the reply" in asked[1].messages[-1]["content"]
    assert len(asked[2].messages) == len(asked[0].messages) + 4   # both bad replies and both complaints
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_a_schema_violation_names_the_json_path_of_the_bad_value(tmp_path):
    slack = json.loads(valid_replies()["slack"])
    slack["messages"][1]["ts"] = "2025-06-03T11:05:00+02:00"
    with serve({"slack": [reply_text(json.dumps(slack))]}) as srv:
        with pytest.raises(GenerationError) as caught:
            run_generate(tmp_path, srv)
    assert str(caught.value).startswith("scenario product_launch, source slack: $.messages[1].ts: "
                                        "'2025-06-03T11:05:00+02:00' does not match")
    assert "\n" not in str(caught.value)


def test_a_reference_error_is_retried_like_a_schema_error(tmp_path):
    jira = json.loads(valid_replies()["jira"])
    jira["issues"][0]["project_key"] = "ZZZ"
    with serve({"jira": [reply_text(json.dumps(jira))]}) as srv:
        with pytest.raises(GenerationError, match=r"source jira: \$.issues\[0\].project_key: 'ZZZ' is not a project key"):
            run_generate(tmp_path, srv)


def test_a_reply_fixed_on_retry_is_accepted(tmp_path):
    bad = json.loads(valid_replies()["contacts"])
    bad["contacts"][0]["email"] = "not an email"
    with serve({"contacts": [reply_text(json.dumps(bad)), reply_text(valid_replies()["contacts"])]}) as srv:
        directory = run_generate(tmp_path, srv)
        asked = [r for r in srv.requests if step_of(r) == "contacts"]
    assert len(asked) == 2
    assert json.loads((directory / "contacts.json").read_text()) == json.loads(valid_replies()["contacts"])


def test_a_failed_generation_leaves_the_previous_data_untouched_and_no_temporary_files(tmp_path):
    generate(SCENARIO, "mock", Layout(tmp_path))
    before = files_under(tmp_path)
    with serve({"drive": [reply_text("{}")]}) as srv:
        with pytest.raises(GenerationError, match=r"source drive: \$: 'files' is a required property"):
            run_generate(tmp_path, srv)
    assert files_under(tmp_path) == before
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [SCENARIO]


def test_an_endpoint_that_fails_is_one_clear_error(tmp_path):
    with FakeOpenAI([status(400, message="model not found")]) as srv:
        with pytest.raises(GenerationError, match=r"^scenario product_launch, source world_state: the model endpoint "
                                                  r"failed on attempt 1: client_error: HTTP 400"):
            run_generate(tmp_path, srv)


def test_a_replay_miss_says_the_recording_does_not_hold_the_request(tmp_path, monkeypatch):
    config = json.loads(json.dumps(archive.prompt_config()))
    config["generator"]["world_state"]["system_prompt"] += " Be brief."
    monkeypatch.setattr(archive, "prompt_config", lambda: config)
    monkeypatch.setattr("mpcbench.legacy.generate.prompt_config", lambda: config)
    with pytest.raises(GenerationError, match="replay_miss.*the recording holds no reply to this request"):
        generate(SCENARIO, "replay", Layout(tmp_path))


def test_cli_generate_prints_one_line_errors(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["legacy", "generate", "--scenario", "nope", "--provider", "mock", "--root", str(tmp_path)])
    assert result.exit_code == 1 and result.output.startswith("error: no scenario 'nope'")
    result = runner.invoke(app, ["legacy", "generate", "--scenario", SCENARIO, "--provider", "maybe", "--root", str(tmp_path)])
    assert result.exit_code == 1 and "--provider must be one of openai, replay, mock" in result.output
    result = runner.invoke(app, ["legacy", "generate", "--scenario", SCENARIO, "--provider", "mock", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "data" / SCENARIO / "world_state.json").exists()
