"""Text worth reading: messages are sent in working hours, never address their own author,
never repeat; noise projects look like real ones; every fact kind has several phrasings.
SQL over the raw tables of a build."""

from __future__ import annotations

import random
import re

import pytest

from mpcbench.world import prose
from mpcbench.world.tags import render_tag
from mpcbench.world.wording import FAMILIES, OOD, PUBLIC


@pytest.fixture(scope="module", params=["tiny", "noise"])
def scope(request):
    """tiny: every message of the tiny build; noise: those of noise projects only (no instance)."""
    return "" if request.param == "tiny" else \
        "and th.project_id not in (select project_id from instances where project_id is not null)"


def test_messages_are_sent_in_working_hours(con, scope):
    rows = con.execute(f"""
        select m.message_id, m.ts from messages m join threads th using (world_id, thread_id)
        where (dayofweek(m.ts) in (0, 6) or hour(m.ts) < 8 or hour(m.ts) >= 19) {scope}""").fetchall()
    assert rows == []
    assert con.execute("select count(*) from messages").fetchall()[0][0] > 100


def test_no_message_addresses_or_announces_its_own_author(con, scope):
    rows = con.execute(f"""
        select m.text, p.name from messages m
        join threads th using (world_id, thread_id)
        join people p on p.world_id = m.world_id and p.person_id = m.author_id
        where not exists (select 1 from message_tags t where t.world_id = m.world_id and t.message_id = m.message_id)
          and regexp_matches(m.text, '\\b' || split_part(p.name, ' ', 1) || '\\b') {scope}""").fetchall()
    assert rows == []
    absent_authors = con.execute("""
        select m.message_id from message_tags t
        join messages m using (world_id, message_id)
        join people p on p.world_id = m.world_id and p.person_id = m.author_id
        where t.tag_type = 'ooo' and (json_extract_string(t.params, '$.person_id') = p.person_id
                                      or json_extract_string(t.params, '$.person_name') = p.name)""").fetchall()
    assert absent_authors == []


def test_no_message_repeats_in_a_project_and_times_are_distinct(con, scope):
    repeats = con.execute(f"""
        select th.project_id, m.text, count(*) from messages m join threads th using (world_id, thread_id)
        where true {scope} group by all having count(*) > 1""").fetchall()
    assert repeats == []
    same_minute = con.execute(f"""
        select th.project_id, m.ts, count(*) from messages m join threads th using (world_id, thread_id)
        where true {scope} group by all having count(*) > 1""").fetchall()
    assert same_minute == []


def test_noise_projects_are_named_like_real_ones(con):
    names = con.execute("select name, exists (select 1 from instances i where i.project_id = p.project_id) "
                        "from projects p").fetchall()
    assert {is_instance for _, is_instance in names} == {True, False}
    for name, _ in names:
        assert re.fullmatch(r"[A-Z][a-z]+ [a-z]+", name), name


FACT_FAMILIES = ("ban", "ooo", "deadline", *prose.REQUIREMENT_TEXT)
SIDES = ("public", "ood")


def _distinct(rendered: set[str], tag: str = "") -> bool:
    """No two differ only in punctuation or case."""
    return len({re.sub(r"\W+", " ", r.replace(tag, "") if tag else r).strip().lower() for r in rendered}) == len(rendered)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("kind", [*FACT_FAMILIES, "revision"])
def test_every_fact_kind_has_five_phrasings_and_ten_at_level4(kind, side):
    words = dict(reason="the all-hands", day="Mon 2026-03-02", start="09:00", end="10:00", name="Ana Lima",
                 when="Mon 2026-03-02", end_by="Mon 2026-03-02 17:00", value="X", tag=render_tag(kind, {}))
    for family, least in ((kind, 5), (f"{kind}/l4", 10)):
        if family in FAMILIES:
            rendered = {t.format(**words) for t in getattr(FAMILIES[family], side)}
            assert len(rendered) >= least and _distinct(rendered, words["tag"]), family


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("kind", sorted(prose.RULE_PROSE))
def test_every_rule_kind_has_ten_phrasings_in_a_level4_handbook(kind, side):
    """Level 4 states the rules in prose only, from the rule's phrasings and the level-4 extras."""
    words = dict(start="09:00", end="17:00", label="focus time", minutes=15, weekdays_text="Mon and Fri",
                 hours=24, count=4)
    rendered = {t.format(**words) for t in getattr(FAMILIES[f"rule:{kind}/l4"], side)}
    assert len(rendered) >= 10 and _distinct(rendered)


@pytest.mark.parametrize("side", SIDES)
def test_the_owner_has_ten_phrasings_that_name_them(side):
    rendered = {t.format(name="Ana Lima") for t in getattr(FAMILIES["owner"], side)}
    assert len(rendered) >= 10 and all("Ana Lima" in r for r in rendered)


@pytest.mark.parametrize("words", [PUBLIC, OOD])
def test_chatter_never_repeats_within_a_project_even_when_long(words):
    rng = random.Random(0)
    seen = {words.chatter(rng, ["Ana", "Ben"])[1] for _ in range(2000)}
    assert len(seen) > 150    # enough distinct texts that a long thread need not repeat
