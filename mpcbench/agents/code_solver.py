"""The scripted solver's code-mode twin: the same solver, run as Python cells in the sandbox.

    agent = ScriptedCodeAgent()                # --agent scripted --mode code (native protocol)
    output = asyncio.run(agent.run(CodeEnvironment(ToolEnvironment(con, "L3-0007"))))

The first cell defines the solver (the source of `scripted.py`'s readers and constraint check and
of `world/tags.py`, standard library only); the second calls `plan` on an environment whose
`call` is the sandbox's tool functions, and prints the submission as JSON. Every tool call and all
the computation happen inside the sandbox; the agent only reads the printed JSON and submits it.
`ScriptedMintModel` sends the same cells under MINT's protocol (`--protocol mint`).
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
from functools import cache

from ..episode.contract import Environment
from ..world import tags
from . import scripted
from .mint import Reply
from .scripted import OfflineAgent, ToolFailed

_HEADER = """\
from __future__ import annotations
import datetime as dt
import json
import re
import zoneinfo
from dataclasses import dataclass, field
Environment = object


class _Tools:
    \"\"\"`call` runs the tool function of that name (they are defined in this interpreter).\"\"\"
    def call(self, name, arguments):
        return globals()[name](**arguments)
"""


def _body(module, start: str, end: str | None = None) -> str:
    source = inspect.getsource(module)
    first = source.index(start)
    return source[first:source.index(end) if end else None]


@cache
def solver_source() -> str:
    """The first cell: the solver's definitions (no tool call, no output)."""
    return "\n\n".join([_HEADER, _body(tags, "_BARE ="), _body(scripted, "GRID =", "def submit_message")])


def solve_cell(level: int, request: str, hidden: dict | None = None) -> str:
    """The second cell: solve the request and print the submission's JSON. At level 4 the hidden
    facts (`ToolEnvironment.hidden_facts`) travel in the cell as data, since a sandboxed cell cannot
    reach the hidden path."""
    given = "" if hidden is None else (
        f"_H = json.loads({json.dumps(json.dumps(hidden))})\n"
        "_env.hidden_message_tags = lambda ids: {m: [tuple(t) for t in _H['tags'][m]] for m in ids if m in _H['tags']}\n"
        "_env.hidden_policy_rules = lambda policy_id: _H['rules'].get(policy_id, {})\n")
    return (f"_env = _Tools()\n_env.level, _env.request = {level!r}, {json.dumps(request)}\n{given}"
            f"print(json.dumps(submission({level!r}, plan(_env))))")


def solver_cells(env: Environment) -> list[str]:
    hidden = env.hidden_facts() if env.level == 4 else None
    return [solver_source(), solve_cell(env.level, env.request, hidden)]


def found_from_output(output: str) -> list[tuple[dt.datetime, str | None]]:
    """The candidates of the submission a solve cell printed."""
    try:
        items = json.loads(output)["candidates"]
    except (ValueError, KeyError, TypeError):
        raise ToolFailed(f"the solver cell printed {output[-300:]!r}, not a submission") from None
    return [(dt.datetime.fromisoformat(item["start"]), item.get("room_id")) for item in items]


class ScriptedCodeAgent(OfflineAgent):
    """The scripted solver through the `python` tool (code mode, native protocol)."""

    name = "scripted"

    def answer(self, env: Environment, feedback: str | None) -> list[tuple[dt.datetime, str | None]]:
        if feedback is None:
            output = ""
            for cell in solver_cells(env):
                output = env.call("python", {"code": cell})
            self.found = found_from_output(output)
        return self.found  # it is right the first time: feedback has nothing to add


class ScriptedMintModel:
    """The code-mode twin as a "model" of MINT's protocol (`mint.Model`): it sends the solver's
    cells in <execute> tags, one per step, then proposes what the last cell printed in a
    <solution> tag (and the same after feedback). Without code execution (context mode) it
    solves through the environment's answered calls and proposes at once."""

    def __init__(self):
        self.cells: list[str] | None = None
        self.solution: str | None = None

    async def reply(self, env: Environment, messages: list[dict]) -> Reply:
        if self.solution is None and not any(spec.name == "python" for spec in env.tools):
            self.solution = json.dumps(scripted.submission(env.level, scripted.plan(env)))
        if self.solution is not None:
            return Reply(f"<thought> I have the answer. </thought>\nThe answer is <solution> {self.solution} </solution>")
        if self.cells is None:
            self.cells = solver_cells(env)
            return Reply(f"<thought> I define the solver. </thought>\n<execute>\n{self.cells.pop(0)}\n</execute>")
        if self.cells:
            return Reply(f"<thought> I solve the request. </thought>\n<execute>\n{self.cells.pop(0)}\n</execute>")
        observation = messages[-1]["content"].removeprefix("Observation:\n").rsplit("\n", 1)[0]
        found = found_from_output(observation)
        self.solution = json.dumps(scripted.submission(env.level, found))
        return await self.reply(env, messages)
