"""Partitioned builds (`mpcbench build --out DIR`): the dataset does not depend on the partition
size, the number of workers or the engine; it holds the same tables and exports the same files as
the DuckDB build of the same config (docs/dataset.md); and a damaged dataset is refused by
every reader (the manifest check). The Ray tests need `pip install -e '.[scale]'`; without Ray
they skip, saying so."""

from __future__ import annotations

import functools
import json
import shutil
import threading
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalkit import shared_build, shared_dir
from mpcbench.cli import app
from mpcbench.dataset.export import export_dataset
from mpcbench.errors import UserError
from mpcbench.warehouse import db, parts
from mpcbench.warehouse.scale import build_partitioned

WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
# Level 1 (no threads, no rooms) and level 4 (threads, rooms, untagged prose, time zones) take every
# branch of the partitioned build (partitions.judge_partition, finalize_partition, write_world):
# levels 2 and 3 have a subset of level 4's parts (levels.py), and each level is built on its own,
# so they would only repeat the same paths at the cost of two more worlds in every worker.
LEVELS = (1, 4)
INSTANCES = 12
SMALL_PARTS = 8          # candidates per partition: 4 and 8 partitions a level at 12 instances
TABLES = (*db.RAW_TABLES, *parts.LABEL_TABLES, "build_stats", "build_info")


@functools.cache
def table_rows(path: Path) -> dict[str, list[tuple]]:
    """Every raw table, label table and build table, rows ordered by all columns (read once per
    process: the builds are read-only)."""
    con = db.open_existing(path)
    try:
        return {t: con.execute(f"select * from {t} order by all").fetchall() for t in TABLES}
    finally:
        con.close()


def exported(path: Path, out: Path) -> dict[str, bytes]:
    con = db.open_existing(path)
    try:
        export_dataset(con, out)
    finally:
        con.close()
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


# The builds below are made once per test session (tests/evalkit.py), so that the tests reading
# them can run on any pytest-xdist worker; they only read them (a damaged one is a copy).

@pytest.fixture(scope="module")
def duckdb_build(tmp_path_factory):
    return shared_build(tmp_path_factory, LEVELS, INSTANCES)


@pytest.fixture(scope="module")
def one_partition(tmp_path_factory):
    return shared_dir(tmp_path_factory, "scale-one-partition", lambda d: build_partitioned(
        d / "dataset", LEVELS, instances=INSTANCES, worlds_dir=WORLDS_DIR, partition_size=1000)) / "dataset"


@pytest.fixture(scope="module")
def many_partitions(tmp_path_factory):
    """The same config in partitions of 8 candidates, judged by 2 worker processes."""
    return shared_dir(tmp_path_factory, "scale-many-partitions", lambda d: build_partitioned(
        d / "dataset", LEVELS, instances=INSTANCES, worlds_dir=WORLDS_DIR, partition_size=SMALL_PARTS,
        jobs=2)) / "dataset"


def partitions_per_level(out: Path) -> dict[str, int]:
    return {level: v["partitions"] for level, v in json.loads((out / parts.MANIFEST).read_text())["levels"].items()}


def test_partition_size_and_workers_change_nothing(one_partition, many_partitions):
    assert set(partitions_per_level(one_partition).values()) == {1}
    assert min(partitions_per_level(many_partitions).values()) >= 3
    one, many = table_rows(one_partition), table_rows(many_partitions)
    for table in TABLES:
        assert one[table] == many[table], table
    assert len(one["oracle_answers"]) > len(LEVELS) * INSTANCES and len(one["instances"]) == len(LEVELS) * INSTANCES


def test_dataset_holds_the_duckdb_builds_tables(duckdb_build, many_partitions):
    """Raw tables, labels and build tables equal the DuckDB file's, row for row."""
    assert table_rows(many_partitions) == table_rows(duckdb_build)


def test_dataset_exports_the_duckdb_builds_files(duckdb_build, many_partitions, tmp_path):
    assert exported(many_partitions, tmp_path / "p") == exported(duckdb_build, tmp_path / "d")


def test_duckdb_reads_the_files_directly(many_partitions):
    """The layout is plain hive-partitioned Parquet: a glob gives the level's labels."""
    con = duckdb.connect()
    rows = con.execute(f"select level, count(distinct instance_id) from read_parquet("
                       f"'{many_partitions}/oracle_summary/*/*/*.parquet', hive_partitioning = true) "
                       "group by level order by level").fetchall()
    assert rows == [(level, INSTANCES) for level in LEVELS]


