"""Where the legacy benchmark's files are, and how its outputs are written (atomically).

    >>> Layout("build/legacy").run_log("aurora_go_no_go", "offline:scripted").name
    'aurora_go_no_go__agent-offline-scripted_run.json'

Human-authored inputs live in `archive/` (scenarios, tasks, schemas, prompt and model
configs, recorded generations); everything generated goes under one root, `build/legacy/` by
default, in the seed's layout:

    data/<scenario_id>/world_state.json, slack.json, gmail.json, ...   (one directory per scenario)
    legacy.duckdb                                                      (the sources as tables)
    llm_cache.jsonl                                                    (model replies by request hash)
    logs/<task>__agent-<model>_run.json, ..._judge_input.json, ..._judge_result.json

A file is written to a temporary name and renamed into place, and a scenario's data directory
is built aside and swapped in whole, so a reader never sees half a file or half a scenario.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import polars as pl

from .project import SQL_DIR

SOURCES = ("slack", "gmail", "calendar", "contacts", "jira", "drive")
STEPS = ("world_state", *SOURCES)            # what a generation writes, in order
TASK_TYPES = ("planning", "email_reply", "document_generation")
DEFAULT_ROOT = Path("build/legacy")
LEGACY_SQL_DIR = SQL_DIR / "legacy"


def _find_archive_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "archive", here.parent / "archive"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the archive/ directory is missing from this installation")


ARCHIVE_DIR = _find_archive_dir()


def safe_name(name: str) -> str:
    """A model name as a file-name part: anything but letters, digits, dot, dash, underscore
    becomes a dash.

    >>> safe_name("offline:scripted"), safe_name("org/model-7b")
    ('offline-scripted', 'org-model-7b')
    """
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)


class Layout:
    """The generated files under one root."""

    def __init__(self, root: str | os.PathLike = DEFAULT_ROOT):
        self.root = Path(root)

    @property
    def db(self) -> Path:
        return self.root / "legacy.duckdb"

    @property
    def cache(self) -> Path:
        return self.root / "llm_cache.jsonl"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def data(self, scenario_id: str) -> Path:
        return self.root / "data" / scenario_id

    def run_log(self, task_id: str, agent: str) -> Path:
        return self.logs / f"{task_id}__agent-{safe_name(agent)}_run.json"

    def judge_input(self, task_id: str, agent: str, judge: str) -> Path:
        return self.logs / f"{task_id}__agent-{safe_name(agent)}__judge-{safe_name(judge)}_judge_input.json"

    def judge_result(self, task_id: str, agent: str, judge: str) -> Path:
        return self.logs / f"{task_id}__agent-{safe_name(agent)}__judge-{safe_name(judge)}_judge_result.json"


def dumps(data) -> str:
    """The one JSON text format of every file written here (stable: the same data, the same bytes)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_json(path: str | os.PathLike, data) -> Path:
    """Write JSON to a temporary file beside `path`, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(dumps(data))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a result file is not
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def replace_dir(target: Path, files: dict[str, object]) -> Path:
    """Write `files` ({file name: JSON data}) into a fresh directory beside `target` and swap it
    in for `target` (whose old content goes only once the new one is complete)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    os.chmod(fresh, 0o755)
    old = target.parent / f".{target.name}.old"
    try:
        for name, data in files.items():
            write_json(fresh / name, data)
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            os.replace(target, old)
        os.replace(fresh, target)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        if old.exists() and not target.exists():
            os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return target


def write_parquet(path: str | os.PathLike, frame: pl.DataFrame) -> Path:
    """Write a Parquet file under a temporary name, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    frame.write_parquet(tmp)
    os.replace(tmp, path)
    return path
