"""Shared pieces of the eval, scoring and report tests: the session's builds (one tiny build of
levels 1-4, the default build, and any other build a module asks for by its options), made once
per test session and shared by every pytest-xdist worker, and a per-instance script for
tests/fake_openai.py (episodes run concurrently, so the server routes each request by the
instance prompt it carries)."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import pickle
import shutil
import threading
from pathlib import Path
from typing import Callable

import duckdb
import pytest

from fake_openai import Behaviour, RecordedRequest, reply_text, reply_tool_calls
from mpcbench.grading.feedback import LLM_SYSTEM
from mpcbench.grading.scoring import gold_keys
from mpcbench.warehouse import build, db

INSTANCES_PER_LEVEL = 4
LEVELS = (1, 2, 3, 4)
WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
_BUILT: dict[str, Path] = {}
_LOCK = threading.Lock()



def skip_without(package: str, reason: str) -> None:
    """Skip the calling module when `package` is not installed: `pytest.importorskip` without the
    import, for a module that needs the package only in a subprocess or inside its tests (every
    pytest-xdist worker collects every module, and importing verifiers, datasets or Inspect takes
    seconds each)."""
    if importlib.util.find_spec(package) is None:
        pytest.skip(reason, allow_module_level=True)


def altered_copy(db_path: Path, path: Path, statement: str) -> Path:
    """A copy of the build at `db_path`, written to `path`, with one SQL statement run on it."""
    shutil.copy(db_path, path)
    con = duckdb.connect(str(path))
    con.execute(statement)
    con.close()
    return path

def session_dir(tmp_path_factory) -> Path:
    """The temp directory of the whole test session: under pytest-xdist each worker's basetemp
    is a subdirectory (gw0, gw1, ...) of the controller's, which is new for every session."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_dir(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """A directory that `make(directory)` fills once per test session: the first process (xdist
    worker) to ask makes it holding a file lock, the others wait on the lock and reuse it (what a
    failed attempt left is removed first). Read it only: other workers read it at the same time."""
    with _LOCK:
        if name in _BUILT:
            return _BUILT[name]
        root = session_dir(tmp_path_factory) / "shared"
        root.mkdir(parents=True, exist_ok=True)
        folder, done = root / name, root / f"{name}.done"
        with open(root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes, or the process dies
            if not done.exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make(folder)
                done.touch()
        _BUILT[name] = folder
        return folder


def _build_name(levels: tuple[int, ...], instances: int | None, options: dict) -> str:
    key = repr((tuple(levels), instances, sorted((k, str(v)) for k, v in options.items())))
    return f"build-{'-'.join(map(str, levels))}-{instances or 'default'}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def shared_build(tmp_path_factory, levels: tuple[int, ...], instances: int | None = None, **options) -> Path:
    """The build of `build.build(path, levels, instances, **options)`, made once per test session
    (`shared_dir`). Builds are deterministic, so every module asking for the same options gets
    the same tables. Open it read-only: other workers read it at the same time. What `build.build`
    returned is kept beside it (`shared_build_with_results`)."""
    options.setdefault("worlds_dir", WORLDS_DIR)

    def make(folder: Path) -> None:
        results = build.build(folder / "build.duckdb", tuple(levels), instances, **options)
        (folder / "results.pickle").write_bytes(pickle.dumps(results))
    return shared_dir(tmp_path_factory, _build_name(levels, instances, options), make) / "build.duckdb"


def shared_build_with_results(tmp_path_factory, levels: tuple[int, ...], instances: int | None = None,
                              **options) -> tuple[Path, list[build.LevelResult]]:
    """`shared_build` (the same build, shared with the modules that ask for it), with what
    `build.build` returned."""
    path = shared_build(tmp_path_factory, levels, instances, **options)
    return path, pickle.loads((path.parent / "results.pickle").read_bytes())


def tiny_db(tmp_path_factory) -> Path:
    """A build of levels 1-4 with 4 instances per level, made once per test session."""
    return shared_build(tmp_path_factory, LEVELS, INSTANCES_PER_LEVEL)


def default_db(tmp_path_factory) -> Path:
    """The default build (every world config's own instance count), made once per test session."""
    return shared_build(tmp_path_factory, LEVELS)


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
    return {"candidates": [{"start": s, **({"room_id": r} if level >= 3 else {})} for s, r in keys]}


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


class GoldModel:
    """A fake_openai script that plays a model which knows the gold answers, on every path a real
    model can take: it reads the protocol from the request (native: a `tools` field; MINT: stop
    words) and the mode from what is offered (native: a data tool, `python`, or only
    submit_candidates; MINT: `<execute>` in the system prompt), calls one data tool the way that
    path allows (none in context mode), then answers. With `wrong_first` its first answer is
    wrong (one start at 03:00, outside every policy's working hours) and it answers the gold
    after the feedback. Requests whose
    system prompt is the feedback rewriter's (`--feedback llm`) get a short rewrite.

    With `note` (instance_id, the keys it answers -> text) its answers carry that note.

    Everything it was asked is in `self.requests` (instance_id, protocol, mode, request body)."""

    def __init__(self, db_path: Path, *, wrong_first: bool = False,
                 note: Callable[[str, list], str | None] | None = None):
        self.by_prompt = {prompt: (instance_id, level) for instance_id, level, prompt in instances(db_path)}
        self.gold = gold(db_path)
        self.wrong_first = wrong_first
        self.note = note
        self.requests: list[tuple[str, str, str, dict]] = []
        self.lock = threading.Lock()

    def instance(self, messages: list[dict]) -> tuple[str, int]:
        first = next(m["content"] for m in messages if m.get("role") == "user").removeprefix("Task:\n")
        return self.by_prompt.get(first) or next(v for p, v in self.by_prompt.items() if first.startswith(p + "\n"))

    def __call__(self, req: RecordedRequest) -> Behaviour:
        messages = req.messages
        if messages and messages[0].get("role") == "system" and messages[0]["content"] == LLM_SYSTEM:
            return reply_text("Some of the proposed times break the scheduling rules; check them and try again.")
        instance_id, level = self.instance(messages)
        native = "tools" in req.body
        tools = [t["function"]["name"] for t in req.body.get("tools") or []]
        if native:
            mode = "code" if "python" in tools else "tools" if len(tools) > 1 else "context"
        else:
            mode = "code" if "<execute>" in messages[0]["content"] else "context"
        with self.lock:
            self.requests.append((instance_id, "native" if native else "mint", mode, req.body))
        replies = [m for m in messages if m.get("role") == "assistant"]
        answered = sum(1 for m in replies if m.get("tool_calls") and any(
            c["function"]["name"] == "submit_candidates" for c in m["tool_calls"]) or "<solution>" in (m.get("content") or ""))
        if not replies and mode != "context":       # first, one data tool the way the path allows
            if native and mode == "tools":
                return reply_tool_calls([("get_current_time", {})])
            if native:
                return reply_tool_calls([("python", {"code": "print(get_current_time())"})])
            return reply_text("<thought> What time is it? </thought> <execute>print(get_current_time())</execute>")
        keys = self.gold[instance_id]
        if self.wrong_first and answered == 0:
            keys = [(s[:11] + "03:00", r) for s, r in keys[:1]]
        answer = submission(keys, level)
        if self.note is not None:
            answer["note"] = self.note(instance_id, keys)
        if native:
            return reply_tool_calls([("submit_candidates", answer)])
        return reply_text(f"<thought> I have it. </thought> The answer is <solution> {json.dumps(answer)} </solution>")
