"""Opaque ids: a keyed permutation of the generator's indices, so that an id names a thing
without saying where in the generator it came from.

    opaque_id("1234/3/project", 42)   # -> '3fa9c2': the same for the same key and index, distinct
                                      #    indices give distinct ids (no collision to check)

The key holds the config seed, which the private test split derives from a secret, so without
the seed an id says nothing about the index (e.g. the candidate index of a project, from which the
public generator would rebuild the hidden requirements).
"""

from __future__ import annotations

import hashlib

ROUNDS = 4


def opaque_id(key: str, index: int, bits: int = 24) -> str:
    """`index` (0 <= index < 2**bits, bits a multiple of 4) through a 4-round Feistel network keyed by
    `key`: a bijection of [0, 2**bits), written as bits/4 lowercase hex digits."""
    if bits % 4 or not 0 <= index < 1 << bits:
        raise ValueError(f"opaque_id: index {index} outside [0, 2**{bits}) or bits not a multiple of 4")
    half = bits // 2
    mask = (1 << half) - 1
    left, right = index >> half, index & mask
    for round_number in range(ROUNDS):
        digest = hashlib.sha256(f"{key}/{round_number}/{right}".encode()).digest()
        left, right = right, left ^ (int.from_bytes(digest[:4], "big") & mask)
    return f"{(left << half) | right:0{bits // 4}x}"


def id_key(config, kind: str, scope: str = "") -> str:
    """The key of one kind of id in one world (and scope, e.g. a project's threads)."""
    return "/".join(str(p) for p in (config.seed, config.level, kind, scope))
