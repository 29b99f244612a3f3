"""The `ood` split (issue 32): the `test` split's worlds in wording no public split uses.

The metamorphic check: one secret built as `test` (public pools) and as `ood` (ood pools) gives
the same oracle tables, while their text shares no sentence skeleton. The ood build's labels
agree with the plain-Python reference oracle, its level-4 prose states every fact (a reader of
the ood phrasings solves every instance, a reader of the public ones does not), the scripted
solver stays exact, it exports and imports like any build, and `mpcbench overlap` tells it apart.
"""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

import reference_oracle as ref
from evalkit import shared_build, tiny_db
from oracle_harness import keys, sql_answers, sql_candidates
from mpcbench.agents import scripted
from mpcbench.agents.memoriser import Memory, MemoriserAgent, fit_from
from mpcbench.cli import app
from mpcbench.dataset import rows
from mpcbench.dataset.export import export_dataset
from mpcbench.dataset.skeletons import build_skeletons, shared_share
from mpcbench.episode.environment import Environment
from mpcbench.grading.scoring import gold_keys
from mpcbench.grading.keys import score_keys
from mpcbench.warehouse import db
from mpcbench.warehouse.importer import import_dataset
from mpcbench.world import privacy_words
from mpcbench.world.wording import FAMILIES
from offline_runner import run_offline
from prose_agent import RegexFacts

SECRET = "unit-test-ood-secret"
LEVELS = (1, 2, 3, 4)
INSTANCES = 3
ORACLE_TABLES = ("oracle_answers", "oracle_candidates", "oracle_summary", "oracle_necessity", "int_violations")
FACT_KINDS = ("ban", "ooo", "deadline", "participants", "duration", "count", "policy", "tie_break", "room")


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    return {split: shared_build(tmp_path_factory, LEVELS, INSTANCES, split=split, secret=SECRET)
            for split in ("test", "ood")}


@pytest.fixture(scope="module")
def ood(paths):
    con = db.connect(paths["ood"], read_only=True)
    yield con
    con.close()


def test_every_family_has_a_disjoint_ood_pool_at_least_as_large():
    for family, pool in FAMILIES.items():
        assert len(pool.ood) >= len(pool.public), family
        assert not set(pool.ood) & set(pool.public) - {""}, family
    for kind in FACT_KINDS:
        assert len(FAMILIES[f"{kind}/l4"].public) >= 10 and len(FAMILIES[f"{kind}/l4"].ood) >= 10, kind
    for kind in ("working_hours", "blackout", "buffer", "no_meeting_weekdays", "min_notice",
                 "max_meetings_per_day", "max_consecutive_minutes"):
        assert len(FAMILIES[f"rule:{kind}/l4"].public) >= 10, kind
    assert len(FAMILIES["owner"].public) >= 10
    # an ood detail template keeps its public twin's category, so an item keeps its category
    public, ood = (privacy_words.POOLS[side][0] for side in ("public", "ood"))
    assert [c for c, _ in public] == [c for c, _ in ood]


def test_test_and_ood_of_one_secret_have_the_same_answers_in_other_words(paths):
    con = duckdb.connect()
    for split, path in paths.items():
        con.execute(f"attach '{path}' as {split} (read_only)")
    for table in ORACLE_TABLES:
        differ = con.execute(f"select count(*) from (select * from test.{table} except all select * from ood.{table}) "
                             f"union all select count(*) from (select * from ood.{table} except all "
                             f"select * from test.{table})").fetchall()
        rows_in = con.execute(f"select count(*) from test.{table}").fetchone()[0]
        assert differ == [(0,), (0,)] and rows_in > 0, table
    shared = con.execute("select count(*) from test.messages t join ood.messages o using (world_id, message_id) "
                         "where t.text = o.text").fetchone()[0]
    assert shared == 0 and con.execute("select count(*) from ood.messages").fetchone()[0] > 300
    assert con.execute("select value from ood.build_info where key = 'split'").fetchone() == ("ood",)


def test_ood_labels_agree_with_the_reference_oracle(ood):
    gold, candidates = sql_answers(ood), sql_candidates(ood)
    for level in LEVELS:
        insts = rows.dump_instances(ood, level)
        assert len(insts) == INSTANCES
        world = rows.dump_world(ood, insts[0]["world_id"])
        for instance in insts:
            expected = ref.solve(world, instance)
            assert candidates[instance["instance_id"]] == keys(expected.candidates), instance["instance_id"]
            assert gold[instance["instance_id"]] == keys(expected.top), instance["instance_id"]
            if level >= 3:
                assert ref.resolve_level3_requirements(world, instance) == instance["requirements"]


