"""Agent tools: one `sql/tools/<name>.sql` file per tool, its header the only definition.

    >>> env = ToolEnvironment(con, "L3-0007")
    >>> [t.name for t in env.tools][:3]
    ['get_busy_intervals', 'get_current_time', 'get_person']
    >>> env.call("search_people", {"query": "Ana"})
    '{"query": "Ana", "total": 3, "people": [...], "remaining": 0, "next_cursor": null}'

A tool file starts with aiosql-style header comments, from which the OpenAI function schema
is generated, so description, arguments and query cannot drift apart:

    -- name: get_busy_intervals                 (must equal the file name)
    -- description: When one person is busy ...
    --   (an indented comment line continues the entry above it)
    -- levels: 1 2 3                            (the per-level catalogs)
    -- render: json | document | transcript | markdown
    -- page: busy                               (json: the list column paged by limit/cursor)
    -- not_found: No person has person_id {person_id}.   (error text when the query returns no row)
    -- empty: No room matches these filters.    (markdown: text when there is no row)
    -- param: person_id (string, required, maxLength=40) The person's id, e.g. p-004.

A param's parenthesis holds its JSON type, then `required` and `key=value` schema keywords
(`format=date` adds the YYYY-MM-DD pattern; values are JSON where they parse). The query binds
each parameter as `$name`, plus two that the environment binds itself: `$world_id` and `$now`.
Strings get maxLength 200 unless the header says otherwise.

`ToolEnvironment.call` never raises for anything an agent can send: unknown tools, non-JSON
arguments, schema violations, bad dates and unknown ids all come back as a short text starting
with "error:", and every call is recorded in `trace`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import time
from functools import cache
from pathlib import Path

import duckdb
import jsonschema

from .agents.base import ToolCall, ToolSpec
from .answers import SUBMIT_TOOL_NAME
from .db import SQL_DIR

TOOLS_DIR = SQL_DIR / "tools"
ENV_PARAMS = frozenset({"world_id", "now"})
RENDERERS = ("json", "document", "transcript", "markdown")
HEADER_KEYS = ("name", "description", "levels", "render", "page", "not_found", "empty", "param")
DEFAULT_MAX_LENGTH = 200
MAX_RANGE_DAYS = 31
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
TIME_FORMAT = "%Y-%m-%dT%H:%M"

_ENTRY = re.compile(rf"^--\s?({'|'.join(HEADER_KEYS)}):\s*(.*)$")
_CONTINUATION = re.compile(r"^--\s{2,}(\S.*)$")
_PARAM = re.compile(r"^([a-z_][a-z0-9_]*)\s*\(([^)]*)\)\s*(.*)$")
_PLACEHOLDER = re.compile(r"\$([a-z_][a-z0-9_]*)")


class ToolDefinitionError(ValueError):
    """A tool file whose header is malformed or disagrees with its query."""


class ToolError(Exception):
    """A bad call the agent can fix; the message is what it reads after `error: `."""


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    schema: dict
    required: bool

    @property
    def default(self):
        return self.schema.get("default")

    def signature(self) -> str:
        kind = "date" if self.schema.get("format") == "date" else self.schema["type"]
        if self.required:
            return f"{self.name}: {kind}"
        return f"{self.name}: {kind} = {json.dumps(self.default)}"


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    description: str
    levels: tuple[int, ...]
    render: str
    params: tuple[Param, ...]
    sql: str
    path: Path
    binds: frozenset[str] = frozenset()   # the $names the query uses
    page: str | None = None
    not_found: str | None = None
    empty: str | None = None

    @property
    def parameters(self) -> dict:
        """The JSON Schema of the arguments (OpenAI function-parameters format)."""
        return {"type": "object",
                "properties": {p.name: p.schema for p in self.params},
                "required": [p.name for p in self.params if p.required],
                "additionalProperties": False}

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    def signature(self) -> str:
        return f"{self.name}({', '.join(p.signature() for p in self.params)})"


# --- reading tool files ----------------------------------------------------------------------

def _header(text: str) -> list[tuple[str, str]]:
    """(key, value) entries of the leading comment block, continuation lines joined."""
    entries: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        stripped = line.rstrip()
        if not stripped.startswith("--"):
            break
        if entry := _ENTRY.match(stripped):
            current = [entry.group(1), entry.group(2).strip()]
            entries.append(current)
        elif (more := _CONTINUATION.match(stripped)) and current is not None:
            current[1] = f"{current[1]} {more.group(1).strip()}".strip()
        else:
            current = None  # a plain comment ends the entry above it
    return [(key, value) for key, value in entries]


def _schema_value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _param(text: str, where: str) -> Param:
    match = _PARAM.match(text)
    if not match:
        raise ToolDefinitionError(f"{where}: a param looks like `name (type, required, key=value) description`, "
                                  f"not {text!r}")
    name, attributes, description = match.groups()
    parts = [part.strip() for part in attributes.split(",") if part.strip()]
    if not parts or parts[0] not in ("string", "integer", "number", "boolean"):
        raise ToolDefinitionError(f"{where}: param {name} needs a JSON type first, not {attributes!r}")
    schema: dict = {"type": parts[0]}
    required = False
    for part in parts[1:]:
        if part == "required":
            required = True
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise ToolDefinitionError(f"{where}: param {name}: {part!r} is not `required` or key=value")
        schema[key.strip()] = _schema_value(value.strip())
    if schema.get("format") == "date":
        schema["pattern"] = DATE_PATTERN
    if schema["type"] == "string":
        schema.setdefault("maxLength", DEFAULT_MAX_LENGTH)
    if required and "default" in schema:
        raise ToolDefinitionError(f"{where}: param {name} is required and has a default")
    if not description:
        raise ToolDefinitionError(f"{where}: param {name} has no description")
    schema["description"] = description
    return Param(name, schema, required)


def parse_tool_file(path: Path) -> Tool:
    text = path.read_text()
    where = path.name
    entries = _header(text)
    single: dict[str, str] = {}
    params: list[Param] = []
    for key, value in entries:
        if key == "param":
            params.append(_param(value, where))
        elif key in single:
            raise ToolDefinitionError(f"{where}: `{key}` is given twice")
        else:
            single[key] = value
    for key in ("name", "description", "levels", "render"):
        if not single.get(key):
            raise ToolDefinitionError(f"{where}: the header needs `-- {key}:`")
    if single["name"] != path.stem:
        raise ToolDefinitionError(f"{where}: the tool is named {single['name']!r}; the file name must match")
    if single["render"] not in RENDERERS:
        raise ToolDefinitionError(f"{where}: render must be one of {', '.join(RENDERERS)}")
    try:
        levels = tuple(sorted({int(level) for level in single["levels"].replace(",", " ").split()}))
    except ValueError:
        levels = ()
    if not levels or not set(levels) <= {1, 2, 3}:
        raise ToolDefinitionError(f"{where}: levels must be some of 1 2 3, not {single['levels']!r}")
    names = [p.name for p in params]
    if len(set(names)) != len(names) or set(names) & ENV_PARAMS:
        raise ToolDefinitionError(f"{where}: parameter names must be unique and not {sorted(ENV_PARAMS)}")
    used = set(_PLACEHOLDER.findall(_strip_comments(text)))
    if used - ENV_PARAMS != set(names):
        raise ToolDefinitionError(
            f"{where}: the header declares {sorted(names)} but the query binds {sorted(used - ENV_PARAMS)}")
    page = single.get("page")
    if page and not {"limit", "cursor"} <= set(names):
        raise ToolDefinitionError(f"{where}: a paged tool needs limit and cursor params")
    return Tool(name=single["name"], description=single["description"], levels=levels,
                render=single["render"], params=tuple(params), sql=text, path=path,
                binds=frozenset(used), page=page, not_found=single.get("not_found"), empty=single.get("empty"))


def _strip_comments(sql: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in sql.splitlines())


@cache
def all_tools() -> dict[str, Tool]:
    """Every tool file, by name."""
    return {path.stem: parse_tool_file(path) for path in sorted(TOOLS_DIR.glob("*.sql"))}


def catalog(level: int) -> list[Tool]:
    """The tools an agent gets at this level (submit_candidates not included), by name."""
    if level not in (1, 2, 3):
        raise ValueError(f"level must be 1, 2 or 3, not {level!r}")
    return [tool for tool in all_tools().values() if level in tool.levels]


# --- rendering -------------------------------------------------------------------------------

def _plain(value, dtype) -> object:
    """A DuckDB value as plain JSON data: timestamps as YYYY-MM-DDTHH:MM, JSON columns parsed."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.strftime(TIME_FORMAT)
    if isinstance(value, dt.date):
        return value.isoformat()
    type_id = getattr(dtype, "id", None)
    if isinstance(value, str):
        return json.loads(value) if str(dtype) == "JSON" else value
    if isinstance(value, dict):
        children = dict(dtype.children) if type_id == "struct" else {}
        return {key: _plain(item, children.get(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        child = dtype.children[0][1] if type_id == "list" else None
        return [_plain(item, child) for item in value]
    return value


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict]:
    columns = [(d[0], d[1]) for d in cursor.description]
    return [{name: _plain(value, dtype) for (name, dtype), value in zip(columns, row)}
            for row in cursor.fetchall()]


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_json(tool: Tool, rows: list[dict], args: dict) -> str:
    result = dict(rows[0])
    if tool.page:
        cursor, limit, total = args["cursor"], args["limit"], result["total"]
        end = cursor + len(result[tool.page])
        result["remaining"] = max(total - end, 0)
        result["next_cursor"] = end if end < total else None
    return _dumps(result)


def render_document(tool: Tool, rows: list[dict], args: dict) -> str:
    doc = rows[0]
    page, pages = doc["page"], doc["pages"]
    if page > pages:
        raise ToolError(f"{doc['doc_id']} has {pages} page{'s' if pages != 1 else ''}; "
                        f"page {page} does not exist")
    head = f"{doc['title']} ({doc['doc_id']}) · page {page} of {pages}"
    if page < pages:
        left = pages - page
        foot = (f"[{left} more page{'s' if left != 1 else ''}: "
                f'read_policy_doc(doc_id="{doc["doc_id"]}", page={page + 1})]')
    else:
        foot = "[end of document]"
    return "\n\n".join([head, *doc["paragraphs"], foot])


def _stamp(ts: str) -> str:
    moment = dt.datetime.strptime(ts, TIME_FORMAT)
    return moment.strftime("%a %Y-%m-%d %H:%M")


def render_transcript(tool: Tool, rows: list[dict], args: dict) -> str:
    thread = rows[0]
    page, pages, total, messages = thread["page"], thread["pages"], thread["total"], thread["messages"]
    if page > pages:
        raise ToolError(f"thread {thread['thread_id']} has {pages} page{'s' if pages != 1 else ''}; "
                        f"page {page} does not exist")
    first = (page - 1) * 15 + 1
    shown = f"messages {first}–{first + len(messages) - 1} of {total}" if messages else "no messages"
    lines = [f"{thread['channel']} — {thread['title']}",
             f"thread {thread['thread_id']} · project {thread['project_id']} ({thread['project_name']}) · "
             f"{shown} · page {page} of {pages}", ""]
    for m in messages:
        lines.append(f"[{_stamp(m['ts'])}] {m['author']} ({m['message_id']})")
        lines.extend(f"  {part}" for part in m["text"].splitlines() or [""])
        lines.append("")
    left = total - (first - 1) - len(messages)
    if left > 0:
        lines.append(f"[{left} more message{'s' if left != 1 else ''}: "
                     f'read_thread(thread_id="{thread["thread_id"]}", page={page + 1})]')
    else:
        lines.append("[end of thread]")
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "—"
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(tool: Tool, rows: list[dict], args: dict) -> str:
    if not rows:
        return tool.empty or "No rows."
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + f"\n\n{len(rows)} row{'s' if len(rows) != 1 else ''}."


RENDER = {"json": render_json, "document": render_document, "transcript": render_transcript,
          "markdown": render_markdown}


# --- validating arguments --------------------------------------------------------------------

@cache
def _validator(tool_name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(all_tools()[tool_name].parameters)


def _short(value, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _describe(tool: Tool, error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        return f"missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - {p.name for p in tool.params})
        allowed = ", ".join(p.name for p in tool.params) or "none"
        return f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(map(_short, extra))} (allowed: {allowed})"
    if error.validator == "type":
        kind = error.validator_value
        got = type(error.instance).__name__ if not isinstance(error.instance, bool) else "boolean"
        if path:
            return f"{path} must be {'an' if kind == 'integer' else 'a'} {kind}, got {got} {_short(error.instance)}"
        return "arguments must be a JSON object of named arguments"
    if error.validator == "pattern" and schema.get("format") == "date":
        return f"{path} must be a date YYYY-MM-DD, got {_short(error.instance)}"
    if error.validator == "maxLength":
        return f"{path} is too long ({len(error.instance)} characters; at most {error.validator_value})"
    if error.validator == "minLength":
        return f"{path} is too short (at least {error.validator_value} character{'s' if error.validator_value != 1 else ''})"
    if error.validator in ("minimum", "maximum"):
        return f"{path} must be {'at least' if error.validator == 'minimum' else 'at most'} " \
               f"{error.validator_value}, got {_short(error.instance)}"
    return f"{path or 'arguments'}: {error.message[:200]}"


def check_arguments(tool: Tool, arguments: str | dict | None) -> dict:
    """The arguments as bind values (defaults filled in), or ToolError saying what is wrong."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            raise ToolError(f"arguments are not valid JSON ({str(exc)[:120]})") from None
    if not isinstance(arguments, dict):
        raise ToolError(f"arguments must be a JSON object of named arguments, e.g. "
                        f"{{{', '.join(f'{chr(34)}{p.name}{chr(34)}: ...' for p in tool.params[:2])}}}")
    optional = {p.name for p in tool.params if not p.required}
    arguments = {k: v for k, v in arguments.items() if not (v is None and k in optional)}
    errors = sorted(_validator(tool.name).iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        messages = list(dict.fromkeys(_describe(tool, e) for e in errors))
        raise ToolError("; ".join(messages[:3]) + (f" (and {len(messages) - 3} more)" if len(messages) > 3 else ""))
    values = {p.name: arguments.get(p.name, p.default) for p in tool.params}
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
            raise ToolError(f"the range is {span + 1} days; ask for at most {MAX_RANGE_DAYS + 1} days per call")
    return values


# --- the environment -------------------------------------------------------------------------

class ToolEnvironment:
    """One episode's tools over the warehouse (implements agents.base.Environment).

    Binds the instance's world and "now" itself, so no tool argument can reach another world.
    Uses its own cursor of `con`, so environments can run in threads side by side."""

    def __init__(self, con: duckdb.DuckDBPyConnection, instance_id: str):
        self.con = con.cursor()
        found = self.con.execute(
            "select level, world_id, prompt, now from instances where instance_id = $instance_id",
            {"instance_id": instance_id}).fetchall()
        if not found:
            raise KeyError(f"no instance {instance_id!r} in the database")
        self.instance_id = instance_id
        self.level, self.world_id, self.prompt, self.now = found[0]
        self._tools = {tool.name: tool for tool in catalog(self.level)}
        self.tools: list[ToolSpec] = [tool.spec for tool in self._tools.values()]
        self.trace: list[ToolCall] = []

    def call(self, name: str, arguments: str | dict | None = None, *, turn: int = 1) -> str:
        started = time.perf_counter()
        error = None
        try:
            text = self._run(name, arguments)
        except ToolError as exc:
            error = str(exc)
        except Exception as exc:  # a tool bug must not end the episode; the trace keeps it
            error = f"the tool failed ({type(exc).__name__}); try other arguments or another tool"
        if error is not None:
            text = f"error: {error}"
        latency_ms = (time.perf_counter() - started) * 1000
        if isinstance(arguments, str):
            sent = arguments
        else:
            sent = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False, default=repr)
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=str(name), arguments=sent,
                                   result=text, latency_ms=latency_ms, error=error))
        return text

    def _run(self, name: str, arguments) -> str:
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            if name == SUBMIT_TOOL_NAME:
                raise ToolError(f"{SUBMIT_TOOL_NAME} is answered by the agent loop, not by the environment")
            raise ToolError(f"there is no tool named {_short(name)}; the tools are: {', '.join(self._tools)}")
        try:
            values = check_arguments(tool, arguments)
        except ToolError as exc:
            raise ToolError(f"{exc}. Usage: {tool.signature()}") from None
        binds = {"world_id": self.world_id, "now": self.now, **values}
        rows = _rows(self.con.execute(tool.sql, {k: v for k, v in binds.items() if k in tool.binds}))
        if not rows and tool.not_found:
            raise ToolError(tool.not_found.format(**{k: _short(v) if isinstance(v, str) else v
                                                     for k, v in values.items()}))
        return RENDER[tool.render](tool, rows, values)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "ToolEnvironment":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
