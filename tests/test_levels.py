"""The level table (mpcbench/levels.py) against what else says what a level has: the SQL seed
`level_sources`, the `-- levels:` headers of the tool files and the world configs; and code
reads the table rather than comparing level numbers."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

import mpcbench
from mpcbench.episode.toolfiles import catalog
from mpcbench.levels import LEVELS, level_spec
from mpcbench.sources import SOURCES
from mpcbench.warehouse import db
from mpcbench.world.config import load_world_config, world_config_path

PACKAGE = Path(mpcbench.__file__).parent
# a level number compared: `level >= 3`, `config.level == 4`, `1 <= level`, ...
LEVEL_COMPARISON = re.compile(r"level\s*(==|>=|<=|<|>|!=|in)\s*[\(0-9]|\b[0-9]\s*(==|<=|>=|<|>)\s*level\b")
MAX_COMPARISONS = 15


def level_comparisons() -> list[str]:
    return [f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
            for path in sorted(PACKAGE.rglob("*.py")) if "legacy" not in path.relative_to(PACKAGE).parts
            for number, line in enumerate(path.read_text().splitlines(), start=1) if LEVEL_COMPARISON.search(line)]


def test_code_reads_the_table_instead_of_comparing_level_numbers():
    found = level_comparisons()
    assert len(found) <= MAX_COMPARISONS, "read mpcbench.levels.level_spec instead:\n" + "\n".join(found)


def test_each_levels_sources_are_the_sql_seeds():
    con = duckdb.connect()
    con.execute((db.SQL_DIR / db.SEED_LAYER / "level_sources.sql").read_text())
    seeded: dict[int, set[str]] = {}
    for level, source in con.execute("select level, source from level_sources").fetchall():
        seeded.setdefault(level, set()).add(source)
    assert tuple(sorted(seeded)) == LEVELS
    for level in LEVELS:
        sources = level_spec(level).sources
        assert set(sources) == seeded[level], level
        assert list(sources) == [s for s in SOURCES if s in sources], "sources are listed in SOURCES order"


@pytest.mark.parametrize("level", LEVELS)
def test_the_tools_offered_match_the_levels_row(level):
    spec = level_spec(level)
    tools = {tool.name: tool for tool in catalog(level)}
    assert spec.calendar_tool in tools
    other_calendar_tools = {"get_busy_intervals", "list_events"} - {spec.calendar_tool}
    assert not other_calendar_tools & set(tools)
    offered_iff = {
        "get_policy": not spec.policy_docs,
        "read_policy_doc": spec.policy_docs, "search_policy_docs": spec.policy_docs,
        "list_projects": spec.threads, "list_threads": spec.threads, "read_thread": spec.threads,
        "search_messages": spec.threads,
        "search_people": spec.people_by_name, "get_person": spec.people_by_name,
        "list_rooms": spec.rooms, "get_room_availability": spec.rooms,
        "get_working_hours": spec.zones_and_series, "list_recurring_events": spec.zones_and_series,
    }
    assert {name: name in tools for name in offered_iff} == offered_iff
    read = {tool.source for tool in tools.values()} & set(SOURCES)
    assert read <= set(spec.sources), "a tool reads a source the level does not have"


@pytest.mark.parametrize("level", LEVELS)
def test_the_world_configs_have_the_tables_the_row_needs(level):
    spec, config = level_spec(level), load_world_config(world_config_path(level))
    assert config.level == level
    assert bool(config.rooms) == spec.rooms
    assert bool(config.zones and config.series) == spec.zones_and_series


@pytest.mark.parametrize("number", [0, 5, "3", None])
def test_an_unknown_level_is_a_clear_error(number):
    with pytest.raises(ValueError, match=r"no level .*; the levels are 1, 2, 3, 4"):
        level_spec(number)
