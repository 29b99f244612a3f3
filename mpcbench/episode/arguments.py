"""Checking a tool call's arguments: its JSON Schema first (no argument besides those it lists;
`format: date` asserted as YYYY-MM-DD), then what a schema cannot say (real dates, ranges of at
most MAX_RANGE_DAYS). A problem is a `ToolError` with a short sentence the agent can act on.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from typing import Any

import jsonschema

from .render import plural
from .toolfiles import DATE_PATTERN, MAX_RANGE_DAYS, Tool, ToolError


_FORMATS = jsonschema.FormatChecker(formats=())


@_FORMATS.checks("date")
def _is_date(value: object) -> bool:
    """The shape YYYY-MM-DD (a real date is checked after the schema); other types are the
    `type` keyword's to judge."""
    return not isinstance(value, str) or DATE_PATTERN.search(value) is not None


@cache
def _validator(schema_text: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(schema_text), format_checker=_FORMATS)


def short_value(value, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
               dict: "object", type(None): "null"}


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _describe(tool: Tool, error: jsonschema.ValidationError) -> str:
    name = ".".join(str(p) for p in error.absolute_path)
    value: Any = error.instance               # the JSON value that failed
    expected: Any = error.validator_value     # the failed keyword's value in the schema
    if error.validator == "required":
        missing = [key for key in expected if key not in value]
        return f"missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    if error.validator == "additionalProperties":
        extra = sorted(map(str, set(value) - {p.name for p in tool.params}))
        allowed = ", ".join(p.name for p in tool.params) or "none"
        return f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(map(short_value, extra))} (allowed: {allowed})"
    if error.validator == "type":
        got = _JSON_TYPES.get(type(value), type(value).__name__)
        return f"{name} must be {_a(expected)}, not {_a(got)} ({short_value(value)})"
    if error.validator == "format" and expected == "date":
        return f"{name} must be a date YYYY-MM-DD, not {short_value(value)}"
    if error.validator == "maxLength":
        return f"{name} is too long ({len(value)} characters; at most {expected})"
    if error.validator == "minLength":
        return f"{name} is too short (at least {plural(expected, 'character')})"
    if error.validator in ("minimum", "maximum"):
        bound = "at least" if error.validator == "minimum" else "at most"
        return f"{name} must be {bound} {expected}, not {short_value(value)}"
    return f"{name or 'arguments'}: {error.message[:200]}"


def check_arguments(tool: Tool, arguments: str | dict | None) -> dict:
    """The argument values to bind (defaults filled in), or ToolError saying what is wrong.

    Any Tool's: the benchmark's own (`sql/tools/`) and the legacy ones (`sql/legacy/tools/`).
    """
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            raise ToolError(f"the arguments are not valid JSON ({str(exc)[:100]})") from None
    if not isinstance(arguments, dict):
        raise ToolError("the arguments must be a JSON object of named arguments")
    optional = {p.name for p in tool.params if not p.required}
    arguments = {k: v for k, v in arguments.items() if not (v is None and k in optional)}
    schema = {**tool.parameters, "additionalProperties": False}   # a tool takes only the arguments it lists
    errors = list(_validator(json.dumps(schema, sort_keys=True)).iter_errors(arguments))
    if errors:
        messages = sorted(dict.fromkeys(_describe(tool, e) for e in errors))
        more = f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""
        raise ToolError("; ".join(messages[:3]) + more)
    values = {p.name: arguments.get(p.name, p.default) for p in tool.params}
    for p in tool.params:
        value = values[p.name]
        if p.schema["type"] == "integer" and isinstance(value, float):
            values[p.name] = int(value)  # JSON Schema counts 5.0 as an integer
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ToolError(f"{p.name} is not valid text (it holds an unpaired surrogate)") from None
    dates = {}
    for p in tool.params:
        if p.schema.get("format") == "date" and values[p.name] is not None:
            try:
                dates[p.name] = dt.date.fromisoformat(values[p.name])
            except ValueError:
                raise ToolError(f"{p.name} is not a real date: {values[p.name]!r}") from None
    if "start_date" in dates and "end_date" in dates:
        span = (dates["end_date"] - dates["start_date"]).days
        if span < 0:
            raise ToolError("end_date is before start_date")
        if span > MAX_RANGE_DAYS:
            raise ToolError(f"the range has {span + 1} days; ask for at most {MAX_RANGE_DAYS + 1} days per call")
    return values
