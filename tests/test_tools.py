"""The agent tools: definitions, catalogs, no leaks, no crashes, paging, rendering, the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp
from typer.testing import CliRunner

from mpcbench.cli import app
from evalkit import altered_copy
from mpcbench.episode import toolfiles, tools
from mpcbench.episode.toolfiles import ToolDefinitionError, all_tools, catalog, parse_tool_file
from mpcbench.episode.environment import Environment
from mpcbench.warehouse import db
from mpcbench.world.tags import parse_tags, render_tag


# What a tool query may read: the source tables the generator fills (minus the answer key) ...
SOURCE_TABLES = {"worlds", "people", "events", "policies", "policy_rules", "policy_docs", "projects",
                 "threads", "messages", "rooms", "room_bookings", "person_hours", "event_series",
                 "event_series_exceptions"}
# ... and never these, nor anything derived from them. message_tags holds the facts that level-4
# text states in prose only (at levels 2-3 the text carries them as tags anyway); sensitive_items
# says which titles and messages are private (the privacy track's labels).
FORBIDDEN = {"instances", "requirements", "requirement_participants", "build_stats", "build_info",
             "constraint_kinds", "level_sources", "message_tags", "sensitive_items", "sensitive_category_words"}
# A level-4 tool may not read the policy rules either: the level-4 handbook states them in prose.
FORBIDDEN_AT_LEVEL4 = {"policy_rules"}
FORBIDDEN_PREFIXES = ("int_", "oracle_", "mat_", "grading_")

LEVEL1 = {"get_current_time", "get_busy_intervals", "list_policies", "get_policy"}
LEVEL2 = {"get_current_time", "list_events", "list_policies", "search_policy_docs", "read_policy_doc",
          "list_projects", "list_threads", "read_thread", "search_messages"}
LEVEL3 = LEVEL2 | {"search_people", "get_person", "list_rooms", "get_room_availability"}
LEVEL4 = LEVEL3 | {"list_recurring_events", "get_working_hours"}


# db_path and con: the session's tiny build of levels 1-4 (tests/conftest.py)

@pytest.fixture(scope="module")
def first(con):
    """The first instance id of each level."""
    return dict(con.execute("select level, min(instance_id) from instances group by level").fetchall())


@pytest.fixture
def env1(con, first):
    with Environment(con, first[1]) as env:
        yield env


@pytest.fixture
def env3(con, first):
    with Environment(con, first[3]) as env:
        yield env


@pytest.fixture
def env4(con, first):
    with Environment(con, first[4]) as env:
        yield env


def call_json(env, name, **arguments) -> dict:
    text = env.call(name, arguments)
    assert not text.startswith("error:"), text
    return json.loads(text)


# --- definitions and catalogs ----------------------------------------------------------------

def test_every_tool_file_defines_a_tool_named_like_the_file():
    files = sorted(p.stem for p in toolfiles.TOOLS_DIR.glob("*.sql"))
    assert files == sorted(all_tools())
    for tool in all_tools().values():
        assert tool.description and tool.levels
        assert re.fullmatch(r"(get|list|search|read)_[a-z_]+", tool.name), tool.name


def test_catalogs_follow_the_level_design_matrix():
    assert {t.name for t in catalog(1)} == LEVEL1
    assert {t.name for t in catalog(2)} == LEVEL2
    assert {t.name for t in catalog(3)} == LEVEL3
    assert {t.name for t in catalog(4)} == LEVEL4
    with pytest.raises(ValueError):
        catalog(5)


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_schema_is_a_valid_openai_function(name):
    tool = all_tools()[name]
    spec = tool.spec.openai()
    assert spec["type"] == "function" and spec["function"]["name"] == name
    schema = spec["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and set(schema.get("required", ())) <= set(schema["properties"])
    # sent on every request, so nothing the properties say already: the check still refuses any
    # other argument (test_bad_arguments_give_a_short_actionable_error)
    assert "additionalProperties" not in schema and schema.get("required") != []
    for param in schema["properties"].values():
        assert param["description"] and param["type"] in ("string", "integer", "number", "boolean")
        if param["type"] == "string":   # bounded: a date's format is asserted (test_bad_dates)
            assert "maxLength" in param or "pattern" in param or param.get("format") == "date"


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_header_params_are_exactly_the_query_params(name):
    tool = all_tools()[name]
    tree = sqlglot.parse_one(tool.sql, read="duckdb")
    placeholders = {p.name for p in tree.find_all(exp.Placeholder)}
    assert placeholders == set(tool.binds)
    assert "world_id" in placeholders, "every tool reads one world only"
    declared = {p.name for p in tool.params} - ({"page"} if tool.render == "document" else set())
    assert placeholders - toolfiles.ENV_PARAMS == declared


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.sql"
    path.write_text(text)
    return path


HEADER = "-- name: {name}\n-- description: A test tool.\n-- levels: 3\n-- source: none\n-- render: json\n"


@pytest.mark.parametrize("extra, sql, complaint", [
    ("-- param: person_id (string, required) The id.\n", "select 1 from people where world_id = $world_id",
     "declares"),
    ("", "select 1 from people where world_id = $world_id and person_id = $person_id", "declares"),
    ("-- param: person_id (strin, required) The id.\n", "select $person_id, $world_id", "JSON type"),
    ("-- param: person_id (string, required)\n", "select $person_id, $world_id", "no description"),
    ("-- param: limit (integer, default=5) Rows.\n", "select $limit, $world_id", "limit and cursor"),
    ("-- exists: people.person_id\n-- not_found: x\n", "select $world_id", "exists"),
    ("-- param: day (string, required, format=time) The day.\n", "select $day, $world_id", "the one format is date"),
])
def test_a_header_that_disagrees_with_its_query_is_refused(tmp_path, extra, sql, complaint):
    path = _write(tmp_path, "get_thing", HEADER.format(name="get_thing") + extra + sql)
    with pytest.raises(ToolDefinitionError, match=complaint):
        parse_tool_file(path)


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_every_tool_declares_the_source_it_reads(name):
    line = next(line for line in all_tools()[name].path.read_text().splitlines() if line.startswith("-- source:"))
    declared = line.removeprefix("-- source:").strip()
    assert declared in toolfiles.TOOL_SOURCES
    assert all_tools()[name].source == (None if declared == "none" else declared)


@pytest.mark.parametrize("source, complaint", [
    ("", "needs `-- source:`"),
    ("-- source: calender\n", "source must be one of"),
    ("-- source: none\n-- source: calendar\n", "given twice"),
])
def test_a_tool_without_one_known_source_is_refused(tmp_path, source, complaint):
    header = HEADER.format(name="get_thing").replace("-- source: none\n", source)
    with pytest.raises(ToolDefinitionError, match=complaint):
        parse_tool_file(_write(tmp_path, "get_thing", header + "select $world_id"))


def test_the_tool_name_must_be_the_file_name(tmp_path):
    path = _write(tmp_path, "get_thing", HEADER.format(name="get_other") + "select $world_id")
    with pytest.raises(ToolDefinitionError, match="file name"):
        parse_tool_file(path)


# --- no leaks --------------------------------------------------------------------------------

def read_tables(sql: str) -> set[str]:
    tree = sqlglot.parse_one(sql, read="duckdb")
    ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
    return {t.name for t in tree.find_all(exp.Table)} - ctes


def reachable_tables(sql: str) -> set[str]:
    """Every table a query reads, through staging views down to the raw tables."""
    staging = {p.stem: p.read_text() for p in (db.SQL_DIR / "10_staging").glob("*.sql")}
    seen, todo = set(), list(read_tables(sql))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in staging:
            todo.extend(read_tables(staging[name]))
    return seen


def leaks(sql: str) -> set[str]:
    staging = {p.stem for p in (db.SQL_DIR / "10_staging").glob("*.sql")}
    bad = set()
    for name in reachable_tables(sql):
        if name in FORBIDDEN or name.startswith(FORBIDDEN_PREFIXES):
            bad.add(name)
        elif name not in SOURCE_TABLES and name not in staging:
            bad.add(name)  # unknown: not a source table, not a staging view
    return bad


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_tool_queries_read_source_tables_only(name):
    tool = all_tools()[name]
    for sql in filter(None, (tool.sql, tool.exists_sql)):
        assert leaks(sql) == set(), f"{name} reads {leaks(sql)}"
        if 4 in tool.levels:
            assert not reachable_tables(sql) & FORBIDDEN_AT_LEVEL4, f"{name} (level 4) reads the policy rules"


@pytest.mark.parametrize("sql", [
    "select * from oracle_answers where instance_id = $id",
    "select * from people join requirement_participants using (person_id)",
    "with x as (select * from stg_instances) select * from x",
    "select * from events where event_id in (select event_id from int_violations_busy)",
    "select * from mat_int_room_choice",
    "select * from people where person_id in (select room_id from grading_candidate_checks)",
    "select * from some_new_table",
])
def test_the_leak_check_catches_answer_key_tables(sql):
    assert leaks(sql)


@pytest.mark.parametrize("name", sorted(all_tools()))
def test_tool_queries_hold_no_literal_values_for_ids(name):
    """Values reach SQL only as $parameters: no id or date literal in a tool query."""
    tree = sqlglot.parse_one(all_tools()[name].sql, read="duckdb")
    for literal in tree.find_all(exp.Literal):
        if literal.is_string:
            assert literal.this in ("confirmed", "tentative", "1", " ") or not re.search(r"\d|-", literal.this), \
                literal.sql()


# --- what the tools show ---------------------------------------------------------------------

def test_level1_tools_return_one_clean_json_item(con, first):
    with Environment(con, first[1]) as env:
        assert [s.name for s in env.tools] == sorted(LEVEL1)
        now = call_json(env, "get_current_time")
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", now["now"])
        policy_id, hours = con.execute("select policy_id, params from policy_rules where world_id = 'world-l1' "
                                       "and rule_type = 'working_hours' order by policy_id limit 1").fetchall()[0]
        policy = call_json(env, "get_policy", policy_id=policy_id)
        assert [r["type"] for r in policy["rules"]][0] == "working_hours"
        assert policy["rules"][0]["params"] == json.loads(hours)
        busy = call_json(env, "get_busy_intervals", person_id=IDS[1]["person_id"], start_date="2026-03-02", end_date="2026-03-06")
        assert busy["busy"] and all(b["start"] < b["end"] for b in busy["busy"])


# --- the call cache -----------------------------------------------------------------------------

def _queries_run(monkeypatch) -> list[str]:
    """The tools whose query runs from now on (not answered from CALL_CACHE)."""
    ran: list[str] = []
    real = tools.DataTools._query
    monkeypatch.setattr(tools.DataTools, "_query", lambda self, tool, args: (ran.append(tool.name), real(self, tool, args))[1])
    monkeypatch.setattr(tools, "CALL_CACHE", tools.CallCache())   # empty: what earlier tests of this process cached
    return ran


def test_a_call_repeated_in_another_episode_is_answered_from_the_call_cache(con, first, monkeypatch):
    ran = _queries_run(monkeypatch)
    call = ("list_events", {"person_id": IDS[3]["person_id"], "start_date": "2026-03-02", "end_date": "2026-03-06"})
    seen = []
    for _ in range(2):
        with Environment(con, first[3]) as env:
            text = env.call(*call)
            seen.append((text, env.trace[-1].source_rows))
    assert ran == ["list_events"] and seen[0] == seen[1] and json.loads(seen[0][0])["events"] and seen[0][1]
    with Environment(con, first[3]) as env:
        assert env.call(*call) == seen[0][0]
        env.call(call[0], {**call[1], "end_date": "2026-03-05"})   # other arguments: its own query
        assert env.call("get_person", {"person_id": "p-nobody"}).startswith("error:")
        assert env.call("get_person", {"person_id": "p-nobody"}).startswith("error:")   # an error is never kept
    assert ran == ["list_events", "list_events", "get_person", "get_person"]


def test_a_query_that_does_not_read_the_clock_is_shared_by_the_instances_of_a_world(con, monkeypatch):
    """Two instances of one world, each with its own clock: the policies are read once, the clock
    (get_current_time, whose query reads `$now`) for each."""
    ran = _queries_run(monkeypatch)
    ids, nows = zip(*con.execute("select instance_id, now from instances where level = 2 order by position limit 2").fetchall())
    assert nows[0] != nows[1]
    said = []
    for instance_id in ids:
        with Environment(con, instance_id) as env:
            said.append((env.call("list_policies", {}), env.call("get_current_time", {})))
    assert ran == ["list_policies", "get_current_time", "get_current_time"]
    assert said[0][0] == said[1][0] and said[0][1] != said[1][1] and not said[0][0].startswith("error:")


def test_the_call_cache_keeps_the_latest_calls():
    cache = tools.CallCache(size=2)
    cache.put(("a",), ("A", ()))
    cache.put(("b",), ("B", ()))
    cache.get(("a",))
    cache.put(("c",), ("C", ()))   # over its size: the least recently used goes, ("b",)
    assert (cache.get(("a",)), cache.get(("b",)), cache.get(("c",))) == (("A", ()), None, ("C", ()))


def test_a_writable_warehouse_is_never_cached(db_path, first, tmp_path, monkeypatch):
    ran = _queries_run(monkeypatch)
    writable = db.connect(altered_copy(db_path, tmp_path / "w.duckdb", "select 1"))
    try:
        for _ in range(2):
            with Environment(writable, first[1]) as env:
                assert env.data.cache_key is None
                env.call("get_current_time", {})
    finally:
        writable.close()
    assert ran == ["get_current_time"] * 2


def all_events(env, person, first_day, last_day) -> list[dict]:
    events, cursor = [], 0
    while cursor is not None:
        page = call_json(env, "list_events", person_id=person, start_date=first_day, end_date=last_day,
                         limit=7, cursor=cursor)
        events += page["events"]
        cursor = page["next_cursor"]
    return events


def blocking(con, world_id, person, first_day, last_day, *statuses) -> list[dict]:
    rows = con.execute("select strftime(starts_at, '%Y-%m-%dT%H:%M'), strftime(ends_at, '%Y-%m-%dT%H:%M') "
                       "from events where world_id = $w and person_id = $p and list_contains($s, status) "
                       "and starts_at < cast($last as date) + interval '1' day and ends_at > cast($first as date) "
                       "order by starts_at, ends_at",
                       {"w": world_id, "p": person, "s": list(statuses), "first": first_day, "last": last_day})
    return [{"start": s, "end": e} for s, e in rows.fetchall()]


def person_with_every_status(con, world_id, first_day, last_day) -> str:
    """A person of the world with confirmed, tentative and cancelled events in the range."""
    return con.execute("select min(person_id) from (select person_id from events where world_id = $w "
                       "and starts_at < cast($last as date) + interval '1' day and ends_at > cast($first as date) "
                       "group by person_id having count(distinct status) = 3)",
                       {"w": world_id, "first": first_day, "last": last_day}).fetchone()[0]


def test_level_1_busy_intervals_leave_out_cancelled_events(con, env1):
    first_day, last_day = "2026-03-02", "2026-04-01"
    person = person_with_every_status(con, env1.data.world_id, first_day, last_day)
    busy = call_json(env1, "get_busy_intervals", person_id=person, start_date=first_day, end_date=last_day)["busy"]
    assert busy == blocking(con, env1.data.world_id, person, first_day, last_day, "confirmed", "tentative")
    assert blocking(con, env1.data.world_id, person, first_day, last_day, "cancelled")  # there were some to leave out


@pytest.mark.parametrize("level, first_day, last_day", [(2, "2026-03-02", "2026-04-01"),
                                                       (3, "2026-03-02", "2026-04-01"),
                                                       (4, "2026-04-06", "2026-05-06")])
def test_from_level_2_the_calendar_shows_every_event_with_its_status(con, first, level, first_day, last_day):
    """Applying the status rule (cancelled events do not block) is the agent's job from level 2 on:
    the busy-interval tool, which applies it, is not offered there."""
    with Environment(con, first[level]) as env:
        person = person_with_every_status(con, env.data.world_id, first_day, last_day)
        events = all_events(env, person, first_day, last_day)
        assert {e["status"] for e in events} == {"confirmed", "tentative", "cancelled"}
        every = [{"start": e["start"], "end": e["end"]} for e in events]
        assert sorted(every, key=lambda e: (e["start"], e["end"])) == \
            blocking(con, env.data.world_id, person, first_day, last_day, "confirmed", "tentative", "cancelled")
        assert env.call("get_busy_intervals", {"person_id": person, "start_date": first_day,
                                               "end_date": last_day}).startswith("error: there is no tool named")


def test_cursor_paging_is_stable_and_says_how_many_remain(env3):
    whole = call_json(env3, "list_projects", limit=50)
    assert whole["total"] == len(whole["projects"]) + whole["remaining"]
    seen, cursor = [], 0
    while cursor is not None:
        page = call_json(env3, "list_projects", limit=4, cursor=cursor)
        assert page["total"] == whole["total"]
        assert page["remaining"] == whole["total"] - cursor - len(page["projects"])
        seen += page["projects"]
        cursor = page["next_cursor"]
    assert len(seen) == whole["total"]
    assert seen[:len(whole["projects"])] == whole["projects"]
    past = call_json(env3, "list_projects", limit=4, cursor=10_000)
    assert past["projects"] == [] and past["total"] == whole["total"] and past["next_cursor"] is None


def test_threads_read_page_by_page_show_every_message_and_tag(con, env3, first):
    project = con.execute("select project_id from instances where instance_id = $i", {"i": first[3]}).fetchall()[0][0]
    threads = call_json(env3, "list_threads", project_id=project)["threads"]
    assert threads
    for thread in threads:
        pages, page = [], 1
        while True:
            text = env3.call("read_thread", {"thread_id": thread["thread_id"], "page": page})
            assert not text.startswith("error:"), text
            pages.append(text)
            if text.endswith("[end of thread]"):
                break
            assert text.endswith(f'page={page + 1})]')
            page += 1
        shown = "\n".join(pages)
        messages = con.execute(
            "select m.message_id, p.name, m.text from messages m join people p "
            "on p.world_id = m.world_id and p.person_id = m.author_id "
            "where m.world_id = 'world-l3' and m.thread_id = $t order by m.ts", {"t": thread["thread_id"]}).fetchall()
        positions = [shown.index(f"] {name} ({message_id})") for message_id, name, _ in messages]
        assert positions == sorted(positions), "oldest message first"
        tags = con.execute(
            "select t.tag_type, t.params from message_tags t join messages m using (world_id, message_id) "
            "where m.world_id = 'world-l3' and m.thread_id = $t order by m.ts, t.position",
            {"t": thread["thread_id"]}).fetchall()
        assert parse_tags(shown) == [(kind, json.loads(params)) for kind, params in tags]
    assert env3.call("read_thread", {"thread_id": threads[0]["thread_id"], "page": 99}).startswith("error:")


def test_policy_documents_show_every_rule_as_a_tag(con, first):
    with Environment(con, first[2]) as env:
        found = call_json(env, "search_policy_docs")
        text = ""
        for doc in found["documents"]:
            for page in range(1, doc["pages"] + 1):
                page_text = env.call("read_policy_doc", {"doc_id": doc["doc_id"], "page": page})
                assert page_text.startswith(f"{doc['title']} ({doc['doc_id']}) · page {page} of {doc['pages']}")
                text += page_text
            assert page_text.endswith("[end of document]")
        rules = con.execute("select policy_id, rule_id, rule_type, params from policy_rules "
                            "where world_id = 'world-l2' order by policy_id, position").fetchall()
        shown = parse_tags(text)
        for policy_id, rule_id, kind, params in rules:
            tag = (kind, {"policy": policy_id, "rule": rule_id, **json.loads(params)})
            assert tag in shown, render_tag(*tag)


def test_document_search_pages_hold_the_query(con, first):
    with Environment(con, first[3]) as env:
        policy_id = con.execute("select max(policy_id) from policies where world_id = 'world-l3'").fetchall()[0][0]
        for query in (policy_id, "buffer", "no such words"):
            found = call_json(env, "search_policy_docs", query=query)
            for doc in found["documents"]:
                for page in range(1, doc["pages"] + 1):
                    text = env.call("read_policy_doc", {"doc_id": doc["doc_id"], "page": page})
                    body = text.split("\n\n", 1)[1].lower()
                    assert (query.lower() in body) == (page in doc["matching_pages"]), (query, page)
            assert (found["total"] == 0) == (query == "no such words")


def test_people_search_matches_name_words_and_several_share_a_first_name(env3):
    people = call_json(env3, "search_people", query="ana", limit=50)["people"]
    assert all(any(word.lower().startswith("ana") for word in p["name"].split()) or
               p["email"].startswith("ana") for p in people)
    shared = {}
    for p in call_json(env3, "search_people", query="a", limit=50)["people"]:
        shared.setdefault(p["name"].split()[0], []).append(p["name"])
    assert any(len(names) > 1 for names in shared.values())
    person = people[0] if people else call_json(env3, "search_people", query="a")["people"][0]
    assert call_json(env3, "get_person", person_id=person["person_id"]) == person


def test_rooms_render_as_a_markdown_table_and_filters_narrow_it(env3):
    table = env3.call("list_rooms", {})
    lines = table.splitlines()
    assert lines[0] == "| room_id | name | building | floor | capacity | features |"
    assert lines[1] == "|---|---|---|---|---|---|"
    rows = [line for line in lines[2:] if line.startswith("|")]
    assert table.endswith(f"{len(rows)} rows.")
    big = env3.call("list_rooms", {"min_capacity": 10})
    assert 0 < len([r for r in big.splitlines()[2:] if r.startswith("|")]) < len(rows)
    assert env3.call("list_rooms", {"building": "Atlantis"}) == "No room matches these filters."
    room_id = rows[0].split("|")[1].strip()
    booked = call_json(env3, "get_room_availability", room_id=room_id, start_date="2026-03-02", end_date="2026-03-06")
    assert booked["booked"] and all(b["start"] < b["end"] for b in booked["booked"])


def test_a_world_sees_only_its_own_rows(con, first):
    elsewhere = con.execute("select thread_id from threads where world_id = 'world-l2' except "
                            "select thread_id from threads where world_id = 'world-l3' order by 1 limit 1").fetchall()
    with Environment(con, first[3]) as env:
        listed = call_json(env, "list_projects", limit=1)["total"]
        assert listed == con.execute("select count(*) from projects where world_id = 'world-l3'").fetchall()[0][0]
        assert env.call("read_thread", {"thread_id": elsewhere[0][0]}).startswith("error: No thread")
    with Environment(con, first[1]) as env:
        assert env.call("list_rooms", {}).startswith("error: there is no tool named 'list_rooms'")


def test_output_is_deterministic(con, first):
    arguments = [("list_threads", {"project_id": IDS[3]["project_id"]}), ("list_rooms", {}),
                 ("search_messages", {"query": "[[ban"}), ("read_policy_doc", {"doc_id": "doc-1"})]
    with Environment(con, first[3]) as a, Environment(con, first[3]) as b:
        for name, args in arguments:
            assert a.call(name, args) == b.call(name, args) == a.call(name, json.dumps(args))


# --- bad arguments ---------------------------------------------------------------------------

INJECTION = "'; drop table events; --"
HUGE = "x" * 100_000


IDS: dict[int, dict] = {}   # per level: a real room, person, project, thread and policy of that level's world


@pytest.fixture(scope="module", autouse=True)
def _real_ids(con):
    for level in LEVELS:
        IDS[level] = dict(zip(("room_id", "person_id", "project_id", "thread_id", "policy_id"), con.execute("""
            select (select min(room_id) from rooms r join worlds w using (world_id) where w.level = $level),
                   (select min(person_id) from people p join worlds w using (world_id) where w.level = $level),
                   min(t.project_id), min(t.thread_id) filter (where t.project_id = (select min(project_id)
                       from projects p join worlds w using (world_id) where w.level = $level)),
                   (select min(policy_id) from policies p join worlds w using (world_id) where w.level = $level)
            from threads t join worlds w using (world_id) where w.level = $level
        """, {"level": level}).fetchall()[0]))


# a working week inside each level's world (level 4's starts on 2026-04-06)
WEEK = {1: ("2026-03-02", "2026-03-06"), 2: ("2026-03-02", "2026-03-06"), 3: ("2026-03-02", "2026-03-06"),
        4: ("2026-04-06", "2026-04-10")}
LEVELS = tuple(WEEK)


def valid_arguments(tool, level: int = 3) -> dict:
    start_date, end_date = WEEK[level]
    examples = {**IDS[level], "doc_id": "doc-1", "start_date": start_date, "end_date": end_date,
                "query": "an", "page": 1, "limit": 5, "cursor": 0, "building": "North", "min_capacity": 2,
                "feature": "video"}
    return {p.name: examples[p.name] for p in tool.params}


def every_tool_env(con, first):
    """(environment, tool) for every tool of every level's catalog."""
    for level in LEVELS:
        env = Environment(con, first[level])
        for tool in catalog(level):
            yield env, tool, level


