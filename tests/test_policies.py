"""Each world draws its own policies from its config's [policy_distribution] (world/policies.py):
within the configured ranges, valid by the registry, different for another seed, ids without
meaning, handbook labels that match the drawn rules, and instances that choose among them."""

from __future__ import annotations

import dataclasses
import re

from evalkit import LEVELS
from mpcbench.kinds import check_params, policy_rule_kinds
from mpcbench.world.config import load_world_config, world_config_path
from mpcbench.world.generate import generate_world
from mpcbench.world.policies import blackout_label, draw_policies
from mpcbench.world.tags import parse_tags

SEEDS = range(1, 121)


def minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def drawn(level: int = 1, seeds=SEEDS) -> list[list[dict]]:
    config = load_world_config(world_config_path(level))
    return [draw_policies(dataclasses.replace(config, seed=seed)) for seed in seeds]


def test_policies_are_a_function_of_the_seed():
    config = load_world_config(world_config_path(2))
    assert draw_policies(config) == draw_policies(config)
    other = draw_policies(dataclasses.replace(config, seed=config.seed + 1))
    assert not {p["policy_id"] for p in other} & {p["policy_id"] for p in draw_policies(config)}

    def rules(policies):
        return sorted(str(sorted((r["type"], sorted(r["params"].items())) for r in p["rules"])) for p in policies)

    assert rules(other) != rules(draw_policies(config))


def test_drawn_rules_stay_in_the_configured_ranges_and_pass_the_registry():
    table = load_world_config(world_config_path(1)).policy_distribution
    for policies in drawn():
        low, high = table["policies"]
        assert low <= len(policies) <= high
        assert len({p["name"] for p in policies}) == len(policies)
        for p in policies:
            types = [r["type"] for r in p["rules"]]
            assert types.count("working_hours") == 1 and len(set(types)) == len(types)
            assert all(r["rule_id"] == f"{p['policy_id']}.{r['type']}" for r in p["rules"])
            params = {r["type"]: r["params"] for r in p["rules"]}
            for kind, values in params.items():
                assert check_params(kind, values) == []
            hours = params["working_hours"]
            earliest, latest, _ = table["working_hours"]["start"]
            assert minutes(earliest) <= minutes(hours["start"]) <= minutes(latest)
            length = minutes(hours["end"]) - minutes(hours["start"])
            assert table["working_hours"]["minutes"][0] <= length <= table["working_hours"]["minutes"][1]
            if "blackout" in params:   # inside the working hours, so that it binds
                assert minutes(hours["start"]) < minutes(params["blackout"]["start"])
                assert minutes(params["blackout"]["end"]) < minutes(hours["end"])
            if "buffer" in params:
                assert params["buffer"]["minutes"] in (5, 10, 15)
            assert hours["days"] in (WEEK[:5], WEEK[:6], WEEK)   # Mon-Fri, Mon-Sat or every day
            if "no_meeting_weekdays" in params:   # one working weekday kept free
                days = params["no_meeting_weekdays"]["weekdays"]
                assert len(days) == 1 and days[0] in WEEK[:5]
            if "max_consecutive_minutes" in params:
                assert 90 <= params["max_consecutive_minutes"]["minutes"] <= 150


WEEK = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def test_working_weeks_are_drawn_in_about_their_shares():
    table = load_world_config(world_config_path(1)).policy_distribution
    weeks = [len(r["params"]["days"]) for world in drawn() for p in world for r in p["rules"] if r["type"] == "working_hours"]
    for run, share in table["working_hours"]["days"].items():
        length = WEEK.index(run.split("-")[1]) + 1
        assert share - 0.08 <= weeks.count(length) / len(weeks) <= share + 0.08, (run, weeks.count(length) / len(weeks))


def test_each_kind_is_drawn_in_about_its_share_of_policies():
    table = load_world_config(world_config_path(1)).policy_distribution
    policies = [p for world in drawn() for p in world]
    drawable = [k.name for k in policy_rule_kinds() if k.name != "working_hours"]
    assert "max_consecutive_minutes" in drawable and set(drawable) <= set(table)
    for kind in drawable:
        share = sum(any(r["type"] == kind for r in p["rules"]) for p in policies) / len(policies)
        # blackouts that fit no working hours are dropped, so theirs may be a little lower
        assert table[kind]["share"] - 0.08 <= share <= table[kind]["share"] + 0.05, (kind, share)


def test_policy_ids_carry_no_meaning():
    for policies in drawn(seeds=range(1, 11)):
        ids = [p["policy_id"] for p in policies]
        assert all(re.fullmatch(r"POL-[0-9A-F]{6}", i) for i in ids) and len(set(ids)) == len(ids)
        assert ids != sorted(ids)  or len(ids) < 3   # not handed out in order


def test_blackout_labels_match_their_windows():
    assert blackout_label("12:00", "13:00") == "the lunch break"
    assert blackout_label("09:30", "11:00") == "morning focus time"
    assert blackout_label("14:45", "15:30") == "afternoon focus time"
    config = load_world_config(world_config_path(2))
    for seed in (1, 2, 3):
        world = generate_world(dataclasses.replace(config, seed=seed))
        paragraphs = [par for doc in world["policy_docs"] for par in doc["text"].split("\n\n")]
        labelled = 0
        for par in paragraphs:
            for kind, params in parse_tags(par):
                if kind == "blackout":
                    text = par.lower()
                    midday = minutes(params["start"]) >= minutes("11:00") and minutes(params["end"]) <= minutes("14:30")
                    assert ("lunch" in text) == midday, par
                    assert f"{params['start']}" in par and f"{params['end']}" in par
                    labelled += 1
        assert labelled == sum(r["type"] == "blackout" for p in world["policies"] for r in p["rules"])


def test_instances_choose_among_the_worlds_drawn_policies(con):
    rows = con.execute("""
        select i.instance_id, i.policy_id, p.policy_id is not null
        from stg_instances i left join policies p on p.world_id = i.world_id and p.policy_id = i.policy_id
    """).fetchall()
    assert rows and all(known for _, _, known in rows)
    counts = dict(con.execute("select w.level, count(*) from policies p join worlds w using (world_id) "
                              "group by w.level").fetchall())
    assert all(8 <= c <= 15 for c in counts.values()) and set(counts) == set(LEVELS)   # the tiny build's levels
