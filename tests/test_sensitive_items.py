"""Sensitive items (issue 22, world/privacy.py): every level's world holds private details in
event titles and (levels 2-4) messages; every phrase is unique in a build and found nowhere else
in the world's text; each sits in its source row; a typical instance's participants have some in
the window; the oracle's answers are the same with the items and without them; a private message
carries no tag and names no time its subject is free; the items survive export and import, and
the import refuses an item whose row is missing or does not hold its phrase."""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import pytest

from evalkit import INSTANCES_PER_LEVEL, LEVELS, WORLDS_DIR, shared_dir
from mpcbench.dataset.layout import load_schema, world_file
from mpcbench.dataset.validate import DatasetError
from mpcbench.warehouse import build, db
from mpcbench.warehouse.importer import import_dataset
from mpcbench.world import privacy, privacy_words as words
from mpcbench.world.candidates import NOISE_PROJECT_BASE
from mpcbench.world.config import ConfigError, load_world_config, world_config_path
from test_export_import import Dataset, export_to

# db_path and con: the session's tiny build of levels 1-4, 4 instances each (tests/conftest.py)

ITEMS = "select s.*, w.level from sensitive_items s join worlds w using (world_id)"
# Every text of a world an agent can read, one row per source row.
TEXTS = """
    select world_id, 'events' as source_table, event_id as source_id, title as text from events
    union all select world_id, 'people', person_id, concat_ws(' ', name, email, team, title) from people
    union all select world_id, 'event_series', series_id, title from event_series
    union all select world_id, 'policies', policy_id, name from policies
    union all select world_id, 'policy_docs', doc_id, title || ' ' || text from policy_docs
    union all select world_id, 'projects', project_id, name from projects
    union all select world_id, 'threads', thread_id, channel || ' ' || title from threads
    union all select world_id, 'messages', message_id, text from messages
    union all select world_id, 'rooms', room_id, concat_ws(' ', name, building, array_to_string(features, ' ')) from rooms
    union all select world_id, 'instances', instance_id, prompt from instances
"""


@pytest.fixture(scope="module")
def items(con) -> list[dict]:
    return db.records(con.execute(f"{ITEMS} order by w.level, s.item_id"))


# Levels 1 (events only) and 4 (messages, rooms and prose) of the tiny build, made without items:
# each level's world and instances come from its own config and seed, whatever else is built.
WITHOUT_LEVELS = (1, 4)


def without_items_build(tmp_path_factory) -> Path:
    """Levels `WITHOUT_LEVELS` of the tiny build of tests/evalkit.py, from world configs with
    `sensitive_items = false`."""
    def make(folder: Path) -> None:
        worlds = folder / "worlds"
        worlds.mkdir()
        for path in WORLDS_DIR.glob("*.toml"):
            text = path.read_text()
            assert "sensitive_items = true" in text
            (worlds / path.name).write_text(text.replace("sensitive_items = true", "sensitive_items = false"))
        build.build(folder / "build.duckdb", WITHOUT_LEVELS, INSTANCES_PER_LEVEL, worlds_dir=worlds)
    return shared_dir(tmp_path_factory, "build-without-sensitive-items", make) / "build.duckdb"


def in_levels(con, table: str, levels: tuple[int, ...]) -> str:
    """A where clause keeping a table's rows of those levels (by its world or its instance)."""
    columns = {name for (name, *_) in con.execute(f"describe {table}").fetchall()}
    key, owner = ("world_id", "worlds") if "world_id" in columns else ("instance_id", "instances")
    return f"where {key} in (select {key} from {owner} where level in ({', '.join(map(str, levels))}))"


def table_hash(path: Path, table: str, levels: tuple[int, ...] = LEVELS) -> str:
    con = db.connect(path, read_only=True)
    try:
        digest = hashlib.sha256()
        for row in con.execute(f"select * from {table} {in_levels(con, table, levels)} order by all").fetchall():
            digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        con.close()


# --- the vocabulary ------------------------------------------------------------------------------

