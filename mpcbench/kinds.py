"""The constraint-kind registry, `sql/05_seeds/constraint_kinds.sql`, as the Python reads it:
config validation, the rule types of the world JSON Schema, the system prompt, the get_policy
tool's description and the feedback text all come from these rows.

    >>> [k.name for k in policy_rule_kinds()][:3]
    ['working_hours', 'blackout', 'buffer']
    >>> kind("buffer").params
    (Param(name='minutes', type='integer', minimum=0, maximum=720),)
    >>> check_params("buffer", {"minutes": 900})
    ['minutes must be an integer from 0 to 720']

The scripted solver and the reference oracle in tests/ do not read it: they stay independent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import duckdb

from .paths import SQL_DIR

REGISTRY = SQL_DIR / "05_seeds" / "constraint_kinds.sql"   # the seed layer (warehouse/db.py's SEED_LAYER)
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
CLOCK = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
INT_MIN, INT_MAX = -2147483648, 2147483647   # the values an `integer` param may take (the SQL column type)


@dataclass(frozen=True)
class Param:
    name: str
    type: str                 # clock, integer or weekdays
    minimum: int | None
    maximum: int | None

    @property
    def bounds(self) -> tuple[int, int]:
        """An integer param's lowest and highest value (a null minimum or maximum: the SQL integer's)."""
        return (INT_MIN if self.minimum is None else self.minimum, INT_MAX if self.maximum is None else self.maximum)

    def problem(self, value: object) -> str | None:
        """Why `value` is not a valid value of this param, or None."""
        if self.type == "clock":
            if isinstance(value, str) and CLOCK.fullmatch(value):
                return None
            return f"{self.name} must be a time of day HH:MM"
        if self.type == "integer":
            low, high = self.bounds
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                return f"{self.name} must be an integer from {low} to {high}"
            return None
        if (not isinstance(value, list) or not value or len(set(value)) != len(value)
                or not set(value) <= set(WEEKDAYS)):
            return f"{self.name} must be a non-empty list of distinct weekdays among {', '.join(WEEKDAYS)}"
        return None


@dataclass(frozen=True)
class ConstraintKind:
    name: str
    source: str
    is_frame: bool
    uses_calendar: bool
    bit: int
    first_level: int                     # the first level whose worlds have it
    params: tuple[Param, ...] | None     # None: not a policy rule
    prompt_text: str
    feedback_text: str

    @property
    def rule_params(self) -> tuple[Param, ...]:
        """A policy rule kind's params; ValueError for a kind that is not a policy rule."""
        if self.params is None:
            raise ValueError(f"{self.name} is not a policy rule kind")
        return self.params


@cache
def constraint_kinds() -> tuple[ConstraintKind, ...]:
    """Every registered kind, in bit order."""
    con = duckdb.connect(":memory:")
    con.execute(REGISTRY.read_text())
    rows = con.execute("select constraint_kind, source, is_frame, uses_calendar, bit, first_level, params, prompt_text, "
                       "feedback_text from constraint_kinds order by bit").fetchall()
    con.close()
    return tuple(
        ConstraintKind(name, source, is_frame, uses_calendar, bit, first_level,
                       None if params is None else tuple(Param(**p) for p in params), prompt, feedback)
        for name, source, is_frame, uses_calendar, bit, first_level, params, prompt, feedback in rows)


def kind(name: str) -> ConstraintKind:
    for k in constraint_kinds():
        if k.name == name:
            return k
    raise KeyError(name)


def kinds_of(source: str, level: int = 4) -> tuple[ConstraintKind, ...]:
    """The kinds of one source that worlds of `level` have."""
    return tuple(k for k in constraint_kinds() if k.source == source and k.first_level <= level)


def policy_rule_kinds() -> tuple[ConstraintKind, ...]:
    return tuple(k for k in constraint_kinds() if k.params is not None)


def check_params(rule_type: str, params: dict) -> list[str]:
    """What is wrong with a policy rule's params (missing, unknown or invalid keys); [] if nothing."""
    spec = {p.name: p for p in kind(rule_type).rule_params}
    problems = [f"{rule_type} needs {name}" for name in spec if name not in params]
    problems += [f"{rule_type} has no param {key!r} (its params: {', '.join(spec)})"
                 for key in params if key not in spec]
    problems += [problem for name, p in spec.items() if name in params and (problem := p.problem(params[name]))]
    return problems


def params_schema(rule_type: str) -> dict:
    """The JSON Schema of a policy rule's params (the world schema's `<kind>_params`)."""
    properties: dict[str, dict] = {}
    for p in kind(rule_type).rule_params:
        if p.type == "clock":
            properties[p.name] = {"$ref": "#/$defs/clock"}
        elif p.type == "integer":
            properties[p.name] = {"type": "integer", "minimum": p.bounds[0], "maximum": p.bounds[1]}
        else:
            properties[p.name] = {"type": "array", "minItems": 1, "uniqueItems": True,
                                  "items": {"enum": list(WEEKDAYS)}}
    return {"type": "object", "required": [p.name for p in kind(rule_type).rule_params],
            "additionalProperties": False, "properties": properties}
