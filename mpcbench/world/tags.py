"""The one tag syntax for machine-readable facts inside text (policy documents, messages).

A tag is `[[type key=value ...]]`. A value is a bare token (letters, digits and `_.:-/+@`) or
JSON (a quoted string, a number, a list). Bare digits are integers.

    >>> render_tag("ban", {"start": "2026-03-03T09:00", "end": "2026-03-03T12:00"})
    '[[ban start=2026-03-03T09:00 end=2026-03-03T12:00]]'
    >>> parse_tags('Heads up [[ooo person_name="Ana Lima" start=2026-03-03T09:00 end=2026-03-03T13:00]] thanks')
    [('ooo', {'person_name': 'Ana Lima', 'start': '2026-03-03T09:00', 'end': '2026-03-03T13:00'})]
"""

from __future__ import annotations

import json
import re

_BARE = re.compile(r"[A-Za-z0-9_.:\-/+@]+")
_INT = re.compile(r"-?\d+")
_OPEN = re.compile(r"\[\[([a-z_]+)")
_KEY = re.compile(r"\s+([a-z_]+)=")
_DECODER = json.JSONDecoder()


def render_value(value: object) -> str:
    if isinstance(value, bool) or value is None:
        raise TypeError(f"tags hold strings, integers and lists, not {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and _BARE.fullmatch(value) and not _INT.fullmatch(value):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_tag(tag_type: str, params: dict) -> str:
    body = "".join(f" {key}={render_value(value)}" for key, value in params.items())
    return f"[[{tag_type}{body}]]"


def _parse_at(text: str, pos: int) -> tuple[str, dict, int] | None:
    """Parse one tag whose `[[` is at pos; return (type, params, end) or None if malformed."""
    opened = _OPEN.match(text, pos)
    if not opened:
        return None
    params: dict = {}
    cursor = opened.end()
    while not text.startswith("]]", cursor):
        key = _KEY.match(text, cursor)
        if not key:
            return None
        cursor = key.end()
        if text[cursor:cursor + 1] in ('"', "["):
            try:
                value, cursor = _DECODER.raw_decode(text, cursor)
            except json.JSONDecodeError:
                return None
        else:
            bare = _BARE.match(text, cursor)
            if not bare:
                return None
            value = int(bare.group()) if _INT.fullmatch(bare.group()) else bare.group()
            cursor = bare.end()
        params[key.group(1)] = value
    return opened.group(1), params, cursor + 2


def parse_tags(text: str) -> list[tuple[str, dict]]:
    """Every well-formed tag in the text, in order. Malformed `[[...` is ordinary text."""
    found = []
    pos = text.find("[[")
    while pos != -1:
        parsed = _parse_at(text, pos)
        if parsed:
            found.append(parsed[:2])
            pos = text.find("[[", parsed[2])
        else:
            pos = text.find("[[", pos + 1)
    return found
