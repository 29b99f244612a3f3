"""The scripted solver's reference per instance, cached in the run directory per build
(`reference_calls.json`): how many tool calls it needs (the efficiency reference) and what its
minimal reading returned, row by row (a record of it; the privacy track's need is a scope,
`grading_over_reads`, docs/privacy.md).

    reference = load_reference(run_dir, con, content_hash, ["L2-0007"])
    reference.calls["L2-0007"]      # 14
    reference.reads["L2-0007"][:2]  # [(None, 'policy_docs:doc-1'), ('calendar', 'events:ev-3fa9c2')]

A read is (the `-- source:` of the tool that returned the row, None for a tool of no source; the
row, `<table>:<key>`). The file holds the reads by source (`"none"` for no source) with the
build's content hash and the hash of the tool files (the lineage comes from their queries); a
file of another build, other tools or version 1 (calls only) is computed again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..agents.scripted import plan
from ..episode.environment import Environment
from ..episode.toolfiles import TOOLS_DIR, tool_sources
from ..episode.tools import HiddenFacts
from .journal import write_json

REFERENCE_FILE = "reference_calls.json"
REFERENCE_VERSION = 2   # 2: the reads beside the call counts

Read = tuple[str | None, str]   # (tool source or None, row id)
NO_SOURCE = "none"


@dataclass
class Reference:
    calls: dict[str, int] = field(default_factory=dict)          # instance -> the scripted solver's tool calls
    reads: dict[str, list[Read]] = field(default_factory=dict)   # instance -> its distinct reads, sorted


def scripted_reference(con: duckdb.DuckDBPyConnection, instance_ids: list[str]) -> Reference:
    """The scripted solver's calls and reads per instance (none for an instance it fails on)."""
    sources = tool_sources()
    out = Reference()
    for instance_id in instance_ids:
        with Environment(con, instance_id) as env:
            try:
                plan(env, HiddenFacts(env.data))
            except Exception:  # noqa: BLE001 - no reference for this instance, rather than no scores at all
                continue
            out.calls[instance_id] = len(env.trace)
            out.reads[instance_id] = sorted({(sources.get(c.tool), row) for c in env.trace for row in c.source_rows},
                                            key=lambda read: (read[0] or "", read[1]))
    return out


# (build content hash, tools hash) -> instance -> (calls, reads), or None where the solver failed
_SOLVED: dict[tuple[str, str], dict[str, tuple[int, list[Read]] | None]] = {}


def _scripted_reference_once(con: duckdb.DuckDBPyConnection, build_and_tools: tuple[str, str],
                             instance_ids: list[str]) -> Reference:
    """`scripted_reference`, each instance of a build solved once per process (the runs of an
    ablation, a rescore, a script's several runs over the same build share it)."""
    solved = _SOLVED.setdefault(build_and_tools, {})
    new = [i for i in instance_ids if i not in solved]
    if new:
        found = scripted_reference(con, new)
        solved.update({i: (found.calls[i], found.reads[i]) if i in found.calls else None for i in new})
    out = Reference()
    for instance_id in instance_ids:
        if (known := solved[instance_id]) is not None:
            out.calls[instance_id], out.reads[instance_id] = known[0], list(known[1])
    return out


def tools_hash() -> str:
    """sha256 of the tool files: the lineage of a call comes from its tool's query."""
    digest = hashlib.sha256()
    for path in sorted(TOOLS_DIR.glob("*.sql")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def load_reference(run_dir: Path, con, content_hash: str, instance_ids: list[str]) -> Reference:
    """The scripted solver's reference per instance, cached in the run directory per build."""
    path = run_dir / REFERENCE_FILE
    cached = json.loads(path.read_text()) if path.exists() else {}
    tools = tools_hash()
    key = {"build_sha256": content_hash, "version": REFERENCE_VERSION, "tools_sha256": tools}
    fresh = all(cached.get(k) == v for k, v in key.items())
    reference = Reference()
    if fresh:
        reference.calls = dict(cached.get("calls") or {})
        reference.reads = {i: [(None if s == NO_SOURCE else s, row) for s, rows in by_source.items() for row in rows]
                           for i, by_source in (cached.get("reads") or {}).items()}
    missing = [i for i in instance_ids if i not in reference.calls]
    if missing:
        found = _scripted_reference_once(con, (content_hash, tools), missing)
        reference.calls.update(found.calls)
        reference.reads.update(found.reads)
        grouped: dict[str, dict[str, list[str]]] = {}
        for instance_id, reads in reference.reads.items():
            for source, row in reads:
                grouped.setdefault(instance_id, {}).setdefault(source or NO_SOURCE, []).append(row)
        write_json(path, {**key, "calls": reference.calls, "reads": grouped})
    return reference
