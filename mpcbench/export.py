"""The dataset files of DESIGN.md section 5: `mpcbench export` writes them, `mpcbench import` reads them.

    >>> export_dataset(con, Path("dataset"))       # worlds/, instances/, oracles/, schema/
    >>> report = import_dataset(Path("dataset"), Path("build/imported.duckdb"))
    >>> [(level.level, level.instances, level.too_few_feasible) for level in report.levels]

Export writes what `dataset.dump_world` and `dataset.dump_instances` read back from the raw
tables, plus the oracle's answers, so export → import → export gives identical bytes.

Import reads every file and checks it in two passes: the JSON Schemas in `mpcbench/schema/`
(keys, types, timestamp patterns, rule and tag types with their params, level-specific keys),
then what a schema cannot say (duplicate ids, ids that point nowhere, intervals that end before
they start, a policy without working hours, requirements that `given` and the threads do not
state). All problems are collected and raised together as a `DatasetError`; only a clean
dataset is loaded, into a fresh warehouse next to the target that is renamed into place. The
gold answers are always recomputed by the SQL oracle; `oracles/*.jsonl` is only compared.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import duckdb
import jsonschema

from . import __version__, db
from .dataset import canonical_json, dump_instances, dump_world, load_dataset
from .errors import UserError
from .generate import TIME_FORMAT

LEVELS = (1, 2, 3)
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
SCHEMA_NAMES = ("world", "instance", "oracle")
MAX_ERRORS = 50
REQUIREMENT_TAGS = ("participants", "duration", "count", "policy", "tie_break", "room")
_REQUIRED = object()


def world_file(level: int) -> str:
    return f"worlds/world_level{level}.json"


def instances_file(level: int) -> str:
    return f"instances/instances_level{level}.jsonl"


def oracle_file(level: int) -> str:
    return f"oracles/oracle_level{level}.jsonl"


class DatasetError(UserError):
    """A dataset that cannot be imported: every problem found (at most MAX_ERRORS), one per line,
    each naming the file, the line (JSONL) and the JSON path. `total` counts them all."""

    def __init__(self, errors: list[str], total: int | None = None):
        self.errors = list(errors)
        self.total = len(self.errors) if total is None else total
        more = f"\n... and {self.total - len(self.errors)} more" if self.total > len(self.errors) else ""
        super().__init__(f"{self.total} problem(s) in the dataset:\n" + "\n".join(self.errors) + more)


@cache
def load_schema(name: str) -> dict:
    """The JSON Schema `name` (world, instance or oracle) shipped in the package."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def _inline_refs(node: object, defs: dict) -> object:
    """The schema with every local `$ref` replaced by its definition (the schemas are not
    recursive): the same verdicts, validated about twice as fast as by reference lookup."""
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    rest = {key: _inline_refs(value, defs) for key, value in node.items() if key not in ("$ref", "$defs")}
    if "$ref" not in node:
        return rest
    target = _inline_refs(defs[node["$ref"].removeprefix("#/$defs/")], defs)
    return {"allOf": [target], **rest} if rest else target


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = load_schema(name)
    return jsonschema.Draft202012Validator(_inline_refs(schema, schema.get("$defs", {})))


# --- export ----------------------------------------------------------------------------------

@dataclass
class ExportedLevel:
    level: int
    world_id: str
    instances: int


def _text(moment: dt.datetime) -> str:
    return moment.strftime(TIME_FORMAT)


def oracle_lines(con: duckdb.DuckDBPyConnection, level: int) -> list[dict]:
    """The gold answer of every instance of a level, in instance order (the oracle line format)."""
    rows = con.execute("""
        select i.instance_id, s.n_feasible, a.starts_at, a.ends_at, a.room_id
        from instances as i
        join oracle_summary as s on s.instance_id = i.instance_id
        left join oracle_answers as a on a.instance_id = i.instance_id
        where i.level = $1
        order by i.position, i.instance_id, a.rank
    """, [level]).fetchall()
    lines: dict[str, dict] = {}
    for instance_id, n_feasible, starts_at, ends_at, room_id in rows:
        line = lines.setdefault(instance_id, {"instance_id": instance_id, "n_feasible": n_feasible,
                                              "candidates": []})
        if starts_at is not None:
            line["candidates"].append({"start": _text(starts_at), "end": _text(ends_at), "room_id": room_id})
    return list(lines.values())


