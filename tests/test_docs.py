"""The user documentation matches the code, so that it cannot drift unnoticed:

- docs/results.md documents every Parquet file a real offline run writes, every column of each
  with its type, and no column that does not exist; every file of the run directory; every key
  of run.json;
- docs/semantics.md documents every constraint kind of the `constraint_kinds` table, and every
  constraint kind and failure cause a real run reports;
- docs/dataset.md documents every field of the JSON Schemas that `mpcbench export` writes;
- every ```sql block and every `mpcbench sql "..."` example in README.md and docs/ (the pages of
  the documentation site), runs as written on the default build (with a run in build/runs/) and
  returns rows;
- the README stays short: at most 200 lines (the rest lives in docs/).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import default_db
from mpcbench.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RESULTS = DOCS / "results.md"
SEMANTICS = DOCS / "semantics.md"
DATASET = DOCS / "dataset.md"
DEFAULT_DB = Path("build/mpcbench.duckdb")    # the path the README's examples use
ROW = re.compile(r"^\|\s*`([A-Za-z0-9_.<>]+)`\s*\|\s*([^|]*?)\s*\|", re.MULTILINE)
SQL_BLOCK = re.compile(r"^```sql\n(.*?)^```", re.MULTILINE | re.DOTALL)
SQL_COMMAND = re.compile(r'mpcbench sql "((?:select|with)\b[^"]*)"', re.IGNORECASE)
runner = CliRunner()


def cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def offline_eval(db_path: Path, out: Path, *options: str) -> Path:
    """The calendar-only baseline with rule feedback over two turns (every table gets rows), run
    as a user runs it."""
    cli("eval", "--agent", "calendar-only", "--db", str(db_path), "--max-turns", "2", "--feedback", "rule",
        "--out", str(out), *options)
    return out


def sections(path: Path) -> dict[str, str]:
    """The text under each `## ` heading of a Markdown file, by heading."""
    parts = re.split(r"^## (.+)$", path.read_text(), flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2])}


def documented(body: str) -> dict[str, str]:
    """{name: second cell} of the table rows whose first cell is a `name`."""
    return {name: second for name, second in ROW.findall(body)}


def doc_type(dtype: pl.DataType) -> str:
    """A Parquet column's type as docs/results.md writes it."""
    if isinstance(dtype, pl.List):
        return f"list<{doc_type(dtype.inner)}>"
    names = {pl.String: "string", pl.Int64: "int64", pl.Int32: "int32", pl.Float64: "double", pl.Boolean: "boolean"}
    return names.get(dtype.base_type(), str(dtype))


# --- docs/results.md and docs/semantics.md against a real run -----------------------------------

@pytest.fixture(scope="module")
def run_dir(db_path, tmp_path_factory):
    return offline_eval(db_path, tmp_path_factory.mktemp("docs") / "run")


@pytest.fixture(scope="module")
def results_sections():
    return sections(RESULTS)


def test_the_run_writes_every_table_with_rows(run_dir):
    """Else the checks below would compare documentation with empty files."""
    for name in ("runs", "turns", "candidates", "tool_calls", "failures"):
        assert pl.read_parquet(run_dir / f"{name}.parquet").height > 0, name


def test_every_parquet_file_and_column_is_documented_with_its_type(run_dir, results_sections):
    files = sorted(run_dir.glob("*.parquet"))
    assert files
    for path in files:
        assert path.name in results_sections, f"docs/results.md has no section '## {path.name}'"
        columns = documented(results_sections[path.name])
        schema = pl.read_parquet_schema(path)
        missing = [c for c in schema if c not in columns]
        extra = [c for c in columns if c not in schema]
        assert not missing, f"{path.name}: columns not documented in docs/results.md: {missing}"
        assert not extra, f"{path.name}: docs/results.md documents columns that do not exist: {extra}"
        wrong = {c: (columns[c], doc_type(t)) for c, t in schema.items() if columns[c] != doc_type(t)}
        assert not wrong, f"{path.name}: documented type differs from the file's (documented, real): {wrong}"
        listed = list(columns)
        assert listed == list(schema), f"{path.name}: docs/results.md lists the columns in another order"


