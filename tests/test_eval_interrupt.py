"""Stopping and restarting `mpcbench eval`: Ctrl-C says how to resume (exit 130), a failed eval
leaves no empty run directory, and a resume with options other than the run's is refused."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import typer.main
from typer.testing import CliRunner

from evalkit import PerInstance, submit
from fake_openai import FakeOpenAI
from mpcbench.cli import app
from mpcbench.cli.runs import NOT_CONFIG
from mpcbench.harness.config import EvalConfig, option_name
from mpcbench.harness.journal import read_journal

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_ctrl_c_exits_130_and_says_how_to_resume(db_path, golds, tmp_path):
    def answer(req):
        return dataclasses.replace(script(req), delay_s=0.3)

    script = PerInstance(db_path, {}, default=lambda i, k: submit(golds[i], int(i[1])))
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)}
    run = tmp_path / "run"
    with FakeOpenAI(answer) as srv:
        args = [sys.executable, "-m", "mpcbench", "eval", "--agent", "openai", "--model", "fake-model",
                "--base-url", srv.base_url, "--db", str(db_path), "--out", str(run), "--concurrency", "2"]
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(read_journal(run / "journal.jsonl")) < 2:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr
        saved = len(read_journal(run / "journal.jsonl"))
        last = stderr.strip().splitlines()[-1]
        assert f"{saved} of {len(golds)} episodes are saved" in last and f"mpcbench eval --resume --out {run}" in last
        assert "Traceback" not in stderr

        resumed = runner.invoke(app, ["eval", "--resume", "--out", str(run), "--base-url", srv.base_url],
                                env={"OPENAI_API_KEY": "sk-test"})
    assert resumed.exit_code == 0, resumed.output
    assert pl.read_parquet(run / "runs.parquet").height == len(golds)


def test_a_failed_eval_leaves_no_run_directory(db_path, tmp_path):
    cases = [["--db", str(tmp_path / "missing.duckdb")],
             ["--db", str(db_path), "--instance", "L9-0001"],
             ["--db", str(db_path), "--agent", "replay", "--from", str(tmp_path / "no-run")],
             ["--db", str(db_path), "--agent", "openai"]]
    for i, options in enumerate(cases):
        out = tmp_path / f"out{i}" / "run"
        result = runner.invoke(app, ["eval", "--out", str(out), *options])
        assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1, result.output
        assert not out.exists(), options
        ablation = runner.invoke(app, ["eval", "--ablation", "--out", str(out), *options])
        assert ablation.exit_code != 0 and not out.exists(), options


def test_a_resume_with_other_options_is_refused_naming_them(db_path, tmp_path):
    run = tmp_path / "cal"
    first = runner.invoke(app, ["eval", "--agent", "calendar-only", "--db", str(db_path), "--levels", "1,2",
                                "--out", str(run)])
    assert first.exit_code == 0, first.output
    before = (run / "runs.parquet").read_bytes()
    refused = runner.invoke(app, ["eval", "--agent", "random", "--levels", "1", "--resume", "--out", str(run)])
    assert refused.exit_code == 2
    line = refused.output.strip()
    assert len(line.splitlines()) == 1
    assert "--agent random (the run: calendar-only)" in line and "--levels 1 (the run: 1,2)" in line
    assert (run / "runs.parquet").read_bytes() == before
    same = runner.invoke(app, ["eval", "--agent", "calendar-only", "--levels", "1,2", "--concurrency", "2",
                               "--resume", "--out", str(run)])
    assert same.exit_code == 0 and "0 run now" in same.output, same.output


def test_every_eval_option_is_a_config_field_of_its_name_and_default_or_the_commands_own():
    """The resume check compares the options given with the run's config, field by field, and its
    messages name each field's option (`option_name`)."""
    fields = {f.name: f.default for f in dataclasses.fields(EvalConfig)}
    params = {p.name: p for p in typer.main.get_command(app).commands["eval"].params}
    config = {name: p for name, p in params.items() if name not in NOT_CONFIG}
    assert set(config) == set(fields) - {"backoff_base_s", "backoff_max_s"}   # not options: the client's
    for name, param in config.items():
        assert option_name(name) in param.opts, name
        default = fields[name]
        shown = ",".join(map(str, default)) if name == "levels" else None if default == () else default
        assert param.default == shown or str(param.default) == shown, name
