"""Checks of every legacy artifact: its JSON Schema (`archive/schemas/<name>_schema.json`), then
what a schema cannot say (unique ids, references between items, real dates). Each problem is
one line that starts with the JSON path of the value at fault:

    >>> problems({"contacts": [{"id": "c1", "name": "Ana", "email": "ana@x.example"},
    ...                        {"id": "c2", "name": "Bo", "email": 7}]}, "contacts")
    ["$.contacts[1].email: 7 is not of type 'string'"]
    >>> problems({"contacts": [{"id": "c1", "name": "Ana", "email": "ana@x.example"},
    ...                        {"id": "c1", "name": "Bo", "email": "bo@x.example"}]}, "contacts")
    ["$.contacts[1].id: duplicate id 'c1'"]

`parse_reply` reads a model's reply as one JSON object, leniently about wrappers (a code fence,
prose around the object) and strictly about the rest.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from functools import cache
from typing import Callable

import jsonschema

from .layout import ARCHIVE_DIR

SCHEMA_DIR = ARCHIVE_DIR / "schemas"
MESSAGE_CHARS = 200
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n(.*)\n```\s*$", re.DOTALL)


@cache
def schema(name: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{name}_schema.json").read_text())


@cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name))


def json_path(parts) -> str:
    """The JSON path of a value, from its keys and indexes.

    >>> json_path(["messages", 3, "ts"])
    '$.messages[3].ts'
    """
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "..."


def problems(data, name: str) -> list[str]:
    """Every schema violation of `data`, in path order; when there is none, every reference or
    date problem. An empty list: the artifact is valid."""
    errors = sorted(_validator(name).iter_errors(data), key=lambda e: ([str(p) for p in e.absolute_path], e.message))
    if errors:
        return [f"{json_path(e.absolute_path)}: {_short(e.message)}" for e in errors]
    return _bad_dates(data, []) + (REFERENCES[name](data) if name in REFERENCES else [])


def parse_reply(text: str | None) -> tuple[dict | None, str | None]:
    """(the JSON object of a model's reply, None) or (None, the problem as `$: ...`)."""
    text = (text or "").strip()
    if not text:
        return None, "$: the reply is empty; expected one JSON object"
    fenced = _FENCE.match(text)
    candidates = [fenced.group(1)] if fenced else [text]
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"): text.rindex("}") + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            return data, None
        return None, f"$: the reply is a JSON {type(data).__name__}, not an object"
    return None, f"$: the reply is not a JSON object (it starts {_short(text)[:80]!r})"


# --- beyond the schema ---------------------------------------------------------------------

def _bad_dates(value, path: list) -> list[str]:
    """Date and timestamp strings that have the right shape but name no real day or time."""
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _bad_dates(item, [*path, key])]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _bad_dates(item, [*path, i])]
    if isinstance(value, str) and _TIMESTAMP.match(value):
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            return [f"{json_path(path)}: {value!r} is not a real date or time"]
    return []


def _unique(items: list[dict], key: str, at: str) -> list[str]:
    seen: set = set()
    out = []
    for i, item in enumerate(items):
        if item[key] in seen:
            out.append(f"$.{at}[{i}].{key}: duplicate id {item[key]!r}")
        seen.add(item[key])
    return out


def _known(value, allowed, path: str, what: str) -> list[str]:
    return [] if value is None or value in allowed else [f"{path}: {value!r} is not {what}"]


def _scenario_refs(data: dict) -> list[str]:
    people = {p["id"] for p in data["people"]}
    out = _unique(data["people"], "id", "people")
    for i, sub in enumerate(data["sub_scenarios"]):
        out += [p for j, who in enumerate(sub["participants"])
                for p in _known(who, people, f"$.sub_scenarios[{i}].participants[{j}]", "a person id")]
        for j, beat in enumerate(sub["beats"]):
            at = f"$.sub_scenarios[{i}].beats[{j}]"
            named = [("actor", beat["actor"])] + [(f"{k}[{n}]", who) for k in ("to", "cc")
                                                  for n, who in enumerate(beat.get(k, []))]
            named += [(f"event.attendees[{n}]", who) for n, who in enumerate(beat.get("event", {}).get("attendees", []))]
            out += [p for key, who in named for p in _known(who, people, f"{at}.{key}", "a person id")]
    return out


