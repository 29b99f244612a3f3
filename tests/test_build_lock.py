"""One writer per warehouse file: a second `mpcbench build` (or `import`) on the same --db stops
at once with one line naming the first, and the file ends up whole, from the first build only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from mpcbench.cli import app
from mpcbench.dataset.store import write_lock

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_a_held_lock_stops_a_build_with_one_line(tmp_path):
    path = tmp_path / "x.duckdb"
    with write_lock(path):
        result = runner.invoke(app, ["build", "--db", str(path), "--levels", "1", "--instances", "1"])
        assert (tmp_path / "x.duckdb.lock").read_text().strip() == str(os.getpid())
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {path} is being written by another mpcbench build or import "
                                     f"(pid {os.getpid()}, lock {path}.lock); wait for it to finish, or choose "
                                     "another --db")
    assert list(tmp_path.iterdir()) == []  # no database, and the lock went with its holder


def test_two_builds_on_one_file_the_second_is_refused_the_first_is_whole(tmp_path):
    path = tmp_path / "x.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "mpcbench", "build", "--db", str(path), "--levels", "1,2",
                              "--instances", "6", "--jobs", "1"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not Path(f"{path}.lock").exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.01)
    second = runner.invoke(app, ["build", "--db", str(path), "--levels", "3", "--instances", "2"])
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert second.exit_code == 1 and "is being written by another mpcbench build" in second.output
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("select level, count(*) from instances group by level order by level").fetchall() == \
        [(1, 6), (2, 6)]
    con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"]  # no lock, no temporary file
