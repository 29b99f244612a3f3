"""What a JSON Schema cannot say about a dataset: duplicate ids, ids that point nowhere, intervals
that end before they start, a policy without working hours, requirements that `given` and the
threads do not state.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..levels import level_spec
from .rules import check_level4, check_tag_types_once
from .validate import Doc, Problems, dict_items, parse_moment, schema_pattern, short, text_at


REQUIREMENT_TAGS = ("participants", "duration", "count", "policy", "tie_break", "room")
REQUIRED = object()


@dataclass
class World:
    """What the instance checks need to know about a checked world."""
    world_id: str
    level: int
    person_ids: set[str] = field(default_factory=set)
    person_by_name: dict[str, str] = field(default_factory=dict)
    shared_names: set[str] = field(default_factory=set)   # reported at people[i].name already
    policy_ids: set[str] = field(default_factory=set)
    project_ids: set[str] = field(default_factory=set)
    # project_id (None: a thread without one) -> [((ts, message_id), tag type, params, message_id, author_id)]
    tags_by_project: dict[str | None, list] = field(default_factory=dict)


class Checker:
    """Reports the problems of one document (a world, or one instance line)."""

    def __init__(self, doc: Doc, problems: Problems):
        self.doc, self.problems = doc, problems
        self.data = doc.data if isinstance(doc.data, dict) else {}

    def error(self, path: str, message: str) -> None:
        self.problems.add(self.doc.where, path, message)

    def moment(self, path: str, text: str | None, kind: str = "timestamp") -> dt.datetime | None:
        moment, is_real = parse_moment(text, kind)
        if not is_real:
            self.error(path, f"{short(text)} is not a real {'date and time' if kind == 'timestamp' else 'date'}")
        return moment

    def interval(self, path: str, item: dict) -> None:
        """item's start < end (half-open, so an empty interval is an error too)."""
        start = self.moment(f"{path}.start", text_at(item, "start"))
        end = self.moment(f"{path}.end", text_at(item, "end"))
        if start and end and end <= start:
            self.error(f"{path}.end", f"{item['end']} is not after start {item['start']}")

    def known(self, path: str, value: str | None, ids: set[str], what: str, world_id: str = "") -> None:
        if value is not None and value not in ids:
            self.error(path, f"unknown {what} {short(value)}" + (f" in world {short(world_id)}" if world_id else ""))

    def unique(self, items: list[tuple[str, str | None]], what: str) -> set[str]:
        """items: (json path, id). Reports each repeat; returns the ids."""
        first: dict[str, str] = {}
        for path, value in items:
            if value is None:
                continue
            if value in first:
                self.error(path, f"duplicate {what} {short(value)} (first at {first[value]})")
            else:
                first[value] = path
        return set(first)


