"""The dataset version (mpcbench/dataset/version.py): the build records it, `mpcbench info` shows
it, an old build without it reads as version 1, `mpcbench eval` copies the build's into run.json
and runs.parquet, the HF card states it, and `mpcbench report` marks runs of different versions
as not comparable (and only those)."""

from __future__ import annotations

import json
import shutil

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import altered_copy
from mpcbench.cli import app
from mpcbench.dataset.hf import dataset_card
from mpcbench.dataset.version import DATASET_VERSION, warehouse_dataset_version
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.report.render import make_report

MARK = "Not comparable: these runs were scored on different dataset versions"


@pytest.fixture(scope="module")
def old_db(db_path, tmp_path_factory):
    """A copy of the tiny build as a build from before dataset versions: no `dataset_version` row."""
    return altered_copy(db_path, tmp_path_factory.mktemp("old-build") / "old.duckdb",
                        "delete from build_info where key = 'dataset_version'")


@pytest.fixture(scope="module")
def runs(db_path, old_db, tmp_path_factory):
    """Level 1 of the scripted solver on the tiny build (version 2) and on its old copy (version 1)."""
    base = tmp_path_factory.mktemp("version-runs")
    return {name: run_eval(EvalConfig(agent="scripted", db=str(path), levels=(1,), out=str(base / name))).run_dir
            for name, path in (("new", db_path), ("old", old_db))}


def test_the_build_records_the_packages_dataset_version(con):
    assert DATASET_VERSION == "2"
    info = dict(con.execute("select key, value from build_info").fetchall())
    assert info["dataset_version"] == DATASET_VERSION == warehouse_dataset_version(con)


def test_info_shows_it_and_an_old_build_reads_as_version_1(db_path, old_db):
    new = CliRunner().invoke(app, ["info", "--db", str(db_path)], env={"COLUMNS": "200"})
    assert new.exit_code == 0, new.output
    assert f"Dataset version: {DATASET_VERSION}\n" in new.output
    old = CliRunner().invoke(app, ["info", "--db", str(old_db)], env={"COLUMNS": "200"})
    assert old.exit_code == 0, old.output
    assert "Dataset version: 1 (not recorded" in old.output
    con = duckdb.connect(str(old_db), read_only=True)
    try:
        assert warehouse_dataset_version(con) == "1"
    finally:
        con.close()


def test_eval_records_the_builds_version_in_run_json_and_runs_parquet(runs):
    for name, version in (("new", DATASET_VERSION), ("old", "1")):
        meta = json.loads((runs[name] / "run.json").read_text())
        assert meta["dataset_version"] == version, name
        table = pl.read_parquet(runs[name] / "runs.parquet")
        assert table.height == 4 and table["dataset_version"].to_list() == [version] * 4, name


def test_the_hf_card_states_the_version(con):
    card = dataset_card(con, [])
    assert f"- mpcbench-dataset-v{DATASET_VERSION}\n" in card and f"Dataset version {DATASET_VERSION}:" in card


def _copy(run, to):
    """A copy of a run directory as a run of its own (run.json's run_id: the new directory's name)."""
    shutil.copytree(run, to)
    meta = json.loads((to / "run.json").read_text())
    (to / "run.json").write_text(json.dumps({**meta, "run_id": to.name}))
    return to


def test_report_of_two_versions_says_they_are_not_comparable(runs, tmp_path):
    out = make_report([runs["new"], runs["old"]], tmp_path / "report", trajectories="none")
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert f"> **{MARK} (version 1: old; version {DATASET_VERSION}: new)" in md
    assert "<p class='bad not-comparable'><strong>" + MARK in page
    results = md.split("## Results\n", 1)[1].split("\n## ", 1)[0]   # every row names its run's version
    assert f"| Level 1 | scripted [dataset {DATASET_VERSION}] |" in results and "| Level 1 | scripted [dataset 1] |" in results
    runs_table = md.split("## Runs\n", 1)[1].split("\n## ", 1)[0]
    assert "| Grader | Dataset | Created |" in runs_table
    assert f"| new | scripted [dataset {DATASET_VERSION}] |" in runs_table and "| old | scripted [dataset 1] |" in runs_table


def test_report_of_one_version_has_no_mark(runs, tmp_path):
    again = _copy(runs["new"], tmp_path / "again")
    out = make_report([runs["new"], again], tmp_path / "report", trajectories="none")
    for name in ("report.md", "report.html"):
        text = (out / name).read_text()
        assert "Not comparable" not in text and "[dataset" not in text and "not-comparable" not in text, name


def test_a_run_without_the_field_is_version_1(runs, tmp_path):
    bare = _copy(runs["new"], tmp_path / "bare")   # as a run written before versions were recorded
    meta = json.loads((bare / "run.json").read_text())
    del meta["dataset_version"]
    (bare / "run.json").write_text(json.dumps(meta))
    pl.read_parquet(bare / "runs.parquet").drop("dataset_version").write_parquet(bare / "runs.parquet")
    with_old = make_report([bare, runs["old"]], tmp_path / "same", trajectories="none")
    assert "Not comparable" not in (with_old / "report.md").read_text()
    with_new = make_report([bare, runs["new"]], tmp_path / "differ", trajectories="none")
    assert f"{MARK} (version 1: bare; version {DATASET_VERSION}: new)" in (with_new / "report.md").read_text()


def test_a_runs_parquet_rewritten_to_another_version_is_caught(runs, tmp_path):
    other = _copy(runs["new"], tmp_path / "other")
    table = pl.read_parquet(other / "runs.parquet")
    table.with_columns(pl.lit("99").alias("dataset_version")).write_parquet(other / "runs.parquet")
    md = (make_report([runs["new"], other], tmp_path / "report", trajectories="none") / "report.md").read_text()
    assert f"{MARK} (version {DATASET_VERSION}: new; version {DATASET_VERSION}/99: other)" in md
    assert f"Run other: its run.json and runs.parquet record different dataset versions ({DATASET_VERSION} and 99)" in md
