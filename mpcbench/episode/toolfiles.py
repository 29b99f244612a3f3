"""Reading the tool files: one `sql/tools/<name>.sql` file per tool, whose header is its only
definition.

A tool file opens with aiosql-style header comments; the OpenAI function schema is generated
from them, so the description, the arguments and the query cannot drift apart:

    -- name: get_busy_intervals          the tool's name, equal to the file name
    -- description: When one person is busy ...
    --   (an indented comment line continues the entry above it; `{policy_rule_types}`
    --   stands for the policy rule types of the constraint-kind registry)
    -- levels: 1 2 3                     the levels whose catalog holds the tool
    -- source: calendar                  the source it reads: calendar | policy | threads | rooms |
    --                                   directory, or none (it only lists ids or finds pages);
    --                                   a call answered without error counts as reading it
    -- render: json                      json | document | document_search | transcript | markdown
    -- items: busy                       json: the rows go in a list under this key, after an
    --                                   echo of the arguments (else the one row is the object)
    -- page_size: 15                     page-paged tools: rows per page, bound as $page_size
    -- exists: people.person_id          when the query finds no row: does the id exist at all?
    -- not_found: No person has person_id {person_id}.   the error when it does not
    -- empty: No room matches.           markdown: the text for no rows
    -- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.

A param's parentheses hold its JSON type, then `required` and `key=value` schema keywords
(values are read as JSON where they parse; `format=date` is asserted as YYYY-MM-DD, see
`episode.arguments`). Strings get maxLength 200 unless the header says otherwise or are dates. The query binds each parameter as `$name`,
plus what the environment binds itself: `$world_id`, `$now` and `$page_size`.

Paging: a tool with `limit` and `cursor` params pages by offset (the query ends with
`limit $limit offset $cursor` and counts `count(*) over () as total`); one with a `page`
param pages by `$page_size`. Either way the output says how many remain.

Lineage: every query also selects `source_rows` (varchar[]), the raw rows its output row was
derived from, as `<table>:<key>` (`events:ev-3fa9c2`, `people:p-3fa9c2`,
`event_series_exceptions:<series_id>@<original_start>`); a tool that reads no world row selects
an empty list. It is never shown: `episode.tools.DataTools` strips it, as it strips `total`.

"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from pathlib import Path

from ..levels import LEVEL_NAMES
from ..sources import LEVELS, SOURCES
from ..warehouse.db import SQL_DIR
from ..kinds import policy_rule_kinds
from .contract import ToolSpec


TOOLS_DIR = SQL_DIR / "tools"
ENV_PARAMS = frozenset({"world_id", "now", "page_size"})
RENDERERS = ("json", "document", "document_search", "transcript", "markdown")
HEADER_KEYS = ("name", "description", "levels", "source", "render", "items", "page_size", "exists",
               "not_found", "empty", "param")
TOOL_SOURCES = (*SOURCES, "directory", "none")
PAGING_PARAMS = frozenset({"limit", "cursor", "page"})
DEFAULT_MAX_LENGTH = 200
MAX_RANGE_DAYS = 31
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")   # what `format=date` asserts
_ENTRY = re.compile(rf"^--\s?({'|'.join(HEADER_KEYS)}):\s*(.*)$")
_CONTINUATION = re.compile(r"^--\s{2,}(\S.*)$")
_PARAM = re.compile(r"^([a-z_][a-z0-9_]*)\s*\(([^)]*)\)\s*(.*)$")
PLACEHOLDER = re.compile(r"\$([a-z_][a-z0-9_]*)")
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
    source: str | None = None         # the source it reads (None: `-- source: none`)
    items: str | None = None
    page_size: int | None = None
    exists_sql: str | None = None     # select 1 when the looked-up id exists
    not_found: str | None = None
    empty: str | None = None

    @property
    def parameters(self) -> dict:
        """The JSON Schema of the arguments as a model is sent it (OpenAI function-parameters
        format), with nothing the properties already say: no empty `required`, and no
        `additionalProperties: false`, which `episode.arguments` adds when it checks a call."""
        required = [p.name for p in self.params if p.required]
        return {"type": "object", "properties": {p.name: p.schema for p in self.params},
                **({"required": required} if required else {})}

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


def header_entries(text: str) -> list[tuple[str, str]]:
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


def parse_param(text: str, where: str) -> Param:
    """A `-- param:` entry's value as a Param; ToolDefinitionError when it is malformed."""
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
    if schema.get("format", "date") != "date":
        raise ToolDefinitionError(f"{where}: param {name}: the one format is date, not {schema['format']!r}")
    if schema["type"] == "string" and "pattern" not in schema and "format" not in schema:
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
    for key, value in header_entries(text):
        if key == "param":
            params.append(parse_param(value, where))
        elif key in single:
            raise ToolDefinitionError(f"{where}: `{key}` is given twice")
        else:
            single[key] = value
    for key in ("name", "description", "levels", "source", "render"):
        if not single.get(key):
            raise ToolDefinitionError(f"{where}: the header needs `-- {key}:`")
    if single["name"] != path.stem:
        raise ToolDefinitionError(f"{where}: the tool is named {single['name']!r}; the file name must match")
    if single["source"] not in TOOL_SOURCES:
        raise ToolDefinitionError(f"{where}: source must be one of {', '.join(TOOL_SOURCES)}")
    if single["render"] not in RENDERERS:
        raise ToolDefinitionError(f"{where}: render must be one of {', '.join(RENDERERS)}")
    try:
        levels = tuple(sorted({int(level) for level in single["levels"].replace(",", " ").split()}))
    except ValueError:
        levels = ()
    if not levels or not set(levels) <= set(LEVELS):
        raise ToolDefinitionError(f"{where}: levels must be some of 1 2 3, not {single['levels']!r}")
    names = [p.name for p in params]
    if len(set(names)) != len(names) or set(names) & ENV_PARAMS:
        raise ToolDefinitionError(f"{where}: parameter names must be unique and none of {sorted(ENV_PARAMS)}")
    binds = frozenset(PLACEHOLDER.findall(strip_comments(text)))
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
    description = single["description"].replace("{policy_rule_types}", policy_rule_types_text())
    return Tool(name=single["name"], description=description, levels=levels,
                render=single["render"], params=tuple(params), sql=text, path=path, binds=binds,
                source=None if single["source"] == "none" else single["source"],
                items=single.get("items"), page_size=page_size, exists_sql=exists_sql,
                not_found=single.get("not_found"), empty=single.get("empty"))


def policy_rule_types_text() -> str:
    """The policy rule types with their params and meaning, from the constraint-kind registry:
    what `{policy_rule_types}` in a tool's description stands for."""
    def params(kind) -> str:
        return ", ".join(f"{p.name} HH:MM" if p.type == "clock" else p.name for p in kind.params)
    return "; ".join(f"{k.name} ({params(k)}): {k.prompt_text}" for k in policy_rule_kinds())


@cache
def all_tools() -> dict[str, Tool]:
    """Every tool file, by name."""
    return {path.stem: parse_tool_file(path) for path in sorted(TOOLS_DIR.glob("*.sql"))}


def tool_sources() -> dict[str, str]:
    """Tool name -> the source it reads, for every tool that reads one (`-- source:`).

    >>> tool_sources()["get_busy_intervals"], "list_threads" in tool_sources()
    ('calendar', False)
    """
    return {name: tool.source for name, tool in all_tools().items() if tool.source}


def catalog(level: int) -> list[Tool]:
    """The tools an agent gets at this level (submit_candidates not included), by name."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVEL_NAMES}, not {level!r}")
    return [tool for tool in all_tools().values() if level in tool.levels]


def specs(level: int) -> list[ToolSpec]:
    return [tool.spec for tool in catalog(level)]
