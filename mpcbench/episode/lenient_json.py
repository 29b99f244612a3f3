"""JSON values found in prose, read leniently: what a model's plain-text answer holds.

    >>> json_values('Here: [{"start": "2026-03-02T09:00"},] and {"note": "hi"}')
    ([[{'start': '2026-03-02T09:00'}], {'note': 'hi'}], None)

Lenient about wrappers (prose around the values, trailing commas, Python literals with single
quotes read with `ast.literal_eval`), and linear on hostile text (deep nesting ends a span early).
"""

from __future__ import annotations

import ast
import json
import re

_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_MAX_DEPTH = 32
_OPENER = re.compile(r"[{\[]")
_JSON_START = re.compile(r"[{\[]\s*[\"'{\[]")  # an opener that starts JSON, not prose like "[see"


def json_values(text: str) -> tuple[list, int | None]:
    """Every top-level JSON (or Python-literal) value in the text, in order, and where a cut-off
    JSON value starts (None if none). Scanning stops at a cut-off value: nothing inside it is
    trusted, so a truncated answer never yields its first few candidates as if complete."""
    values: list = []
    pos = 0
    while opener := _OPENER.search(text, pos):
        pos, end = opener.start(), _balanced_end(text, opener.start())
        if end is None:
            if _JSON_START.match(text, pos):
                return values, pos
            pos += 1
            continue
        value = loads_lenient(text[pos:end])
        if value is NOT_JSON:
            pos += 1
        else:
            values.append(value)
            pos = end
    return values, None


def _balanced_end(text: str, pos: int) -> int | None:
    """Index just past the bracket that closes the one at pos (double-quoted strings skipped);
    None if it never closes. Nesting deeper than any answer ends the span early (it will not
    parse), which keeps the scan linear on hostile text."""
    depth = 0
    for token in _STRUCTURE.finditer(text, pos):
        if token.group() in ("{", "["):
            depth += 1
            if depth > _MAX_DEPTH:
                return token.end()
        elif token.group() in ("}", "]"):
            depth -= 1
            if depth == 0:
                return token.end()
    return None


NOT_JSON = object()
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])')


def loads_lenient(span: str) -> object:
    """JSON; else JSON without trailing commas; else a Python literal (single quotes, True/None)."""
    if '"' not in span and "'" not in span:
        return NOT_JSON  # holds no string, so no start time: not worth parsing
    for attempt in (span, _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), span)):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):  # ValueError also covers JSONDecodeError, huge ints
            pass
    try:
        return ast.literal_eval(span)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_JSON
