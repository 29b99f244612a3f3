"""Thread tags bind (oracle_tag_binding): a kind "changes the answer" exactly when removing its
tags from the raw rows changes the oracle's answer; bans and absences are aimed so that they do;
a deadline never can (it only removes starts later than those it keeps)."""

from __future__ import annotations

import shutil

import pytest

from mpcbench.warehouse import db


@pytest.fixture(scope="module")
def binding(con):
    return {(i, k): (changes, rejects) for i, k, changes, rejects in con.execute(
        "select instance_id, constraint_kind, changes_answer, rejects_feasible from oracle_tag_binding").fetchall()}


def answers(con, instance_ids):
    rows = con.execute("select instance_id, starts_at, room_id from oracle_answers order by all").fetchall()
    return {i: [r[1:] for r in rows if r[0] == i] for i in instance_ids}


@pytest.mark.parametrize("kind", ["ban", "ooo", "deadline"])
def test_changes_answer_means_removing_the_kind_changes_the_answer(db_path, tmp_path, binding, kind):
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db_path, copy)
    con = db.connect(copy)
    ids = [i for (i,) in con.execute("select instance_id from instances where level >= 2").fetchall()]
    before = answers(con, ids)
    con.execute("delete from message_tags where tag_type = $kind", {"kind": kind})
    db.refresh(con)
    after = answers(con, ids)
    con.close()
    for i in ids:
        if (i, kind) in binding:
            assert binding[(i, kind)][0] == (before[i] != after[i]), i
        else:
            assert before[i] == after[i], i


def test_bans_and_absences_mostly_bind_and_deadlines_never_change_the_answer(con):
    shares = {(level, kind): (n, changing, rejecting)
              for level, kind, n, changing, rejecting in db.query(con, "tag_binding_shares").fetchall()}
    for level in (2, 3):
        assert shares[(level, "ban")][1] >= 0.5, shares
    assert all(v[1] == 0 for (level, kind), v in shares.items() if kind == "deadline"), shares
