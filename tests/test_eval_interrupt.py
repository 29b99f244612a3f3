"""Stopping and restarting `mpcbench eval`: Ctrl-C at any moment (while starting, before the
first episode, mid-call, while the tables are written) exits 130 with one line saying what is
saved and how to resume, and nothing after it; a failed eval leaves no empty run directory, and a
resume with options other than the run's is refused. `python bench/interrupts.py` presses Ctrl-C
at random moments many times, with both cores busy."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
import typer.main
from typer.testing import CliRunner

from evalkit import PerInstance, submit
from fake_openai import FakeOpenAI, hang
from mpcbench.cli import app
from mpcbench.cli.runs import NOT_CONFIG
from mpcbench.harness.config import EvalConfig, option_name
from mpcbench.harness.journal import read_journal

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def start_eval(db_path, run: Path, base_url: str) -> subprocess.Popen:
    """`mpcbench eval` as a user starts it: the console script, in a process of its own."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)}
    script = Path(sys.executable).with_name("mpcbench")
    args = [str(script), "eval", "--agent", "openai", "--model", "fake-model", "--base-url", base_url,
            "--db", str(db_path), "--out", str(run), "--concurrency", "2"]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the moment to press Ctrl-C never came"
        time.sleep(0.01)


def interrupt(proc: subprocess.Popen) -> str:
    """Ctrl-C; the process's stderr, once it has exited 130 (checked)."""
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    return stderr


def one_line(stderr: str) -> str:
    """The one line an interrupt leaves: nothing else on stderr, no traceback, no warning."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def slow_answers(db_path, golds, delay_s: float = 0.3):
    script = PerInstance(db_path, {}, default=lambda i, k: submit(golds[i], int(i[1])))
    return lambda req: dataclasses.replace(script(req), delay_s=delay_s)


def importing_libraries(proc: subprocess.Popen) -> bool:
    """The command has installed its Ctrl-C handler and is importing its libraries: DuckDB's is
    loaded, and more follow it. (Before the handler, the interpreter itself is starting: Ctrl-C
    there is Python's own, as for any program.)"""
    maps = Path(f"/proc/{proc.pid}/maps").read_text()
    return any("duckdb" in line and line.endswith(".so") for line in maps.splitlines())


def test_ctrl_c_while_starting_says_nothing_was_saved(db_path, tmp_path):
    """Pressed while the command's libraries are still being imported (the first second)."""
    with FakeOpenAI(lambda req: None) as srv:
        proc = start_eval(db_path, tmp_path / "run", srv.base_url)
        wait_for(lambda: importing_libraries(proc))
        line = one_line(interrupt(proc))
    assert line == "error: interrupted while starting; nothing was saved"
    assert not (tmp_path / "run").exists()


def test_ctrl_c_before_any_episode_leaves_no_run_directory(db_path, tmp_path):
    """Pressed while the run asks the endpoint before it starts (the server does not answer)."""
    with FakeOpenAI(lambda req: None, gets={"/v1/models": hang(30)}) as srv:
        proc = start_eval(db_path, tmp_path / "run", srv.base_url)
        wait_for(lambda: srv.get_requests)
        line = one_line(interrupt(proc))
    assert line == "error: interrupted before any episode finished; nothing was saved"
    assert not (tmp_path / "run").exists()


def test_ctrl_c_mid_call_exits_130_and_says_how_to_resume(db_path, golds, tmp_path):
    run = tmp_path / "run"
    with FakeOpenAI(slow_answers(db_path, golds)) as srv:
        proc = start_eval(db_path, run, srv.base_url)
        wait_for(lambda: len(read_journal(run / "journal.jsonl")) >= 2)
        line = one_line(interrupt(proc))
        saved = len(read_journal(run / "journal.jsonl"))
        assert 2 <= saved < len(golds)
        assert line == (f"error: interrupted: {saved} of {len(golds)} episodes are saved in {run}; finish the run "
                        f"with: mpcbench eval --resume --out {run}")
        resumed = runner.invoke(app, ["eval", "--resume", "--out", str(run), "--base-url", srv.base_url],
                                env={"OPENAI_API_KEY": "sk-test"})
    assert resumed.exit_code == 0, resumed.output
    assert pl.read_parquet(run / "runs.parquet").height == len(golds)


def test_ctrl_c_while_the_tables_are_written_says_every_episode_is_saved(db_path, golds, tmp_path):
    """Pressed once the last episode is journaled, while the tables are computed and written; the
    resume then writes them. A run that finished first is tried again (at most 3 times)."""
    for attempt in range(3):
        run = tmp_path / f"run{attempt}"
        with FakeOpenAI(slow_answers(db_path, golds, 0.05)) as srv:
            proc = start_eval(db_path, run, srv.base_url)
            wait_for(lambda run=run: len(read_journal(run / "journal.jsonl")) == len(golds))
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
            if proc.returncode == 0:
                continue
            assert proc.returncode == 130, stderr
            assert one_line(stderr) == (f"error: interrupted: {len(golds)} of {len(golds)} episodes are saved in "
                                        f"{run}; finish the run with: mpcbench eval --resume --out {run}")
            resumed = runner.invoke(app, ["eval", "--resume", "--out", str(run), "--base-url", srv.base_url],
                                    env={"OPENAI_API_KEY": "sk-test"})
            assert resumed.exit_code == 0 and "0 run now" in resumed.output, resumed.output
            assert pl.read_parquet(run / "runs.parquet").height == len(golds)
            return
    pytest.skip("each run wrote its tables before the interrupt arrived")


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