def assert_error(env, name, arguments, *words):
    before = len(env.trace)
    text = env.call(name, arguments)
    assert text.startswith("error: "), text[:300]
    assert len(text) < 600, text[:300]
    for word in words:
        assert word in text, text
    call = env.trace[-1]
    assert len(env.trace) == before + 1 and call.error == text.removeprefix("error: ") and call.tool == str(name)
    return text


def test_valid_example_arguments_work_for_every_tool(con, first):
    for env, tool, level in every_tool_env(con, first):
        assert not env.call(tool.name, valid_arguments(tool, level)).startswith("error:"), tool.name


def test_bad_arguments_give_a_short_actionable_error(con, first):
    for env, tool, level in every_tool_env(con, first):
        good = valid_arguments(tool, level)
        assert_error(env, tool.name, {**good, "surprise": 1}, "unexpected argument 'surprise'", "Usage:")
        assert_error(env, tool.name, "{not json", "not valid JSON")
        assert_error(env, tool.name, "[1, 2]", "JSON object")
        assert_error(env, tool.name, 42, "JSON object")
        for p in tool.params:
            if p.required:
                missing = {k: v for k, v in good.items() if k != p.name}
                assert_error(env, tool.name, missing, "missing required argument", p.name)
            wrong = 7 if p.schema["type"] == "string" else "seven"
            assert_error(env, tool.name, {**good, p.name: wrong}, p.name, "must be")
            if p.schema["type"] == "string":
                assert_error(env, tool.name, {**good, p.name: HUGE}, p.name)
            if p.schema["type"] == "integer" and "minimum" in p.schema:
                assert_error(env, tool.name, {**good, p.name: p.schema["minimum"] - 1}, p.name, "at least")


