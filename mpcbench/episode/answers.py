"""The answer format (docs/semantics.md, "The answer" and "Scoring"): the `submit_candidates` tool and the plain-text fallback.

    >>> answer = parse_text_answer('[{"start": "2026-03-02 09:00"}, {"start": "2026-03-02T09:05"}]', 1)
    >>> answer.parse_ok, [(c.start, c.problem) for c in answer.candidates]
    (True, [('2026-03-02T09:00', None), ('2026-03-02T09:05', 'off the 15-minute grid')])

Two paths give one `ParsedAnswer`:

- `parse_submission` (path "tool"): the tool's arguments, validated against `submit_schema`.
  Bad arguments give parse_ok=False and a short error to send back to the model as the tool
  result. The schema checks the *shape* of `start` (`YYYY-MM-DDTHH:MM`, nothing else);
  meaning (a real date and hour, the 15-minute grid) is judged by `normalize_start`.
- `parse_text_answer` (path "text"): the JSON found in a model's final text. Lenient about
  wrappers (code fences, prose, a bare list or a single candidate, trailing commas, Python
  dict literals read with `ast.literal_eval`, key aliases such as `time` or `room`, a space
  instead of `T`, `:00` seconds); strict about meaning (nothing is rounded or invented).
  When several JSON values appear, the last candidate-shaped one wins (models restate).

Either path may carry a `note` (a string next to `candidates`): the note to the participants,
scored by the privacy track only. It never decides whether the candidates count: a note that is
not a string is dropped, not an error.

A candidate with a `problem` is certainly wrong but still counts as a predicted candidate.
Decisions: a UTC offset (`Z`, `+00:00`) is a problem, since times are local wall clock; the
start keeps the digits as written. Non-zero seconds give start=None (no rounding). An
out-of-window start is not judged here (the scorer knows the window). At levels 1-2 the
text path drops any room_id; at level 3 a missing room_id is a problem.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema

from ..levels import LEVEL_NAMES, LEVELS, level_spec
from .lenient_json import NOT_JSON, json_values, loads_lenient

SUBMIT_TOOL_NAME = "submit_candidates"
START_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"
_START_SHAPE = re.compile(START_PATTERN)   # as the schema's `pattern` reads it (re.search)
_START_FORMAT = "YYYY-MM-DDTHH:MM (local wall-clock time, no seconds, no offset)"
_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ]\s*(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?"
                   r"\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?")
_CLOCK_ONLY = re.compile(r"\s*\d{1,2}:\d{2}(:\d{2})?\s*")
_DATE_PREFIX = re.compile(r"\s*\d{4}-\d{2}-\d{2}")
_START_KEYS = ("start", "start_time", "starttime", "starts_at", "start_at", "time", "slot", "datetime")
_ROOM_KEYS = ("room_id", "roomid", "room")
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
               float: "number", type(None): "null"}


@dataclass(frozen=True)
class Candidate:
    start: str | None  # normalized YYYY-MM-DDTHH:MM, or None when it cannot be read
    room_id: str | None
    raw: str  # the candidate as the model wrote it (JSON text)
    problem: str | None  # why it is certainly wrong, or None


@dataclass(frozen=True)
class ParsedAnswer:
    candidates: tuple[Candidate, ...]
    parse_ok: bool
    path: str  # "tool" or "text"
    error: str | None
    note: str | None = None  # the note to the participants, if the answer has one (scored for privacy only)


def submit_schema(level: int, n: int | None = None) -> dict:
    """JSON Schema of the submit_candidates arguments (OpenAI function-parameters format); with
    `n` (the N a level-1/2 prompt states), `maxItems` says the answer is cut to N candidates.

    Answers are checked against the schema without `n`: a longer answer is not an error, it is
    cut to its first N by the grader (and counted as over-submitted)."""
    _check_level(level)
    spec = level_spec(level)
    item: dict = {"type": "object", "properties": {"start": {
        "type": "string", "pattern": START_PATTERN,
        "description": f"Meeting start, {_START_FORMAT}, e.g. 2026-03-02T09:30."}},
        "required": ["start"], "additionalProperties": False}
    if spec.rooms:
        item["properties"]["room_id"] = {"type": "string", "minLength": 1,
                                         "description": "The room_id of the room booked for this start."}
        item["required"] = ["start", "room_id"]
    if spec.request_in_threads and n is not None:
        raise ValueError("levels 3-4 keep N hidden (the agent finds it in the threads): no maxItems")
    candidates: dict = {"type": "array", "items": item, "description": "The proposed meetings, earliest first."}
    if n is not None:
        candidates["maxItems"] = n
        candidates["description"] += f" At most {n}: any candidate after the first {n} is dropped unjudged."
    elif spec.request_in_threads:
        candidates["description"] += (" As many as the project asks for: any candidate after that many is "
                                      "dropped unjudged.")
    return {"type": "object", "properties": {"candidates": candidates, "note": NOTE_SCHEMA},
            "required": ["candidates"], "additionalProperties": False}


NOTE_SCHEMA = {"type": "string", "description": "A short note to the participants that proposes the times "
                                                "(optional; it never changes the score)."}


def answer_arguments(level: int, candidates: Iterable[tuple[str | None, str | None]]) -> dict:
    """submit_candidates' arguments for these (start, room_id) pairs: each candidate has its
    room_id from level 3 on."""
    return {"candidates": [{"start": start, **({"room_id": room} if level_spec(level).rooms else {})}
                           for start, room in candidates]}


def submit_tool(level: int, n: int | None = None) -> dict:
    """The OpenAI tool entry for submit_candidates at this level (`n`: see `submit_schema`)."""
    what = "start time and room_id" if level_spec(level).rooms else "start time"
    return {"type": "function", "function": {
        "name": SUBMIT_TOOL_NAME,
        "description": f"Submit the final answer: the candidate meetings, each with its {what}.",
        "parameters": submit_schema(level, n)}}


def normalize_start(value: object) -> tuple[str | None, str | None]:
    """(start, problem) for one start value; the one place that judges what a time means."""
    match = _TIME.fullmatch(value.strip()) if isinstance(value, str) else None
    if not match:
        return None, "not a time"
    year, month, day, hour, minute, seconds, fraction, offset = match.groups()
    try:
        dt.datetime(int(year), int(month), int(day), int(hour), int(minute), int(seconds or 0))
    except ValueError as exc:
        return None, f"not a time: {exc}"
    if int(seconds or 0) or float(fraction or 0):
        return None, "seconds are not zero"
    start = f"{year}-{month}-{day}T{int(hour):02d}:{minute}"
    problems = []
    if offset:
        problems.append(f"has a UTC offset ({offset}); times are local wall clock")
    if minute not in ("00", "15", "30", "45"):
        problems.append("off the 15-minute grid")
    return start, "; ".join(problems) or None


def parse_submission(arguments: str | dict, level: int) -> ParsedAnswer:
    """The structured path: submit_candidates arguments, as a JSON string or a dict."""
    _check_level(level)
    data: Any = arguments            # JSON; the schema below says what it holds
    if isinstance(arguments, str):
        try:
            data = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return _failed("tool", f"arguments are not valid JSON: {exc.msg} at char {exc.pos}")
        except (ValueError, RecursionError) as exc:
            return _failed("tool", f"arguments are not valid JSON: {exc}")
    note = None
    if isinstance(data, dict) and "note" in data:
        # the note never decides whether the candidates count: one that is not a string is dropped
        data = dict(data)
        note = _note_text(data.pop("note"))
    errors = [] if _plainly_valid(data, level) else sorted(
        jsonschema.Draft202012Validator(submit_schema(level)).iter_errors(data),
        key=lambda e: [str(p).zfill(9) for p in e.absolute_path])
    if errors:
        messages = [_describe(error, level) for error in errors[:3]]
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        return _failed("tool", "; ".join(messages) + more)
    candidates = []
    for item in data["candidates"]:
        start, problem = normalize_start(item["start"])
        candidates.append(Candidate(start, item.get("room_id"), _raw(item), problem))
    return ParsedAnswer(tuple(candidates), True, "tool", None, note)


def _plainly_valid(data: object, level: int) -> bool:
    """True where `submit_schema(level)` certainly accepts `data` (a note already taken out): only
    `candidates`, a list of objects with exactly the required keys, each a string of the schema's
    form. Checked without jsonschema, which takes about as long per candidate as scoring it;
    anything else goes to the validator, which words the errors."""
    if not (isinstance(data, dict) and data.keys() == {"candidates"} and isinstance(data["candidates"], list)):
        return False
    rooms = level_spec(level).rooms
    keys = {"start", "room_id"} if rooms else {"start"}
    return all(isinstance(item, dict) and item.keys() == keys
               and isinstance(item["start"], str) and _START_SHAPE.search(item["start"]) is not None
               and (not rooms or (isinstance(item["room_id"], str) and item["room_id"] != ""))
               for item in data["candidates"])


def parse_text_answer(text: str, level: int) -> ParsedAnswer:
    """The lenient path: the last candidate-shaped JSON value in a model's plain-text answer."""
    _check_level(level)
    text = text or ""
    if not text.strip():
        return _failed("text", "the answer is empty")
    values, cut_at = json_values(text)
    for value in reversed(values):
        items = _candidate_items(value, depth=0)
        if items is not None:
            return ParsedAnswer(tuple(_text_candidate(item, level) for item in items), True, "text", None,
                                _note_text(_field(value, ("note",))) if isinstance(value, dict) else None)
    if cut_at is not None:
        return _failed("text", f"the JSON answer is cut off (unclosed bracket at char {cut_at})")
    if values:
        return _failed("text", 'no candidates in the JSON (expected {"candidates": [{"start": ...}]})')
    return _failed("text", "no JSON answer found in the text")


