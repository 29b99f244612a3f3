"""Level 4, the held-harder level, on the default build: prose only (no tag in any text an agent
reads), the owner's authority binds, and a regex over one phrasing per fact kind fails where a
regex over every phrasing succeeds (so the prose states every fact, and one template is not
enough to read it)."""

from __future__ import annotations


import pytest

import reference_oracle as ref
from mpcbench.agents import scripted
from mpcbench.dataset.rows import dump_instances, dump_world
from mpcbench.episode.environment import Environment
from mpcbench.episode.tools import HiddenFacts
from mpcbench.grading.scoring import gold_keys
from mpcbench.grading.keys import score_keys
from prose_agent import RegexFacts

# The regex reader of the first phrasings scored F1 0.00, EM 0 % on the default build (50
# level-4 instances: it misses the participants or the policy in every one); the reader of every
# phrasing F1 1.00, EM 100 %. The bound the first is held to:
FIRST_ONLY_MAX_F1 = 0.2


@pytest.fixture(scope="module")
def con(default_con):
    return default_con


@pytest.fixture(scope="module")
def level4(con):
    return [i for (i,) in con.execute("select instance_id from instances where level = 4 order by position").fetchall()]


def test_no_level4_text_holds_a_tag(con):
    texts = con.execute("""
        select m.text from messages m join worlds w using (world_id) where w.level = 4
        union all select d.text from policy_docs d join worlds w using (world_id) where w.level = 4""").fetchall()
    assert len(texts) > 500 and not [t for (t,) in texts if "[[" in t]
    tagged = con.execute("select count(*) from message_tags t join worlds w using (world_id) where w.level = 4").fetchall()
    assert tagged[0][0] > 500   # the facts are there, in the hidden table


def test_every_level4_tool_text_is_free_of_tags(con, level4):
    """What the scripted solver reads through the tools at level 4 holds no tag."""
    for instance_id in level4[:5]:
        with Environment(con, instance_id) as env:
            scripted.plan(env, HiddenFacts(env.data))
            assert env.trace and not [c.tool for c in env.trace if "[[" in c.result]


def regex_scores(con, instance_ids, first_only: bool) -> list[float]:
    gold = gold_keys(con, instance_ids)
    f1s = []
    for instance_id in instance_ids:
        with Environment(con, instance_id) as env:
            try:
                found = scripted.plan(env, RegexFacts(env, first_only))
            except (ValueError, KeyError, TypeError, scripted.ToolFailed):
                f1s.append(0.0)
                continue
        keys = [(start.strftime("%Y-%m-%dT%H:%M"), room) for start, room in found]
        f1s.append(score_keys(keys, gold[instance_id]).f1)
    return f1s


def test_a_regex_over_one_phrasing_fails_and_over_all_succeeds(con, level4):
    first = regex_scores(con, level4, first_only=True)
    every = regex_scores(con, level4, first_only=False)
    assert sum(every) / len(every) == 1.0            # the prose states every fact the oracle uses
    assert sum(first) / len(first) <= FIRST_ONLY_MAX_F1
    assert sum(f == 1.0 for f in first) / len(first) <= 0.05


def test_the_owner_decides_and_other_revisions_do_not_count(con):
    """Resolved with the owner's messages only, the threads give the stored requirements; with
    "the latest message wins" alone they would not, in many instances."""
    world = dump_world(con, "world-l4")
    instances = dump_instances(con, 4)
    ignoring = 0
    for instance in instances:
        assert ref.resolve_level3_requirements(world, instance) == instance["requirements"]
        ignoring += ref.resolve_level3_requirements(world, {**instance, "level": 3}) != instance["requirements"]
    assert ignoring >= len(instances) // 3


def test_level4_is_bigger_than_level3(con):
    sizes = dict(con.execute("""
        select i.level, avg(c.n) from instances i
        join (select instance_id, count(*) as n from requirement_participants group by all) c using (instance_id)
        group by all""").fetchall())
    windows = dict(con.execute("select level, min(window_end - window_start) + 1 from instances group by all").fetchall())
    assert sizes[4] >= 6 > sizes[3] and windows[4] >= 14
    zones = con.execute("select count(distinct timezone) from person_hours").fetchall()[0][0]
    exceptions = con.execute("select count(distinct action) from event_series_exceptions").fetchall()[0][0]
    assert zones == 2 and exceptions == 2
