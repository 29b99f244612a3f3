"""Our failures are ours: an exception of MPCBench's own code (a crashing policy, a tool's query
the warehouse refuses) ends the episode as a `harness_error`, never as an infrastructure error
and never as a tool error handed to the model; the run exits non-zero naming the first one (its
traceback under --debug), and the tables, run.json and the report say so."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import GoldModel, altered_copy
from fake_openai import FakeOpenAI
from mpcbench.agents import offline
from mpcbench.cli import app
from sandboxkit import SANDBOX_OK

cli = CliRunner()


def _rows(run_dir) -> dict[str, dict]:
    return {r["instance_id"]: r for r in pl.read_parquet(run_dir / "runs.parquet").to_dicts()}


def test_a_crashing_policy_fails_the_run_and_is_shown_in_red(db_path, tmp_path, monkeypatch):
    plan = offline.plan

    def crashing(env, hidden=None):
        if env.instance_id == "L1-0002":
            raise ZeroDivisionError("a bug of ours")
        return plan(env, hidden)

    monkeypatch.setattr(offline, "plan", crashing)
    out = tmp_path / "crash"
    result = cli.invoke(app, ["eval", "--agent", "scripted", "--db", str(db_path), "--levels", "1", "--out", str(out)])
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert "harness error" in last and "L1-0002" in last and "ZeroDivisionError: a bug of ours" in last
    assert "endpoint" not in last.lower().replace("nor the endpoint", "")
    rows = _rows(out)
    assert rows["L1-0002"]["error_kind"] == rows["L1-0002"]["failure_cause"] == "harness_error"
    assert rows["L1-0002"]["f1"] is None   # left out of every score, and the run says so
    assert all(rows[i]["exact_match"] for i in ("L1-0001", "L1-0003", "L1-0004"))
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "failed" and meta["episodes"]["harness_errors"] == 1
    assert meta["episodes"]["infrastructure_errors"] == 0 and meta["summary"][0]["harness_errors"] == 1
    record = next(json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()
                  if json.loads(line)["instance_id"] == "L1-0002")
    assert "ZeroDivisionError" in record["traceback"] and "crashing" in record["traceback"]

    debug = cli.invoke(app, ["--debug", "eval", "--resume", "--out", str(out)])
    assert debug.exit_code == 1 and "Traceback (most recent call last)" in debug.output

    report = cli.invoke(app, ["report", str(out), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    page = (tmp_path / "report" / "report.html").read_text()
    assert "class='bad harness-error'" in page and "L1-0002" in page
    assert "harness errors" in (tmp_path / "report" / "report.md").read_text()

    monkeypatch.setattr(offline, "plan", plan)   # fixed: --retry-errors runs it again, and the run passes
    again = cli.invoke(app, ["eval", "--resume", "--retry-errors", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert _rows(out)["L1-0002"]["exact_match"] and json.loads((out / "run.json").read_text())["status"] == "complete"


@pytest.fixture(scope="module")
def broken_db(db_path, tmp_path_factory):
    """The tiny build with a column that get_current_time reads dropped."""
    return altered_copy(db_path, tmp_path_factory.mktemp("broken") / "broken.duckdb",
                        "alter table worlds drop column timezone")


@pytest.mark.parametrize("mode", ["tools", pytest.param("code", marks=pytest.mark.skipif(
    not SANDBOX_OK, reason="no sandbox on this machine"))])
def test_a_broken_warehouse_under_a_healthy_endpoint_is_a_harness_error(db_path, broken_db, tmp_path, monkeypatch,
                                                                        mode):
    """The gold model calls get_current_time first; its query fails. The model never reads the
    failure (no further request of that episode), the endpoint is not blamed, the run exits 1."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-broken")
    model = GoldModel(db_path)
    out = tmp_path / mode
    with FakeOpenAI(model) as srv:
        result = cli.invoke(app, ["eval", "--agent", "openai", "--model", "fake", "--base-url", srv.base_url,
                                  "--db", str(broken_db), "--levels", "1,2", "--instances", "1", "--mode", mode,
                                  "--max-retries", "0", "--out", str(out)])
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert "harness error" in last and "get_current_time" in last and "BinderException" in last
    assert "Fix the endpoint" not in result.output
    rows = _rows(out)
    assert {r["error_kind"] for r in rows.values()} == {"harness_error"}
    assert len(model.requests) == 2   # one request per episode: the failure never went back to the model
    sent = json.dumps([body for *_, body in model.requests])
    assert "the tool failed" not in sent and "Binder" not in sent
    calls = pl.read_parquet(out / "tool_calls.parquet")
    assert calls.filter(pl.col("tool") == "get_current_time")["error"].str.starts_with("harness_error").all()


def test_a_broken_tool_fails_the_cli_call_in_one_line(broken_db):
    result = cli.invoke(app, ["tools", "call", "get_current_time", "--instance", "L1-0001", "--db", str(broken_db)])
    assert result.exit_code == 1
    assert "get_current_time" in result.output and "Traceback" not in result.output
