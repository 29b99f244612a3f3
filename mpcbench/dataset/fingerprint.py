"""Content hashes of instances, to show that two builds (splits) share none.

    hashes = instance_fingerprints(con)          # {instance_id: sha256 hex}
    shared = overlap([dev_con, train_con, test_con])   # the fingerprints two builds share

An instance's fingerprint is the sha256 of its content and its world's: the instance as the
JSON export writes it (prompt, now, window, given, project, requirements) without its labels
(`instance_id`, `world_id`: every split numbers its instances L1-0001, ...), and the world's
sources (people, events, policies, threads, rooms, ...) without the world's labels (`world_id`,
`seed`: a build records the config's own seed whatever split it built). Two instances with the
same fingerprint ask the same question of the same world, so one could stand for the other; the
`train` split must share none with `dev` or a private `test` (tests/test_training_envs.py,
`mpcbench overlap`).
"""

from __future__ import annotations

import hashlib

import duckdb

from .rows import canonical_json, dump_instances, dump_world

_LABELS = ("instance_id", "world_id", "seed")


def _digest(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def world_fingerprint(con: duckdb.DuckDBPyConnection, world_id: str) -> str:
    return _digest({k: v for k, v in dump_world(con, world_id).items() if k not in _LABELS})


def instance_fingerprints(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """{instance_id: the sha256 of the instance's content and its world's}."""
    worlds = {w: world_fingerprint(con, w) for (w,) in con.execute("select world_id from worlds").fetchall()}
    out = {}
    for (level,) in con.execute("select distinct level from instances order by level").fetchall():
        for instance in dump_instances(con, level):
            content = {k: v for k, v in instance.items() if k not in _LABELS}
            out[instance["instance_id"]] = _digest({"instance": content, "world": worlds[instance["world_id"]]})
    return out


def overlap(connections: list[duckdb.DuckDBPyConnection]) -> dict[str, list[tuple[int, str]]]:
    """The fingerprints found in more than one of the builds: {fingerprint: [(build index,
    instance_id), ...]}. Empty when no two builds share an instance."""
    seen: dict[str, list[tuple[int, str]]] = {}
    for index, con in enumerate(connections):
        for instance_id, fingerprint in instance_fingerprints(con).items():
            seen.setdefault(fingerprint, []).append((index, instance_id))
    return {f: where for f, where in seen.items() if len({i for i, _ in where}) > 1}