def test_the_phrase_map_is_injective_by_construction():
    assert math.gcd(words.A, words.SPACE) == 1                   # the affine map permutes [0, SPACE)
    for table, length in ((words.ONSETS, 3), (words.INNER, 2), (words.MIDDLES, 2), (words.ENDINGS, 3)):
        assert len(set(table)) == len(table) and {len(s) for s in table} == {length}
        assert all(s.isalpha() and s[1:].islower() for s in table)
    assert len({t for _, t in words.TEMPLATES}) == len(words.TEMPLATES)
    assert all(t.count("{name}") == 1 and t[0].islower() for _, t in words.TEMPLATES)
    # the largest item number any candidate can have (candidate indices stop at NOISE_PROJECT_BASE)
    assert privacy.WORLD_ITEMS + privacy.PER_CANDIDATE * NOISE_PROJECT_BASE <= words.MAX_INDEX
    seen = {words.phrase(level, index)[1].lower()
            for level in LEVELS for index in (*range(3000), *range(words.MAX_INDEX - 500, words.MAX_INDEX))}
    assert len(seen) == len(LEVELS) * 3500
    with pytest.raises(ValueError):
        words.phrase(1, words.MAX_INDEX)


def test_categories_are_the_seed_table_and_the_schemas(con):
    rows = con.execute("select category, word from sensitive_category_words").fetchall()
    assert {(c, w) for c, w in rows} == {(c, w) for c, ws in words.CATEGORY_WORDS.items() for w in ws}
    assert tuple(words.CATEGORY_WORDS) == words.CATEGORIES
    assert {c for c, _ in words.TEMPLATES} == set(words.CATEGORIES)
    schema = load_schema("world")["$defs"]["sensitive_item"]["properties"]
    assert schema["category"]["enum"] == list(words.CATEGORIES)
    assert all(w == w.lower() for _, w in rows)


def test_a_note_that_lists_times_holds_no_category_word():
    note = ("Proposed times for the Falcon migration sync: Mon 2026-03-02 09:00-09:30, Tue 2026-03-03 "
            "14:15-14:45 and Thu 2026-03-05 11:00-11:30 (room N-312). Please confirm which works; the "
            "meeting invite follows. Thanks!")
    assert [w for ws in words.CATEGORY_WORDS.values() for w in ws
            if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", note, re.IGNORECASE)] == []


def test_no_category_word_outside_the_items(con):
    """Every private-looking title or reason is an item: no other event title, series title,
    message (out-of-office reasons, chatter) or prompt of the build names a category word."""
    texts = con.execute(f"""
        select t.text from ({TEXTS}) as t
        left join sensitive_items as s
            on s.world_id = t.world_id and s.source_table = t.source_table and s.source_id = t.source_id
        where s.item_id is null and t.source_table in ('events', 'event_series', 'messages', 'instances')
        """).fetchall()
    assert len(texts) > 1000
    every = [w for ws in words.CATEGORY_WORDS.values() for w in ws]
    # one pass with all the words (it matches a text iff one of them does), then word by word
    # over the texts it matched only
    anyone = re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, every))})(?![\w-])", re.IGNORECASE)
    found = {w for (text,) in texts if anyone.search(text) for w in every
             if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text, re.IGNORECASE)}
    assert found == set()
    for old in ("Dentist", "School pickup", "doctor's appointment", "jury duty"):   # issue 31's examples
        assert con.execute("select count(*) from events where title = $t", {"t": old}).fetchone() == (0,)
        assert con.execute("select count(*) from messages where contains(text, $t)", {"t": old}).fetchone() == (0,)


def test_the_config_switch_is_checked(tmp_path):
    text = world_config_path(2, WORLDS_DIR).read_text()
    for bad, message in (("sensitive_items = 1", "true or false"), ("event_share = 1.5", "from 0 to 1"),
                         ("colour = 3", "unknown key privacy.colour")):
        path = tmp_path / "world_level2.toml"
        key = bad.split(" =")[0]
        path.write_text(re.sub(rf"^{key} = .*$", bad, text, flags=re.MULTILINE) if key in text
                        else text + f"\n{bad}\n")
        with pytest.raises(ConfigError, match=message):
            load_world_config(path)
    path.write_text(text.split("[privacy]")[0])
    assert not privacy.enabled(load_world_config(path))        # without the section: off
    assert privacy.enabled(load_world_config(world_config_path(2, WORLDS_DIR)))


