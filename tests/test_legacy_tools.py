"""The legacy ToolBackend: every tool is a parameterized SQL file that reads legacy_* source
tables (and staging views over them) only; bad arguments come back as `error: ...` text."""

from __future__ import annotations

import json

import pytest
import sqlglot
from sqlglot import exp

from legacykit import mock_warehouse
from mpcbench.legacy.backend import TOOLS_DIR, ToolBackend, all_tools, legacy_name, parse_tool_file
from mpcbench.legacy.layout import LEGACY_SQL_DIR
from mpcbench.legacy.project import ToolDefinitionError

STAGING = {p.stem: p.read_text() for p in (LEGACY_SQL_DIR / "10_staging").glob("*.sql")}
RAW = {statement.this.this.name  # the tables the raw layer creates
       for statement in sqlglot.parse((LEGACY_SQL_DIR / "00_raw" / "legacy_tables.sql").read_text(), read="duckdb")
       if isinstance(statement, exp.Create)}


@pytest.fixture(scope="module")
def con():
    con = mock_warehouse()
    yield con
    con.close()


@pytest.fixture
def tools(con):
    with ToolBackend(con, "product_launch") as backend:
        yield backend


def read_tables(sql: str) -> set[str]:
    tree = sqlglot.parse_one(sql, read="duckdb")
    ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
    return {t.name for t in tree.find_all(exp.Table)} - ctes


def reachable(sql: str) -> set[str]:
    """Every table a query reads, through the staging views down to the raw tables."""
    seen, todo = set(), list(read_tables(sql))
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(read_tables(STAGING[name]) if name in STAGING else [])
    return seen


def leaks(sql: str) -> set[str]:
    return {name for name in reachable(sql)
            if not (name in RAW and name.startswith("legacy_") and name != "legacy_scenarios")
            and not (name in STAGING and name.startswith("stg_legacy_"))}


def test_the_raw_layer_defines_the_source_tables():
    assert {"legacy_slack_messages", "legacy_gmail_messages", "legacy_calendar_events", "legacy_contacts",
            "legacy_jira_issues", "legacy_drive_files"} <= RAW


def test_the_catalog_has_the_seed_tools_under_their_legacy_names():
    names = {legacy_name(n) for n in all_tools()}
    assert {"Slack.search_messages", "Gmail.search_threads", "Calendar.list_events", "Contacts.lookup",
            "Jira.search_issues", "Drive.search_files", "Drive.read_file"} <= names
    assert sorted(all_tools()) == sorted(p.stem for p in TOOLS_DIR.glob("*.sql"))


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_tool_queries_read_legacy_source_tables_only(name):
    tool = all_tools()[name]
    assert reachable(tool.sql), name
    assert leaks(tool.sql) == set(), f"{name} reads {leaks(tool.sql)}"


@pytest.mark.parametrize("sql", [
    "select * from instances where instance_id = $id",
    "select * from legacy_contacts join oracle_answers using (instance_id)",
    "with x as (select * from people) select * from x",
    "select * from legacy_scenarios",
    "select * from stg_participants",
])
def test_the_leak_check_catches_tables_outside_the_legacy_sources(sql):
    assert leaks(sql)


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_values_reach_the_query_only_as_parameters(name):
    tool = all_tools()[name]
    assert "scenario_id" in tool.binds
    assert {p.name for p in tool.params} == set(tool.binds) - {"scenario_id"}
    for literal in sqlglot.parse_one(tool.sql, read="duckdb").find_all(exp.Literal):
        assert not any(c.isdigit() for c in literal.this) or literal.this in ("0", "1", "2", "3", "200"), literal


def test_a_malformed_tool_file_is_refused(tmp_path):
    path = tmp_path / "slack_find.sql"
    path.write_text("-- name: slack_find\n-- description: x\n-- render: json\n"
                    "-- param: q (string, required) Text.\nselect 1 from legacy_slack_messages where scenario_id = $scenario_id")
    with pytest.raises(ToolDefinitionError, match="declares"):
        parse_tool_file(path)
    path = tmp_path / "wiki_find.sql"
    path.write_text("-- name: wiki_find\n-- description: x\n-- render: json\nselect $scenario_id")
    with pytest.raises(ToolDefinitionError, match="start with a source"):
        parse_tool_file(path)


