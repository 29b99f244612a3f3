"""Every bench script still runs (issue 21): each `bench/*.py` with `--smoke`, a tiny size that
only shows the script works, in a subprocess from the repository root, as a user runs it.

No figure is asserted (they are wall times on a shared machine); each run must exit 0, print its
table, and write nothing into the repository: what a bench writes goes to a temporary directory
(TMPDIR points into the test's tmp_path) or to the paths given here. The benches that time an
existing build get the session's tiny build (`db_path`, tests/conftest.py); the others build
their own, which takes most of their time. Not here: bench/local_model.sh (it needs a real local
model server), bench/install.sh (an install into a fresh virtualenv) and bench/proctree.py (a
library of the others).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
LIBRARIES = {"proctree.py"}

# script -> (arguments beyond --smoke, with {db} and {tmp} filled in; text its output must show)
CASES = {
    "build.py": ([], "SQL oracle, all layers recomputed"),
    "code_mode.py": (["--db", "{db}", "--json", "{tmp}/code_mode.json"], "| sandbox start per episode"),
    "episode_size.py": (["--db", "{db}", "--json", "{tmp}/episode_size.json"], "harness wall time"),
    "envs.py": (["--db", "{db}", "--json", "{tmp}/envs.json"], "| environment | concurrency | rollouts/s |"),
    "harness.py": (["--db", "{db}", "--json", "{tmp}/harness.json"], "Harness overhead per agent step"),
    "interrupts.py": (["--db", "{db}"], "1 of 1 tries good"),
    "leaks.py": (["--db", "{db}"], " ms per note (median of 1;"),
    "legacy_pipeline.py": ([], "mock: median"),
    "mcp_run.py": (["--db", "{db}", "--json", "{tmp}/mcp.json"], "-instance MCP run (level 1"),
    "oracle_reference.py": ([], "SQL oracle = reference oracle on 2 examples"),
    "privacy_judge.py": ([], "judge stand-in: precision"),
    "sandbox.py": (["--json", "{tmp}/sandbox.json"], "| worker start"),
    "scale.py": ([], "| local | 2 |"),
    "splits.py": (["--out", "{tmp}/splits.md"], "| 1 | scripted tool calls |"),
    "tools.py": (["--db", "{db}", "--json", "{tmp}/tools.json"], "| level | tool | calls |"),
}
# where the code sandbox cannot start, the code-mode benches say so and exit 0
NO_SANDBOX = "the code sandbox cannot start here"
# what the benches write by default when not given a path: never during the test
OUTPUT_DIRS = ("build", "reports")


def test_every_bench_script_has_a_smoke_case():
    scripts = {p.name for p in BENCH.glob("*.py")} - LIBRARIES
    assert scripts == set(CASES)


def _entries(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for d in OUTPUT_DIRS if (root / d).exists() for p in (root / d).rglob("*")}


@pytest.mark.parametrize("script", sorted(CASES))
def test_bench_smoke(script, db_path, tmp_path):
    arguments, shows = CASES[script]
    arguments = [a.format(db=db_path, tmp=tmp_path) for a in arguments]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch),
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("OPENAI_API_KEY", None)            # harness.py sets its own, for its local server
    before = _entries(ROOT)
    done = subprocess.run([sys.executable, str(BENCH / script), "--smoke", *arguments], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script} --smoke exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    if script in ("code_mode.py", "sandbox.py") and NO_SANDBOX in done.stdout:
        pytest.skip(done.stdout.strip())
    assert shows in done.stdout, f"{script} --smoke printed no table:\n{done.stdout}\n{done.stderr}"
    assert _entries(ROOT) - before == set(), f"{script} --smoke wrote into the repository"
