"""Cost: the shipped price table and a user's extension, cost per episode and per run from the
token counts the endpoint reports (tests/fake_openai.py), "n/a" where the price is unknown, and
`--max-cost`, which stops a run before its budget would be passed and lets `--resume` finish it."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import instances, submission
from fake_openai import FakeOpenAI, reply_tool_calls
from mpcbench.cli import app
from mpcbench.errors import UserError
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.cost import model_price, price_table
from mpcbench.harness.journal import read_journal
from mpcbench.harness.runner import run_eval
from mpcbench.report.render import make_report

USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}   # per model call
PRICE = "[models.\"fake-model\"]\ninput = 1.0\noutput = 20.0\n"                      # US$ per million tokens
PER_EPISODE = 2 * (1000 * 1.0 + 100 * 20.0) / 1e6                                   # two calls: 0.006


def test_the_price_table_ships_common_models_and_a_user_file_extends_it(tmp_path):
    assert model_price("gpt-4o-mini") == {"model": "gpt-4o-mini", **price_table()["gpt-4o-mini"]}
    assert model_price("gpt-4o-mini-2024-07-18")["model"] == "gpt-4o-mini"   # a dated snapshot
    assert model_price("gpt-4o")["input"] > model_price("gpt-4o-mini")["input"] > 0
    assert model_price("my-local-model") is None and model_price(None) is None
    mine = tmp_path / "prices.toml"
    mine.write_text(PRICE + "[models.\"gpt-4o\"]\ninput = 1.5\noutput = 6.0\n")
    assert model_price("fake-model", mine) == {"model": "fake-model", "input": 1.0, "output": 20.0}
    assert model_price("gpt-4o", mine)["input"] == 1.5
    (tmp_path / "bad.toml").write_text("[models.x]\ninput = 'cheap'\n")
    for bad in (tmp_path / "bad.toml", tmp_path / "missing.toml"):
        with pytest.raises(UserError, match="--prices"):
            model_price("x", bad)


def model(db_path, golds):
    """Reads the clock, then submits the gold answer; every call reports USAGE."""
    by_prompt = {prompt: instance_id for instance_id, _, prompt in instances(db_path)}

    def behave(req):
        instance_id = by_prompt[req.messages[1]["content"]]
        if not any(m.get("role") == "tool" for m in req.messages):
            return reply_tool_calls([("get_current_time", {})], usage=USAGE)
        return reply_tool_calls([("submit_candidates", submission(golds[instance_id], int(instance_id[1])))],
                                usage=USAGE)
    return behave


def test_cost_per_episode_and_run_and_the_report(db_path, golds, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICE)
    with FakeOpenAI(model(db_path, golds)) as srv:
        priced = run_eval(EvalConfig(agent="openai", model="fake-model", base_url=srv.base_url, db=str(db_path),
                                     levels=(1,), out=str(tmp_path / "priced"), prices=str(prices)))
        unpriced = run_eval(EvalConfig(agent="openai", model="fake-model", base_url=srv.base_url, db=str(db_path),
                                       levels=(1,), out=str(tmp_path / "unpriced")))
    runs = pl.read_parquet(priced.run_dir / "runs.parquet")
    assert runs["prompt_tokens"].to_list() == [2000] * 4 and runs["exact_match"].all()
    assert runs["cost_usd"].to_list() == pytest.approx([PER_EPISODE] * 4)
    meta = json.loads((priced.run_dir / "run.json").read_text())
    assert meta["price"] == {"model": "fake-model", "input": 1.0, "output": 20.0}
    assert meta["cost_usd"] == pytest.approx(4 * PER_EPISODE) == meta["summary"][0]["cost_usd"]
    assert pl.read_parquet(unpriced.run_dir / "runs.parquet")["cost_usd"].is_null().all()
    assert json.loads((unpriced.run_dir / "run.json").read_text())["cost_usd"] is None

    report = make_report([priced.run_dir, unpriced.run_dir], tmp_path / "report")
    md = (report / "report.md").read_text()
    rows = {line.split("|")[2].strip(): line.split("|")[10:12] for line in md.splitlines()
            if line.startswith("| Level 1 | fake-model")}
    assert [c.strip() for c in rows["fake-model (priced)"]] == [f"{PER_EPISODE:.4f}", f"{4 * PER_EPISODE:.4f}"]
    assert [c.strip() for c in rows["fake-model (unpriced)"]] == ["n/a", "n/a"]
    assert "| 0.0000 |" not in md


def test_max_cost_stops_before_the_budget_and_resume_finishes(db_path, golds, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICE)
    out = tmp_path / "run"
    cli = CliRunner()
    with FakeOpenAI(model(db_path, golds)) as srv:
        args = ["eval", "--agent", "openai", "--model", "fake-model", "--base-url", srv.base_url, "--db",
                str(db_path), "--out", str(out), "--prices", str(prices), "--concurrency", "1"]
        first = cli.invoke(app, [*args, "--max-cost", "0.021"])   # room for 3 episodes of 0.006, not 4
        assert first.exit_code == 0, first.output
        assert len(read_journal(out / "journal.jsonl")) == 3
        assert "stopped at the --max-cost budget" in first.stderr and "--resume --out" in first.stderr
        assert json.loads((out / "run.json").read_text())["status"] == "incomplete"
        spent = pl.read_parquet(out / "runs.parquet")["cost_usd"].sum()
        assert spent <= 0.021 and spent + PER_EPISODE > 0.021

        resumed = cli.invoke(app, ["eval", "--resume", "--out", str(out), "--base-url", srv.base_url,
                                   "--max-cost", "1"])
        assert resumed.exit_code == 0, resumed.output
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs.height == len(golds) == runs.select("instance_id", "trial").unique().height
    assert json.loads((out / "run.json").read_text())["cost_usd"] == pytest.approx(len(golds) * PER_EPISODE)

    refused = cli.invoke(app, ["eval", "--agent", "openai", "--model", "unknown-model", "--db", str(db_path),
                               "--out", str(tmp_path / "x"), "--max-cost", "1"])
    assert refused.exit_code == 1 and "no price for model 'unknown-model'" in refused.stderr