def test_results_come_from_the_scenarios_data_and_both_names_work(tools):
    by_legacy = json.loads(tools.call("Jira.search_issues", {"project": "AUR", "status": "Blocked"}))
    by_function = json.loads(tools.call("jira_search_issues", {"project": "aur", "status": "blocked"}))
    assert [i["key"] for i in by_legacy["issues"]] == ["AUR-101", "AUR-110"]   # Highest priority first
    assert by_function["issues"] == by_legacy["issues"]
    events = json.loads(tools.call("Calendar.list_events", {"start_date": "2025-06-05", "end_date": "2025-06-06",
                                                            "query": "readiness"}))["events"]
    assert [(e["start"], e["status"], e["location"]) for e in events] == [
        ("2025-06-05T10:00", "cancelled", "Spree room"), ("2025-06-06T14:00", "confirmed", "Elbe room")]
    assert "Marco Bianchi <marco.bianchi@northwind.example>" in events[1]["attendees"]
    assert tools.trace[0].tool_name == "Jira.search_issues" and tools.trace[1].tool_name == "Jira.search_issues"


def test_a_tool_never_sees_another_scenarios_rows(con):
    with ToolBackend(con, "hiring_loop") as backend:
        text = backend.call("Jira.search_issues", {"query": "AUR"})
        assert json.loads(text)["total"] == 0
        assert backend.call("Drive.read_file", {"file_id": "doc-aur-launch-plan"}).startswith("error: There is no file")


def test_paging_counts_and_continues(tools):
    first = json.loads(tools.call("Jira.search_issues", {"limit": 3}))
    second = json.loads(tools.call("Jira.search_issues", {"limit": 3, "cursor": first["next_cursor"]}))
    past = json.loads(tools.call("Jira.search_issues", {"limit": 3, "cursor": 500}))
    everything = json.loads(tools.call("Jira.search_issues", {"limit": 50}))
    assert first["total"] == second["total"] == past["total"] == everything["total"] > 3
    assert [i["key"] for i in first["issues"] + second["issues"]] == [i["key"] for i in everything["issues"]][:6]
    assert past["issues"] == [] and past["next_cursor"] is None


@pytest.mark.parametrize("name, arguments, expected", [
    ("Slack.delete_everything", {}, "error: there is no tool named 'Slack.delete_everything'"),
    ("Slack.search_messages", "{not json", "error: the arguments are not valid JSON"),
    ("Slack.search_messages", "[1, 2]", "error: the arguments must be a JSON object"),
    ("Slack.search_messages", {}, "error: missing required argument query"),
    ("Slack.search_messages", {"query": "x"}, "error: query is too short"),
    ("Slack.search_messages", {"query": "launch", "since": "yesterday"}, "error: unexpected argument 'since'"),
    ("Jira.get_issue", {"key": ["AUR-101"]}, "error: key must be a string, not an array"),
    ("Jira.get_issue", {"key": "AUR-999"}, "error: There is no issue 'AUR-999'"),
    ("Calendar.list_events", {"start_date": "2025-06-31", "end_date": "2025-07-01"}, "error: start_date is not a real date"),
    ("Calendar.list_events", {"start_date": "June 2", "end_date": "2025-07-01"}, "error: start_date must be a date YYYY-MM-DD"),
    ("Calendar.list_events", {"start_date": "2025-06-10", "end_date": "2025-06-01"}, "error: end_date is before start_date"),
    ("Calendar.list_events", {"start_date": "2025-01-01", "end_date": "2025-06-01"}, "error: the range has 152 days"),
    ("Jira.search_issues", {"limit": 0}, "error: limit must be at least 1"),
    ("Drive.read_file", {"file_id": "\ud800"}, "error: file_id is not valid text"),
])
def test_bad_arguments_come_back_as_an_error_text_with_the_usage(tools, name, arguments, expected):
    text = tools.call(name, arguments)
    assert text.startswith(expected), text
    assert tools.trace[-1].error is not None and tools.trace[-1].result == text


@pytest.mark.parametrize("query", ["'; drop table legacy_contacts; --", "launch%review", "\\\\", "' or 1=1 --"])
def test_injection_strings_are_plain_text_to_match(con, tools, query):
    result = json.loads(tools.call("Slack.search_messages", {"query": query}))
    assert result["total"] == 0
    assert con.execute("select count(*) from legacy_contacts").fetchone()[0] > 0


def test_the_trace_keeps_every_call_with_its_full_result(tools):
    text = tools.call("Drive.read_file", {"file_id": "doc-aur-launch-plan"})
    tools.call("Contacts.lookup", '{"query": "Legal"}')
    first, second = tools.trace
    assert (first.step, first.tool_name, first.arguments, first.result, first.error) == (
        1, "Drive.read_file", {"file_id": "doc-aur-launch-plan"}, text, None)
    assert text.startswith("Aurora 2.0 launch plan (doc-aur-launch-plan)\nowner Priya Raman")
    assert second.arguments == {"query": "Legal"} and "| Ravi Menon |" in second.result
