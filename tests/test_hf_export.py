"""`mpcbench export --format hf`: a directory that `datasets.load_dataset` reads offline, whose
gold answers, prompts and worlds are the warehouse's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from evalkit import skip_without
from mpcbench.cli import app
from mpcbench.dataset.export import oracle_lines
from mpcbench.dataset.rows import dump_instances, dump_world

skip_without("datasets", "datasets is an optional dependency: pip install 'mpcbench[hf]'")

LOAD = """
import json, sys
from datasets import load_dataset
out = {}
for config in ("instances", "worlds"):
    for split, rows in load_dataset(sys.argv[1], config).items():
        out[f"{config}/{split}"] = rows.to_list()
out["default"] = sorted(load_dataset(sys.argv[1]))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def exported(db_path, tmp_path_factory):
    out = tmp_path_factory.mktemp("hf") / "mpcbench"
    result = CliRunner().invoke(app, ["export", "--format", "hf", str(out), "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    return out


def test_load_dataset_reads_it_offline_and_the_gold_round_trips(exported, con, tmp_path):
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}
    done = subprocess.run([sys.executable, "-c", LOAD, str(exported)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert loaded["default"] == ["level1", "level2", "level3", "level4"]  # the default config is instances
    for level in (1, 2, 3, 4):
        rows = loaded[f"instances/level{level}"]
        gold = {line["instance_id"]: line["candidates"] for line in oracle_lines(con, level)}
        assert {r["instance_id"]: r["gold"] for r in rows} == gold and all(gold.values())
        instances = dump_instances(con, level)
        assert [r["prompt"] for r in rows] == [i["prompt"] for i in instances]
        assert [json.loads(r["given"]) for r in rows] == [i["given"] for i in instances]
        assert [json.loads(r["requirements"]) for r in rows] == [i["requirements"] for i in instances]
        (world,) = loaded[f"worlds/level{level}"]
        expected = dump_world(con, world["world_id"])
        assert json.loads(world["events"]) == expected["events"]
        assert (world["rooms"] is None) == (level < 3)


def test_the_card_declares_configs_license_and_guarantees(exported, db_path, tmp_path):
    card = (exported / "README.md").read_text()
    header = card.split("---")[1]
    assert "license: mit" in header and "task_categories:" in header
    for config in ("instances", "worlds"):
        for level in (1, 2, 3, 4):
            assert f"path: {config}/level{level}.parquet" in header
    assert "## How it was generated" in card and "## The oracle's guarantees" in card
    again = tmp_path / "again"
    CliRunner().invoke(app, ["export", "--format", "hf", str(again), "--db", str(db_path)])
    for name in ("README.md", "instances/level3.parquet", "worlds/level2.parquet"):
        assert (again / name).read_bytes() == (exported / name).read_bytes(), name


def test_an_unknown_format_is_a_one_line_error(db_path, tmp_path):
    result = CliRunner().invoke(app, ["export", "--format", "csv", str(tmp_path / "x"), "--db", str(db_path)])
    assert result.exit_code == 2 and "--format must be one of json, hf" in result.stderr
