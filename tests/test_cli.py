"""The warehouse commands through the CLI: build, info, sql, explain, and their errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from mpcbench.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def small_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "small.duckdb"
    result = runner.invoke(app, ["build", "--db", str(path), "--levels", "1,3", "--instances", "4"])
    assert result.exit_code == 0, result.output
    return path


def test_build_writes_the_asked_levels_and_counts(small_db):
    con = duckdb.connect(str(small_db), read_only=True)
    assert con.execute("select level, count(*) from instances group by level order by level").fetchall() == [(1, 4), (3, 4)]
    stats = con.execute("select level, instances_kept, candidates_sampled, discarded_too_few_feasible "
                        "+ rejected_calendar_not_needed + rejected_policy_not_needed "
                        "+ rejected_threads_not_needed + rejected_rooms_not_needed from build_stats order by level").fetchall()
    for _level, kept, sampled, thrown in stats:
        assert sampled == kept + thrown


def test_info_shows_levels_stats_and_versions(small_db):
    result = runner.invoke(app, ["info", "--db", str(small_db)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "world-l3" in result.output and "mpcbench_version" in result.output


def test_sql_prints_rows_of_a_select(small_db):
    result = runner.invoke(app, ["sql", "select instance_id from instances where level = 3 order by 1 limit 1",
                                 "--db", str(small_db)])
    assert result.exit_code == 0, result.output
    assert "L3-0001" in result.output


@pytest.mark.parametrize("query, message", [
    ("delete from events", "only SELECT"),
    ("select 1; select 2", "exactly one statement"),
    ("select * from no_such_table", "query failed"),
    ("selec 1 frm", "not valid SQL"),
])
def test_sql_refuses_writes_and_reports_bad_queries(small_db, query, message):
    result = runner.invoke(app, ["sql", query, "--db", str(small_db)])
    assert result.exit_code != 0
    assert message in result.output


def test_sql_cannot_change_the_database_even_through_a_select(small_db, tmp_path):
    copy = tmp_path / "copy.duckdb"
    shutil.copy(small_db, copy)
    runner.invoke(app, ["sql", "select * from events; drop table events", "--db", str(copy)])
    con = duckdb.connect(str(copy), read_only=True)
    assert con.execute("select count(*) from events").fetchone()[0] > 0


def test_explain_shows_gold_and_the_constraints_of_a_start(small_db):
    con = duckdb.connect(str(small_db), read_only=True)
    instance_id, killed_start, kind = con.execute(
        "select instance_id, strftime(starts_at, '%Y-%m-%dT%H:%M'), constraint_kind from int_violations "
        "where constraint_kind = 'busy' order by instance_id, starts_at limit 1").fetchone()
    gold_start = con.execute("select strftime(starts_at, '%Y-%m-%dT%H:%M') from oracle_answers "
                             "where instance_id = $1 and rank = 1", [instance_id]).fetchone()[0]
    con.close()
    result = runner.invoke(app, ["explain", instance_id, "--start", killed_start, "--db", str(small_db)],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert gold_start in result.output and "busy" in result.output and "events.ev-" in result.output


def test_explain_unknown_instance_is_a_clear_error(small_db):
    result = runner.invoke(app, ["explain", "L9-9999", "--db", str(small_db)])
    assert result.exit_code == 1
    assert "no instance 'L9-9999'" in result.output


def test_missing_database_and_bad_levels_are_clear_errors(tmp_path):
    result = runner.invoke(app, ["info", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 1 and "does not exist" in result.output
    result = runner.invoke(app, ["build", "--db", str(tmp_path / "x.duckdb"), "--levels", "1,5"])
    assert result.exit_code == 2 and "--levels" in result.output


def test_a_broken_world_config_names_the_file_and_the_rule(tmp_path):
    worlds = tmp_path / "worlds"
    worlds.mkdir()
    text = Path("worlds/world_level1.toml").read_text().replace("\nbuffer = {", "\nbufer = {", 1)
    (worlds / "world_level1.toml").write_text(text)
    result = runner.invoke(app, ["build", "--db", str(tmp_path / "x.duckdb"), "--levels", "1",
                                 "--worlds", str(worlds)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert text != Path("worlds/world_level1.toml").read_text()
    assert "world_level1.toml" in result.output and "unknown rule type 'bufer'" in result.output
    assert not (tmp_path / "x.duckdb").exists()


def test_sql_max_rows_shows_that_many_rows_and_says_when_there_are_more(small_db):
    query = "select * from range(150) t(x) order by x"
    result = runner.invoke(app, ["sql", query, "--max-rows", "100", "--db", str(small_db)])
    assert result.exit_code == 0, result.output
    shown = [int(cell) for line in result.output.splitlines() if line.startswith("│")
             for cell in [line.strip("│ ")] if cell.isdigit()]
    assert shown == list(range(100))
    assert "(the first 100 rows; --max-rows N shows more" in result.output
    every = runner.invoke(app, ["sql", "select * from range(7) t(x)", "--max-rows", "100", "--db", str(small_db)])
    assert "the first" not in every.output


WHOLE = ("select instance_id, level, prompt, now, [level, level + 1] as pair, 'a|b' as piped from instances "
         "order by instance_id")


def expected_rows(small_db) -> tuple[list[str], list[tuple]]:
    con = duckdb.connect(str(small_db), read_only=True)
    try:
        relation = con.sql(WHOLE)
        return relation.columns, relation.fetchall()
    finally:
        con.close()


def test_sql_format_prints_every_row_and_every_value_whole_for_scripts(small_db):
    """csv, json and markdown: all 8 rows (a box table shows 50 at most and shortens the prompts),
    each value as the database holds it; the box table is what --format box and no option give."""
    columns, rows = expected_rows(small_db)
    assert len(rows) == 8 and max(len(r[2]) for r in rows) > 300   # prompts a box table would cut
    out = {fmt: runner.invoke(app, ["sql", WHOLE, "--format", fmt, "--db", str(small_db)])
           for fmt in ("csv", "json", "markdown")}
    assert all(r.exit_code == 0 for r in out.values()), {f: r.output for f, r in out.items()}

    read = list(csv.reader(io.StringIO(out["csv"].output)))
    assert read[0] == columns and len(read) == 9
    assert [(r[0], int(r[1]), r[2], r[3], json.loads(r[4])) for r in read[1:]] == \
        [(r[0], r[1], r[2], r[3].isoformat(), r[4]) for r in rows]

    objects = json.loads(out["json"].output)
    assert objects == [{"instance_id": r[0], "level": r[1], "prompt": r[2], "now": r[3].isoformat(),
                        "pair": r[4], "piped": "a|b"} for r in rows]

    lines = out["markdown"].output.splitlines()
    assert len(lines) == 10 and lines[1] == "| --- | --- | --- | --- | --- | --- |"
    assert all(line.endswith("| a\\|b |") for line in lines[2:])
    assert rows[0][2].replace("\n", "<br>") in lines[2]

    box = runner.invoke(app, ["sql", WHOLE, "--db", str(small_db)])
    assert box.output == runner.invoke(app, ["sql", WHOLE, "--format", "box", "--db", str(small_db)]).output
    assert rows[0][2] not in box.output   # the box table shortens a prompt
    bad = runner.invoke(app, ["sql", WHOLE, "--format", "xml", "--db", str(small_db)])
    assert bad.exit_code == 2 and "--format must be one of box, csv, json, markdown" in bad.output


def test_sql_interactive_runs_statements_until_quit_and_stays_read_only(small_db):
    session = ("select count(*) as n_instances\n  from instances;\n"
               "delete from events;\n"
               ".schema rooms\n"
               "select 'after' as marker;\n.quit\nselect 'never' as marker;\n")
    result = runner.invoke(app, ["sql", "--interactive", "--db", str(small_db)], input=session)
    assert result.exit_code == 0, result.output
    assert "n_instances" in result.output and "│           8 │" in result.output
    assert "error: only SELECT (or WITH ... SELECT) queries are allowed, not DELETE" in result.output
    assert "capacity" in result.output and "after" in result.output and "never" not in result.output
    con = duckdb.connect(str(small_db), read_only=True)
    assert con.execute("select count(*) from events").fetchone()[0] > 0
    con.close()


def test_info_cuts_no_header(small_db):
    result = runner.invoke(app, ["info", "--db", str(small_db)])
    con = duckdb.connect(str(small_db), read_only=True)
    names = [d[0] for d in con.execute("select * from build_stats").description]
    names += [d[0] for d in con.execute(Path("sql/queries/level_counts.sql").read_text()).description]
    con.close()
    words = set(result.output.replace("│", " ").replace("┃", " ").split())
    assert [n for n in names if n not in words] == []
    assert "level 1" in result.output and "level 3" in result.output and "…" not in result.output


def test_build_points_to_mpcbench_sql_and_report_hints_name_the_path(small_db, tmp_path):
    built = runner.invoke(app, ["build", "--db", str(tmp_path / "b.duckdb"), "--levels", "1", "--instances", "1"])
    assert built.exit_code == 0, built.output
    hint = built.output.strip().splitlines()[-1]
    assert hint.startswith('Explore it: mpcbench sql "select') and f"--db {tmp_path / 'b.duckdb'}" in hint
    assert "duckdb " + str(tmp_path) not in hint
    unfinished = tmp_path / "run"
    unfinished.mkdir()
    (unfinished / "run.json").write_text("{}")
    result = runner.invoke(app, ["report", str(unfinished)])
    assert result.exit_code == 1 and "{path}" not in result.output
    assert f"mpcbench eval --resume --out {unfinished}" in result.output.replace("\n", "")