def _regex_f1(con, side: str) -> float:
    ids = [i for (i,) in con.execute("select instance_id from instances where level = 4 order by position").fetchall()]
    gold = gold_keys(con, ids)
    f1s = []
    for instance_id in ids:
        with Environment(con, instance_id) as env:
            try:
                found = scripted.plan(env, RegexFacts(env, first_only=False, side=side))
            except (ValueError, KeyError, TypeError, scripted.ToolFailed):
                f1s.append(0.0)
                continue
        f1s.append(score_keys([(s.strftime("%Y-%m-%dT%H:%M"), room) for s, room in found], gold[instance_id]).f1)
    return sum(f1s) / len(f1s)


def test_ood_level4_prose_states_every_fact_in_ood_words_only(ood):
    assert _regex_f1(ood, "ood") == 1.0      # every value the oracle uses is said in the ood prose
    assert _regex_f1(ood, "public") == 0.0   # and none of it in a public phrasing


def test_the_scripted_solver_is_exact_on_ood(ood):
    found = run_offline(ood, "scripted")
    assert len(found) == len(LEVELS) * INSTANCES and all(r["exact_match"] for r in found)


def test_the_everyday_reader_is_exact_on_ood(ood):
    found = run_offline(ood, "everyday")
    assert {r["level"] for r in found} == set(LEVELS) and all(r["exact_match"] for r in found)


def test_ood_exports_and_imports_like_any_build(ood, tmp_path):
    export_dataset(ood, tmp_path / "dataset")
    report = import_dataset(tmp_path / "dataset", tmp_path / "imported.duckdb")
    assert all(level.gold_differs == 0 for level in report.levels)
    imported = db.connect(tmp_path / "imported.duckdb", read_only=True)
    try:
        assert sql_answers(imported) == sql_answers(ood)
    finally:
        imported.close()


def test_overlap_reports_skeletons_and_refuses_a_public_build_in_ood_words(ood, paths, tmp_path_factory, tmp_path):
    dev = tiny_db(tmp_path_factory)
    con = db.connect(dev, read_only=True)
    shares = shared_share(build_skeletons(ood), build_skeletons(con))
    con.close()
    shared, total = shares["all"]
    assert total > 500 and shared / total <= 0.10
    runner = CliRunner()
    result = runner.invoke(app, ["overlap", str(dev), str(paths["ood"])])
    assert result.exit_code == 0, result.output
    assert "match the ood pools" in result.output and "Sentence skeletons shared" in result.output
    disguised = tmp_path / "disguised.duckdb"     # an ood build that says it is dev
    shutil.copy(paths["ood"], disguised)
    con = duckdb.connect(str(disguised))
    con.execute("update build_info set value = 'dev' where key = 'split'")
    con.close()
    result = runner.invoke(app, ["overlap", str(dev), str(disguised)])
    assert result.exit_code == 1 and "match the ood pools" in result.output


def _memorised_f1(con, memory) -> float:
    ids = [i for (i,) in con.execute("select instance_id from instances where level = 4 order by position").fetchall()]
    gold = gold_keys(con, ids)
    f1s = []
    for instance_id in ids:
        with Environment(con, instance_id) as env:
            agent = MemoriserAgent(memory)
            agent.submission(env, None, None)
        f1s.append(score_keys([(s.strftime("%Y-%m-%dT%H:%M"), room) for s, room in agent.found], gold[instance_id]).f1)
    return sum(f1s) / len(f1s)


def test_the_memoriser_reads_the_wording_it_learned_and_not_the_ood_one(paths, ood):
    """Fitted on the test build (public wording), the memoriser reads the facts of every
    level-4 message of it and solves it; the ood build has the same facts in other words, and
    it reads none of them. Fitted on nothing, it reads nothing anywhere."""
    memory = fit_from([paths["test"]])
    test = db.connect(paths["test"], read_only=True)
    try:
        for con, least, most in ((test, 1.0, 1.0), (ood, 0.0, 0.0)):
            said = con.execute("select m.text, t.tag_type, t.params from messages m join message_tags t "
                               "using (world_id, message_id) join worlds w using (world_id) where w.level = 4").fetchall()
            read = [memory.read(memory.messages, text) == (kind, json.loads(params)) for text, kind, params in said]
            assert least <= sum(read) / len(read) <= most and len(read) > 30
            assert least <= _memorised_f1(con, memory) <= most
        assert Memory().read(Memory().messages, said[0][0]) is None
    finally:
        test.close()


def test_eval_runs_the_memoriser_only_with_a_train_build(tmp_path):
    result = CliRunner().invoke(app, ["eval", "--agent", "memoriser", "--db", str(tmp_path / "x.duckdb")])
    assert result.exit_code != 0 and "--train-db" in result.output
