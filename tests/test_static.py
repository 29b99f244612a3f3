"""The static checks, run as CI runs the tests: mypy (`[tool.mypy]` in pyproject.toml), ruff
(`[tool.ruff]`) and the import contract (`[tool.importlinter]`: the packages by layer), each the
one installed beside this Python (the `dev` extra installs them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

CHECKS = {
    "mypy": ["mypy"],                                          # the packages pyproject.toml names
    "ruff": ["ruff", "check", "mpcbench", "tests", "bench", "scripts", "examples"],
    "import-linter": ["lint-imports"],
}


@pytest.mark.parametrize("check", CHECKS)
def test_static_check_passes(check: str) -> None:
    tool, *args = CHECKS[check]
    executable = BIN / tool
    assert executable.is_file(), f"{executable} is missing: pip install -e '.[dev]'"
    result = subprocess.run([str(executable), *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (f"{tool} {' '.join(args)} exited {result.returncode}:\n"
                                    f"{result.stdout}{result.stderr}")
