"""No gold answer rests on a rule the agent is never shown (docs/semantics.md, "What the agent is
told"): every convention the grader applies is stated in the system prompt of every level, mode
and protocol, and in the text each instance shows the agent (the policy's JSON at level 1, its
handbook section at levels 2-4); no gold start lies on a day no source opens; and a reader who
takes the everyday reading wherever nothing is stated loses points as soon as a statement is
missing (so the everyday reader's F1 1.0, tests/test_offline_agents.py, means something)."""

from __future__ import annotations

import json

import pytest

from mpcbench.agents.everyday import WORKING_WEEK, policy_sections, reading_of
from mpcbench.agents import scripted
from mpcbench.agents.scripted import Reading, plan
from mpcbench.episode.environment import Environment
from mpcbench.episode.prompts import mint_system_prompt, system_prompt
from mpcbench.episode.tools import HiddenFacts
from mpcbench.grading.scoring import gold_keys
from mpcbench.grading.keys import score_keys
from mpcbench.kinds import kind
from mpcbench.world import prose
from mpcbench.world.wording import FAMILIES

EVERYDAY = Reading(default_days=WORKING_WEEK, buffer_edge_inclusive=True, buffer_all_commitments=True,
                   meetings_only=True)
STATED_KINDS = ("working_hours", "buffer", "max_meetings_per_day", "max_consecutive_minutes")


def test_silence_is_read_the_everyday_way():
    assert reading_of("") == EVERYDAY
    # each statement settles its own convention and no other
    buffer_text = kind("buffer").prompt_text
    assert reading_of(buffer_text) == Reading(default_days=WORKING_WEEK, meetings_only=True)
    assert reading_of(kind("max_meetings_per_day").prompt_text).meetings_only is False


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_every_system_prompt_states_every_convention(level):
    prompts = [system_prompt(level, mode=mode, protocol="native") for mode in ("tools", "context", "code")]
    prompts += [mint_system_prompt(level, [], code=code, steps=80, proposals=1) for code in (True, False)]
    for text in prompts:
        assert reading_of(text) == Reading(default_days=WORKING_WEEK), text
        squeezed = "".join(text.split()).lower()   # the prompt wraps its lines, and may break at a hyphen
        assert all("".join(kind(name).prompt_text.split()).lower() in squeezed for name in STATED_KINDS)
        assert "working day" in text


def _fields(params: dict) -> dict:
    fields = dict(params)
    if "days" in params:
        fields["days"] = prose.working_days_text(params["days"])
    if "minutes" in params:
        fields["edge"] = f"{(720 - params['minutes']) // 60:02d}:{(720 - params['minutes']) % 60:02d}"
    return fields


def test_each_instance_shows_its_policys_working_days_and_what_its_rules_count(con):
    """Level 1: get_policy's JSON gives the working days (the conventions are the system prompt's);
    levels 2-4: the policy's handbook section states each rule's note, the working days in words."""
    rows = con.execute("""
        select i.instance_id, w.level, r.rule_type, r.params
        from stg_instances i join worlds w using (world_id)
        join policy_rules r on r.world_id = i.world_id and r.policy_id = i.policy_id
        order by i.instance_id""").fetchall()
    rules: dict[tuple[str, int], dict[str, dict]] = {}
    for instance_id, level, rule_type, params in rows:
        rules.setdefault((instance_id, level), {})[rule_type] = json.loads(params)
    assert {level for _, level in rules} == {1, 2, 3, 4}
    checked = 0
    for (instance_id, level), policy in rules.items():
        assert policy["working_hours"]["days"], instance_id
        with Environment(con, instance_id) as env:
            if level == 1:
                policy_id = con.execute("select policy_id from stg_instances where instance_id = ?",
                                        [instance_id]).fetchone()[0]
                shown = json.loads(env.call("get_policy", {"policy_id": policy_id}))["rules"]
                assert {r["type"]: r["params"] for r in shown}["working_hours"] == policy["working_hours"]
                continue
            policy_id = con.execute("select policy_id from stg_instances where instance_id = ?", [instance_id]).fetchone()[0]
            section = policy_sections(env)[policy_id]
        for rule_type in STATED_KINDS:
            if rule_type not in policy:
                continue
            notes = FAMILIES[f"rule_note:{rule_type}/l4"].public
            assert any(note.format(**_fields(policy[rule_type])) in section for note in notes), (instance_id, rule_type)
            checked += 1
        assert prose.working_days_text(policy["working_hours"]["days"]) in section
        assert reading_of(section).buffer_edge_inclusive is ("buffer" not in policy), instance_id
    assert checked > 12


def test_no_gold_start_lies_on_a_day_the_policy_does_not_open(default_con):
    closed = default_con.execute("""
        select count(*) from oracle_answers a join stg_instances i using (instance_id)
        join stg_policy_rules r on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'working_hours'
        where not list_contains(r.days, strftime(a.starts_at, '%a'))""").fetchone()[0]
    weekend = default_con.execute("""
        select count(*), count(*) filter (where list_contains(r.days, 'Sat')) from oracle_answers a
        join stg_instances i using (instance_id)
        join stg_policy_rules r on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'working_hours'
        where isodow(a.starts_at) >= 6""").fetchone()
    assert closed == 0
    assert weekend[0] > 0 and weekend[0] == weekend[1]   # weekend answers only under policies that work weekends


def _without_days(rules: dict[str, dict]) -> dict[str, dict]:
    return {kind: {k: v for k, v in params.items() if k != "days"} for kind, params in rules.items()}


def test_without_the_statements_the_everyday_reading_misses_at_every_level(default_con, monkeypatch):
    """What silence would cost: the everyday reading, applied as if nothing were stated (no
    working days read, every convention the everyday one), misses gold answers at every level."""
    for method in ("policy_json", "policy_documents"):
        read = getattr(scripted.Reader, method)
        monkeypatch.setattr(scripted.Reader, method, lambda self, policy_id, read=read: _without_days(read(self, policy_id)))

    class Unstated(HiddenFacts):
        def policy_rules(self, policy_id):
            return _without_days(super().policy_rules(policy_id))

    ids = [i for (i,) in default_con.execute("select instance_id from instances order by instance_id").fetchall()]
    gold = gold_keys(default_con, ids)
    missed: set[int] = set()
    for instance_id in ids:
        with Environment(default_con, instance_id) as env:
            if env.level in missed:
                continue
            found = plan(env, Unstated(env.data), EVERYDAY)
        if score_keys([(s.strftime("%Y-%m-%dT%H:%M"), room) for s, room in found], gold[instance_id]).f1 < 1:
            missed.add(env.level)
    assert missed == {1, 2, 3, 4}
