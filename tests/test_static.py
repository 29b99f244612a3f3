"""The static checks, run as CI runs the tests: mypy (`[tool.mypy]` in pyproject.toml), ruff
(`[tool.ruff]`) and the import contract (`[tool.importlinter]`: the packages by layer), each the
one installed beside this Python (the `dev` extra installs them)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
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


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports unconditionally, when it is imported (an optional
    package is imported inside the function that needs it, or under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_core_imports_only_what_the_core_install_declares():
    """Outside integrations/ (whose packages come with the extras), every package a module of
    mpcbench imports when it is imported is the standard library's or a declared dependency: a package that only the test or extra
    environments happen to hold (click, say) breaks `pip install -e .` and the quickstart."""
    declared = {re.split(r"[<>=;\[ ]", d, maxsplit=1)[0].lower().replace("-", "_")
                for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    undeclared = {}
    for path in sorted((ROOT / "mpcbench").rglob("*.py")):
        if "integrations" in path.parts:
            continue
        extra = imported_packages(path) - set(sys.stdlib_module_names) - declared - {"mpcbench"}
        if extra:
            undeclared[str(path.relative_to(ROOT))] = sorted(extra)
    assert not undeclared, f"imports of packages the core install does not declare: {undeclared}"