def test_injection_strings_are_plain_values(con, first):
    counts = con.execute("select (select count(*) from events), (select count(*) from people)").fetchall()
    for env, tool, level in every_tool_env(con, first):
        good = valid_arguments(tool, level)
        for p in tool.params:
            if p.schema["type"] == "string" and p.schema.get("format") != "date":
                text = env.call(tool.name, {**good, p.name: INJECTION})
                assert env.trace[-1].error is None or "failed" not in env.trace[-1].error, text
    assert con.execute("select (select count(*) from events), (select count(*) from people)").fetchall() == counts


@pytest.mark.parametrize("start, end, words", [
    ("2026-02-30", "2026-03-03", ("start_date", "not a real date")),
    ("03/04/2026", "2026-03-03", ("start_date", "YYYY-MM-DD")),
    ("2026-3-4", "2026-03-03", ("start_date", "YYYY-MM-DD")),
    ("2026-03-05", "2026-03-03", ("end_date is before start_date",)),
    ("2026-03-01", "2026-05-01", ("at most 32 days",)),
    ("2026-03-02T09:00", "2026-03-03", ("start_date",)),
])
def test_bad_dates(env1, env3, start, end, words):
    for env, name in ((env1, "get_busy_intervals"), (env3, "list_events")):
        assert_error(env, name, {"person_id": IDS[env.level]["person_id"], "start_date": start, "end_date": end}, *words)