def test_every_file_of_the_run_directory_is_documented(run_dir, results_sections):
    files = documented(results_sections["The files"])
    for path in run_dir.iterdir():
        assert path.name in files, f"docs/results.md does not describe {path.name}"


def test_every_key_of_run_json_is_documented(run_dir, results_sections):
    meta = json.loads((run_dir / "run.json").read_text())
    names = set(re.findall(r"`([A-Za-z0-9_]+)`", results_sections["run.json"]))
    keys = set(meta) | set(meta["options"]) | set(meta["summary"][0]) | set(meta["episodes"]) | set(meta["seeds"])
    keys |= set(meta["versions"]) | set(meta["build"])
    assert not keys - names, f"run.json keys not documented in docs/results.md: {sorted(keys - names)}"


def test_every_constraint_kind_is_documented(con):
    text = SEMANTICS.read_text()
    kinds = [k for (k,) in con.execute("select constraint_kind from constraint_kinds order by 1").fetchall()]
    assert len(kinds) >= 10
    missing = [k for k in kinds if f"`{k}`" not in text]
    assert not missing, f"constraint kinds not documented in docs/semantics.md: {missing}"


def test_every_kind_and_cause_a_run_reports_is_documented(run_dir):
    text = SEMANTICS.read_text()
    candidates = pl.read_parquet(run_dir / "candidates.parquet")
    failures = pl.read_parquet(run_dir / "failures.parquet")
    reported = set(candidates["violations"].explode().drop_nulls()) | set(failures["cause"])
    reported |= set(failures["constraint_kind"].drop_nulls()) | set(failures["stage"].drop_nulls())
    assert {"violation", "acquisition"} <= reported
    missing = sorted(k for k in reported if f"`{k}`" not in text)
    assert not missing, f"reported by a run but not documented in docs/semantics.md: {missing}"


def code_words(path: Path) -> set[str]:
    """Every identifier inside a `code span` of a Markdown file."""
    return {word for span in re.findall(r"`([^`]+)`", path.read_text()) for word in re.findall(r"[A-Za-z_]\w*", span)}