class WorldChecker(Checker):
    """The checks on a world that a JSON Schema cannot express: ids, references, intervals."""

    def check(self, level: int) -> World:
        d = self.data
        spec = level_spec(level)
        world = World(text_at(d, "world_id") or "", level)
        people = dict_items(d.get("people"))
        world.person_ids = self.unique([(f"people[{i}].person_id", text_at(p, "person_id")) for i, p in people],
                                       "person_id")
        rows_by_name: dict[str, list[int]] = {}
        for i, p in people:
            if text_at(p, "name") is not None:
                rows_by_name.setdefault(p["name"], []).append(i)
        world.person_by_name = {name: text_at(d["people"][rows[0]], "person_id") or ""
                                for name, rows in rows_by_name.items() if len(rows) == 1}
        world.shared_names = {name for name, rows in rows_by_name.items() if len(rows) > 1}
        if spec.people_by_name:
            for name, rows in rows_by_name.items():
                for i in rows[1:]:
                    self.error(f"people[{i}].name", f"{short(name)} is also the name of people[{rows[0]}]; "
                               "level-3 threads name people, so names must be unique")
        events = dict_items(d.get("events"))
        self.unique([(f"events[{i}].event_id", text_at(e, "event_id")) for i, e in events], "event_id")
        for i, e in events:
            self.known(f"events[{i}].person_id", text_at(e, "person_id"), world.person_ids, "person")
            self.interval(f"events[{i}]", e)
        world.policy_ids = self.check_policies(dict_items(d.get("policies")))
        if spec.policy_docs:
            self.unique([(f"policy_docs[{i}].doc_id", text_at(doc, "doc_id"))
                         for i, doc in dict_items(d.get("policy_docs"))], "doc_id")
        if spec.threads:
            world.project_ids = self.unique([(f"projects[{i}].project_id", text_at(p, "project_id"))
                                             for i, p in dict_items(d.get("projects"))], "project_id")
            self.check_threads(world)
        if spec.zones_and_series:
            check_level4(self, world.person_ids, dict_items(d.get("series")))
        if spec.rooms:
            room_ids = self.unique([(f"rooms[{i}].room_id", text_at(r, "room_id"))
                                    for i, r in dict_items(d.get("rooms"))], "room_id")
            for i, b in dict_items(d.get("room_bookings")):
                self.known(f"room_bookings[{i}].room_id", text_at(b, "room_id"), room_ids, "room")
                self.interval(f"room_bookings[{i}]", b)
        self.check_sensitive_items(world)
        return world

    def check_sensitive_items(self, world: World) -> None:
        """Each item's row exists in the world, holds its phrase (an event's title, a message's
        text) and, for an event, belongs to the item's person; item ids are unique. (The schema
        checks the category and the source table.)"""
        events = {e.get("event_id"): e for _, e in dict_items(self.data.get("events"))}
        messages = {m.get("message_id"): m for _, t in dict_items(self.data.get("threads"))
                    for _, m in dict_items(t.get("messages"))}
        items = dict_items(self.data.get("sensitive_items"))
        self.unique([(f"sensitive_items[{i}].item_id", text_at(item, "item_id")) for i, item in items], "item_id")
        for i, item in items:
            path, table, source = f"sensitive_items[{i}]", text_at(item, "source_table"), text_at(item, "source_id")
            person, phrase = text_at(item, "person_id"), text_at(item, "phrase")
            self.known(f"{path}.person_id", person, world.person_ids, "person")
            if table not in ("events", "messages") or source is None:
                continue                          # the schema said so
            row = (events if table == "events" else messages).get(source)
            field = "title" if table == "events" else "text"
            if row is None:
                self.error(f"{path}.source_id", f"no {table[:-1]} {short(source)} in this world's {table}")
            elif phrase and phrase not in (text_at(row, field) or ""):
                self.error(f"{path}.phrase", f"{short(phrase)} does not occur in the {field} of {table[:-1]} "
                           f"{short(source)}")
            elif (table == "events" and person is not None and row.get("person_id") != person
                  and row.get("person_id") in world.person_ids):   # an unknown owner is reported with the event
                self.error(f"{path}.person_id", f"{short(person)}, but event {short(source)} is "
                           f"{short(row.get('person_id'))}'s")

    def check_policies(self, policies: list[tuple[int, dict]]) -> set[str]:
        ids = self.unique([(f"policies[{i}].policy_id", text_at(p, "policy_id")) for i, p in policies], "policy_id")
        self.unique([(f"policies[{i}].rules[{j}].rule_id", text_at(r, "rule_id"))
                     for i, p in policies for j, r in dict_items(p.get("rules"))], "rule_id")
        for i, policy in policies:
            seen: dict[str | None, int] = {}   # rule type (None: a rule without one) -> its index
            name = short(text_at(policy, "policy_id"))
            for j, rule in dict_items(policy.get("rules")):
                path, kind, params = f"policies[{i}].rules[{j}]", text_at(rule, "type"), rule.get("params")
                if kind in seen:
                    self.error(f"{path}.type", f"a second {short(kind)} rule in policy {name} (the first is "
                               f"rules[{seen[kind]}]); a policy has each rule type at most once")
                seen.setdefault(kind, j)
                start, end = text_at(params, "start"), text_at(params, "end")
                if (kind in ("working_hours", "blackout") and start and end and schema_pattern("clock").search(start)
                        and schema_pattern("clock").search(end) and end <= start):
                    self.error(f"{path}.params.end", f"{end} is not after start {start}")
            if isinstance(policy.get("rules"), list) and "working_hours" not in seen:
                self.error(f"policies[{i}].rules", f"policy {name} has no working_hours rule (it needs exactly one)")
        return ids

    def check_threads(self, world: World) -> None:
        threads = dict_items(self.data.get("threads"))
        self.unique([(f"threads[{i}].thread_id", text_at(t, "thread_id")) for i, t in threads], "thread_id")
        self.unique([(f"threads[{i}].messages[{j}].message_id", text_at(m, "message_id"))
                     for i, t in threads for j, m in dict_items(t.get("messages"))], "message_id")
        for i, thread in threads:
            project_id = text_at(thread, "project_id")
            self.known(f"threads[{i}].project_id", project_id, world.project_ids, "project")
            said = world.tags_by_project.setdefault(project_id, [])
            for j, message in dict_items(thread.get("messages")):
                path = f"threads[{i}].messages[{j}]"
                self.known(f"{path}.author_id", text_at(message, "author_id"), world.person_ids, "person")
                ts = self.moment(f"{path}.ts", text_at(message, "ts"))
                check_tag_types_once(self, path, message)
                for k, tag in dict_items(message.get("tags")):
                    if isinstance(tag.get("params"), dict):
                        self.check_tag(f"{path}.tags[{k}].params", text_at(tag, "type"), tag["params"], world)
                        said.append(((ts or dt.datetime.min, text_at(message, "message_id") or ""),
                                     text_at(tag, "type"), tag["params"], text_at(message, "message_id"),
                                     text_at(message, "author_id")))

    def in_directory(self, path: str, name: str | None, world: World) -> None:
        if name is not None and name not in world.person_by_name and name not in world.shared_names:
            self.error(path, f"{short(name)} is not in the people directory")

    def check_tag(self, path: str, kind: str | None, params: dict, world: World) -> None:
        if kind in ("ban", "ooo"):
            self.interval(path, params)
        if kind == "deadline":
            self.moment(f"{path}.end_by", text_at(params, "end_by"))
        if kind == "ooo":
            self.known(f"{path}.person_id", text_at(params, "person_id"), world.person_ids, "person")
            self.in_directory(f"{path}.person_name", text_at(params, "person_name"), world)
        if kind == "participants" and isinstance(params.get("people"), list):
            for n, name in enumerate(params["people"]):
                self.in_directory(f"{path}.people[{n}]", name if isinstance(name, str) else None, world)
        if kind == "policy":
            self.known(f"{path}.policy_id", text_at(params, "policy_id"), world.policy_ids, "policy")
        if kind == "owner":
            self.in_directory(f"{path}.person_name", text_at(params, "person_name"), world)