@pytest.mark.parametrize("name, arguments, words", [
    ("list_events", {"person_id": "p-999", "start_date": "2026-03-02", "end_date": "2026-03-03"},
     ("No person has person_id 'p-999'",)),
    ("get_person", {"person_id": INJECTION}, ("No person has person_id", "search_people")),
    ("read_thread", {"thread_id": "PRJ-99999-t1"}, ("No thread", "list_threads")),
    ("list_threads", {"project_id": "nope"}, ("No project", "list_projects")),
    ("read_policy_doc", {"doc_id": "doc-9"}, ("No policy document", "search_policy_docs")),
    ("read_policy_doc", {"doc_id": "doc-1", "page": 50}, ("doc-1 has", "page 50 does not exist")),
    ("get_room_availability", {"room_id": "Z-999", "start_date": "2026-03-02", "end_date": "2026-03-03"},
     ("No room", "list_rooms")),
    ("get_policy", {"policy_id": "POL-ENG"}, ("no tool named 'get_policy'",)),
    ("submit_candidates", {"candidates": []}, ("agent loop",)),
    ("drop table events", {}, ("no tool named",)),
    (None, {}, ("no tool named",)),
])
def test_unknown_ids_and_tools(env3, name, arguments, words):
    assert_error(env3, name, arguments, *words)


