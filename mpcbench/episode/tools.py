"""Agent tools: one `sql/tools/<name>.sql` file per tool, whose header is its only definition.

    tools = DataTools(con, "L3-0007")             # con: a connection to the warehouse
    [spec.name for spec in tools.specs][:3]       # ['get_current_time', 'get_person', 'get_room_availability']
    tools.run("search_people", {"query": "Ana"})
    # '{"query": "Ana", "total": 2, "people": [...], "remaining": 0, "next_cursor": null}'
    tools.run_traced("search_people", {"query": "Ana"})
    # ('{"query": "Ana", ...}', ('people:p-3fa9c2', 'people:p-8b01d4'))

`DataTools.run` gives the text an agent reads; `run_traced` gives it with the call's lineage:
the raw rows (`<table>:<key>`) of what it returned, from each query's hidden `source_rows`
column (only the rows of the page returned; none for an error). A call the agent can fix (an
unknown tool, non-JSON arguments, a schema violation, a bad date, an unknown id) raises
`ToolError` with a short message; anything else that fails (a query the warehouse refuses, a
renderer's bug) is a failure of ours and raises `HarnessError`: it is never shown to the model as
its own mistake. An episode reads these tools through its `episode.environment.Environment`,
which traces every call.

The tools are defined in `toolfiles`, their arguments checked in `arguments`, their rows
rendered in `render`.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

import duckdb

from ..errors import HarnessError
from ..warehouse.db import read_only_file
from .answers import SUBMIT_TOOL_NAME
from .arguments import check_arguments, short_value
from .contract import ToolSpec
from .render import RENDER, Result, fetch_rows, page_count, plural
from .toolfiles import PLACEHOLDER, Tool, ToolError, catalog


Answer = tuple[str, tuple[str, ...]]   # a call's text and the raw rows it was derived from


class CallCache:
    """What the tools answered (text and lineage), kept per read-only warehouse file (its identity:
    path, inode, size, mtime; `warehouse.db.read_only_file`), world, tool and arguments, and the
    clock for a query that reads it (`$now`: get_current_time), the latest `size` calls (a few kB
    each): the same call in another episode of the process (the scripted reference after a run's
    episodes, an instance's rollouts again, an ablation's configurations, trials, another instance
    of the world) is answered without its query. Only a read-only file's calls are kept,
    none of a booking episode (its cursor sees its own writes), and no error. `enabled = False`
    turns it off (bench/tools.py times the queries)."""

    def __init__(self, size: int = 10_000):
        self.size, self.enabled = size, True
        self._answers: OrderedDict[tuple, Answer] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Answer | None:
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
            return found

    def put(self, key: tuple, answer: Answer) -> None:
        with self._lock:
            self._answers[key] = answer
            if len(self._answers) > self.size:
                self._answers.popitem(last=False)


CALL_CACHE = CallCache()


class DataTools:
    """The level's data tools for one instance, over the warehouse.

    It binds the instance's world and "now" itself, so no argument reaches another world, and
    queries through its own cursor of `con`, so episodes can run in threads side by side."""

    def __init__(self, con: duckdb.DuckDBPyConnection, instance_id: str):
        self.con = con.cursor()
        found = self.con.execute("select level, world_id, prompt, now, given from instances where instance_id = $id",
                                 {"id": instance_id}).fetchall()
        if not found:
            self.con.close()
            raise KeyError(f"no instance {instance_id!r} in the database")
        self.instance_id = instance_id
        self.level, self.world_id, self.prompt, self.now, given = found[0]
        self.n_given: int | None = json.loads(given).get("n")  # N where the prompt states it (levels 1-2)
        self._tools = {tool.name: tool for tool in catalog(self.level)}
        self.specs: list[ToolSpec] = [tool.spec for tool in self._tools.values()]
        # what keys this instance's calls in CALL_CACHE; None: not cached (booking.Overlay sets it)
        file = read_only_file(self.con)
        self.cache_key: tuple | None = None if file is None else (file, self.world_id)

    def tool(self, name: str) -> Tool:
        return self._tools[name]

    def run(self, name: str, arguments: str | dict | None) -> str:
        """The tool's text; ToolError for a call the agent can fix, HarnessError for a failure of ours."""
        return self.run_traced(name, arguments)[0]

    def run_traced(self, name: str, arguments: str | dict | None) -> tuple[str, tuple[str, ...]]:
        """(the tool's text, the raw rows it was derived from), raising as `run` does."""
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            if name == SUBMIT_TOOL_NAME:
                raise ToolError(f"{SUBMIT_TOOL_NAME} is handled by the agent loop, not by this environment")
            raise ToolError(f"there is no tool named {short_value(name)}; the tools are: {', '.join(self._tools)}")
        try:
            args = check_arguments(tool, arguments)
        except ToolError as exc:
            raise ToolError(f"{exc}. Usage: {tool.signature()}") from None
        if self.cache_key is None or not CALL_CACHE.enabled:
            return self._answer(tool, args)
        clock = self.now if "now" in tool.binds else None   # a query that does not read it answers alike at any time
        key = (*self.cache_key, clock, tool.name, tool.sql, repr(sorted(args.items())))
        found = CALL_CACHE.get(key)
        if found is None:
            found = self._answer(tool, args)
            CALL_CACHE.put(key, found)
        return found

    def _answer(self, tool: Tool, args: dict) -> Answer:
        name = tool.name
        try:
            result = self._query(tool, args)
        except duckdb.Error as exc:
            raise HarnessError(f"the query of tool {name} failed: {type(exc).__name__}: "
                               f"{str(exc).splitlines()[0]}") from exc
        if not result.rows:
            if tool.paging == "page" and result.total:  # paged past the end
                assert tool.page_size is not None  # toolfiles requires one of a tool with a page param
                pages = page_count(result.total, tool.page_size)
                raise ToolError(f"{args[tool.params[0].name]} has {plural(pages, 'page')}; "
                                f"page {args['page']} does not exist")
            if tool.not_found and not (tool.exists_sql and self._exists(tool.exists_sql, args)):
                raise ToolError(tool.not_found.format(
                    **{k: short_value(v) if isinstance(v, str) else v for k, v in args.items()}))
        try:
            return RENDER[tool.render](tool, result, args), result.source_rows
        except ToolError:
            raise
        except Exception as exc:
            raise HarnessError(f"rendering tool {name} failed: {type(exc).__name__}: {exc}") from exc

    def _execute(self, sql: str, binds: dict, used: frozenset[str]) -> list[dict]:
        return fetch_rows(self.con.execute(sql, {k: v for k, v in binds.items() if k in used}))

    def _query(self, tool: Tool, args: dict) -> Result:
        binds = {"world_id": self.world_id, "now": self.now, "page_size": tool.page_size, **args}
        rows = self._execute(tool.sql, binds, tool.binds)
        lineage = _lineage(rows)
        if not tool.paging or tool.render == "document":  # a document is paged by its renderer
            return Result(rows, None, lineage)
        if rows:
            return Result(rows, rows[0]["total"], lineage)
        start = {"cursor": 0} if tool.paging == "cursor" else {"page": 1}
        if all(args[k] == v for k, v in start.items()):
            return Result(rows, 0)
        first = self._execute(tool.sql, {**binds, **start}, tool.binds)  # how many are there?
        return Result(rows, first[0]["total"] if first else 0)

    def _exists(self, sql: str, args: dict) -> bool:
        binds = {"world_id": self.world_id, **args}
        used = frozenset(PLACEHOLDER.findall(sql))
        return bool(self._execute(sql, binds, used))

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "DataTools":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _lineage(rows: list[dict]) -> tuple[str, ...]:
    """The rows' `source_rows`, taken out of them (no renderer shows it), distinct, in order."""
    found: dict[str, None] = {}
    for row in rows:
        found.update(dict.fromkeys(row.pop("source_rows", None) or ()))
    return tuple(found)


