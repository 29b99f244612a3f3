"""The legacy ToolBackend: one `sql/legacy/tools/<name>.sql` file per tool over a scenario's
`legacy_*` tables, in the header format of the benchmark's own tools (`sql/tools/`).

    >>> backend = ToolBackend(con, "product_launch")
    >>> backend.call("Jira.get_issue", {"key": "AUR-101"})[:40]
    '{"key": "AUR-101", "project": "AUR", "su'
    >>> backend.call("Jira.get_issue", {"key": 7})
    'error: key must be a string, not an integer (7). Usage: jira_get_issue(key: string)'

A tool's function name is its file name (`jira_get_issue`, what a model calls: OpenAI function
names allow no dot); its legacy name (`Jira.get_issue`, what run logs and judges read) comes
from the part before the first underscore. Either name calls it. The header is parsed with the
benchmark's own parser (name, description, render, items, not_found, empty, param) and the
arguments checked by its own `check_arguments` (`mpcbench/episode/arguments.py`); the
environment binds `$scenario_id`; renderers are the benchmark's `json` and `markdown` plus
`file` (one Drive file as text). Every call is traced; a bad call is an `error: ...` text,
never an exception.
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from pathlib import Path

import duckdb

from .layout import LEGACY_SQL_DIR
from .project import (Result, Tool, ToolDefinitionError, ToolError, ToolSpec, check_arguments,
                      fetch_rows, header_entries, parse_param, render_json, render_markdown, strip_comments)

TOOLS_DIR = LEGACY_SQL_DIR / "tools"
ENV_PARAMS = frozenset({"scenario_id"})
SOURCE_TITLES = {"slack": "Slack", "gmail": "Gmail", "calendar": "Calendar", "contacts": "Contacts", "jira": "Jira",
                 "drive": "Drive"}
_PLACEHOLDER = re.compile(r"\$([a-z_][a-z0-9_]*)")


def legacy_name(function_name: str) -> str:
    """The name a run log shows for a tool's function name.

    >>> legacy_name("slack_search_messages")
    'Slack.search_messages'
    """
    source, _, verb = function_name.partition("_")
    return f"{SOURCE_TITLES[source]}.{verb}"


def render_file(tool: Tool, result: Result, args: dict) -> str:
    f = result.rows[0]
    return f"{f['name']} ({f['file_id']})\nowner {f['owner']} · modified {f['modified']}\n\n{f['content']}"


RENDER = {"json": render_json, "markdown": render_markdown, "file": render_file}


def parse_tool_file(path: Path) -> Tool:
    """A legacy tool from its file; ToolDefinitionError when the header is malformed."""
    where, text = path.name, path.read_text()
    single: dict[str, str] = {}
    params = []
    for key, value in header_entries(text):
        if key == "param":
            params.append(parse_param(value, where))
        else:
            single[key] = value
    for key in ("name", "description", "render"):
        if not single.get(key):
            raise ToolDefinitionError(f"{where}: the header needs `-- {key}:`")
    if single["name"] != path.stem or path.stem.partition("_")[0] not in SOURCE_TITLES:
        raise ToolDefinitionError(f"{where}: the name must be the file name and start with a source "
                                  f"({', '.join(SOURCE_TITLES)})")
    if single["render"] not in RENDER:
        raise ToolDefinitionError(f"{where}: render must be one of {', '.join(RENDER)}")
    binds = frozenset(_PLACEHOLDER.findall(strip_comments(text)))
    names = {p.name for p in params}
    if binds - ENV_PARAMS != names or "scenario_id" not in binds:
        raise ToolDefinitionError(f"{where}: the header declares {sorted(names)} but the query binds "
                                  f"{sorted(binds)} (it must bind $scenario_id)")
    return Tool(name=single["name"], description=single["description"], levels=(), render=single["render"],
                params=tuple(params), sql=text, path=path, binds=binds, items=single.get("items"),
                not_found=single.get("not_found"), empty=single.get("empty"))


@cache
def all_tools() -> dict[str, Tool]:
    """Every legacy tool, by function name."""
    return {path.stem: parse_tool_file(path) for path in sorted(TOOLS_DIR.glob("*.sql"))}


def find_tool(name) -> Tool | None:
    """A tool by function name or legacy name."""
    if not isinstance(name, str):
        return None
    tools = all_tools()
    return tools.get(name) or next((t for n, t in tools.items() if legacy_name(n) == name), None)


@dataclasses.dataclass(frozen=True)
class Call:
    """One tool call as the run log keeps it."""
    step: int
    tool_name: str        # the legacy name when the tool exists, else what the agent sent
    arguments: dict       # the arguments as sent ({"_raw": text} when they were not a JSON object)
    result: str
    error: str | None


def _as_dict(arguments) -> dict:
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else {}
    except (ValueError, RecursionError):
        parsed = None
    return parsed if isinstance(parsed, dict) else {"_raw": str(arguments)}


class ToolBackend:
    """One episode's tools over one scenario (its own cursor of the connection)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, scenario_id: str):
        self.con = con.cursor()
        if not self.con.execute("select 1 from legacy_scenarios where scenario_id = $s", {"s": scenario_id}).fetchall():
            self.con.close()
            raise KeyError(f"scenario {scenario_id!r} is not loaded")
        self.scenario_id = scenario_id
        self.tools: list[ToolSpec] = [tool.spec for tool in all_tools().values()]
        self.trace: list[Call] = []

    def call(self, name, arguments=None) -> str:
        error = None
        try:
            text = self.run(name, arguments)
        except ToolError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - the legacy benchmark shows a tool's bug to the agent, as it did
            error = f"the tool failed ({type(exc).__name__}); try other arguments or another tool"
        if error is not None:
            text = f"error: {error}"
        tool = find_tool(name)
        self.trace.append(Call(step=len(self.trace) + 1, tool_name=legacy_name(tool.name) if tool else str(name),
                               arguments=_as_dict(arguments), result=text, error=error))
        return text

    def run(self, name, arguments) -> str:
        tool = find_tool(name)
        if tool is None:
            raise ToolError(f"there is no tool named {str(name)[:60]!r}; the tools are: "
                            f"{', '.join(legacy_name(n) for n in all_tools())}")
        try:
            args = check_arguments(tool, arguments)
        except ToolError as e:
            raise ToolError(f"{e}. Usage: {tool.signature()}") from None
        binds = {"scenario_id": self.scenario_id, **args}
        rows = fetch_rows(self.con.execute(tool.sql, {k: v for k, v in binds.items() if k in tool.binds}))
        if not rows and tool.not_found:
            raise ToolError(tool.not_found.format(**{k: repr(v)[:60] if isinstance(v, str) else v for k, v in args.items()}))
        total = None
        if tool.paging == "cursor":
            total = rows[0]["total"] if rows else self._total(tool, binds)
        return RENDER[tool.render](tool, Result(rows, total), args)

    def _total(self, tool: Tool, binds: dict) -> int:
        """How many rows a paged query has in all (asked again from the start, after an empty page)."""
        if binds["cursor"] == 0:
            return 0
        first = fetch_rows(self.con.execute(tool.sql, {k: v for k, v in {**binds, "cursor": 0}.items() if k in tool.binds}))
        return first[0]["total"] if first else 0

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "ToolBackend":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
