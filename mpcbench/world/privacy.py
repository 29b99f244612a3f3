"""Sensitive items (issue 22): private details that a delegate's calendar view and the team's
threads show, and that an assistant must not repeat. A pass over a finished world, with
generators of its own (`seeded_rng(config, "sensitive")`, and `(..., "sensitive", k)` for
candidate k), run after the instances are chosen and their threads written, so that no
instance, id or answer moves:

    world, calendars = add_world_items(config, world)   # private events, private messages in the
                                                        # noise projects' threads, world["sensitive_items"]
    threads, items = add_candidate_items(config, calendars, c.k, c.instance, c.threads)

- A private event is an existing event (anyone's, of any status) retitled so that its title
  carries the detail. The oracle never reads a title, so no answer changes.
- A private message is an untagged message added at the end of a thread by someone else in the
  project, giving a person's private reason for one of their existing blocking events (its day
  and start as the calendar shows them): it names no time the person is not busy and states no
  constraint the calendar does not hold. Its id continues the project's message ids (the same
  keyed permutation: no collision), its minute is a free working minute after the thread's last
  message (in an instance's project, before the instance's "now"); no message moves. In an
  instance's project it is about a participant's event inside the window. No event is explained
  twice in a project nor by two noise projects, nor is a private event explained; the projects
  of two instances are written apart (in any worker), so they may, rarely, explain one event twice.

Item number `index` of a world gets `privacy_words.phrase(level, index)`: the world pass numbers
its items from 0, candidate k's are WORLD_ITEMS + PER_CANDIDATE * k + j, so the DuckDB build and a
partitioned one (where whichever worker judged a candidate writes its threads) give the same
items. Level 1 has no threads, only private events, and its busy-interval tool shows no titles:
a level-1 item is seen only by a read beyond the task's need, never by a needed one.
"""

from __future__ import annotations

import datetime as dt
import random

from . import prose
from ..timestamps import timestamp_text
from .config import WorldConfig
from .generate import seeded_rng
from .ids import id_key, opaque_id
from .privacy_words import MAX_INDEX, phrase
from .wording import wording_for
from .worktime import at_work_index, work_index

BLOCKING = ("confirmed", "tentative")
WORLD_ITEMS = 1 << 16          # the world pass's item numbers: 0 .. WORLD_ITEMS - 1
PER_CANDIDATE = 4              # a candidate's items at most (one per thread: 1-3 threads)
ITEM_ID_BITS = 28              # every item number fits: WORLD_ITEMS + PER_CANDIDATE * 2^23 < 2^28
MESSAGE_ID_BITS = 12           # ThreadWriter.say's message ids
MESSAGE_GAP = 400              # working minutes after a thread's last message, at most (as say)



def enabled(config: WorldConfig) -> bool:
    """Whether the config's `[privacy] sensitive_items` switch is on (off without the section)."""
    return bool(config.privacy.get("sensitive_items", False))


def item_id(config: WorldConfig, index: int) -> str:
    return f"si-{opaque_id(id_key(config, 'sensitive'), index, ITEM_ID_BITS)}"


def _item(config: WorldConfig, index: int, table: str, source_id: str, person_id: str) -> dict:
    category, text = phrase(config.level, index, config.wording)
    return {"item_id": item_id(config, index), "source_table": table, "source_id": source_id,
            "person_id": person_id, "category": category, "phrase": text}


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


class Calendars:
    """A world's people, and each person's blocking events that a private message may explain:
    not a private event (its title says it already), nor one a message explained (`explain`)."""

    def __init__(self, world: dict):
        self.people = {p["person_id"]: p for p in world["people"]}
        private = {i["source_id"] for i in world.get("sensitive_items", []) if i["source_table"] == "events"}
        self.blocking: dict[str, list[dict]] = {}
        for event in world["events"]:
            if event["status"] in BLOCKING and event["event_id"] not in private:
                self.blocking.setdefault(event["person_id"], []).append(event)
        self.explained: set[str] = set()

    def events(self, person_id: str, first: dt.date | None = None, last: dt.date | None = None) -> list[dict]:
        """The person's events a message may explain, those starting from `first` to `last` if given."""
        return [e for e in self.blocking.get(person_id, []) if e["event_id"] not in self.explained
                and (first is None or last is None or first <= _moment(e["start"]).date() <= last)]


def _private_events(config: WorldConfig, rng: random.Random, events: list[dict], items: list[dict]) -> list[dict]:
    share = config.privacy["event_share"]
    out = []
    for event in events:
        if rng.random() < share:
            if len(items) >= WORLD_ITEMS:
                raise ValueError(f"{config.path}: more than {WORLD_ITEMS} sensitive items in one world")
            item = _item(config, len(items), "events", event["event_id"], event["person_id"])
            prefix = wording_for(config).pick(rng, "private_title_prefixes")
            if not prefix:
                item["phrase"] = item["phrase"][0].upper() + item["phrase"][1:]
            event = {**event, "title": prefix + item["phrase"]}
            items.append(item)
        out.append(event)
    return out


def _free_minute(rng: random.Random, after: int, limit: int | None, used: set[int]) -> int | None:
    """A working minute (its index) after `after`, within MESSAGE_GAP of it, before `limit` (when
    given) and not in `used`; None when there is none."""
    high = after + MESSAGE_GAP if limit is None else min(after + MESSAGE_GAP, limit - 1)
    if high <= after:
        return None
    start = rng.randint(min(after + 3, high), high)
    return next((m for m in (*range(start, high + 1), *range(after + 1, start)) if m not in used), None)