def latest_requirement_tags(world: World, project_id: str) -> dict[str, tuple[dict, str]]:
    """Per requirement kind, (params, message_id) of the tag in the latest message (ties: the
    greater message_id as a string, so "m9" beats "m10"), as docs/semantics.md resolves level-3
    requirements; at level 4 only among the messages of the project's owner (the person the
    latest owner tag names, whoever wrote it)."""
    said = world.tags_by_project.get(project_id, [])
    owners = sorted((key, params.get("person_name")) for key, kind, params, _, _ in said if kind == "owner")
    owner_id = world.person_by_name.get(owners[-1][1]) if owners else None
    latest: dict[str, tuple] = {}
    for key, kind, params, message_id, author_id in said:
        if level_spec(world.level).owner_decides and author_id != owner_id:
            continue
        if kind in REQUIREMENT_TAGS and (kind not in latest or key > latest[kind][0]):
            latest[kind] = (key, params, message_id)
    return {kind: (params, message_id) for kind, (_, params, message_id) in latest.items()}


def same_value(a: object, b: object) -> bool:
    """Equal, with participant and feature lists compared as sets."""
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return a == b


class InstanceChecker(Checker):
    """An instance line against its world. Whether `given` and the threads state exactly the
    requirements is checked only on a schema-valid line (else it would repeat the schema's words)."""

    def check(self, world: World) -> None:
        d = self.data
        self.moment("now", text_at(d, "now"))
        window = raw if isinstance(raw := d.get("window"), dict) else {}
        start = self.moment("window.start", text_at(window, "start"), "date")
        end = self.moment("window.end", text_at(window, "end"), "date")
        if start and end and end < start:
            self.error("window.end", f"{window['end']} is before window.start {window['start']}")
        self.known("project_id", text_at(d, "project_id"), world.project_ids, "project", world.world_id)
        for key in ("given", "requirements"):
            part = raw if isinstance(raw := d.get(key), dict) else {}
            people = raw if isinstance(raw := part.get("participants"), list) else []
            for i, person_id in enumerate(people):
                if isinstance(person_id, str):
                    self.known(f"{key}.participants[{i}]", person_id, world.person_ids, "person", world.world_id)
            self.known(f"{key}.policy_id", text_at(part, "policy_id"), world.policy_ids, "policy", world.world_id)
        if not self.doc.valid:
            return
        if not level_spec(world.level).request_in_threads:
            for key, value in d["given"].items():
                if not same_value(value, d["requirements"][key]):
                    self.error(f"requirements.{key}", f"{short(d['requirements'][key])} differs from "
                               f"given.{key} {short(value)}")
        elif d["project_id"] in world.project_ids:
            self.check_level3_requirements(d["requirements"], d["project_id"], world)

    def check_level3_requirements(self, req: dict, project_id: str, world: World) -> None:
        """The project's threads must resolve to exactly the stored requirements."""
        if level_spec(world.level).owner_decides and not any(kind == "owner" for _, kind, *_ in world.tags_by_project.get(project_id, [])):
            self.error("project_id", f"no owner tag in the threads of project {short(project_id)}; at level 4 "
                       "only the owner's requirement tags count, so one message must name the owner")
            return
        said = latest_requirement_tags(world, project_id)
        by_name = world.person_by_name
        for key, tag, value_of, default in (
            ("participants", "participants", lambda p: [by_name.get(n, n) for n in p["people"]], REQUIRED),
            ("duration_min", "duration", lambda p: p["minutes"], REQUIRED),
            ("n", "count", lambda p: p["n"], REQUIRED),
            ("policy_id", "policy", lambda p: p["policy_id"], REQUIRED),
            ("tie_break", "tie_break", lambda p: p["rule"], "room_id"),
            ("room", "room", lambda p: {"min_capacity": p.get("min_capacity"), "features": p.get("features", []),
                                        "building": p.get("building")}, None),
        ):
            if tag in said:
                params, message_id = said[tag]
                try:
                    value = value_of(params)
                except (KeyError, TypeError):   # a malformed tag, reported with the world
                    continue
                if tag == "participants" and not set(params["people"]) <= by_name.keys():
                    continue                    # a name the directory lacks, reported with the world
                origin = f"the latest {tag} tag (message {message_id})"
            elif default is REQUIRED:
                self.error(f"requirements.{key}", f"no {tag} tag in the threads of project {short(project_id)}; "
                           "level-3 requirements must be stated there")
                continue
            else:
                value, origin = default, f"the default (no {tag} tag)"
            if not same_value(value, req[key]):
                self.error(f"requirements.{key}", f"{short(req[key])}, but {origin} in project "
                           f"{short(project_id)} says {short(value)}")