def damaged_copy(source: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(source, copy)
    return copy


def a_partition_file(out: Path) -> Path:
    """A middle partition of level 4 that holds several label rows."""
    return out / parts.part_path("oracle_answers", 4, 3)


def test_missing_partition_is_refused(many_partitions, tmp_path):
    out = damaged_copy(many_partitions, tmp_path)
    a_partition_file(out).unlink()
    with pytest.raises(UserError, match="incomplete: 1 partition file"):
        db.open_existing(out)


def test_short_partition_is_refused(many_partitions, tmp_path):
    out = damaged_copy(many_partitions, tmp_path)
    target = a_partition_file(out)
    con = duckdb.connect()
    con.execute(f"copy (select * from '{target}' limit 1) to '{target}.short' (format parquet)")
    Path(f"{target}.short").replace(target)
    with pytest.raises(UserError, match="has 1 rows, its manifest says"):
        db.open_existing(out)


def test_stray_partition_and_missing_manifest_are_refused(many_partitions, tmp_path):
    out = damaged_copy(many_partitions, tmp_path)
    shutil.copy(a_partition_file(out), a_partition_file(out).with_name("extra.parquet"))
    with pytest.raises(UserError, match="does not list"):
        db.open_existing(out)
    (out / parts.MANIFEST).unlink()
    result = CliRunner().invoke(app, ["sql", "--db", str(out), "select count(*) from instances"])
    assert result.exit_code == 1
    assert "not a complete mpcbench dataset: no manifest.json" in result.output
    assert "Traceback" not in result.output


def test_cli_builds_a_dataset_and_refuses_mixed_options(tmp_path):
    runner = CliRunner()
    out = tmp_path / "ds"
    result = runner.invoke(app, ["build", "--out", str(out), "--levels", "1", "--instances", "3",
                                 "--worlds", str(WORLDS_DIR), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / parts.MANIFEST).read_text())["levels"] == {"1": {"instances": 3, "partitions": 1}}
    result = runner.invoke(app, ["sql", "--db", str(out), "select count(*) as n from instances"])
    assert result.exit_code == 0 and "3" in result.output
    result = runner.invoke(app, ["build", "--engine", "ray", "--levels", "1"])
    assert result.exit_code == 2 and "add --out DIR" in result.output
    result = runner.invoke(app, ["build", "--out", str(out), "--engine", "spark", "--levels", "1"])
    assert result.exit_code == 1 and "--engine must be one of local, ray" in result.output
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["build", "--out", str(tmp_path / "other"), "--levels", "1", "--instances", "1",
                                 "--worlds", str(WORLDS_DIR), "--jobs", "1"])
    assert result.exit_code == 1 and "is not an mpcbench dataset" in result.output
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"


# --- Ray ---------------------------------------------------------------------------------------

def ray_or_skip():
    return pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[scale]')")


def test_ray_gives_the_same_dataset(one_partition, tmp_path):
    ray_or_skip()
    out = tmp_path / "ray"
    build_partitioned(out, LEVELS, instances=INSTANCES, worlds_dir=WORLDS_DIR, partition_size=SMALL_PARTS,
                      jobs=2, engine="ray")
    assert max(partitions_per_level(out).values()) >= 7
    assert table_rows(out) == table_rows(one_partition)


def kill_a_worker_during(run, marker: str) -> int | None:
    """Run `run` in a thread; kill (SIGKILL) the first process that `run` started (a new process
    of this test's own tree, never one of another test or of anyone else on the machine) whose
    command line holds `marker`."""
    psutil = pytest.importorskip("psutil")
    earlier = {p.pid for p in psutil.Process().children(recursive=True)}   # other tests' pools and servers
    thread = threading.Thread(target=run)
    thread.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and thread.is_alive() and time.monotonic() < deadline:
        for process in psutil.Process().children(recursive=True):
            if process.pid in earlier:
                continue
            try:
                cmdline = " ".join(process.cmdline())
            except psutil.Error:
                continue
            if marker in cmdline:
                process.kill()
                killed = process.pid
                break
        time.sleep(0.05)
    thread.join(300)
    return killed


def test_killed_ray_worker_is_retried(one_partition, tmp_path):
    """A worker killed while it judges a partition: Ray runs the task again, and the dataset is
    complete and the same."""
    ray_or_skip()
    out = tmp_path / "ray"
    outcome: dict = {}

    def run():
        build_partitioned(out, LEVELS, instances=INSTANCES, worlds_dir=WORLDS_DIR,
                          partition_size=SMALL_PARTS, jobs=2, engine="ray")
        outcome["ok"] = True

    assert kill_a_worker_during(run, "ray::judge_partition") is not None, "no Ray worker was seen judging"
    assert outcome.get("ok")
    assert table_rows(out) == table_rows(one_partition)


def test_killed_local_worker_fails_clearly(tmp_path):
    """The local pool does not retry: the build stops with one line and leaves no dataset."""
    out = tmp_path / "local"
    outcome: dict = {}

    def run():
        try:
            build_partitioned(out, (3,), instances=40, worlds_dir=WORLDS_DIR, partition_size=SMALL_PARTS, jobs=2)
            outcome["ok"] = True
        except UserError as e:
            outcome["error"] = str(e)
        except BaseException as e:  # noqa: BLE001 - shown by the assertion below
            outcome["other"] = repr(e)

    assert kill_a_worker_during(run, "spawn_main") is not None, "no worker process was seen"
    assert "a partition task failed" in outcome.get("error", "") and "\n" not in outcome["error"], outcome
    assert not out.exists() and not list(tmp_path.iterdir())