class HiddenFacts:
    """Level 4's facts, which the text states in prose only: the tags of its messages and the rules
    of its policies stay in message_tags and policy_rules, which no tool reads. Not a tool: no
    model is offered it and nothing here is traced. Only the scripted solver gets it (an argument
    of its own), to prove every level-4 instance solvable from the facts the prose states
    (tests/test_text.py checks that the prose says them). It answers only for messages and
    policies of its instance's world."""

    def __init__(self, tools: DataTools):
        self.con, self.world_id, self.instance_id = tools.con, tools.world_id, tools.instance_id

    def message_tags(self, message_ids: list[str]) -> dict[str, list[tuple[str, dict]]]:
        """{message_id: [(tag type, params), ...]} for the given messages of this world."""
        rows = self.con.execute(
            "select message_id, tag_type, params from message_tags where world_id = $world_id "
            "and list_contains($ids, message_id) order by message_id, position",
            {"world_id": self.world_id, "ids": list(message_ids)}).fetchall()
        found: dict[str, list[tuple[str, dict]]] = {}
        for message_id, tag_type, params in rows:
            found.setdefault(message_id, []).append((tag_type, json.loads(params)))
        return found

    def policy_rules(self, policy_id: str) -> dict[str, dict]:
        """{rule type: params} of one policy of this world."""
        rows = self.con.execute(
            "select rule_type, params from policy_rules where world_id = $world_id and policy_id = $policy_id "
            "order by position", {"world_id": self.world_id, "policy_id": policy_id}).fetchall()
        return {rule_type: json.loads(params) for rule_type, params in rows}

    def as_data(self) -> dict:
        """Every fact the instance's solver may need, as JSON-ready data (for the code-mode solver,
        whose cells run in a sandbox that cannot call back here): the tags of every message of the
        instance's project and the rules of every policy of the world."""
        project = self.con.execute("select project_id from instances where instance_id = $id",
                                   {"id": self.instance_id}).fetchall()[0][0]
        ids = [m for (m,) in self.con.execute(
            "select m.message_id from messages m join threads t on t.world_id = m.world_id and t.thread_id = m.thread_id "
            "where m.world_id = $world_id and t.project_id = $project order by m.message_id",
            {"world_id": self.world_id, "project": project}).fetchall()]
        policies = [p for (p,) in self.con.execute("select policy_id from policies where world_id = $world_id "
                                                   "order by position", {"world_id": self.world_id}).fetchall()]
        return {"tags": self.message_tags(ids), "rules": {p: self.policy_rules(p) for p in policies}}
