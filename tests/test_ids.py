"""Ids carry no generator index: they are a keyed permutation of the index, keyed by the config
seed (mpcbench/world/ids.py), so without the seed an id cannot be turned back into the candidate
that made it (from which the public generator rebuilds the hidden requirements)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from mpcbench.world.candidates import draft_candidate
from mpcbench.world.config import load_world_config, world_config_path
from mpcbench.world.generate import generate_world
from mpcbench.world.ids import id_key, opaque_id

ID_FORMATS = {
    "select world_id, person_id from people": r"p-[0-9a-f]{6}",
    "select world_id, event_id from events": r"ev-[0-9a-f]{6}",
    "select world_id, project_id from projects": r"PRJ-[0-9a-f]{6}",
    "select world_id, thread_id from threads": r"PRJ-[0-9a-f]{6}-t[0-9a-f]{2}",
    "select world_id, message_id from messages": r"PRJ-[0-9a-f]{6}-m[0-9a-f]{3}",
}


def test_opaque_id_is_a_keyed_bijection():
    ids = [opaque_id("k", i, 16) for i in range(1 << 16)]
    assert len(set(ids)) == 1 << 16 and all(re.fullmatch(r"[0-9a-f]{4}", i) for i in ids)
    other = [opaque_id("other", i, 16) for i in range(1000)]
    assert sum(a == b for a, b in zip(ids, other)) < 5
    assert ids[:50] != sorted(ids[:50])
    with pytest.raises(ValueError):
        opaque_id("k", 1 << 16, 16)


@pytest.mark.parametrize("query, pattern", ID_FORMATS.items())
def test_every_id_is_opaque(con, query, pattern):
    rows = con.execute(query).fetchall()
    assert rows and all(re.fullmatch(pattern, i) for _, i in rows), [i for _, i in rows if not re.fullmatch(pattern, i)][:3]
    assert len(set(rows)) == len(rows)   # unique within a world


def _attack(config, world, project_ids: set[str], tries: int) -> dict[str, int]:
    """What an attacker with the public config does: hash every candidate index with the public
    seed and keep those that give one of the ids."""
    key = id_key(config, "project")
    return {f"PRJ-{opaque_id(key, k)}": k for k in range(tries) if f"PRJ-{opaque_id(key, k)}" in project_ids}


def test_the_id_alone_does_not_regenerate_the_requirements_without_the_seed():
    public = load_world_config(world_config_path(3))
    world = generate_world(public)
    # with the public seed the ids invert, and the candidate gives back its hidden requirements
    drafts = [draft_candidate(public, world, k) for k in range(0, 400, 20)]
    found = _attack(public, world, {d.project["project_id"] for d in drafts}, 500)
    assert len(found) == len(drafts)
    for d in drafts:
        again = draft_candidate(public, world, found[d.project["project_id"]])
        assert again.instance["requirements"] == d.instance["requirements"]
    # with a seed the attacker does not know (the private split), no index maps to any id
    secret = dataclasses.replace(public, seed=public.seed + 7919)
    secret_world = generate_world(secret)
    hidden = {draft_candidate(secret, secret_world, k).project["project_id"] for k in range(0, 400, 20)}
    assert _attack(public, world, hidden, 5000) == {}