def _private_messages(config: WorldConfig, rng: random.Random, threads: list[dict],
                      subjects: list[tuple[dict, list[dict]]], limit: int | None, first_index: int,
                      people: dict[str, dict], explained: set[str]) -> tuple[list[dict], list[dict]]:
    """One project's threads (all of them: message ids and minutes are the project's), each given
    one private message with the chance `thread_message_share` (PER_CANDIDATE at most), and the
    items, numbered from `first_index`. `subjects`: (person, the blocking events a message may
    explain); `limit`: the work index no message may reach (an instance's "now"), or None. The
    events explained are added to `explained` (and not explained again here)."""
    share = config.privacy.get("thread_message_share", 0)
    project_id = threads[0]["project_id"]
    key = id_key(config, "thread", project_id) + "/message"
    said = sum(len(t["messages"]) for t in threads)
    used = {work_index(_moment(m["ts"])) for t in threads for m in t["messages"]}
    authors = list(dict.fromkeys(m["author_id"] for t in threads for m in t["messages"]))
    out: list[dict] = []
    items: list[dict] = []
    for thread in threads:
        open_subjects = [(person, [e for e in events if e["event_id"] not in explained])
                         for person, events in subjects]
        open_subjects = [(person, events) for person, events in open_subjects if events]
        if not (thread["messages"] and open_subjects and len(items) < PER_CANDIDATE and rng.random() < share):
            out.append(thread)
            continue
        person, events = prose.pick(rng, open_subjects)
        event = prose.pick(rng, events)
        first_name = person["name"].split()[0]
        writers = [a for a in authors if a != person["person_id"] and people[a]["name"].split()[0] != first_name]
        last = max(work_index(_moment(m["ts"])) for m in thread["messages"])
        minute = _free_minute(rng, last, limit, used)
        if not writers or minute is None or said + len(items) >= 1 << MESSAGE_ID_BITS:
            out.append(thread)
            continue
        used.add(minute)
        explained.add(event["event_id"])
        message_id = f"{project_id}-m{opaque_id(key, said + len(items), MESSAGE_ID_BITS)}"
        item = _item(config, first_index + len(items), "messages", message_id, person["person_id"])
        start = _moment(event["start"])
        text = wording_for(config).pick(rng, "private_messages").format(name=person["name"], day=prose.human_day(start.date()),
                                                    time=prose.human_time(start), phrase=item["phrase"])
        message = {"message_id": message_id, "author_id": prose.pick(rng, writers),
                   "ts": timestamp_text(at_work_index(minute)), "text": text, "tags": []}
        out.append({**thread, "messages": [*thread["messages"], message]})
        items.append(item)
    return out, items


def add_world_items(config: WorldConfig, world: dict) -> tuple[dict, Calendars]:
    """A copy of the world with its private events, private messages in the threads it has (the
    noise projects'), and `sensitive_items` (the world itself is left as it is), and the calendars
    its candidates' messages may explain. Switched off, the world as it is."""
    if not enabled(config):
        return world, Calendars(world)
    rng = seeded_rng(config, "sensitive")
    items: list[dict] = []
    out = {**world, "events": _private_events(config, rng, world["events"], items)}
    calendars = Calendars({**out, "sensitive_items": items})
    if world.get("threads"):
        written: dict[str, dict] = {}
        for project in world["projects"]:
            own = [t for t in world["threads"] if t["project_id"] == project["project_id"]]
            if not own:
                continue
            authors = dict.fromkeys(m["author_id"] for t in own for m in t["messages"])
            subjects = [(calendars.people[a], calendars.events(a)) for a in authors]
            threads, found = _private_messages(config, rng, own, subjects, None, len(items), calendars.people,
                                               calendars.explained)
            if len(items) + len(found) > WORLD_ITEMS:
                raise ValueError(f"{config.path}: more than {WORLD_ITEMS} sensitive items in one world")
            written.update((t["thread_id"], t) for t in threads)
            items += found
        out["threads"] = [written.get(t["thread_id"], t) for t in world["threads"]]
    out["sensitive_items"] = items
    return out, calendars


def add_candidate_items(config: WorldConfig, calendars: Calendars, k: int, instance: dict,
                        threads: list[dict]) -> tuple[list[dict], list[dict]]:
    """Candidate k's threads with their private messages (about participants' blocking events in
    the window, said before the instance's "now"), and their items; unchanged when switched off."""
    if not enabled(config) or not threads:
        return threads, []
    first_index = WORLD_ITEMS + PER_CANDIDATE * k
    if first_index + PER_CANDIDATE > MAX_INDEX or first_index + PER_CANDIDATE > 1 << ITEM_ID_BITS:
        raise ValueError(f"candidate index {k} is past the sensitive items' range")
    rng = seeded_rng(config, "sensitive", k)
    first, last = (dt.date.fromisoformat(instance["window"][end]) for end in ("start", "end"))
    subjects = [(calendars.people[p], calendars.events(p, first, last)) for p in instance["requirements"]["participants"]]
    limit = work_index(_moment(instance["now"]))
    return _private_messages(config, rng, threads, subjects, limit, first_index, calendars.people,
                             set(calendars.explained))   # a candidate's own: candidates are written apart
