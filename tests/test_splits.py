"""The private test split (`mpcbench build --split test`) and the public train split (`--split
train`): other instances of the same distribution, nothing of the secret written, no instance
shared between train, dev and tests of several secrets (content hashes of the instance and its
world), and the split recorded in the build, the run and the HF export."""

from __future__ import annotations

import statistics
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from mpcbench.cli import app
from mpcbench.warehouse import build
from mpcbench.world.config import load_world_config, world_config_path
from mpcbench.dataset.fingerprint import instance_fingerprints, overlap
from mpcbench.dataset.hf import export_hf
from mpcbench.world.split import derived_seed, seed_hash, train_seed
from evalkit import shared_build
from offline_runner import run_offline

runner = CliRunner()
SECRETS = ("unit-test-ood-secret", "unit-test-secret-two")   # the first is tests/test_ood.py's
INSTANCES = 8          # dev, train and the second secret's test split
A_INSTANCES = 3        # the first secret's test split: tests/test_ood.py's build of levels 1-4


@pytest.fixture(scope="module")
def splits(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("splits")
    # dev: made once per session (tests/test_export_import.py reads it too)
    paths = {"dev": shared_build(tmp_path_factory, (1, 2, 3), INSTANCES), "b": base / "b.duckdb"}
    # a: the test split tests/test_ood.py reads (levels 1-4, 3 instances a level), made once per session
    paths["a"] = shared_build(tmp_path_factory, (1, 2, 3, 4), A_INSTANCES, split="test", secret=SECRETS[0])
    build.build(paths["b"], (1, 2, 3), INSTANCES, split="test", secret=SECRETS[1])
    paths["train"] = shared_build(tmp_path_factory, (1, 2, 3), INSTANCES, split="train")
    return paths


def rows(path: Path, query: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_splits_differ_in_instances(splits):
    prompts = {name: {p for (p,) in rows(path, "select prompt from instances")} for name, path in splits.items()}
    assert not prompts["dev"] & prompts["a"] and not prompts["a"] & prompts["b"] and not prompts["dev"] & prompts["b"]
    people = {name: {p for (p,) in rows(path, "select person_id from people")} for name, path in splits.items()}
    assert not people["dev"] & people["a"]


def test_the_secret_is_never_written_only_its_hash(splits):
    info = dict(rows(splits["a"], "select key, value from build_info"))
    assert info["split"] == "test" and info["split_seed_hash"] == seed_hash(SECRETS[0])
    assert dict(rows(splits["dev"], "select key, value from build_info"))["split"] == "dev"
    configs = [load_world_config(world_config_path(level)) for level in (1, 2, 3, 4)]
    assert [s for (s,) in rows(splits["a"], "select seed from worlds order by level")] == [c.seed for c in configs]
    assert [s for (s,) in rows(splits["a"], "select seed from build_stats order by level")] == [c.seed for c in configs]
    raw = splits["a"].read_bytes()
    assert SECRETS[0].encode() not in raw
    for c in configs:
        assert str(derived_seed(SECRETS[0], c.seed)).encode() not in raw


def test_same_secret_same_build(splits, tmp_path):
    again = tmp_path / "again.duckdb"
    build.build(again, (1,), A_INSTANCES, split="test", secret=SECRETS[0])
    query = "select instance_id, prompt, now from instances order by instance_id"
    assert rows(again, query) == [r for r in rows(splits["a"], query) if r[0].startswith("L1-")]


def test_splits_agree_in_robust_statistics(splits):
    """Equal difficulty on a small build (bench/splits.py compares 100 instances a level with
    bootstrap intervals): the scripted solver is exact everywhere with about as many calls, and
    the share of in-hours starts that stay feasible is close."""
    feasible_share = """
        select i.level, avg(s.n_feasible / g.n_framed)
        from oracle_summary s join instances i using (instance_id)
        join (select instance_id, count(*)::double as n_framed from int_framed_grid group by all) g using (instance_id)
        group by i.level order by i.level"""
    dev = dict(rows(splits["dev"], feasible_share))
    calls = {}
    for name, path in splits.items():
        con = duckdb.connect(str(path), read_only=True)
        results = run_offline(con, "scripted")
        con.close()
        assert all(r["exact_match"] for r in results), name
        calls[name] = {level: statistics.mean(r["tool_calls"] for r in results if r["level"] == level) for level in (1, 2, 3)}
        for level, share in rows(path, feasible_share):
            if level not in dev:   # a's level 4: dev has levels 1-3
                continue
            # one world a split: its 8-15 policies decide most of the share. On 100 instances a level
            # (dataset version 2) dev's level-1 share is 0.27 [0.21, 0.32] and two test splits'
            # 0.18 [0.15, 0.21] and 0.19 [0.15, 0.24] (95 % intervals resampling whole policies)
            assert abs(share - dev[level]) < 0.2, (name, level, share, dev[level])
    for level in (1, 2, 3):
        assert abs(calls["train"][level] - calls["dev"][level]) <= 0.3 * calls["dev"][level], calls
        assert abs(calls["a"][level] - calls["dev"][level]) <= 0.3 * calls["dev"][level], calls
        assert abs(calls["b"][level] - calls["dev"][level]) <= 0.3 * calls["dev"][level], calls


def test_cli_test_split_needs_a_secret(tmp_path):
    result = runner.invoke(app, ["build", "--db", str(tmp_path / "x.duckdb"), "--split", "test", "--levels", "1",
                                 "--instances", "2"], env={"MPCBENCH_SECRET_SEED": ""})
    assert result.exit_code != 0 and "needs a secret seed" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    result = runner.invoke(app, ["build", "--db", str(tmp_path / "x.duckdb"), "--secret-seed", "s", "--levels", "1"])
    assert result.exit_code != 0 and "--split test" in result.output
    assert not (tmp_path / "x.duckdb").exists()


def test_cli_test_split_from_the_environment_and_recorded_in_the_run(tmp_path):
    db_path = tmp_path / "t.duckdb"
    result = runner.invoke(app, ["build", "--db", str(db_path), "--split", "test", "--levels", "1", "--instances", "2"],
                           env={"MPCBENCH_SECRET_SEED": SECRETS[1]})
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["eval", "--agent", "scripted", "--db", str(db_path), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    run = (tmp_path / "run" / "run.json").read_text()
    assert f'"seed_hash": "{seed_hash(SECRETS[1])}"' in run and '"name": "test"' in run
    assert SECRETS[1] not in run


def test_train_shares_no_instance_with_dev_or_any_test(splits):
    """The train split against dev and the tests of two secrets: no content hash of an instance
    and its world in common, nor a prompt; the hash does find an instance that is shared."""
    connections = {name: duckdb.connect(str(path), read_only=True) for name, path in splits.items()}
    try:
        hashes = {name: set(instance_fingerprints(con).values()) for name, con in connections.items()}
        counts = {name: con.execute("select count(*) from instances").fetchone()[0] for name, con in connections.items()}
        assert counts == {"dev": 3 * INSTANCES, "a": 4 * A_INSTANCES, "b": 3 * INSTANCES, "train": 3 * INSTANCES}
        assert all(len(hashes[name]) == counts[name] for name in hashes)
        for name in ("dev", "a", "b"):
            assert not hashes["train"] & hashes[name], name
        assert overlap(list(connections.values())) == {}
        # not vacuous: the same build twice shares every instance
        assert len(overlap([connections["train"], connections["train"]])) == counts["train"]
    finally:
        for con in connections.values():
            con.close()
    prompts = {name: {p for (p,) in rows(path, "select prompt from instances")} for name, path in splits.items()}
    assert not prompts["train"] & (prompts["dev"] | prompts["a"] | prompts["b"])


def test_train_seeds_are_derived_apart(splits):
    configs = [load_world_config(world_config_path(level)) for level in (1, 2, 3)]
    for c in configs:
        assert train_seed(c.seed) not in {c.seed, *(derived_seed(s, c.seed) for s in SECRETS)}
    info = dict(rows(splits["train"], "select key, value from build_info"))
    assert info["split"] == "train" and "split_seed_hash" not in info
    # the records keep the configs' own seeds, as a test split's do
    assert [s for (s,) in rows(splits["train"], "select seed from worlds order by level")] == [c.seed for c in configs]


def test_cli_train_split_in_build_run_overlap_and_hf_export(tmp_path, splits):
    db_path = tmp_path / "train.duckdb"
    result = runner.invoke(app, ["build", "--db", str(db_path), "--split", "train", "--levels", "1",
                                 "--instances", "2"], env={"MPCBENCH_SECRET_SEED": ""})
    assert result.exit_code == 0, result.output
    assert "(train split)" in result.output
    result = runner.invoke(app, ["eval", "--agent", "scripted", "--db", str(db_path), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert '"name": "train"' in (tmp_path / "run" / "run.json").read_text()
    result = runner.invoke(app, ["overlap", str(db_path), str(splits["dev"]), str(splits["a"])])
    assert result.exit_code == 0 and "no instance is shared" in result.output, result.output
    result = runner.invoke(app, ["overlap", str(db_path), str(db_path)])
    assert result.exit_code == 1 and "2 instance(s)" in result.output, result.output
    result = runner.invoke(app, ["build", "--db", str(tmp_path / "y.duckdb"), "--split", "train", "--secret-seed",
                                 "s", "--levels", "1"], env={"MPCBENCH_SECRET_SEED": ""})
    assert result.exit_code == 2 and "public split" in result.output
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        export_hf(con, tmp_path / "hf")
    finally:
        con.close()
    card = (tmp_path / "hf" / "README.md").read_text()
    assert "This is MPCBench's `train` split" in card and "mpcbench-split-train" in card