def test_odd_values_are_refused_or_read_plainly(env3):
    assert_error(env3, "search_people", {"query": "\ud800"}, "query", "not valid text")
    assert_error(env3, "search_people", '{"query": "\\udfff"}', "query", "not valid text")
    assert json.loads(env3.call("search_people", {"query": "a\x00b"}))["total"] == 0
    assert env3.call("list_rooms", {"min_capacity": 5.0}) == env3.call("list_rooms", {"min_capacity": 5})
    assert json.loads(env3.call("list_projects", {"limit": 2.0}))["next_cursor"] == 2
    assert_error(env3, "list_rooms", {"min_capacity": True}, "must be an integer, not a boolean")
    assert_error(env3, "list_rooms", {"min_capacity": 10 ** 30}, "at most")


def test_null_for_an_optional_argument_means_its_default(env3):
    assert env3.call("list_projects", {"limit": None, "cursor": None}) == env3.call("list_projects", {})
    assert_error(env3, "get_person", {"person_id": None}, "person_id")


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
                           | st.text(max_size=30) | st.sampled_from([INJECTION, "\ud800", "2026-03-02", "p-001", "%", "_"]),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                           max_leaves=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(LEVEL4)), data=st.data())
def test_no_arguments_crash_a_tool(env3, env4, name, data):
    env, level = (env3, 3) if name in LEVEL3 else (env4, 4)   # the level-4-only tools at level 4
    tool = all_tools()[name]
    keys = [p.name for p in tool.params] + ["x"]
    arguments = data.draw(st.dictionaries(st.sampled_from(keys), json_values, max_size=4)
                          | st.builds(lambda d, k: {**valid_arguments(tool, level), k: d}, json_values,
                                      st.sampled_from(keys)))
    text = env.call(name, arguments)
    assert isinstance(text, str) and text
    error = env.trace[-1].error
    assert error is None or "the tool failed" not in error, (arguments, error)