def _world_state_refs(data: dict) -> list[str]:
    people = {p["id"] for p in data["people"]}
    out = _unique(data["people"], "id", "people")
    for group in ("sub_scenarios_expanded", "noise_scenarios"):
        for i, sub in enumerate(data[group]):
            out += [p for j, who in enumerate(sub["participants"])
                    for p in _known(who, people, f"$.{group}[{i}].participants[{j}]", "a person id")]
            out += [p for j, event in enumerate(sub["events"])
                    for p in _known(event["actor"], people, f"$.{group}[{i}].events[{j}].actor", "a person id")]
    seen: set = set()
    for group in ("sub_scenarios_expanded", "noise_scenarios"):
        for i, sub in enumerate(data[group]):
            for j, event in enumerate(sub["events"]):
                if event["event_id"] in seen:
                    out.append(f"$.{group}[{i}].events[{j}].event_id: duplicate id {event['event_id']!r}")
                seen.add(event["event_id"])
    return out


def _slack_refs(data: dict) -> list[str]:
    users, channels = {u["id"] for u in data["users"]}, {c["id"] for c in data["channels"]}
    messages = {m["id"] for m in data["messages"]}
    out = _unique(data["users"], "id", "users") + _unique(data["channels"], "id", "channels")
    out += _unique(data["messages"], "id", "messages")
    for i, m in enumerate(data["messages"]):
        out += _known(m["channel_id"], channels, f"$.messages[{i}].channel_id", "a channel id")
        out += _known(m["user_id"], users, f"$.messages[{i}].user_id", "a user id")
        out += _known(m.get("thread_id"), messages, f"$.messages[{i}].thread_id", "a message id")
    return out


def _gmail_refs(data: dict) -> list[str]:
    out = _unique(data["threads"], "id", "threads")
    seen: set = set()
    for i, thread in enumerate(data["threads"]):
        for j, m in enumerate(thread["messages"]):
            if m["id"] in seen:
                out.append(f"$.threads[{i}].messages[{j}].id: duplicate id {m['id']!r}")
            seen.add(m["id"])
    return out


def _calendar_refs(data: dict) -> list[str]:
    calendars = {c["id"] for c in data["calendars"]}
    out = _unique(data["calendars"], "id", "calendars") + _unique(data["events"], "id", "events")
    for i, e in enumerate(data["events"]):
        out += _known(e["calendar_id"], calendars, f"$.events[{i}].calendar_id", "a calendar id")
        if not _bad_dates([e["start"], e["end"]], []) and e["end"] <= e["start"]:
            out.append(f"$.events[{i}].end: {e['end']!r} is not after the start {e['start']!r}")
    return out


def _jira_refs(data: dict) -> list[str]:
    projects = {p["key"] for p in data["projects"]}
    out = _unique(data["projects"], "key", "projects") + _unique(data["issues"], "key", "issues")
    for i, issue in enumerate(data["issues"]):
        out += _known(issue["project_key"], projects, f"$.issues[{i}].project_key", "a project key")
        if not issue["key"].startswith(issue["project_key"] + "-"):
            out.append(f"$.issues[{i}].key: {issue['key']!r} does not start with its project key")
    return out


REFERENCES: dict[str, Callable[[dict], list[str]]] = {
    "scenario": _scenario_refs, "world_state": _world_state_refs, "slack": _slack_refs, "gmail": _gmail_refs,
    "calendar": _calendar_refs, "jira": _jira_refs,
    "contacts": lambda data: _unique(data["contacts"], "id", "contacts"),
    "drive": lambda data: _unique(data["files"], "id", "files"),
}