def _note_text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _check_level(level: int) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVEL_NAMES}, not {level!r}")


def _failed(path: str, error: str) -> ParsedAnswer:
    return ParsedAnswer((), False, path, error)


def _raw(item: object) -> str:
    return json.dumps(item, ensure_ascii=False, default=repr)


def _where(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "arguments"


def _describe(error: jsonschema.ValidationError, level: int) -> str:
    """One schema error as a short sentence the model can act on."""
    where = _where(error.absolute_path)
    instance: Any = error.instance               # the JSON value that failed
    expected: Any = error.validator_value        # the failed keyword's value in the schema
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = [key for key in expected if key not in instance]
        suffix = f" at level {level}" if missing == ["room_id"] else ""
        return "; ".join(f"{_where([*error.absolute_path, key])} is required{suffix}" for key in missing)
    if error.validator == "additionalProperties":
        extra = sorted(set(instance) - set(schema.get("properties", {})))
        if extra == ["room_id"]:
            return f"{where}.room_id is not allowed at level {level} (rooms are only used at levels 3-4)"
        allowed = ", ".join(schema.get("properties", {}))
        return f"{where} has unexpected keys {', '.join(map(repr, extra))} (allowed: {allowed})"
    if error.validator == "type":
        return f"{where} must be {'an' if expected in ('object', 'array') else 'a'} " \
               f"{expected}, got {_JSON_TYPES.get(type(instance), type(instance).__name__)}"
    if error.validator == "pattern":
        return f"{where} must be {_START_FORMAT}, got {instance!r}"
    if error.validator == "minLength":
        return f"{where} must not be empty"
    return f"{where}: {error.message}"


def _field(item: dict, keys: tuple[str, ...]) -> object:
    lowered = {str(key).lower(): value for key, value in item.items()}
    return next((lowered[key] for key in keys if key in lowered), None)


def _is_candidate_dict(value: object) -> bool:
    return isinstance(value, dict) and _field(value, _START_KEYS + _ROOM_KEYS) is not None


def _candidate_items(value: object, depth: int) -> list | None:
    """The candidate items in a parsed JSON value, or None if it is not candidate-shaped."""
    if depth > 4:
        return None
    if isinstance(value, dict):
        inner = _field(value, ("candidates",))
        if isinstance(inner, list):
            return inner
        if isinstance(inner, dict) or _is_candidate_dict(value):
            return [inner if isinstance(inner, dict) else value]
        nested = (_candidate_items(child, depth + 1) for child in value.values())
        return next((items for items in nested if items is not None), None)
    if isinstance(value, list) and value:
        if all(_is_candidate_dict(item) for item in value):
            return value
        if all(isinstance(item, str) and _DATE_PREFIX.match(item) for item in value):
            return value
    if isinstance(value, str) and depth > 0 and value.lstrip()[:1] in ("{", "["):
        parsed = loads_lenient(value)
        return None if parsed is NOT_JSON else _candidate_items(parsed, depth + 1)
    return None


def _text_candidate(item: object, level: int) -> Candidate:
    if isinstance(item, dict):
        value, room = _field(item, _START_KEYS), _field(item, _ROOM_KEYS)
        date = _field(item, ("date", "day"))
        if isinstance(value, str) and isinstance(date, str) and _CLOCK_ONLY.fullmatch(value):
            value = f"{date.strip()} {value.strip()}"
    else:
        value, room = item, None
    start, problem = normalize_start(value)
    if value is None and isinstance(item, dict):
        problem = "start is missing"
    elif not isinstance(item, (dict, str)):
        problem = "not a candidate object"
    if isinstance(room, int) and not isinstance(room, bool):
        room = str(room)
    room = (room.strip() or None) if isinstance(room, str) else None
    if not level_spec(level).rooms:
        room = None
    elif room is None:
        problem = "; ".join(filter(None, [problem, "room_id is missing"]))
    return Candidate(start, room, _raw(item), problem)


def answer_from_record(answer: dict | None, level: int) -> ParsedAnswer | None:
    """A journal answer ({"path", "raw", "candidates", ...}) parsed again from its raw text; one
    with no raw text is rebuilt from its stored candidates."""
    if not answer or answer.get("path") is None:
        return None
    raw, path = answer.get("raw"), answer.get("path")
    if raw is not None and path == "tool":
        return parse_submission(raw, level)
    if raw is not None and path == "text":
        return parse_text_answer(raw, level)
    candidates = tuple(Candidate(c.get("start"), c.get("room_id"), c.get("raw") or "", c.get("problem"))
                       for c in answer.get("candidates") or [])
    return ParsedAnswer(candidates, bool(answer.get("parse_ok")), path or "tool", answer.get("error"),
                        _note_text(answer.get("note")))
