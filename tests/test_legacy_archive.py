"""The legacy benchmark's human-authored inputs (archive/): every file valid against its schema,
enough scenarios and tasks, every task answerable through the legacy tools; the modules'
docstring examples run."""

from __future__ import annotations

import doctest
import json

import jsonschema
import pytest

from legacykit import mock_warehouse
from mpcbench.legacy import (agreement, archive, backend, layout, mock, models, run, validate,
                             warehouse)
from mpcbench.legacy.layout import ARCHIVE_DIR, TASK_TYPES

SCHEMAS = sorted(p.name.removesuffix("_schema.json") for p in (ARCHIVE_DIR / "schemas").glob("*_schema.json"))


def test_every_schema_the_seed_names_exists_and_is_a_valid_json_schema():
    needed = {"slack", "gmail", "calendar", "contacts", "jira", "drive", "world_state", "run_log", "judge_input",
              "judge_result"}
    assert needed <= set(SCHEMAS)
    for name in SCHEMAS:
        jsonschema.Draft202012Validator.check_schema(validate.schema(name))


def test_scenarios_are_valid_and_cover_a_launch_and_a_hiring_loop():
    ids = archive.scenario_ids()
    assert {"product_launch", "hiring_loop"} <= set(ids)
    for scenario_id in ids:
        scenario = archive.load_scenario(scenario_id)
        assert validate.problems(scenario, "scenario") == []
        assert scenario["people"] and scenario["projects"] and scenario["sub_scenarios"]
        assert 0 <= scenario["noise_level"] <= 1 and scenario["depth"] >= 1


def test_at_least_twelve_tasks_over_the_three_types_each_valid():
    tasks = [archive.load_task(p) for p in archive.task_paths()]
    assert len(tasks) >= 12
    assert {t["task_type"] for t in tasks} == set(TASK_TYPES)
    assert len({t["task_id"] for t in tasks}) == len(tasks)
    for path in archive.task_paths():
        assert path.parent.name == archive.load_task(path)["task_type"]
    assert {t["scenario_id"] for t in tasks} <= set(archive.scenario_ids())


def test_prompt_and_model_configs_are_valid():
    prompts, models_ = archive.prompt_config(), archive.model_config()
    assert set(prompts["generator"]) == {"world_state", "slack", "gmail", "calendar", "contacts", "jira", "drive"}
    assert prompts["evaluation"]["judge"]["system_prompt"] and prompts["evaluation"]["agent"]["system_message"]
    assert models_["agent_models"] and models_["judge_models"] and models_["data_generation_model"]
    assert all(m.startswith(models.OFFLINE_PREFIX) for m in models_["offline"]["agent_models"])


def test_every_expected_tool_call_names_a_legacy_tool_and_succeeds_on_mock_data():
    con = mock_warehouse()
    for path in archive.task_paths():
        task = archive.load_task(path)
        with backend.ToolBackend(con, task["scenario_id"]) as tools:
            for step in task["expected_tool_sequence"]:
                assert backend.find_tool(step["tool"]) is not None, step
                text = tools.call(step["tool"], step["arguments"])
                assert not text.startswith("error:"), (task["task_id"], step, text)
                assert '"total": 0' not in text and text.strip(), (task["task_id"], step, text)


def test_a_bad_archive_file_is_a_one_line_error_naming_file_and_path(tmp_path):
    task = json.loads(archive.task_path("nadia_schedule").read_text())
    task["answer_requirements"] = "not a list"
    path = tmp_path / "nadia_schedule.json"
    path.write_text(json.dumps(task))
    with pytest.raises(archive.UserError, match=r"nadia_schedule.json is not a valid task: \$.answer_requirements: "):
        archive.load_task(path)
    path.write_text("{not json")
    with pytest.raises(archive.UserError, match="not a readable JSON file"):
        archive.load_task(path)


def test_reference_checks_catch_what_a_schema_cannot():
    sources = warehouse.mock_sources("product_launch")
    slack = sources["slack"]
    slack["messages"][2]["channel_id"] = "C-nowhere"
    slack["messages"][3]["id"] = slack["messages"][0]["id"]
    found = validate.problems(slack, "slack")
    assert "$.messages[2].channel_id: 'C-nowhere' is not a channel id" in found
    assert f"$.messages[3].id: duplicate id {slack['messages'][0]['id']!r}" in found
    calendar = sources["calendar"]
    calendar["events"][0]["end"] = calendar["events"][0]["start"]
    calendar["events"][1]["start"] = "2025-02-30T10:00"
    found = validate.problems(calendar, "calendar")
    assert any(p.startswith("$.events[0].end: ") and "is not after the start" in p for p in found)
    assert "$.events[1].start: '2025-02-30T10:00' is not a real date or time" in found
    state = sources["world_state"]
    state["noise_scenarios"][0]["events"][0]["event_id"] = "review_moved-2"
    state["sub_scenarios_expanded"][0]["events"][0]["actor"] = "u99"
    assert validate.problems(state, "world_state") == [
        "$.sub_scenarios_expanded[0].events[0].actor: 'u99' is not a person id",
        "$.noise_scenarios[0].events[0].event_id: duplicate id 'review_moved-2'"]


@pytest.mark.parametrize("module", [agreement, archive, layout, mock, models, run, validate, warehouse])
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0


def test_the_backend_docstring_examples_run():
    assert doctest.testmod(backend, extraglobs={"con": mock_warehouse()}).failed == 0
