"""A user mistake is one line on stderr and a non-zero exit status, never a traceback (one test
per case that used to print one); `mpcbench --debug` shows the traceback; no ANSI escapes when
stderr is not a terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mpcbench.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@pytest.fixture(scope="module")
def finished_run(db_path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "cal"
    result = runner.invoke(app, ["eval", "--agent", "calendar-only", "--db", str(db_path), "--levels", "1",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def one_line_error(args: list[str], *expected: str) -> str:
    result = runner.invoke(app, args)
    output = result.output.strip()
    assert result.exit_code not in (0, None) and isinstance(result.exception, SystemExit), output
    assert len(output.splitlines()) == 1 and output.startswith("error: "), output
    for part in expected:
        assert part in output, output
    return output


def copy_run(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    return copy


def test_build_into_a_path_under_a_file(tmp_path):
    one_line_error(["build", "--db", "/etc/hostname/x.duckdb", "--levels", "1", "--instances", "1"],
                   "/etc/hostname is a file, not a directory")


def test_build_where_nothing_can_be_written(tmp_path):
    one_line_error(["build", "--db", "/proc/x.duckdb", "--levels", "1", "--instances", "1"],
                   "cannot write /proc/x.duckdb")


@pytest.mark.parametrize("damage", ["empty", "truncated"])
def test_report_on_a_damaged_runs_parquet(finished_run, tmp_path, damage):
    run = copy_run(finished_run, tmp_path)
    table = run / "runs.parquet"
    table.write_bytes(b"" if damage == "empty" else table.read_bytes()[:200])
    one_line_error(["report", str(run), "--out", str(tmp_path / "report")],
                   f"{table} is not a readable Parquet file", f"mpcbench rescore {run}")
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("command", ["report", "rescore"])
def test_report_and_rescore_on_a_corrupt_run_json(finished_run, tmp_path, command):
    run = copy_run(finished_run, tmp_path)
    (run / "run.json").write_text('{"run_id": "cal", "opt')
    one_line_error([command, str(run)], f"{run / 'run.json'} is not readable")


def test_replay_from_a_missing_run(db_path, tmp_path):
    one_line_error(["eval", "--agent", "replay", "--from", "/missing", "--db", str(db_path),
                    "--out", str(tmp_path / "r")], "--from /missing: not a run directory")


def test_eval_on_a_file_that_is_not_duckdb(tmp_path):
    not_db = tmp_path / "notes.duckdb"
    not_db.write_text("hello\n")
    one_line_error(["eval", "--db", str(not_db), "--out", str(tmp_path / "r")], f"cannot open {not_db}")


def test_eval_and_report_out_on_an_existing_file(db_path, finished_run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# mine\n")
    one_line_error(["eval", "--db", str(db_path), "--out", str(readme)], f"--out {readme} is a file")
    one_line_error(["eval", "--ablation", "--db", str(db_path), "--out", str(readme)], f"{readme}")
    one_line_error(["report", str(finished_run), "--out", str(readme)], f"--out {readme} is a file")
    assert readme.read_text() == "# mine\n"


@pytest.mark.parametrize("command", [["eval", "--db", "missing.duckdb"], ["report", "no-run"],
                                     ["rescore", "no-run"], ["export", "out", "--db", "missing.duckdb"]])
def test_debug_shows_the_traceback(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    quiet = runner.invoke(app, command)
    assert quiet.exit_code == 1 and len(quiet.output.strip().splitlines()) == 1, quiet.output
    result = runner.invoke(app, ["--debug", *command])
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.output and "UserError" in result.output
    assert result.output.strip().splitlines()[-1] == quiet.output.strip()


def test_errors_carry_no_ansi_escapes_when_stderr_is_not_a_terminal(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "mpcbench", "eval", "--db", str(tmp_path / "missing.duckdb")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr == f"error: {tmp_path / 'missing.duckdb'} does not exist; run `mpcbench build` first " \
                          "(or pass --db)\n"