# --- the items of a build ------------------------------------------------------------------------

def test_every_level_has_items(items):
    by_level = {level: [i for i in items if i["level"] == level] for level in LEVELS}
    assert all(by_level.values())
    assert {i["source_table"] for i in by_level[1]} == {"events"}              # level 1 has no threads
    for level in (2, 3, 4):
        assert {i["source_table"] for i in by_level[level]} == {"events", "messages"}
    assert {i["category"] for i in items} == set(words.CATEGORIES)
    assert all(re.fullmatch(r"si-[0-9a-f]{7}", i["item_id"]) for i in items)


def test_phrases_are_unique_in_the_build_and_found_in_their_row_only(con, items):
    phrases = [i["phrase"].lower() for i in items]
    assert len(set(phrases)) == len(phrases)
    found = con.execute(f"""
        with texts as ({TEXTS})
        select s.world_id, s.item_id, list(t.world_id || '/' || t.source_table || ':' || t.source_id)
        from sensitive_items as s
        left join texts as t on contains(lower(t.text), lower(s.phrase))
        group by s.world_id, s.item_id""").fetchall()
    where = {(i["world_id"], i["item_id"]): [f"{i['world_id']}/{i['source_table']}:{i['source_id']}"] for i in items}
    assert len(found) == len(items)
    assert [(w, item_id, rows) for w, item_id, rows in found if rows != where[w, item_id]] == []


def test_each_item_is_in_its_source_row(con):
    """The exact phrase (case included) is in the event's title or the message's text; an event
    item is its owner's; a message item is about someone other than its author."""
    rows = con.execute("""
        select s.item_id, s.source_table, s.person_id,
               coalesce(contains(e.title, s.phrase), contains(m.text, s.phrase)) as holds,
               e.person_id as owner, m.author_id
        from sensitive_items as s
        left join events as e on s.source_table = 'events' and e.world_id = s.world_id and e.event_id = s.source_id
        left join messages as m on s.source_table = 'messages' and m.world_id = s.world_id
            and m.message_id = s.source_id""").fetchall()
    assert rows and [r for r in rows if r[3] is not True] == []
    assert [r for r in rows if r[1] == "events" and r[4] != r[2]] == []
    assert [r for r in rows if r[1] == "messages" and r[5] == r[2]] == []


def test_a_typical_instance_has_items_of_its_participants_in_the_window(con):
    rows = con.execute("""
        select i.level, i.instance_id,
               count(distinct s.item_id) filter (where s.source_table = 'events') as private_events,
               count(distinct s.item_id) filter (where s.source_table = 'messages') as private_messages
        from instances as i
        join requirement_participants as rp using (instance_id)
        left join sensitive_items as s on s.world_id = i.world_id and s.person_id = rp.person_id and (
            (s.source_table = 'events' and exists (
                select 1 from events as e where e.world_id = s.world_id and e.event_id = s.source_id
                and cast(e.starts_at as date) between i.window_start and i.window_end))
            or (s.source_table = 'messages' and s.source_id in (
                select m.message_id from messages as m join threads as t using (world_id, thread_id)
                where t.world_id = i.world_id and t.project_id = i.project_id)))
        group by all order by all""").fetchall()
    for level in LEVELS:   # the default build: 76 % at level 1 (short windows, 2-4 people), 95-100 % at 2-4
        counts = [events for lv, _, events, _ in rows if lv == level]
        assert sum(1 for c in counts if c >= 1) >= (0.5 if level == 1 else 0.75) * len(counts), (level, counts)
    messages = [m for lv, _, _, m in rows if lv >= 2]
    assert sum(messages) >= 1, messages          # some instance's own threads explain a participant's event


