"""Fixtures over the tiny build (tests/evalkit.py: 4 instances per level, built once per session).
A test module may define its own `con` over another build; the nearest fixture wins.

The suite runs on every core (pyproject.toml: `-n auto --dist loadfile`, pytest-xdist): a module
runs whole on one worker, so its module-scoped fixtures are made once, but for the modules of
SPREAD, whose tests go one by one to whichever worker is free (their module fixtures are builds
shared on disk, tests/evalkit.py, or cheap; their tests do not depend on one another). FIRST: the
slowest modules (by their summed test time in a full run: `--junitxml`) are handed out first, so
that none is left running alone at the end; the static checks first of all, as they need no build
(the first builds are made while mypy runs); a module that makes a build others read goes before
them (test_ood.py's out-of-distribution build, which test_phrasing.py waited on). `-n 0` runs the
suite in one process, as before."""

from __future__ import annotations

import pytest

from evalkit import default_db, gold, tiny_db
from mpcbench.warehouse import db


SPREAD = {"test_bench_smoke.py", "test_build.py", "test_scale.py", "test_oracle_reference.py",
          "test_oracle_golden.py", "test_feedback.py", "test_model_paths.py", "test_code_mode.py",
          "test_build_lock.py", "test_sandbox.py", "test_sandbox_attacks.py", "test_llm.py",
          "test_eval_endpoint.py", "test_eval_interrupt.py", "test_cost.py", "test_kinds.py",
          "test_model_limits.py", "test_dry_run.py", "test_exploits.py"}
# not SPREAD: test_verifiers_env.py, whose in-process verifiers runs share one import of verifiers (~5 s
# of CPU); test_episode_spec.py imports it too, so the two go to one worker together (TOGETHER)
TOGETHER = {"test_episode_spec.py": "test_verifiers_env.py"}
FIRST = ["test_static.py", "test_trl.py", "test_verifiers_env.py", "test_training_envs.py", "test_oracle_reference.py", "test_exploits.py",
         "test_privacy_track.py",
         "test_splits.py", "test_ood.py", "test_scale.py", "test_bench_smoke.py", "test_build.py", "test_offline_agents.py",
         "test_memorised_policies.py", "test_feedback.py", "test_code_mode.py", "test_model_paths.py", "test_eval.py",
         "test_export_import.py", "test_legacy_audit.py", "test_scoring.py", "test_sensitive_items.py",
         "test_cli.py", "test_docs.py", "test_metamorphic.py", "test_mint_examples.py", "test_build_lock.py",
         "test_oracle_golden.py"]


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))   # stable: a module stays together


def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, but a test of a SPREAD module is a unit of work of its own, and a module of
    TOGETHER joins another's unit. (Not `--dist loadgroup` with xdist_group marks: pytest 9.2
    ignores the group that pytest-xdist 3.8 writes into the node id.)"""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SpreadScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            directory, _, name = path.rpartition("/")
            if name in TOGETHER:
                return f"{directory}/{TOGETHER[name]}" if directory else TOGETHER[name]
            return nodeid if name in SPREAD else path

    return SpreadScheduling(config, log)


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    return tiny_db(tmp_path_factory)


@pytest.fixture(scope="module")
def golds(db_path):
    return gold(db_path)


@pytest.fixture(scope="module")
def con(db_path):
    con = db.open_existing(db_path, episodes=True)   # as the harness opens it
    yield con
    con.close()


@pytest.fixture(scope="module")
def default_con(tmp_path_factory):
    """A read-only connection to the default build (every world config's own instance count)."""
    con = db.open_existing(default_db(tmp_path_factory), episodes=True)
    yield con
    con.close()
