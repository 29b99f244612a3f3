"""The generated pages (docs/cli.md, docs/tools.md, docs/episodes.md) are what scripts/gen_reference.py
and scripts/gen_episodes.py write from the code now: a command, an option or a tool added without regenerating fails here,
saying how to regenerate. Independently of the generator, every option that `mpcbench COMMAND
--help` prints (as a user sees it) is on the CLI page, and every tool file is on the tools page."""

from __future__ import annotations

import importlib.util
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
    spec = importlib.util.spec_from_file_location("gen_episodes", ROOT / "scripts" / "gen_episodes.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)     # in this process: the eval and report commands it runs are imported
    page = (ROOT / "docs" / "episodes.md").read_text()
    assert script.episodes_page(default_db(tmp_path_factory)) == page, (
        "docs/episodes.md is stale: regenerate with `.venv/bin/python scripts/gen_episodes.py`")
    assert "F1 1.00 · exact match" in page and "gold, rank 3" in page     # the scripted agent's whole episode
    assert "not an exact match" in page and "policy:" in page              # the calendar-only miss, explained


def documented_commands() -> list[tuple[str, str]]:
    """(page, command) of every `mpcbench ...` command in README.md and docs/: at the start of a
    code block's line or of a code span, up to a comment; the CLI page itself left out."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = []
    for page in pages:
        if page == CLI_PAGE:
            continue
        text = page.read_text().replace("\\\n", " ")
        for match in re.finditer(r"(?:^[ \t]*|[`(])(?:\.venv/bin/)?(mpcbench(?: [^`\n#|]*)?)", text, re.MULTILINE):
            found.append((page.name, match.group(1).strip()))
    return found


def test_every_documented_command_uses_commands_and_options_that_exist():
    """A renamed or dropped option, or a command that is gone, fails here on the page that shows it."""
    sections = dict(zip(*[iter(re.split(r"^## `(mpcbench[^`]*)`$", CLI_PAGE.read_text(), flags=re.MULTILINE)[1:])] * 2))
    commands = documented_commands()
    assert len(commands) > 50
    wrong = []
    for page, command in commands:
        words = command.split()
        path = "mpcbench"
        for word in words[1:]:
            if f"{path} {word}" not in sections:
                break
            path = f"{path} {word}"
        if path == "mpcbench" and len(words) > 1 and not words[1].startswith("-"):
            if re.fullmatch(r"[a-z][a-z-]+", words[1]) and words[1] not in ("is", "and", "or", "to", "as"):
                wrong.append((page, command, f"no command `{words[1]}`"))
            continue
        options = {w.split("=")[0] for w in words if re.fullmatch(r"--[a-z][a-z0-9-]*(=\S*)?", w)}
        unknown = sorted(o for o in options if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", sections[path]))
        if unknown:
            wrong.append((page, command, f"`{path}` has no {', '.join(unknown)}"))
    assert not wrong, "documented commands that do not exist:\n" + "\n".join(map(str, wrong))
