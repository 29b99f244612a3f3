"""The human-authored inputs in `archive/`, each checked against its schema as it is read.

    >>> scenario_ids()
    ['hiring_loop', 'product_launch']
    >>> load_task(task_path("nadia_schedule"))["task_type"]
    'planning'
    >>> model_config()["offline"]["judge_models"]
    ['offline:heuristic']

A file that is missing, not JSON, or not valid is a UserError naming the file and the JSON
path of the first problem.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

from .layout import ARCHIVE_DIR, TASK_TYPES
from .project import UserError
from .validate import problems

SCENARIO_DIR = ARCHIVE_DIR / "scenarios"
TASK_DIR = ARCHIVE_DIR / "tasks"
RECORDED_DIR = ARCHIVE_DIR / "recorded"


def load_json(path: str | os.PathLike, schema_name: str):
    """A JSON file, valid against the named schema, or a UserError."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise UserError(f"{path} is not a readable JSON file ({e})") from None
    found = problems(data, schema_name)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UserError(f"{path} is not a valid {schema_name}: {found[0]}{more}")
    return data


def scenario_ids() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def load_scenario(scenario_id: str) -> dict:
    if scenario_id not in scenario_ids():
        raise UserError(f"no scenario {scenario_id!r} in {SCENARIO_DIR}; there are: {', '.join(scenario_ids())}")
    scenario = load_json(SCENARIO_DIR / f"{scenario_id}.json", "scenario")
    if scenario["scenario_id"] != scenario_id:
        raise UserError(f"{SCENARIO_DIR / scenario_id}.json holds scenario_id {scenario['scenario_id']!r}; "
                        "it must match the file name")
    return scenario


def task_paths() -> list[Path]:
    """Every task file, by type then name."""
    return [p for kind in TASK_TYPES for p in sorted((TASK_DIR / kind).glob("*.json"))]


def task_path(task_id: str) -> Path:
    """The archive's file of a task id."""
    for path in task_paths():
        if path.stem == task_id:
            return path
    raise UserError(f"no task {task_id!r} in {TASK_DIR}")


def load_task(path: str | os.PathLike) -> dict:
    """A task file (a path, or the id of a task in the archive)."""
    path = Path(path)
    if not path.exists() and path.suffix != ".json" and len(path.parts) == 1:
        path = task_path(str(path))
    task = load_json(path, "task")
    if task["task_id"] != path.stem:
        raise UserError(f"{path} holds task_id {task['task_id']!r}; it must match the file name")
    return task


@cache
def prompt_config() -> dict:
    return load_json(ARCHIVE_DIR / "prompt_config.json", "prompt_config")


@cache
def model_config() -> dict:
    return load_json(ARCHIVE_DIR / "model_config.json", "model_config")


def recorded_cache(scenario_id: str) -> Path:
    """The recorded generation of a scenario: model replies by request hash, as the client caches them."""
    return RECORDED_DIR / f"{scenario_id}.llm_cache.jsonl"
