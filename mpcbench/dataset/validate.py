"""Reading dataset files for `mpcbench import` and reporting their problems: JSON parsing
(duplicate keys too), the JSON Schemas, and the small helpers the semantic checks (`checks`)
share. Problems are collected, never raised one by one: `Problems.raise_if_any` raises one
`DatasetError` listing them all (at most MAX_ERRORS), in file, line and JSON-path order.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from ..errors import UserError
from ..sources import LEVELS
from .layout import load_schema, validator


MAX_ERRORS = 50


class DatasetError(UserError):
    """A dataset that cannot be imported: every problem found (at most MAX_ERRORS), one per line,
    each naming the file, the line (JSONL) and the JSON path. `total` counts them all."""

    def __init__(self, errors: list[str], total: int | None = None):
        self.errors = list(errors)
        self.total = len(self.errors) if total is None else total
        more = f"\n... and {self.total - len(self.errors)} more" if self.total > len(self.errors) else ""
        super().__init__(f"{self.total} problem(s) in the dataset:\n" + "\n".join(self.errors) + more)


class Problems:
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
class Doc:
    """One parsed JSON document: a world file or one JSONL line."""
    file: str
    line: int | None
    data: object
    valid: bool = False

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    @property
    def record(self) -> dict:
        """The document as a JSON object, as a schema-valid one is; TypeError for another value."""
        if not isinstance(self.data, dict):
            raise TypeError(f"{self.where} is not a JSON object")
        return self.data


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    return dict(pairs)


def parse_json(text: str, file: str, line: int | None, problems: Problems) -> Doc | None:
    where = file if line is None else f"{file}:{line}"
    try:
        return Doc(file, line, json.loads(text, object_pairs_hook=_no_duplicate_keys))
    except _DuplicateKey as e:
        problems.add(where, "", f"an object has the key {short(e.args[0])} twice")
    except json.JSONDecodeError as e:
        position = f"line {e.lineno} column {e.colno}" if line is None else f"column {e.colno}"
        problems.add(where, "", f"not valid JSON: {e.msg} ({position})")
    return None


def read_text(path: Path, file: str, problems: Problems) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        problems.add(file, "", f"not UTF-8 text (byte {e.start})")
        return None


def read_jsonl(path: Path, file: str, problems: Problems) -> list[Doc]:
    docs = []
    for number, text in enumerate((read_text(path, file, problems) or "").splitlines(), start=1):
        if text.strip():
            doc = parse_json(text, file, number, problems)
            if doc is not None:
                docs.append(doc)
    return docs


def level_files(directory: Path, pattern: str, problems: Problems) -> dict[int, Path]:
    """`pattern` like 'world_level{}.json': the level of each file matching it."""
    prefix, suffix = pattern.split("{}")
    found = {}
    exact = re.compile(re.escape(prefix) + "([" + "".join(map(str, LEVELS)) + "])" + re.escape(suffix))
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


def short(value: object, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(error: jsonschema.ValidationError) -> str:
    """One schema error as a short sentence (never a dump of a whole object)."""
    kind = error.validator
    expected: Any = error.validator_value     # the failed keyword's value in the schema
    value: Any = error.instance               # the JSON value that failed
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind == "required":
        missing = [key for key in expected if isinstance(value, dict) and key not in value]
        return f"missing key{'s' if len(missing) > 1 else ''} {', '.join(map(short, missing))}"
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(value) - set(allowed))
        return f"unexpected key {', '.join(map(short, extra))} (allowed: {', '.join(allowed)})"
    if kind == "not" and expected == {}:
        return f"not allowed here: {schema.get('description', 'this key is not allowed')}"
    if kind == "pattern":
        return f"{short(value)} is not a {schema.get('title', 'match for ' + expected)}"
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{short(value)} is not of type {wanted}"
    if kind == "enum":
        return f"unknown value {short(value)} (expected one of: {', '.join(short(v) for v in expected)})"
    if kind == "const":
        return f"{short(value)} must be {short(expected)} here"
    if kind == "maxProperties" and expected == 0:
        return f"must be empty here, not {short(value)}"
    if kind == "uniqueItems":
        return f"{short(value)} has repeated items"
    return error.message if len(error.message) <= 200 else f"fails the schema's {kind!r} rule"


def _specific(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For "none of these alternatives" (value or null), the alternative's own complaint."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        error = next((e for e in error.context if e.validator != "type"), error.context[0])
    return error


def check_schema(doc: Doc, schema_name: str, problems: Problems) -> None:
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

def dict_items(value: object) -> list[tuple[int, dict]]:
    """(index, item) of the objects in a list."""
    return [(i, item) for i, item in enumerate(value)
            if isinstance(item, dict)] if isinstance(value, list) else []


def text_at(item: object, key: str) -> str | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None


@cache
def schema_pattern(name: str) -> re.Pattern:
    """A pattern of the world schema: timestamp, date or clock (HH:MM)."""
    defs = {**load_schema("world")["$defs"], **load_schema("instance")["$defs"]}
    return re.compile(defs[name]["pattern"])


def parse_moment(text: str | None, kind: str = "timestamp") -> tuple[dt.datetime | None, bool]:
    """(moment, is_real): None when the text is not of the pattern (the schema says so) or
    names a day that does not exist (is_real False: 2026-02-30)."""
    if text is None or not schema_pattern(kind).search(text):
        return None, True
    try:   # of the pattern: fromisoformat reads it as strptime("%Y-%m-%dT%H:%M" or "%Y-%m-%d"), 50x faster
        return dt.datetime.fromisoformat(text), True
    except ValueError:
        return None, False
