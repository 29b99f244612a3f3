"""Context mode: no tools, every source of the instance pasted into the prompt.

    env = Environment(con, "L2-0007", ContextMode())
    env.prompt      # the instance prompt, then one section per tool call that reads a source
    env.tools       # []: the agent is offered no tool, only its way of answering

The sources are rendered exactly as the tools render them, one section per call, headed by the
call (`### read_thread {"thread_id": "PRJ-27b2f0-t5d", "page": 1}`), every page of paged tools:
the current time; every person's calendar over the window plus a day each side (busy intervals
at level 1, every event with its status at levels 2-4, as the tools give them; at level 4 also
every person's recurring series and working hours); every policy (level 1: as JSON) or the
whole policy handbook (levels 2-4); every thread of the instance's project, with the project's
thread list; at levels 3-4 the whole people directory, the room table and every room's bookings.
Noise stays in (other policies, cancelled events, chatter), as the tools would show it.

A model agent sees only the prompt. The offline agents are programs, not readers: in context
mode their tool calls are still answered (`ContextMode(answer_calls=True)`: from the same
renderers over the same rows that the prompt holds), so for them the two modes differ only in
the prompt. What the prompt shows is read: its sections' raw rows are the environment's
`prompt_rows` (the privacy track's rows read, beside the calls'). How the agent answers (submit_candidates, or MINT's <solution>) is its protocol's
to say: the header below names no tool.
"""

from __future__ import annotations

import datetime as dt
import json

from typing import TYPE_CHECKING

from ..levels import level_spec
from ..warehouse import db
from .toolfiles import ToolError
from .tools import DataTools

if TYPE_CHECKING:
    from .environment import Environment

DAY = dt.timedelta(days=1)
CONTEXT_HEADER = ("\n\n# The internal sources\n\nNo tools are available: everything the internal sources hold "
                  "for this request is below, one section per lookup, exactly as the systems show it.\n")


def _ids(env: DataTools, sql: str, **binds) -> list[str]:
    return [row[0] for row in env.con.execute(sql, {"world_id": env.world_id, **binds}).fetchall()]


def source_calls(env: DataTools) -> list[tuple[str, dict]]:
    """The first call of every section, in prompt order (paging adds the later pages)."""
    instance = env.con.execute("select window_start, window_end, project_id from instances where instance_id = $id",
                               {"id": env.instance_id}).fetchone()
    assert instance is not None  # DataTools.__init__ found it
    first, last = (str(instance[0] - DAY), str(instance[1] + DAY))
    people = _ids(env, "select person_id from people where world_id = $world_id order by person_id")
    spec = level_spec(env.level)
    calls: list[tuple[str, dict]] = [("get_current_time", {})]
    calls += [(spec.calendar_tool, {"person_id": p, "start_date": first, "end_date": last}) for p in people]
    if spec.zones_and_series:   # each person's series (with exceptions) and home zone and hours
        calls += [(name, {"person_id": p}) for p in people for name in ("list_recurring_events", "get_working_hours")]
    if spec.policy_docs:
        calls += [("read_policy_doc", {"doc_id": d}) for d in
                  _ids(env, "select doc_id from policy_docs where world_id = $world_id order by doc_id")]
    else:
        calls.append(("list_policies", {}))
        calls += [("get_policy", {"policy_id": p}) for p in
                  _ids(env, "select policy_id from policies where world_id = $world_id order by policy_id")]
    if spec.threads:
        calls.append(("list_threads", {"project_id": instance[2]}))
        calls += [("read_thread", {"thread_id": t}) for t in _ids(
            env, "select thread_id from threads where world_id = $world_id and project_id = $project_id "
                 "order by position", project_id=instance[2])]
    if spec.people_by_name:
        calls += [("get_person", {"person_id": p}) for p in people]
    if spec.rooms:
        calls.append(("list_rooms", {}))
        calls += [("get_room_availability", {"room_id": r, "start_date": first, "end_date": last}) for r in
                  _ids(env, "select room_id from rooms where world_id = $world_id order by room_id")]
    return calls


def _pages(env: DataTools, name: str, args: dict):
    """(arguments, text, source rows) of every page of one call."""
    params = {p.name for p in env.tool(name).params}
    if "page" in params:
        page = 1
        while True:
            try:
                yield {**args, "page": page}, *env.run_traced(name, {**args, "page": page})
            except ToolError:
                return
            page += 1
    elif "cursor" in params:
        cursor = 0
        while cursor is not None:
            sent = {**args, "limit": 50, "cursor": cursor}
            text, rows = env.run_traced(name, sent)
            yield sent, text, rows
            cursor = json.loads(text).get("next_cursor")
    else:
        yield args, *env.run_traced(name, args)


def context_sections(env: DataTools) -> list[tuple[str, dict, str, tuple[str, ...]]]:
    """(tool, arguments, text, the raw rows it shows) of every section."""
    return [(name, sent, text, rows) for name, args in source_calls(env)
            for sent, text, rows in _pages(env, name, args)]


_PROMPTS: dict[tuple, tuple[str, tuple[str, ...]]] = {}
_PROMPTS_KEPT = 512


def context_prompt(env: DataTools) -> tuple[str, tuple[str, ...]]:
    """(the prompt with every section, the raw rows the sections show: the episode's reads). An
    instance's of a build file opened read-only is made once per process (`db.read_only_file`;
    the last 512 kept): the runs of an ablation, trials and feedback turns read the same sources."""
    file = db.read_only_file(env.con)
    key = (file, env.instance_id)
    if file is not None and key in _PROMPTS:
        return _PROMPTS[key]
    sections = context_sections(env)
    body = "\n\n".join(f"### {name} {json.dumps(args, ensure_ascii=False)}\n{text}"
                       for name, args, text, _ in sections)
    rows = tuple(dict.fromkeys(row for *_, shown in sections for row in shown))
    made = (env.prompt + CONTEXT_HEADER + body + "\n", rows)
    if file is not None:
        if len(_PROMPTS) >= _PROMPTS_KEPT:
            del _PROMPTS[next(iter(_PROMPTS))]
        _PROMPTS[key] = made
    return made


class ContextMode:
    """Context mode (a strategy of `episode.environment.Environment`): the prompt holds the
    sources and no tool is offered. With `answer_calls`, calls are still answered (see above)."""
    name = "context"

    def __init__(self, *, answer_calls: bool = False):
        self.answer_calls = answer_calls

    def open(self, env: Environment) -> None:
        (env.prompt, env.prompt_rows), env.tools = context_prompt(env.data), []

    def call(self, env: Environment, name: str, arguments: str | dict | None, turn: int) -> str:
        if self.answer_calls:
            return env.call_data(name, arguments, turn=turn)
        return env.refuse(name, arguments, f"there is no tool named {str(name)[:60]!r}: no tools are offered "
                                           "here, the sources are in the prompt", turn=turn)

    def close(self) -> None:
        pass