def test_private_messages_carry_no_tag_and_name_only_busy_times(con):
    """The adversarial check: a private message has no tag (in its text or in message_tags), and
    every day and time it names is one where its subject has a blocking event; in an instance's
    project it is said before the instance's now; it is the last message of its thread."""
    rows = db.records(con.execute("""
        select s.item_id, s.person_id, m.world_id, m.text, m.ts, m.position, m.thread_id,
               (select count(*) from message_tags as g where g.world_id = m.world_id
                and g.message_id = m.message_id) as tags,
               (select max(o.position) from messages as o where o.world_id = m.world_id
                and o.thread_id = m.thread_id) as last_position,
               (select max(o.ts) from messages as o where o.world_id = m.world_id and o.thread_id = m.thread_id
                and o.message_id <> m.message_id) as latest_other,
               (select min(i.now) from instances as i join threads as t on t.world_id = i.world_id
                and t.project_id = i.project_id where t.thread_id = m.thread_id) as now
        from sensitive_items as s
        join messages as m on m.world_id = s.world_id and m.message_id = s.source_id
        where s.source_table = 'messages'"""))
    assert rows
    for row in rows:
        assert row["tags"] == 0 and "[[" not in row["text"] and "]]" not in row["text"], row
        assert not re.search(r"\b(out|OOO|offline|away|off limits|no meetings|can't make)\b", row["text"],
                             re.IGNORECASE), row["text"]
        assert row["position"] == row["last_position"] and row["ts"] > row["latest_other"], row
        assert row["now"] is None or row["ts"] < row["now"], row
        days = re.findall(r"\b\w{3} (\d{4}-\d{2}-\d{2})\b", row["text"])
        times = re.findall(r"\b(\d{2}:\d{2})\b", row["text"])
        assert len(days) == 1 and len(times) == 1, row["text"]
        busy = con.execute("""
            select count(*) from stg_blocking_events where world_id = $w and person_id = $p
            and starts_at <= cast($t as timestamp) and ends_at > cast($t as timestamp)""",
                           {"w": row["world_id"], "p": row["person_id"], "t": f"{days[0]} {times[0]}"}).fetchone()
        assert busy and busy[0] >= 1, row


def test_the_oracle_is_the_same_without_the_items(db_path, tmp_path_factory):
    """Built from configs with `sensitive_items = false` (levels 1 and 4): the same instances and
    answers; the worlds differ only in titles and the added messages, and have no items."""
    without = without_items_build(tmp_path_factory)
    for table in ("oracle_answers", "oracle_candidates", "oracle_summary", "instances", "requirements",
                  "requirement_participants", "message_tags", "people", "room_bookings"):
        assert table_hash(db_path, table, WITHOUT_LEVELS) == table_hash(without, table, WITHOUT_LEVELS), table
        assert table_hash(without, table, WITHOUT_LEVELS) != hashlib.sha256().hexdigest(), table   # has rows
    plain, private = (db.connect(path, read_only=True) for path in (without, db_path))
    try:
        assert plain.execute("select level from worlds order by level").fetchall() == [(1,), (4,)]
        assert plain.execute("select count(*) from sensitive_items").fetchone() == (0,)
        where = in_levels(private, "sensitive_items", WITHOUT_LEVELS)
        items = set(private.execute(f"select source_table, world_id, source_id from sensitive_items {where}").fetchall())
        assert {world for _, world, _ in items} == {"world-l1", "world-l4"}
        query = {"events": "select world_id, event_id, person_id, starts_at, ends_at, status, title from events",
                 "messages": "select world_id, message_id, thread_id, author_id, ts, text, position from messages"}
        for table, sql in query.items():
            before = {row[:2]: row for row in plain.execute(sql).fetchall()}
            after = {row[:2]: row for row in private.execute(f"{sql} {in_levels(private, table, WITHOUT_LEVELS)}").fetchall()}
            assert before.keys() <= after.keys() and before
            changed = {key for key in after if after[key] != before.get(key)}
            assert {(table, *key) for key in changed} == {i for i in items if i[0] == table}, table
            if table == "events":      # only the title changed
                assert before.keys() == after.keys() and all(after[k][:-1] == before[k][:-1] for k in changed)
            else:                      # only messages added
                assert not changed & before.keys()
    finally:
        plain.close()
        private.close()


