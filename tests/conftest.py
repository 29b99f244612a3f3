"""Fixtures over the tiny build (tests/evalkit.py: 4 instances per level, built once per session).
A test module may define its own `con` over another build; the nearest fixture wins."""

from __future__ import annotations

import pytest

from evalkit import default_db, gold, tiny_db
from mpcbench.warehouse import db


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    return tiny_db(tmp_path_factory)


@pytest.fixture(scope="module")
def golds(db_path):
    return gold(db_path)


@pytest.fixture(scope="module")
def con(db_path):
    con = db.connect(db_path, read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def default_con(tmp_path_factory):
    """A read-only connection to the default build (every world config's own instance count)."""
    con = db.connect(default_db(tmp_path_factory), read_only=True)
    yield con
    con.close()
