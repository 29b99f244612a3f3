"""`mpcbench eval --shard i/n` and `mpcbench merge`: the shards split the instances without overlap,
and merged they are the run without --shard (same episodes, same tables); a merge refuses a
missing or repeated shard, shards of other options and a shard with a missing episode, in one line."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from mpcbench.cli import app
from mpcbench.errors import UserError
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.merge import merge_runs
from mpcbench.harness.runner import run_eval

TABLES = {"runs": ["run_id", "latency_s"], "candidates": ["run_id"], "tool_calls": ["run_id", "latency_ms"],
          "failures": ["run_id"], "turns": ["run_id"]}


def run(db_path, out: Path, **options) -> Path:
    run_eval(EvalConfig(agent="calendar-only", db=str(db_path), trials=2, out=str(out), **options))
    return out


def table(run_dir: Path, name: str) -> pl.DataFrame:
    frame = pl.read_parquet(run_dir / f"{name}.parquet").drop(TABLES[name])
    return frame.sort(frame.columns)


@pytest.fixture(scope="module")
def shards(db_path, tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    return [run(db_path, root / f"s{i}", shard=f"{i}/3") for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def whole(db_path, tmp_path_factory):
    """The same run without --shard (one run for the tests that compare with it)."""
    return run(db_path, tmp_path_factory.mktemp("whole") / "whole")


def episodes(run_dir: Path) -> list[tuple[str, int]]:
    return sorted(pl.read_parquet(run_dir / "runs.parquet").select("instance_id", "trial").iter_rows())


def test_shards_split_the_instances(shards, whole):
    parts = [episodes(s) for s in shards]
    assert all(parts) and sum(map(len, parts)) == len(episodes(whole))
    assert sorted(e for p in parts for e in p) == episodes(whole)
    for p in parts:   # every trial of an instance in one shard
        assert {i for i, _ in p}.isdisjoint({i for q in parts if q is not p for i, _ in q})


def test_merged_shards_are_the_unsharded_run(shards, whole, tmp_path):
    result = CliRunner().invoke(app, ["merge", *map(str, shards), "--out", str(tmp_path / "merged")])
    assert result.exit_code == 0, result.output
    for name in TABLES:
        assert table(tmp_path / "merged", name).equals(table(whole, name)), name
    meta = json.loads((tmp_path / "merged" / "run.json").read_text())
    assert meta["status"] == "complete" and meta["options"]["shard"] is None
    assert meta["episodes"]["planned"] == meta["episodes"]["finished"] == len(episodes(whole))


def test_merge_refuses_missing_repeated_and_foreign_shards(shards, db_path, tmp_path):
    with pytest.raises(UserError, match="shard 3/3 is missing"):
        merge_runs(shards[:2], tmp_path / "a")
    with pytest.raises(UserError, match="shard 2/3 is given twice"):
        merge_runs([*shards, shards[1]], tmp_path / "b")
    other = run(db_path, tmp_path / "other", shard="2/3", seed=7)
    with pytest.raises(UserError, match="shards of different runs: .* has --seed 7"):
        merge_runs([shards[0], other, shards[2]], tmp_path / "c")
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


def test_merge_refuses_a_shard_with_a_missing_episode(shards, tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("run.json", "journal.jsonl"):
        (cut / name).write_bytes((shards[1] / name).read_bytes())
    lines = (cut / "journal.jsonl").read_text().splitlines(keepends=True)
    (cut / "journal.jsonl").write_text("".join(lines[1:]))
    with pytest.raises(UserError, match="the shards lack 1 episode"):
        merge_runs([shards[0], cut, shards[2]], tmp_path / "merged")


def test_bad_shard_option_is_one_line(db_path, tmp_path):
    result = CliRunner().invoke(app, ["eval", "--agent", "calendar-only", "--db", str(db_path), "--shard", "4/3",
                                      "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "--shard 4/3: i must be between 1 and n" in result.output