def _jsonl(records: list[dict]) -> str:
    return "".join(canonical_json(r) + "\n" for r in records)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}") from e


def export_dataset(con: duckdb.DuckDBPyConnection, out_dir: Path) -> list[ExportedLevel]:
    """Write the levels present in the warehouse as the files of DESIGN.md section 5. Files of
    the layout for levels the warehouse lacks are removed, so the directory holds one dataset."""
    out_dir = Path(out_dir)
    worlds = con.execute("select level, world_id from worlds order by level, world_id").fetchall()
    per_level = Counter(level for level, _ in worlds)
    if any(count > 1 for count in per_level.values()):
        raise UserError(f"the database holds several worlds for one level ({dict(per_level)}); "
                        "the dataset format has one world per level")
    exported = []
    for level, world_id in worlds:
        instances = dump_instances(con, level)
        _write(out_dir / world_file(level),
               json.dumps(dump_world(con, world_id), indent=2, ensure_ascii=False) + "\n")
        _write(out_dir / instances_file(level), _jsonl(instances))
        _write(out_dir / oracle_file(level), _jsonl(oracle_lines(con, level)))
        exported.append(ExportedLevel(level, world_id, len(instances)))
    for level in set(LEVELS) - set(per_level):
        for name in (world_file(level), instances_file(level), oracle_file(level)):
            (out_dir / name).unlink(missing_ok=True)
    for name in SCHEMA_NAMES:
        _write(out_dir / "schema" / f"{name}.schema.json",
               (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return exported


# --- import: reading and checking --------------------------------------------------------------

class _Problems:
    """Collects problems; `lines` gives them in file, line and path order, up to a cap."""

    def __init__(self, cap: int = MAX_ERRORS):
        self.cap = cap
        self.entries: list[tuple[str, str, str]] = []

    def add(self, where: str, path: str, message: str) -> None:
        self.entries.append((where, path, message))

    @property
    def total(self) -> int:
        return len(self.entries)

    @property
    def lines(self) -> list[str]:
        ordered = sorted(self.entries, key=lambda e: (_where_key(e[0]), _path_key(e[1])))
        return [f"{where}: {path}: {message}" if path else f"{where}: {message}"
                for where, path, message in ordered[: self.cap]]

    def raise_if_any(self) -> None:
        if self.entries:
            raise DatasetError(self.lines, self.total)


def _where_key(where: str) -> tuple:
    """worlds/ before instances/ before the rest; then by file and line."""
    file, _, line = where.rpartition(":") if re.search(r":\d+$", where) else (where, "", "0")
    return (0 if file.startswith("worlds/") else 1 if file.startswith("instances/") else 2, file, int(line))


def _path_key(path: str) -> tuple:
    """`events[17].end` sorts after `events[3].start`."""
    return tuple((0, int(index), "") if index else (1, 0, name)
                 for index, name in re.findall(r"\[(\d+)\]|([^.\[\]]+)", path))


@dataclass
class _Doc:
    """One parsed JSON document: a world file or one JSONL line."""
    file: str
    line: int | None
    data: object
    valid: bool = False

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    return dict(pairs)


def _parse_json(text: str, file: str, line: int | None, problems: _Problems) -> _Doc | None:
    where = file if line is None else f"{file}:{line}"
    try:
        return _Doc(file, line, json.loads(text, object_pairs_hook=_no_duplicate_keys))
    except _DuplicateKey as e:
        problems.add(where, "", f"an object has the key {_short(e.args[0])} twice")
    except json.JSONDecodeError as e:
        position = f"line {e.lineno} column {e.colno}" if line is None else f"column {e.colno}"
        problems.add(where, "", f"not valid JSON: {e.msg} ({position})")
    return None


def _read_text(path: Path, file: str, problems: _Problems) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        problems.add(file, "", f"not UTF-8 text (byte {e.start})")
        return None


def _read_jsonl(path: Path, file: str, problems: _Problems) -> list[_Doc]:
    docs = []
    for number, text in enumerate((_read_text(path, file, problems) or "").splitlines(), start=1):
        if text.strip():
            doc = _parse_json(text, file, number, problems)
            if doc is not None:
                docs.append(doc)
    return docs


def _level_files(directory: Path, pattern: str, problems: _Problems) -> dict[int, Path]:
    """`pattern` like 'world_level{}.json': the level of each file matching it."""
    prefix, suffix = pattern.split("{}")
    found = {}
    exact = re.compile(re.escape(prefix) + r"([123])" + re.escape(suffix))
    for path in sorted(directory.glob(prefix + "*" + suffix)):
        match = exact.fullmatch(path.name)
        if match:
            found[int(match.group(1))] = path
        else:
            expected = ", ".join(pattern.format(level) for level in LEVELS)
            problems.add(f"{directory.name}/{path.name}", "", f"unexpected file name (expected one of {expected})")
    return found


def json_path(parts) -> str:
    """`events[17].end` for the path ('events', 17, 'end')."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _short(value: object, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(error: jsonschema.ValidationError) -> str:
    """One schema error as a short sentence (never a dump of a whole object)."""
    kind, expected, value = error.validator, error.validator_value, error.instance
    if kind == "required":
        missing = [key for key in expected if isinstance(value, dict) and key not in value]
        return f"missing key{'s' if len(missing) > 1 else ''} {', '.join(map(_short, missing))}"
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(value) - set(allowed))
        return f"unexpected key {', '.join(map(_short, extra))} (allowed: {', '.join(allowed)})"
    if kind == "not" and expected == {}:
        return f"not allowed here: {error.schema.get('description', 'this key is not allowed')}"
    if kind == "pattern":
        return f"{_short(value)} is not a {error.schema.get('title', 'match for ' + expected)}"
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{_short(value)} is not of type {wanted}"
    if kind == "enum":
        return f"unknown value {_short(value)} (expected one of: {', '.join(_short(v) for v in expected)})"
    if kind == "const":
        return f"{_short(value)} must be {_short(expected)} here"
    if kind == "maxProperties" and expected == 0:
        return f"must be empty here, not {_short(value)}"
    if kind == "uniqueItems":
        return f"{_short(value)} has repeated items"
    return error.message if len(error.message) <= 200 else f"fails the schema's {kind!r} rule"


def _specific(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For "none of these alternatives" (value or null), the alternative's own complaint."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        error = next((e for e in error.context if e.validator != "type"), error.context[0])
    return error


def _check_schema(doc: _Doc, schema_name: str, problems: _Problems) -> None:
    errors = [_specific(e) for e in validator(schema_name).iter_errors(doc.data)]
    said = set()
    for error in errors:
        line = (json_path(error.absolute_path), _describe(error))
        if line not in said:                   # `required` reports each missing key alike
            problems.add(doc.where, *line)
            said.add(line)
    doc.valid = not errors


# The checks below run on documents that may have failed their schema: they read only the
# parts that have the right shape (what is malformed was reported by the schema already).

def _items(value: object) -> list[tuple[int, dict]]:
    """(index, item) of the objects in a list."""
    return [(i, item) for i, item in enumerate(value)
            if isinstance(item, dict)] if isinstance(value, list) else []


def _str(item: object, key: str) -> str | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None


@cache
def _pattern(name: str) -> re.Pattern:
    """A pattern of the world schema: timestamp, date or clock (HH:MM)."""
    defs = {**load_schema("world")["$defs"], **load_schema("instance")["$defs"]}
    return re.compile(defs[name]["pattern"])


def _parse_moment(text: str | None, kind: str = "timestamp") -> tuple[dt.datetime | None, bool]:
    """(moment, is_real): None when the text is not of the pattern (the schema says so) or
    names a day that does not exist (is_real False: 2026-02-30)."""
    if text is None or not _pattern(kind).search(text):
        return None, True
    try:
        return dt.datetime.strptime(text, TIME_FORMAT if kind == "timestamp" else "%Y-%m-%d"), True
    except ValueError:
        return None, False


@dataclass
class _World:
    """What the instance checks need to know about a checked world."""
    world_id: str
    level: int
    person_ids: set[str] = field(default_factory=set)
    person_by_name: dict[str, str] = field(default_factory=dict)
    shared_names: set[str] = field(default_factory=set)   # reported at people[i].name already
    policy_ids: set[str] = field(default_factory=set)
    project_ids: set[str] = field(default_factory=set)
    # project_id -> [((ts, message_id), tag type, params, message_id)]
    tags_by_project: dict[str, list] = field(default_factory=dict)


class _Checker:
    """Reports the problems of one document (a world, or one instance line)."""

    def __init__(self, doc: _Doc, problems: _Problems):
        self.doc, self.problems = doc, problems
        self.data = doc.data if isinstance(doc.data, dict) else {}

    def error(self, path: str, message: str) -> None:
        self.problems.add(self.doc.where, path, message)

    def moment(self, path: str, text: str | None, kind: str = "timestamp") -> dt.datetime | None:
        moment, is_real = _parse_moment(text, kind)
        if not is_real:
            self.error(path, f"{_short(text)} is not a real {'date and time' if kind == 'timestamp' else 'date'}")
        return moment

    def interval(self, path: str, item: dict) -> None:
        """item's start < end (half-open, so an empty interval is an error too)."""
        start = self.moment(f"{path}.start", _str(item, "start"))
        end = self.moment(f"{path}.end", _str(item, "end"))
        if start and end and end <= start:
            self.error(f"{path}.end", f"{item['end']} is not after start {item['start']}")

    def known(self, path: str, value: str | None, ids: set[str], what: str, world_id: str = "") -> None:
        if value is not None and value not in ids:
            self.error(path, f"unknown {what} {_short(value)}" + (f" in world {_short(world_id)}" if world_id else ""))

    def unique(self, items: list[tuple[str, str | None]], what: str) -> set[str]:
        """items: (json path, id). Reports each repeat; returns the ids."""
        first: dict[str, str] = {}
        for path, value in items:
            if value is None:
                continue
            if value in first:
                self.error(path, f"duplicate {what} {_short(value)} (first at {first[value]})")
            else:
                first[value] = path
        return set(first)


class _WorldChecker(_Checker):
    """The checks on a world that a JSON Schema cannot express: ids, references, intervals."""

    def check(self, level: int) -> _World:
        d = self.data
        world = _World(_str(d, "world_id") or "", level)
        people = _items(d.get("people"))
        world.person_ids = self.unique([(f"people[{i}].person_id", _str(p, "person_id")) for i, p in people],
                                       "person_id")
        rows_by_name: dict[str, list[int]] = {}
        for i, p in people:
            if _str(p, "name") is not None:
                rows_by_name.setdefault(p["name"], []).append(i)
        world.person_by_name = {name: _str(d["people"][rows[0]], "person_id") or ""
                                for name, rows in rows_by_name.items() if len(rows) == 1}
        world.shared_names = {name for name, rows in rows_by_name.items() if len(rows) > 1}
        if level == 3:
            for name, rows in rows_by_name.items():
                for i in rows[1:]:
                    self.error(f"people[{i}].name", f"{_short(name)} is also the name of people[{rows[0]}]; "
                               "level-3 threads name people, so names must be unique")
        events = _items(d.get("events"))
        self.unique([(f"events[{i}].event_id", _str(e, "event_id")) for i, e in events], "event_id")
        for i, e in events:
            self.known(f"events[{i}].person_id", _str(e, "person_id"), world.person_ids, "person")
            self.interval(f"events[{i}]", e)
        world.policy_ids = self.check_policies(_items(d.get("policies")))
        if level >= 2:
            self.unique([(f"policy_docs[{i}].doc_id", _str(doc, "doc_id"))
                         for i, doc in _items(d.get("policy_docs"))], "doc_id")
            world.project_ids = self.unique([(f"projects[{i}].project_id", _str(p, "project_id"))
                                             for i, p in _items(d.get("projects"))], "project_id")
            self.check_threads(world)
        if level == 3:
            room_ids = self.unique([(f"rooms[{i}].room_id", _str(r, "room_id"))
                                    for i, r in _items(d.get("rooms"))], "room_id")
            for i, b in _items(d.get("room_bookings")):
                self.known(f"room_bookings[{i}].room_id", _str(b, "room_id"), room_ids, "room")
                self.interval(f"room_bookings[{i}]", b)
        return world

    def check_policies(self, policies: list[tuple[int, dict]]) -> set[str]:
        ids = self.unique([(f"policies[{i}].policy_id", _str(p, "policy_id")) for i, p in policies], "policy_id")
        self.unique([(f"policies[{i}].rules[{j}].rule_id", _str(r, "rule_id"))
                     for i, p in policies for j, r in _items(p.get("rules"))], "rule_id")
        for i, policy in policies:
            seen: dict[str, int] = {}
            name = _short(_str(policy, "policy_id"))
            for j, rule in _items(policy.get("rules")):
                path, kind, params = f"policies[{i}].rules[{j}]", _str(rule, "type"), rule.get("params")
                if kind in seen:
                    self.error(f"{path}.type", f"a second {_short(kind)} rule in policy {name} (the first is "
                               f"rules[{seen[kind]}]); a policy has each rule type at most once")
                seen.setdefault(kind, j)
                start, end = _str(params, "start"), _str(params, "end")
                if (kind in ("working_hours", "blackout") and start and end and _pattern("clock").search(start)
                        and _pattern("clock").search(end) and end <= start):
                    self.error(f"{path}.params.end", f"{end} is not after start {start}")
            if isinstance(policy.get("rules"), list) and "working_hours" not in seen:
                self.error(f"policies[{i}].rules", f"policy {name} has no working_hours rule (it needs exactly one)")
        return ids

    def check_threads(self, world: _World) -> None:
        threads = _items(self.data.get("threads"))
        self.unique([(f"threads[{i}].thread_id", _str(t, "thread_id")) for i, t in threads], "thread_id")
        self.unique([(f"threads[{i}].messages[{j}].message_id", _str(m, "message_id"))
                     for i, t in threads for j, m in _items(t.get("messages"))], "message_id")
        for i, thread in threads:
            project_id = _str(thread, "project_id")
            self.known(f"threads[{i}].project_id", project_id, world.project_ids, "project")
            said = world.tags_by_project.setdefault(project_id, [])
            for j, message in _items(thread.get("messages")):
                path = f"threads[{i}].messages[{j}]"
                self.known(f"{path}.author_id", _str(message, "author_id"), world.person_ids, "person")
                ts = self.moment(f"{path}.ts", _str(message, "ts"))
                for k, tag in _items(message.get("tags")):
                    if isinstance(tag.get("params"), dict):
                        self.check_tag(f"{path}.tags[{k}].params", _str(tag, "type"), tag["params"], world)
                        said.append(((ts or dt.datetime.min, _str(message, "message_id") or ""),
                                     _str(tag, "type"), tag["params"], _str(message, "message_id")))

    def in_directory(self, path: str, name: str | None, world: _World) -> None:
        if name is not None and name not in world.person_by_name and name not in world.shared_names:
            self.error(path, f"{_short(name)} is not in the people directory")

    def check_tag(self, path: str, kind: str | None, params: dict, world: _World) -> None:
        if kind in ("ban", "ooo"):
            self.interval(path, params)
        if kind == "deadline":
            self.moment(f"{path}.end_by", _str(params, "end_by"))
        if kind == "ooo":
            self.known(f"{path}.person_id", _str(params, "person_id"), world.person_ids, "person")
            self.in_directory(f"{path}.person_name", _str(params, "person_name"), world)
        if kind == "participants" and isinstance(params.get("people"), list):
            for n, name in enumerate(params["people"]):
                self.in_directory(f"{path}.people[{n}]", name if isinstance(name, str) else None, world)
        if kind == "policy":
            self.known(f"{path}.policy_id", _str(params, "policy_id"), world.policy_ids, "policy")


def _latest_requirement_tags(world: _World, project_id: str) -> dict[str, tuple[dict, str]]:
    """Per requirement kind, (params, message_id) of the tag in the latest message (ties: greater
    message_id), as DESIGN.md section 3 resolves level-3 requirements."""
    latest: dict[str, tuple] = {}
    for key, kind, params, message_id in world.tags_by_project.get(project_id, []):
        if kind in REQUIREMENT_TAGS and (kind not in latest or key > latest[kind][0]):
            latest[kind] = (key, params, message_id)
    return {kind: (params, message_id) for kind, (_, params, message_id) in latest.items()}


def _same(a: object, b: object) -> bool:
    """Equal, with participant and feature lists compared as sets."""
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


class _InstanceChecker(_Checker):
    """An instance line against its world. Whether `given` and the threads state exactly the
    requirements is checked only on a schema-valid line (else it would repeat the schema's words)."""

    def check(self, world: _World) -> None:
        d = self.data
        self.moment("now", _str(d, "now"))
        window = d.get("window") if isinstance(d.get("window"), dict) else {}
        start = self.moment("window.start", _str(window, "start"), "date")
        end = self.moment("window.end", _str(window, "end"), "date")
        if start and end and end < start:
            self.error("window.end", f"{window['end']} is before window.start {window['start']}")
        self.known("project_id", _str(d, "project_id"), world.project_ids, "project", world.world_id)
        for key in ("given", "requirements"):
            part = d.get(key) if isinstance(d.get(key), dict) else {}
            people = part.get("participants") if isinstance(part.get("participants"), list) else []
            for i, person_id in enumerate(people):
                if isinstance(person_id, str):
                    self.known(f"{key}.participants[{i}]", person_id, world.person_ids, "person", world.world_id)
            self.known(f"{key}.policy_id", _str(part, "policy_id"), world.policy_ids, "policy", world.world_id)
        if not self.doc.valid:
            return
        if world.level < 3:
            for key, value in d["given"].items():
                if not _same(value, d["requirements"][key]):
                    self.error(f"requirements.{key}", f"{_short(d['requirements'][key])} differs from "
                               f"given.{key} {_short(value)}")
        elif d["project_id"] in world.project_ids:
            self.check_level3_requirements(d["requirements"], d["project_id"], world)

    def check_level3_requirements(self, req: dict, project_id: str, world: _World) -> None:
        """The project's threads must resolve to exactly the stored requirements."""
        said = _latest_requirement_tags(world, project_id)
        by_name = world.person_by_name
        for key, tag, value_of, default in (
            ("participants", "participants", lambda p: [by_name.get(n, n) for n in p["people"]], _REQUIRED),
            ("duration_min", "duration", lambda p: p["minutes"], _REQUIRED),
            ("n", "count", lambda p: p["n"], _REQUIRED),
            ("policy_id", "policy", lambda p: p["policy_id"], _REQUIRED),
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
            elif default is _REQUIRED:
                self.error(f"requirements.{key}", f"no {tag} tag in the threads of project {_short(project_id)}; "
                           "level-3 requirements must be stated there")
                continue
            else:
                value, origin = default, f"the default (no {tag} tag)"
            if not _same(value, req[key]):
                self.error(f"requirements.{key}", f"{_short(req[key])}, but {origin} in project "
                           f"{_short(project_id)} says {_short(value)}")


@dataclass
class _Source:
    worlds: dict[int, _Doc]
    instances: dict[int, list[_Doc]]
    oracles: dict[int, dict[str, object]]
    notes: list[str]


def _read_and_check(src: Path, problems: _Problems) -> _Source:
    if not src.is_dir():
        raise DatasetError([f"{src}: not a directory"])
    world_paths: dict[int, Path] = {}
    if not (src / "worlds").is_dir():
        problems.add(str(src), "", "no worlds/ directory (expected worlds/world_level{1,2,3}.json)")
    else:
        world_paths = _level_files(src / "worlds", "world_level{}.json", problems)
        if not world_paths and not problems.total:
            problems.add(f"{src}/worlds", "", "no world_level{1,2,3}.json files")
    worlds: dict[int, _Doc] = {}
    for level, path in world_paths.items():
        text = _read_text(path, world_file(level), problems)
        doc = None if text is None else _parse_json(text, world_file(level), None, problems)
        if doc is not None:
            worlds[level] = doc
    instances: dict[int, list[_Doc]] = {}
    if (src / "instances").is_dir():
        for level, path in _level_files(src / "instances", "instances_level{}.jsonl", problems).items():
            instances[level] = _read_jsonl(path, instances_file(level), problems)

    # worlds: schema, file level, world ids, then each world's own ids, references and intervals
    checked: dict[str, _World] = {}
    level_of_world: dict[str, int] = {}
    for level, doc in sorted(worlds.items()):
        _check_schema(doc, "world", problems)
        if not isinstance(doc.data, dict):
            continue
        if doc.data.get("level") in LEVELS and doc.data["level"] != level:
            problems.add(doc.where, "level", f"{doc.data['level']}, but the file is for level {level}")
        world_id = _str(doc.data, "world_id")
        if world_id in level_of_world:
            problems.add(doc.where, "world_id", f"duplicate world_id {_short(world_id)} "
                         f"(also in {world_file(level_of_world[world_id])})")
        elif world_id is not None:
            level_of_world[world_id] = level
            checked[world_id] = _WorldChecker(doc, problems).check(level)

    # instances: schema, file level, ids, then each against its world
    first_line: dict[str, str] = {}
    for level, docs in sorted(instances.items()):
        if level not in world_paths and docs:
            problems.add(instances_file(level), "", f"no {world_file(level)} for these instances")
        world_known = level in level_of_world.values()   # else its file is unreadable: said already
        for doc in docs:
            _check_schema(doc, "instance", problems)
            d = doc.data if isinstance(doc.data, dict) else {}
            if d.get("level") in LEVELS and d["level"] != level:
                problems.add(doc.where, "level", f"{d['level']}, but the file is for level {level}")
                continue
            instance_id = _str(d, "instance_id")
            if instance_id in first_line:
                problems.add(doc.where, "instance_id", f"duplicate instance_id {_short(instance_id)} "
                             f"(first at {first_line[instance_id]})")
            elif instance_id is not None:
                first_line[instance_id] = doc.where
            world_id = _str(d, "world_id")
            if world_id is None or not world_known:
                continue
            if world_id not in level_of_world:
                problems.add(doc.where, "world_id", f"unknown world {_short(world_id)} "
                             f"(the worlds are: {', '.join(sorted(level_of_world))})")
            elif level_of_world[world_id] != level:
                problems.add(doc.where, "world_id", f"{_short(world_id)} is the level-{level_of_world[world_id]} "
                             f"world; this instance is level {level}")
            else:
                _InstanceChecker(doc, problems).check(checked[world_id])

    # gold answers: only compared with the recomputed ones, so problems here are notes
    oracles: dict[int, dict[str, object]] = {}
    notes: list[str] = []
    if (src / "oracles").is_dir():
        quiet = _Problems(cap=5)
        for level, path in _level_files(src / "oracles", "oracle_level{}.jsonl", quiet).items():
            oracles[level] = {}
            for doc in _read_jsonl(path, oracle_file(level), quiet):
                _check_schema(doc, "oracle", quiet)
                if doc.valid:
                    oracles[level][doc.data["instance_id"]] = doc.data
        notes += [f"ignored (the oracle is recomputed): {line}" for line in quiet.lines]
    return _Source(worlds, instances, oracles, notes)


# --- import: loading -------------------------------------------------------------------------

@dataclass
class ImportedLevel:
    level: int
    world_id: str
    instances: int
    too_few_feasible: int          # kept although fewer than N starts are feasible
    gold_differs: int | None       # instances whose recomputed gold differs from oracles/; None: no file


@dataclass
class ImportReport:
    db_path: Path
    source: Path
    levels: list[ImportedLevel]
    notes: list[str]

    @property
    def instances(self) -> int:
        return sum(level.instances for level in self.levels)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _load(con: duckdb.DuckDBPyConnection, src: Path, source: _Source) -> list[ImportedLevel]:
    db.create_tables(con)
    db.create_views(con)
    for level, doc in sorted(source.worlds.items()):
        load_dataset(con, [doc.data], [d.data for d in source.instances.get(level, [])])
    db.refresh(con)
    too_few = dict(con.execute("select level, count(*) filter (where not has_enough_feasible) "
                               "from oracle_summary group by level").fetchall())
    levels = []
    for level, doc in sorted(source.worlds.items()):
        world = doc.data
        count = len(source.instances.get(level, []))
        kept_too_few = too_few.get(level, 0)
        con.execute("insert into build_stats values ($1, $2, $3, $4, $4, $4, 0, 0, 0, 0, 0, $5)",
                    [level, world["world_id"], world["seed"], count, kept_too_few])
        differs = None
        if level in source.oracles:
            stored = source.oracles[level]
            differs = sum(1 for line in oracle_lines(con, level) if stored.get(line["instance_id"]) != line)
        levels.append(ImportedLevel(level, world["world_id"], count, kept_too_few, differs))
    info = {"mpcbench_version": __version__, "built_by": "mpcbench import",
            "source": src.resolve().name, "levels": ",".join(str(lv.level) for lv in levels)}
    for lv in levels:
        info[f"source_level{lv.level}"] = world_file(lv.level)
        info[f"source_level{lv.level}_sha256"] = _sha256(src / world_file(lv.level))
        info[f"seed_level{lv.level}"] = str(source.worlds[lv.level].data["seed"])
    con.executemany("insert into build_info values ($1, $2)", sorted(info.items()))
    return levels


def import_dataset(src_dir: Path, db_path: Path) -> ImportReport:
    """Check the dataset files in src_dir and load them into a new warehouse at db_path, with the
    gold answers recomputed. Raises DatasetError listing every problem; then nothing is written."""
    src_dir, db_path = Path(src_dir), Path(db_path)
    problems = _Problems()
    source = _read_and_check(src_dir, problems)
    problems.raise_if_any()
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = db_path.with_name(f".{db_path.name}.import-{os.getpid()}.tmp")
    tmp_wal = Path(f"{tmp_path}.wal")
    tmp_path.unlink(missing_ok=True)
    tmp_wal.unlink(missing_ok=True)
    con = db.connect(tmp_path)
    try:
        levels = _load(con, src_dir, source)
        con.close()
    except BaseException as e:
        con.close()
        tmp_path.unlink(missing_ok=True)
        tmp_wal.unlink(missing_ok=True)
        if isinstance(e, duckdb.Error):
            raise DatasetError([f"{src_dir}: loading into DuckDB failed: {e}"]) from e
        raise
    Path(f"{db_path}.wal").unlink(missing_ok=True)   # a stale log would be replayed onto the new file
    tmp_path.replace(db_path)
    return ImportReport(db_path, src_dir, levels, source.notes)
