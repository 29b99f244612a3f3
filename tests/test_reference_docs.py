"""The generated pages (docs/cli.md, docs/tools.md, docs/episodes.md) are what scripts/gen_reference.py
and scripts/gen_episodes.py write from the code now: a command, an option or a tool added without regenerating fails here,
saying how to regenerate. Independently of the generator, every option that `mpcbench COMMAND
--help` prints (as a user sees it) is on the CLI page, and every tool file is on the tools page."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit import default_db

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_reference.py"
CLI_PAGE = ROOT / "docs" / "cli.md"


def test_the_generated_pages_are_current():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def command_section(page: str, command: str) -> str:
    parts = re.split(r"^## `(mpcbench[^`]*)`$", page, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))[command]


@pytest.mark.parametrize("command", ["eval", "tools call"])
def test_every_option_of_help_is_on_the_cli_page(command):
    shown = subprocess.run([sys.executable, "-m", "mpcbench", *command.split(), "--help"], capture_output=True,
                           text=True, timeout=120, env={"COLUMNS": "200", "PATH": ""}).stdout
    options = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", shown))
    assert {"--help"} < options
    section = command_section(CLI_PAGE.read_text(), f"mpcbench {command}")
    missing = sorted(o for o in options if o not in section)
    assert not missing, f"docs/cli.md lacks options of `mpcbench {command} --help`: {missing}"


def test_every_tool_file_is_on_the_tools_page():
    page = (ROOT / "docs" / "tools.md").read_text()
    names = sorted(p.stem for p in (ROOT / "sql" / "tools").glob("*.sql"))
    assert len(names) >= 10
    assert not [n for n in names if f"## `{n}`" not in page]


def test_the_episodes_page_is_what_a_run_shows_now(tmp_path_factory):
    """docs/episodes.md is made from real runs on the default build: a change of the prompt, the
    tools' texts, the grading or the trajectory pages makes it stale."""
    db = default_db(tmp_path_factory)
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_episodes.py"), "--db", str(db), "--check"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    page = (ROOT / "docs" / "episodes.md").read_text()
    assert "F1 1.00 · exact match" in page and "gold, rank 3" in page     # the scripted agent's whole episode
    assert "not an exact match" in page and "policy:" in page              # the calendar-only miss, explained