def schema_properties(node: object) -> set[str]:
    """Every property name a JSON Schema defines, at any depth."""
    if isinstance(node, dict):
        own = set(node["properties"]) if isinstance(node.get("properties"), dict) else set()
        return own.union(*(schema_properties(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(schema_properties(v) for v in node))
    return set()


def test_every_field_of_the_exported_schemas_is_documented(db_path, tmp_path):
    cli("export", str(tmp_path / "dataset"), "--db", str(db_path))
    schemas = sorted((tmp_path / "dataset" / "schema").glob("*.schema.json"))
    assert [p.name for p in schemas] == ["instance.schema.json", "oracle.schema.json", "world.schema.json"]
    fields = set().union(*(schema_properties(json.loads(p.read_text())) for p in schemas))
    assert {"world_id", "room_bookings", "end_by", "tie_break", "n_feasible"} <= fields
    missing = sorted(fields - code_words(DATASET))
    assert not missing, f"fields of the JSON Schemas not documented in docs/dataset.md: {missing}"


# --- the README's examples on the default build ------------------------------------------------

@pytest.fixture(scope="module")
def default_workdir(tmp_path_factory):
    """A directory laid out as a user's after the README's commands: build/mpcbench.duckdb (the
    default build) and a run in build/runs/demo/."""
    work = tmp_path_factory.mktemp("readme")
    (work / DEFAULT_DB).parent.mkdir(parents=True)
    # what `mpcbench build` writes there: the session's default build (tests/evalkit.py), not built again
    (work / DEFAULT_DB).symlink_to(default_db(tmp_path_factory))
    offline_eval(work / DEFAULT_DB, work / "build" / "runs" / "demo", "--instances", "2")
    # docs/booking.md's episode
    cli("eval", "--agent", "scripted", "--task", "book", "--db", str(work / DEFAULT_DB), "--instance", "L3-0001",
        "--out", str(work / "build" / "runs" / "book-l3"))
    return work


def documented_pages() -> list[Path]:
    """README.md and every page of the documentation site."""
    return [README, *sorted(DOCS.glob("*.md"))]


def block_statements() -> list[tuple[str, str]]:
    """(file, statement) of each statement of the ```sql blocks of README.md and docs/, with the
    comment above it, as a reader copies it."""
    statements = []
    for path in documented_pages():
        for block in SQL_BLOCK.findall(path.read_text()):
            statements += [(path.name, s.strip()) for s in re.split(r";[ \t]*$", block, flags=re.MULTILINE) if s.strip()]
    return statements


def example_commands() -> list[tuple[str, str]]:
    """(file, query) of every `mpcbench sql "..."` in README.md and docs/."""
    return [(path.name, q) for path in documented_pages() for q in SQL_COMMAND.findall(path.read_text())]


EXAMPLES = ([pytest.param(q, id=f"{name}-sql-block-statement-{i}") for i, (name, q) in enumerate(block_statements(), 1)]
            + [pytest.param(q, id=f"{name}-mpcbench-sql-{i}") for i, (name, q) in enumerate(example_commands(), 1)])


def test_the_docs_have_sql_examples():
    statements = [s for _, s in block_statements()]
    assert len(statements) >= 5
    assert any("runs.parquet" in s for name, s in block_statements() if name == "README.md")
    assert len(example_commands()) >= 3


def test_the_readme_is_short():
    lines = len(README.read_text().splitlines())
    assert lines <= 200, f"README.md has {lines} lines: move the detail into docs/ (at most 200)"


@pytest.mark.parametrize("query", EXAMPLES)
def test_a_documented_query_runs_as_written_and_returns_rows(query, default_workdir, monkeypatch):
    monkeypatch.chdir(default_workdir)  # the examples use the default paths
    con = duckdb.connect(str(DEFAULT_DB), read_only=True)
    try:
        rows = con.execute(query).fetchall()
    finally:
        con.close()
    assert rows, f"returns no row:\n{query}"
    statement = re.sub(r"\A(\s*--[^\n]*\n)+", "", query)   # what one pastes after `mpcbench sql`
    cli("sql", statement)


# --- the commands the quickstart prints at its end ----------------------------------------------

QUICKSTART = ROOT / "scripts" / "quickstart.sh"


def test_the_quickstart_names_its_report_and_three_next_commands():
    text = QUICKSTART.read_text()
    assert "Report: reports/quickstart/report.html" in text
    queries = SQL_COMMAND.findall(text)
    assert len(queries) == 1, "the quickstart prints one `mpcbench sql` example"
    assert queries[0] in [q for _, q in example_commands()], \
        "the quickstart's SQL example is one of the documented ones (so it runs in the test above)"
    assert "mpcbench explain $miss" in text and "mpcbench eval --agent openai" in text


def test_the_miss_the_quickstart_names_is_explained(default_workdir, monkeypatch):
    """The quickstart's snippet finds a wrong start of the calendar-only run; `explain` takes it."""
    import subprocess
    import sys
    snippet = re.search(r"<<'PY'[^\n]*\n(.*?)^PY$", QUICKSTART.read_text(), re.MULTILINE | re.DOTALL)
    assert snippet
    monkeypatch.chdir(default_workdir)
    run = default_workdir / "build" / "runs" / "quickstart-calendar-only"
    if not run.exists():
        run.symlink_to(default_workdir / "build" / "runs" / "demo")
    miss = subprocess.run([sys.executable, "-c", snippet.group(1)], capture_output=True, text=True,
                          check=True).stdout.split()
    assert len(miss) == 3 and miss[1] == "--start", miss
    assert "breaks" in cli("explain", *miss)
