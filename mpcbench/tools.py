"""Agent tools: one `sql/tools/<name>.sql` file per tool, whose header is its only definition.

    >>> env = ToolEnvironment(con, "L3-0007")
    >>> [spec.name for spec in env.tools][:3]
    ['get_busy_intervals', 'get_current_time', 'get_person']
    >>> env.call("search_people", {"query": "Ana"})
    '{"query": "Ana", "total": 2, "people": [...], "remaining": 0, "next_cursor": null}'

A tool file opens with aiosql-style header comments; the OpenAI function schema is generated
from them, so the description, the arguments and the query cannot drift apart:

    -- name: get_busy_intervals          the tool's name, equal to the file name
    -- description: When one person is busy ...
    --   (an indented comment line continues the entry above it)
    -- levels: 1 2 3                     the levels whose catalog holds the tool
    -- render: json                      json | document | document_search | transcript | markdown
    -- items: busy                       json: the rows go in a list under this key, after an
    --                                   echo of the arguments (else the one row is the object)
    -- page_size: 15                     page-paged tools: rows per page, bound as $page_size
    -- exists: people.person_id          when the query finds no row: does the id exist at all?
    -- not_found: No person has person_id {person_id}.   the error when it does not
    -- empty: No room matches.           markdown: the text for no rows
    -- param: person_id (string, required, maxLength=40) The person's id, e.g. p-004.

A param's parentheses hold its JSON type, then `required` and `key=value` schema keywords
(`format=date` adds a YYYY-MM-DD pattern; values are read as JSON where they parse). Strings
get maxLength 200 unless the header says otherwise. The query binds each parameter as `$name`,
plus what the environment binds itself: `$world_id`, `$now` and `$page_size`.

Paging: a tool with `limit` and `cursor` params pages by offset (the query ends with
`limit $limit offset $cursor` and counts `count(*) over () as total`); one with a `page`
param pages by `$page_size`. Either way the output says how many remain.

`ToolEnvironment.call` never raises for anything an agent can send: unknown tools, non-JSON
arguments, schema violations, bad dates and unknown ids all come back as a short text that
starts with "error:", and every call is recorded in `trace`.
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
ENV_PARAMS = frozenset({"world_id", "now", "page_size"})
RENDERERS = ("json", "document", "document_search", "transcript", "markdown")
HEADER_KEYS = ("name", "description", "levels", "render", "items", "page_size", "exists",
               "not_found", "empty", "param")
PAGING_PARAMS = frozenset({"limit", "cursor", "page"})
DEFAULT_MAX_LENGTH = 200
MAX_RANGE_DAYS = 31
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
TIME_FORMAT = "%Y-%m-%dT%H:%M"

_ENTRY = re.compile(rf"^--\s?({'|'.join(HEADER_KEYS)}):\s*(.*)$")
_CONTINUATION = re.compile(r"^--\s{2,}(\S.*)$")
_PARAM = re.compile(r"^([a-z_][a-z0-9_]*)\s*\(([^)]*)\)\s*(.*)$")
_PLACEHOLDER = re.compile(r"\$([a-z_][a-z0-9_]*)")
_COLUMN = re.compile(r"^([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$")


class ToolDefinitionError(ValueError):
    """A tool file whose header is malformed or disagrees with its query."""


class ToolError(Exception):
    """A call the agent can fix; the message is what it reads after `error: `."""


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
        return f"{self.name}: {kind}" if self.required else f"{self.name}: {kind} = {json.dumps(self.default)}"


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    description: str
    levels: tuple[int, ...]
    render: str
    params: tuple[Param, ...]
    sql: str
    path: Path
    binds: frozenset[str]             # the $names the query uses
    items: str | None = None
    page_size: int | None = None
    exists_sql: str | None = None     # select 1 when the looked-up id exists
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

    @property
    def paging(self) -> str | None:
        """'cursor' (limit/cursor), 'page' or None."""
        names = {p.name for p in self.params}
        return "cursor" if "cursor" in names else "page" if "page" in names else None

    def signature(self) -> str:
        return f"{self.name}({', '.join(p.signature() for p in self.params)})"


# --- reading tool files ----------------------------------------------------------------------

def _header(text: str) -> list[tuple[str, str]]:
    """(key, value) entries of the leading comment block, continuation lines joined."""
    entries: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        line = line.rstrip()
        if not line.startswith("--"):
            break
        if entry := _ENTRY.match(line):
            current = [entry.group(1), entry.group(2).strip()]
            entries.append(current)
        elif (more := _CONTINUATION.match(line)) and current is not None:
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
        raise ToolDefinitionError(f"{where}: a param reads `name (type, required, key=value) description`, "
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
            raise ToolDefinitionError(f"{where}: param {name}: {part!r} is neither `required` nor key=value")
        schema[key.strip()] = _schema_value(value.strip())
    if schema.get("format") == "date":
        schema["pattern"] = DATE_PATTERN
    if schema["type"] == "string" and "pattern" not in schema:
        schema.setdefault("maxLength", DEFAULT_MAX_LENGTH)
    if required and "default" in schema:
        raise ToolDefinitionError(f"{where}: param {name} is required and has a default")
    if not description:
        raise ToolDefinitionError(f"{where}: param {name} has no description")
    schema["description"] = description
    return Param(name, schema, required)


def strip_comments(sql: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in sql.splitlines())


def parse_tool_file(path: Path) -> Tool:
    text = path.read_text()
    where = path.name
    single: dict[str, str] = {}
    params: list[Param] = []
    for key, value in _header(text):
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
        raise ToolDefinitionError(f"{where}: parameter names must be unique and none of {sorted(ENV_PARAMS)}")
    binds = frozenset(_PLACEHOLDER.findall(strip_comments(text)))
    rendered_only = {"page"} if single["render"] == "document" else set()  # the renderer pages a document
    if binds - ENV_PARAMS != set(names) - rendered_only:
        raise ToolDefinitionError(
            f"{where}: the header declares {sorted(names)} but the query binds {sorted(binds - ENV_PARAMS)}")
    if ("limit" in names) != ("cursor" in names):
        raise ToolDefinitionError(f"{where}: limit and cursor come together")
    page_size = int(single["page_size"]) if single.get("page_size") else None
    if "page" in names and not page_size:
        raise ToolDefinitionError(f"{where}: a tool with a page param needs `-- page_size:`")
    exists_sql = None
    if single.get("exists"):
        column = _COLUMN.match(single["exists"])
        if not column or column.group(2) not in names:
            raise ToolDefinitionError(f"{where}: exists reads `table.column`, the column named like a param")
        table, name = column.groups()
        exists_sql = f"select 1 from {table} where world_id = $world_id and {name} = ${name} limit 1"
        if not single.get("not_found"):
            raise ToolDefinitionError(f"{where}: exists needs a not_found text")
    return Tool(name=single["name"], description=single["description"], levels=levels,
                render=single["render"], params=tuple(params), sql=text, path=path, binds=binds,
                items=single.get("items"), page_size=page_size, exists_sql=exists_sql,
                not_found=single.get("not_found"), empty=single.get("empty"))


@cache
def all_tools() -> dict[str, Tool]:
    """Every tool file, by name."""
    return {path.stem: parse_tool_file(path) for path in sorted(TOOLS_DIR.glob("*.sql"))}


def catalog(level: int) -> list[Tool]:
    """The tools an agent gets at this level (submit_candidates not included), by name."""
    if level not in (1, 2, 3):
        raise ValueError(f"level must be 1, 2 or 3, not {level!r}")
    return [tool for tool in all_tools().values() if level in tool.levels]


def specs(level: int) -> list[ToolSpec]:
    return [tool.spec for tool in catalog(level)]


# --- rendering -------------------------------------------------------------------------------

def _plain(value) -> object:
    """A DuckDB value as plain JSON data: timestamps as YYYY-MM-DDTHH:MM, dates as YYYY-MM-DD."""
    if isinstance(value, dt.datetime):
        return value.strftime(TIME_FORMAT)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _converter(type_name: str):
    """How to read a column of this DuckDB type (None: as it comes)."""
    if type_name == "JSON":
        return lambda value: None if value is None else json.loads(value)
    if type_name.startswith(("TIMESTAMP", "DATE")) or type_name.endswith("[]"):
        return _plain
    return None


def _rows(cursor: duckdb.DuckDBPyConnection) -> list[dict]:
    names = [d[0] for d in cursor.description]
    convert = [(i, f) for i, d in enumerate(cursor.description) if (f := _converter(str(d[1])))]
    rows = []
    for row in cursor.fetchall():
        if convert:
            row = list(row)
            for i, f in convert:
                row[i] = f(row[i])
        rows.append(dict(zip(names, row)))
    return rows


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclasses.dataclass
class Result:
    """What a query found: its rows and, for a paged tool, how many there are in all."""
    rows: list[dict]
    total: int | None = None


def render_json(tool: Tool, result: Result, args: dict) -> str:
    if tool.items is None:
        return _dumps(result.rows[0])
    out = {name: value for name, value in args.items() if name not in PAGING_PARAMS and value is not None}
    items = [{k: v for k, v in row.items() if k != "total"} for row in result.rows]
    if tool.paging == "cursor":
        end = args["cursor"] + len(items)
        out["total"] = result.total
        out[tool.items] = items
        out["remaining"] = max(result.total - end, 0)
        out["next_cursor"] = end if end < result.total else None
    else:
        out[tool.items] = items
    return _dumps(out)


def paragraphs(text: str) -> list[str]:
    return [part.strip() for part in text.split("\n\n") if part.strip()]


def _page_count(n: int, page_size: int) -> int:
    return max(1, -(-n // page_size))


def render_document(tool: Tool, result: Result, args: dict) -> str:
    doc, page = result.rows[0], args["page"]
    parts = paragraphs(doc["text"])
    pages = _page_count(len(parts), tool.page_size)
    if page > pages:
        raise ToolError(f"{doc['doc_id']} has {_plural(pages, 'page')}; page {page} does not exist")
    shown = parts[(page - 1) * tool.page_size: page * tool.page_size]
    head = f"{doc['title']} ({doc['doc_id']}) · page {page} of {pages}"
    foot = (f"[{_plural(pages - page, 'more page')}: read_policy_doc(doc_id=\"{doc['doc_id']}\", page={page + 1})]"
            if page < pages else "[end of document]")
    return "\n\n".join([head, *shown, foot])


def render_document_search(tool: Tool, result: Result, args: dict) -> str:
    query = (args.get("query") or "").lower()
    documents = []
    for doc in result.rows:
        parts = paragraphs(doc["text"])
        hits = sorted({i // tool.page_size + 1 for i, part in enumerate(parts) if query in part.lower()})
        if hits:  # a match across a paragraph break is no match
            documents.append({"doc_id": doc["doc_id"], "title": doc["title"],
                              "pages": _page_count(len(parts), tool.page_size), "matching_pages": hits})
    out = {"query": args["query"]} if args.get("query") is not None else {}
    return _dumps({**out, "total": len(documents), "documents": documents})


def _stamp(ts: str) -> str:
    return dt.datetime.fromisoformat(ts).strftime("%a %Y-%m-%d %H:%M")


def render_transcript(tool: Tool, result: Result, args: dict) -> str:
    page, total, messages = args["page"], result.total, result.rows
    pages = _page_count(total, tool.page_size)
    first = (page - 1) * tool.page_size + 1
    lines = [f"thread {args['thread_id']} · messages {first}–{first + len(messages) - 1} of {total} · "
             f"page {page} of {pages}", ""]
    for m in messages:
        lines.append(f"[{_stamp(m['ts'])}] {m['author']} ({m['message_id']})")
        lines.extend(f"  {part}" for part in m["text"].splitlines() or [""])
        lines.append("")
    left = total - (first - 1) - len(messages)
    lines.append(f"[{_plural(left, 'more message')}: read_thread(thread_id=\"{args['thread_id']}\", page={page + 1})]"
                 if left > 0 else "[end of thread]")
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "—"
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(tool: Tool, result: Result, args: dict) -> str:
    rows = result.rows
    if not rows:
        return tool.empty or "No rows."
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + f"\n\n{_plural(len(rows), 'row')}."


RENDER = {"json": render_json, "document": render_document, "document_search": render_document_search,
          "transcript": render_transcript, "markdown": render_markdown}


# --- checking arguments ----------------------------------------------------------------------

@cache
def _validator(tool_name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(all_tools()[tool_name].parameters)


def _short(value, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
               dict: "object", type(None): "null"}


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _describe(tool: Tool, error: jsonschema.ValidationError) -> str:
    name = ".".join(str(p) for p in error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    value = error.instance
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in value]
        return f"missing required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    if error.validator == "additionalProperties":
        extra = sorted(map(str, set(value) - {p.name for p in tool.params}))
        allowed = ", ".join(p.name for p in tool.params) or "none"
        return f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(map(_short, extra))} (allowed: {allowed})"
    if error.validator == "type":
        got = _JSON_TYPES.get(type(value), type(value).__name__)
        return f"{name} must be {_a(error.validator_value)}, not {_a(got)} ({_short(value)})"
    if error.validator == "pattern" and schema.get("format") == "date":
        return f"{name} must be a date YYYY-MM-DD, not {_short(value)}"
    if error.validator == "maxLength":
        return f"{name} is too long ({len(value)} characters; at most {error.validator_value})"
    if error.validator == "minLength":
        return f"{name} is too short (at least {_plural(error.validator_value, 'character')})"
    if error.validator in ("minimum", "maximum"):
        bound = "at least" if error.validator == "minimum" else "at most"
        return f"{name} must be {bound} {error.validator_value}, not {_short(value)}"
    return f"{name or 'arguments'}: {error.message[:200]}"


def check_arguments(tool: Tool, arguments: str | dict | None) -> dict:
    """The argument values to bind (defaults filled in), or ToolError saying what is wrong."""
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
    errors = list(_validator(tool.name).iter_errors(arguments))
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


# --- the environment -------------------------------------------------------------------------

class ToolEnvironment:
    """One episode's tools over the warehouse (implements agents.base.Environment).

    It binds the instance's world and "now" itself, so no argument reaches another world, and
    queries through its own cursor of `con`, so environments can run in threads side by side."""

    def __init__(self, con: duckdb.DuckDBPyConnection, instance_id: str):
        self.con = con.cursor()
        found = self.con.execute("select level, world_id, prompt, now from instances where instance_id = $id",
                                 {"id": instance_id}).fetchall()
        if not found:
            self.con.close()
            raise KeyError(f"no instance {instance_id!r} in the database")
        self.instance_id = instance_id
        self.level, self.world_id, self.prompt, self.now = found[0]
        self.request = self.prompt
        self._tools = {tool.name: tool for tool in catalog(self.level)}
        self.tools: list[ToolSpec] = [tool.spec for tool in self._tools.values()]
        self.trace: list[ToolCall] = []

    def call(self, name: str, arguments: str | dict | None = None, *, turn: int = 1) -> str:
        started = time.perf_counter()
        error = None
        try:
            text = self.run(name, arguments)
        except ToolError as exc:
            error = str(exc)
        except Exception as exc:  # a tool bug must not end the episode; the trace keeps it
            error = f"the tool failed ({type(exc).__name__}); try other arguments or another tool"
        if error is not None:
            text = f"error: {error}"
        latency_ms = (time.perf_counter() - started) * 1000
        sent = arguments if isinstance(arguments, str) else json.dumps(
            {} if arguments is None else arguments, ensure_ascii=False, default=repr)
        self.trace.append(ToolCall(turn=turn, step=len(self.trace) + 1, tool=str(name), arguments=sent,
                                   result=text, latency_ms=latency_ms, error=error))
        return text

    def run(self, name: str, arguments: str | dict | None) -> str:
        """The tool's text; ToolError for a call the agent can fix."""
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            if name == SUBMIT_TOOL_NAME:
                raise ToolError(f"{SUBMIT_TOOL_NAME} is handled by the agent loop, not by this environment")
            raise ToolError(f"there is no tool named {_short(name)}; the tools are: {', '.join(self._tools)}")
        try:
            args = check_arguments(tool, arguments)
        except ToolError as exc:
            raise ToolError(f"{exc}. Usage: {tool.signature()}") from None
        result = self._query(tool, args)
        if not result.rows:
            if tool.paging == "page" and result.total:  # paged past the end
                pages = _page_count(result.total, tool.page_size)
                raise ToolError(f"{args[tool.params[0].name]} has {_plural(pages, 'page')}; "
                                f"page {args['page']} does not exist")
            if tool.not_found and not (tool.exists_sql and self._exists(tool, args)):
                raise ToolError(tool.not_found.format(
                    **{k: _short(v) if isinstance(v, str) else v for k, v in args.items()}))
        return RENDER[tool.render](tool, result, args)

    def _execute(self, sql: str, binds: dict, used: frozenset[str]) -> list[dict]:
        return _rows(self.con.execute(sql, {k: v for k, v in binds.items() if k in used}))

    def _query(self, tool: Tool, args: dict) -> Result:
        binds = {"world_id": self.world_id, "now": self.now, "page_size": tool.page_size, **args}
        rows = self._execute(tool.sql, binds, tool.binds)
        if not tool.paging or tool.render == "document":  # a document is paged by its renderer
            return Result(rows)
        if rows:
            return Result(rows, rows[0]["total"])
        start = {"cursor": 0} if tool.paging == "cursor" else {"page": 1}
        if all(args[k] == v for k, v in start.items()):
            return Result(rows, 0)
        first = self._execute(tool.sql, {**binds, **start}, tool.binds)  # how many are there?
        return Result(rows, first[0]["total"] if first else 0)

    def _exists(self, tool: Tool, args: dict) -> bool:
        binds = {"world_id": self.world_id, **args}
        used = frozenset(_PLACEHOLDER.findall(tool.exists_sql))
        return bool(self._execute(tool.exists_sql, binds, used))

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "ToolEnvironment":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