# --- trace -----------------------------------------------------------------------------------

def test_every_call_is_traced(con, first):
    with Environment(con, first[2]) as env:
        env.call("get_current_time", {}, turn=1)
        env.call("list_policies", "{}", turn=2)
        env.call("nope", {"a": 1}, turn=2)
        assert [(c.turn, c.step, c.tool) for c in env.trace] == [(1, 1, "get_current_time"), (2, 2, "list_policies"),
                                                                 (2, 3, "nope")]
        assert env.trace[1].arguments == "{}" and env.trace[2].arguments == '{"a": 1}'
        assert [c.error is None for c in env.trace] == [True, True, False]
        assert all(c.latency_ms >= 0 and c.result for c in env.trace)


def test_an_unknown_instance_is_a_programming_error(con):
    with pytest.raises(KeyError):
        Environment(con, "L9-0001")


# --- the CLI ---------------------------------------------------------------------------------

def test_cli_lists_a_levels_tools_with_their_schemas():
    result = CliRunner().invoke(app, ["tools", "list", "--level", "3", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert [t["function"]["name"] for t in listed] == sorted(LEVEL3) + ["submit_candidates"]
    human = CliRunner().invoke(app, ["tools", "list", "--level", "1"])
    assert human.exit_code == 0 and "get_busy_intervals(person_id: string, start_date: date, end_date: date)" in human.output


def test_cli_call_prints_what_the_agent_reads(con, db_path, first, tmp_path):
    path = str(db_path)
    runner = CliRunner()
    arguments = {"query": "Ana"}
    result = runner.invoke(app, ["tools", "call", "search_people", "--instance", first[3],
                                 "--args", json.dumps(arguments), "--db", path])
    assert result.exit_code == 0, result.output
    with Environment(con, first[3]) as env:
        assert result.output == env.call("search_people", arguments) + "\n"
    bad = runner.invoke(app, ["tools", "call", "get_person", "--instance", first[3], "--args", "{}", "--db", path])
    assert bad.exit_code == 1 and bad.output.startswith("error: missing required argument person_id")
    missing = runner.invoke(app, ["tools", "call", "get_person", "--instance", "L9-9999", "--db", path])
    assert missing.exit_code == 1
    nowhere = runner.invoke(app, ["tools", "call", "get_person", "--instance", "x", "--db", str(tmp_path / "no.duckdb")])
    assert nowhere.exit_code == 1
