"""The efficiency reference: how many tool calls the scripted solver needs per instance,
cached in the run directory per build (`reference_calls.json`)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from ..agents.scripted import plan
from ..episode.environment import Environment
from ..episode.tools import HiddenFacts
from .journal import write_json


def reference_tool_calls(con: duckdb.DuckDBPyConnection, instance_ids: list[str]) -> dict[str, int]:
    """How many tool calls the scripted solver needs per instance (the efficiency reference)."""
    out = {}
    for instance_id in instance_ids:
        with Environment(con, instance_id) as env:
            try:
                plan(env, HiddenFacts(env.data))
            except Exception:  # noqa: BLE001 - no reference for this instance, rather than no scores at all
                continue
            out[instance_id] = len(env.trace)
    return out


def reference_calls(run_dir: Path, con, content_hash: str, instance_ids: list[str]) -> dict[str, int]:
    """The scripted solver's tool calls per instance, cached in the run directory per build."""
    path = run_dir / "reference_calls.json"
    cached = json.loads(path.read_text()) if path.exists() else {}
    calls = cached.get("calls", {}) if cached.get("build_sha256") == content_hash else {}
    missing = [i for i in instance_ids if i not in calls]
    if missing:
        calls.update(reference_tool_calls(con, missing))
        write_json(path, {"build_sha256": content_hash, "calls": calls})
    return calls
