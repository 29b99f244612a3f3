"""The constraint-kind registry (sql/05_seeds/constraint_kinds.sql) against everything that reads
it or must agree with it: the violation views, the world JSON Schema, config validation, the
system prompt, the get_policy tool and the feedback text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from golden_worlds import CASES
from oracle_harness import fresh_warehouse, load
from mpcbench.episode.prompts import system_prompt
from mpcbench.dataset.layout import load_schema
from mpcbench.episode.toolfiles import all_tools
from mpcbench.grading.feedback import KIND_TEXT
from mpcbench.kinds import check_params, constraint_kinds, kind, kinds_of, params_schema, policy_rule_kinds
from mpcbench.warehouse import db
from mpcbench.world.config import ConfigError, load_world_config, world_config_path

REGISTERED = {k.name for k in constraint_kinds()}
VIEW_DIR = db.SQL_DIR / "20_intermediate"


def emitted_kind(path: Path) -> str:
    """The constant a violation view puts in its constraint_kind column."""
    select = sqlglot.parse_one(path.read_text(), read="duckdb").find(exp.Select)
    [column] = [e for e in select.expressions if e.alias_or_name == "constraint_kind"]
    return column.this.name


def test_every_registered_kind_has_one_violation_view_and_every_view_is_registered():
    views = {p.stem.removeprefix("int_violations_") for p in VIEW_DIR.glob("int_violations_*.sql")}
    assert views == REGISTERED, f"registered without a view: {REGISTERED - views}; unregistered views: {views - REGISTERED}"


@pytest.mark.parametrize("path", sorted(VIEW_DIR.glob("int_violations_*.sql")), ids=lambda p: p.stem)
def test_a_violation_view_emits_the_kind_it_is_named_after(path):
    assert emitted_kind(path) == path.stem.removeprefix("int_violations_")


def test_the_union_is_every_view_but_the_frame_in_bit_order():
    sql = dict(db.layer_views("20_intermediate"))["int_framed_violations"]
    read = re.findall(r"from (int_violations_\w+)", sql)
    assert read == [f"int_violations_{k.name}" for k in constraint_kinds() if not k.is_frame]


def test_the_golden_worlds_emit_every_registered_kind_and_no_other():
    """On the golden worlds every kind kills some start; a view emitting an unregistered kind would
    vanish from int_violations (it joins the registry), so the union is checked before the join."""
    con = fresh_warehouse()
    load(con, [c.world() for c in CASES], [c.instance() for c in CASES])
    emitted = {k for (k,) in con.execute(
        "select constraint_kind from int_framed_violations union select constraint_kind "
        "from int_violations_working_hours").fetchall()}
    reported = {k for (k,) in con.execute("select distinct constraint_kind from int_violations").fetchall()}
    con.close()
    assert emitted == REGISTERED
    assert reported == REGISTERED


def test_bits_are_distinct_powers_of_two_and_sources_are_known():
    bits = [k.bit for k in constraint_kinds()]
    assert len(set(bits)) == len(bits) and all(b > 0 and b & (b - 1) == 0 for b in bits)
    assert {k.source for k in constraint_kinds()} <= {"calendar", "policy", "threads", "rooms"}
    assert [k.name for k in constraint_kinds() if k.is_frame] == ["working_hours"]


def test_the_world_schema_agrees_with_the_registry():
    defs = load_schema("world")["$defs"]
    names = [k.name for k in policy_rule_kinds()]
    assert defs["rule"]["properties"]["type"]["enum"] == names
    branches = {b["if"]["$ref"].removeprefix("#/$defs/is_"): b["then"]["properties"]["params"]["$ref"]
                for b in defs["rule"]["allOf"]}
    assert sorted(branches) == sorted(names)
    for name in names:
        assert defs[f"is_{name}"] == {"required": ["type"], "properties": {"type": {"const": name}}}
        written = defs[branches[name].removeprefix("#/$defs/")]
        without_text = {k: v for k, v in written.items() if k != "description"}
        without_text["properties"] = {p: {k: v for k, v in s.items() if k != "description"}
                                      for p, s in written["properties"].items()}
        assert without_text == params_schema(name), (
            f"world.schema.json's params of {name} disagree with the registry; they should read "
            f"{params_schema(name)}")


@pytest.mark.parametrize("line, problem", [
    ("buffer = { share = 0.4, minutes = [5, 900] }", "buffer.minutes must be a range from 0 to 720"),
    ("buffer = { share = 0.4 }", "buffer.minutes must be [low, high] or [low, high, step]"),
    ("buffer = { share = 0.4, minutes = [5, 15], hours = [1, 2] }", "buffer has no key 'hours'"),
    ("buffer = { share = 1.5, minutes = [5, 15] }", "buffer.share must be a number from 0 to 1"),
    ('blackout = { share = 0.6, start = ["9:00", "10:00"], minutes = [30, 60] }', "blackout.start must be"),
    ('no_meeting_weekdays = { share = 0.5, weekdays = [1, 1], among = ["Mon", "Funday"] }',
     "no_meeting_weekdays.among must be a list of distinct weekdays"),
    ("no_meeting_weekdays = { share = 0.5, weekdays = [1, 6] }", "no_meeting_weekdays.weekdays must be a range from 1 to 5"),
    ("max_meetings_per_day = { share = 0.4, count = [0, 3] }", "max_meetings_per_day.count must be a range from 1"),
    ('lunch = { share = 0.5, start = ["12:00", "12:30"] }', "unknown rule type 'lunch'"),
    ("policies = [1, 3]", "policies must be a range from 2"),
    ('working_hours = { start = ["10:00", "16:00"], minutes = [480, 540] }', "must end by 23:59"),
    ("working_hours = 3", "working_hours must be a table"),
    ("", "needs working_hours: every policy has working hours"),
])
def test_config_validation_follows_the_registry(tmp_path, line, problem):
    """The policy distribution's keys and ranges are checked against the registry's params."""
    text = world_config_path(1).read_text()
    key = line.split(" ")[0] or "working_hours"
    section = text.index("[policy_distribution]")
    found = re.compile(rf"^{key} = .*$", re.MULTILINE).search(text, section)
    bad = (text[:found.start()] + line + text[found.end():] if found
           else text[:section] + "[policy_distribution]\n" + line + text[section + len("[policy_distribution]"):])
    assert bad != text
    path = tmp_path / "world.toml"
    path.write_text(bad)
    with pytest.raises(ConfigError, match=re.escape(problem)) as raised:
        load_world_config(path)
    assert str(raised.value).count(str(path)) == 1


def test_params_are_checked_by_type():
    assert check_params("working_hours", {"start": "09:00", "end": "17:30", "days": ["Mon", "Tue"]}) == []
    assert check_params("working_hours", {"start": "09:00", "end": "17:30"}) == ["working_hours needs days"]
    assert check_params("min_notice", {"hours": True}) == ["hours must be an integer from 0 to 2147483647"]
    assert kind("ooo").params is None


def test_feedback_and_prompts_read_their_text_from_the_registry():
    for k in constraint_kinds():
        assert KIND_TEXT[k.name] == k.feedback_text
    level_sources = {1: ("calendar", "policy"), 2: ("calendar", "policy", "threads"),
                     4: ("calendar", "policy", "threads")}
    for level, sources in level_sources.items():
        prompt = " ".join(system_prompt(level).split()).lower()
        for k in constraint_kinds():   # a kind first met at level 4 is left out below it
            assert (k.prompt_text.lower() in prompt) == (k.source in sources and k.first_level <= level), (level, k.name)
    description = all_tools()["get_policy"].description
    assert all(f"{k.name} (" in description and k.prompt_text in description for k in kinds_of("policy"))