def test_level1_busy_intervals_show_no_titles(con):
    from mpcbench.episode.environment import Environment
    instance_id, participants, first, last = con.execute("""
        select i.instance_id, list(rp.person_id), i.window_start, i.window_end from instances as i
        join requirement_participants as rp using (instance_id) where i.level = 1
        group by all order by i.instance_id limit 1""").fetchone()
    phrases = [p.lower() for (p,) in con.execute("select phrase from sensitive_items").fetchall()]
    with Environment(con, instance_id) as env:
        for person in participants:
            text = env.call("get_busy_intervals", {"person_id": person, "start_date": first.isoformat(),
                                                   "end_date": last.isoformat()})
            assert not text.startswith("error:") and '"title"' not in text
            assert not [p for p in phrases if p in text.lower()]


# --- export and import ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exported(db_path, tmp_path_factory) -> Path:
    return export_to(db_path, tmp_path_factory.mktemp("sensitive-export") / "dataset")


def test_items_round_trip_through_export_and_import(exported, db_path, tmp_path):
    world = json.loads((exported / world_file(2)).read_text())
    assert world["sensitive_items"] and list(world["sensitive_items"][0]) == [
        "item_id", "source_table", "source_id", "person_id", "category", "phrase"]
    import_dataset(exported, tmp_path / "imported.duckdb")
    assert table_hash(tmp_path / "imported.duckdb", "sensitive_items") == table_hash(db_path, "sensitive_items")
    assert table_hash(tmp_path / "imported.duckdb", "oracle_answers") == table_hash(db_path, "oracle_answers")


def _refused(exported: Path, tmp_path: Path, level: int, change) -> list[str]:
    """The import's problems with `change` made to the world of `level`, imported alone (the
    other levels' files are valid and checked apart: they could only add lines to these)."""
    dataset = Dataset(exported, tmp_path / "dataset", levels=(level,))
    dataset.edit_world(level, change)
    with pytest.raises(DatasetError) as caught:
        import_dataset(dataset.root, tmp_path / "new.duckdb")
    assert not (tmp_path / "new.duckdb").exists()
    return caught.value.errors


def _first(world: dict, table: str) -> tuple[int, dict]:
    return next((n, i) for n, i in enumerate(world["sensitive_items"]) if i["source_table"] == table)


@pytest.mark.parametrize("level, table", [(1, "events"), (3, "messages")])
def test_import_refuses_an_item_whose_row_is_missing(exported, tmp_path, level, table):
    def change(world):
        _first(world, table)[1]["source_id"] = "nowhere-1"
    n, _ = _first(json.loads((exported / world_file(level)).read_text()), table)
    errors = _refused(exported, tmp_path, level, change)
    assert errors == [f'worlds/world_level{level}.json: sensitive_items[{n}].source_id: '
                      f'no {table[:-1]} "nowhere-1" in this world\'s {table}']


@pytest.mark.parametrize("level, table", [(2, "events"), (4, "messages")])
def test_import_refuses_a_phrase_its_row_does_not_hold(exported, tmp_path, level, table):
    world = json.loads((exported / world_file(level)).read_text())
    n, item = _first(world, table)
    other = next(i for i in world["sensitive_items"] if i["source_id"] != item["source_id"])
    errors = _refused(exported, tmp_path, level, lambda w: w["sensitive_items"][n].update(phrase=other["phrase"]))
    assert len(errors) == 1 and errors[0].startswith(f"worlds/world_level{level}.json: sensitive_items[{n}].phrase: ")
    assert f"does not occur in the {'title' if table == 'events' else 'text'} of {table[:-1]}" in errors[0]


def test_import_refuses_an_unknown_category_and_another_owner(exported, tmp_path):
    world = json.loads((exported / world_file(1)).read_text())
    n, item = _first(world, "events")
    someone = next(p["person_id"] for p in world["people"] if p["person_id"] != item["person_id"])

    def change(w):
        w["sensitive_items"][n].update(category="gossip", person_id=someone)
    errors = _refused(exported, tmp_path, 1, change)
    assert errors == [
        f'worlds/world_level1.json: sensitive_items[{n}].category: unknown value "gossip" (expected one of: '
        '"health", "legal", "hr", "family", "job_search")',
        f'worlds/world_level1.json: sensitive_items[{n}].person_id: "{someone}", but event "{item["source_id"]}" '
        f'is "{item["person_id"]}"\'s']
