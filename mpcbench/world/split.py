"""The public `dev` and `train` splits and the private `test` and `ood` splits.

`dev` is built from the configs in the repository as they are. `test` is built from the same
configs with every config seed replaced by one derived from a secret the user supplies (an HMAC
of the config seed), so two users with different secrets get different instances of the same
distribution. The secret and the derived seeds are never written anywhere: builds and runs
record only `seed_hash(secret)`. `train` is public like `dev` and needs no secret: its seeds are
derived from the config seeds by a hash of their own (`train_seed`), apart from dev's (the seeds
themselves) and from test's (keyed by a secret), so train instances are other draws of the same
distribution; `dataset.fingerprint` checks that no train instance equals a dev or test one.
`ood` (issue 32) is `test` in other words: the same derived seeds, so the same facts and answers
as the `test` build of the same secret, written from the ood text pools that no public split
draws from (world/wording.py). The gap between `test` and `ood` is what a model's score owes to
knowing the public phrasings.
The rule: train on `train` (or `dev`), report on a private `test` and on `ood`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac

from ..errors import UserError
from .config import WorldConfig

SPLITS = ("dev", "train", "test", "ood")
PRIVATE_SPLITS = ("test", "ood")
PUBLIC_WORDING_SPLITS = ("dev", "train", "test")   # the splits written from the public text pools
SECRET_ENV = "MPCBENCH_SECRET_SEED"


def seed_hash(secret: str) -> str:
    """What a build records of the secret: 16 hex digits of sha256("mpcbench-split:" + secret)."""
    return hashlib.sha256(f"mpcbench-split:{secret}".encode()).hexdigest()[:16]


def derived_seed(secret: str, config_seed: int) -> int:
    digest = hmac.new(secret.encode(), f"mpcbench-config-seed:{config_seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:7], "big")   # 56 bits: fits the BIGINT seed columns


def train_seed(config_seed: int) -> int:
    """The seed the `train` split generates a config's world from (public: no secret)."""
    digest = hashlib.sha256(f"mpcbench-train-seed:{config_seed}".encode()).digest()
    return int.from_bytes(digest[:7], "big")   # 56 bits, as derived_seed


def split_configs(configs: list[WorldConfig], split: str, secret: str | None) -> list[WorldConfig]:
    """The configs a split is built from (the generator's seeds); the records keep the configs' own."""
    if split not in SPLITS:
        raise UserError(f"--split must be one of {', '.join(SPLITS)}, not {split!r}")
    if split == "dev":
        return configs
    if split == "train":
        return [dataclasses.replace(c, seed=train_seed(c.seed)) for c in configs]
    if not secret:
        raise UserError(f"--split {split} needs a secret seed: --secret-seed S or the environment variable {SECRET_ENV}")
    return [dataclasses.replace(c, seed=derived_seed(secret, c.seed), wording="ood" if split == "ood" else "public")
            for c in configs]
