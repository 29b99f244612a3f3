"""Shared pieces of the eval, scoring and report tests: one tiny build and one default build per
session, and a per-instance script for tests/fake_openai.py (episodes run concurrently, so the
server routes each request by the instance prompt it carries)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from fake_openai import Behaviour, RecordedRequest, reply_tool_calls
from mpcbench.grading.scoring import gold_keys
from mpcbench.warehouse import build, db

INSTANCES_PER_LEVEL = 4
WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
_BUILT: dict[str, Path] = {}
_LOCK = threading.Lock()


def tiny_db(tmp_path_factory) -> Path:
    """A build with 4 instances per level, made once per test session."""
    base = str(tmp_path_factory.getbasetemp())
    with _LOCK:
        if base not in _BUILT:
            path = tmp_path_factory.mktemp("evaldb") / "tiny.duckdb"
            build.build(path, (1, 2, 3), INSTANCES_PER_LEVEL)
            _BUILT[base] = path
    return _BUILT[base]


def default_db(tmp_path_factory) -> Path:
    """The default build (every world config's own instance count), made once per test session."""
    key = str(tmp_path_factory.getbasetemp()) + "#default"
    with _LOCK:
        if key not in _BUILT:
            path = tmp_path_factory.mktemp("default") / "default.duckdb"
            build.build(path, (1, 2, 3, 4), worlds_dir=WORLDS_DIR)
            _BUILT[key] = path
    return _BUILT[key]


def instances(db_path: Path) -> list[tuple[str, int, str]]:
    """(instance_id, level, prompt) of every instance, in level and position order."""
    con = db.connect(db_path, read_only=True)
    try:
        return con.execute("select instance_id, level, prompt from instances order by level, position").fetchall()
    finally:
        con.close()


def gold(db_path: Path) -> dict[str, list[tuple]]:
    con = db.connect(db_path, read_only=True)
    try:
        return gold_keys(con, [i for i, _, _ in instances(db_path)])
    finally:
        con.close()


def submission(keys: list[tuple], level: int) -> dict:
    return {"candidates": [{"start": s, **({"room_id": r} if level == 3 else {})} for s, r in keys]}


def submit(keys: list[tuple], level: int) -> Behaviour:
    return reply_tool_calls([("submit_candidates", submission(keys, level))])


class PerInstance:
    """A fake_openai script: each instance's requests get that instance's behaviours in order
    (the last one repeats); instances without a script get `default(instance_id, k)`."""

    def __init__(self, db_path: Path, scripts: dict[str, list[Behaviour]],
                 default: Callable[[str, int], Behaviour] | None = None):
        self.by_prompt = {prompt: instance_id for instance_id, _, prompt in instances(db_path)}
        self.scripts, self.default = scripts, default
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, req: RecordedRequest) -> Behaviour:
        prompt = next((m["content"] for m in req.messages if m.get("role") == "user"), None)
        instance_id = self.by_prompt.get(prompt) or next(  # context mode: the sources follow the prompt
            i for p, i in self.by_prompt.items() if prompt.startswith(p + "\n"))
        with self.lock:
            k = self.counts.get(instance_id, 0)
            self.counts[instance_id] = k + 1
        if instance_id in self.scripts:
            script = self.scripts[instance_id]
            return script[min(k, len(script) - 1)]
        assert self.default is not None, f"no script for {instance_id}"
        return self.default(instance_id, k)
