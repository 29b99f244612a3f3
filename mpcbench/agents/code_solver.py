"""The scripted solver's code-mode twin: the same solver, run as Python cells in the sandbox.

    env = Environment(con, "L3-0007", CodeMode())
    arguments = ScriptedCodeAgent().submission(env, None, hidden)   # --agent scripted --mode code

The first cell defines the solver: the modules `agents/scripted.py`, `world/tags.py` and
`levels.py`, whole (standard library only), as modules of the cell's interpreter; the second calls
`plan` on an environment whose `call` is the sandbox's tool functions, and prints the submission as
JSON. Every tool call and all the computation happen inside the sandbox; the agent only reads the
printed JSON and submits it. `ScriptedMintModel` sends the same cells under MINT's protocol
(`--protocol mint`). At level 4 (prose only) the hidden facts (`episode.tools.HiddenFacts`) travel
in the cell as data, since a sandboxed cell cannot reach them.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import inspect
import json
from functools import cache

from ..episode.engine import Reply, View
from ..episode.environment import Environment
from ..episode.tools import HiddenFacts
from .. import levels
from ..levels import level_spec
from ..world import tags
from . import scripted
from .scripted import Hidden, ToolFailed

# The modules are defined in the cell's interpreter under their own names, so the solver's
# relative import of the tags module resolves as it does here.
_LOADER = """\
import json
import sys
import types


def _module(name, source):
    module = types.ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module
    exec(compile(source, "<" + name + ">", "exec"), module.__dict__)
    return module


def _package(name):
    if name not in sys.modules:
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = []


class _Tools:
    \"\"\"`call` runs the tool function of that name (they are defined in this interpreter).\"\"\"
    def call(self, name, arguments):
        return globals()[name](**arguments)
"""
SHIPPED = (tags, levels, scripted)   # standard library only, but for scripted's imports of the other two


@cache
def solver_source() -> str:
    """The first cell: the solver's modules, whole, then `plan` and `submission` from it (no tool
    call, no output)."""
    names = [module.__name__ for module in SHIPPED]
    packages = sorted({name.rsplit(".", k)[0] for name in names for k in range(1, name.count(".") + 1)})
    lines = [*(f"_package({name!r})" for name in packages),
             *(f"_module({module.__name__!r}, {json.dumps(inspect.getsource(module))})" for module in SHIPPED),
             f"plan, submission = sys.modules[{scripted.__name__!r}].plan, sys.modules[{scripted.__name__!r}].submission"]
    return _LOADER + "\n" + "\n".join(lines) + "\n"


def solve_cell(level: int, request: str, hidden: dict | None = None) -> str:
    """The second cell: solve the request and print the submission's JSON; `hidden`: the level-4
    facts as data (`HiddenFacts.as_data`)."""
    given = "_hidden = None\n" if hidden is None else (
        f"_H = json.loads({json.dumps(json.dumps(hidden))})\n"
        "class _Hidden:\n"
        "    def message_tags(self, ids):\n"
        "        return {m: [tuple(t) for t in _H['tags'][m]] for m in ids if m in _H['tags']}\n"
        "    def policy_rules(self, policy_id):\n"
        "        return _H['rules'].get(policy_id, {})\n"
        "_hidden = _Hidden()\n")
    return (f"_env = _Tools()\n_env.level, _env.request = {level!r}, {json.dumps(request)}\n{given}"
            f"print(json.dumps(submission({level!r}, plan(_env, _hidden))))")


def solver_cells(env: Environment, hidden: Hidden | None) -> list[str]:
    data = hidden.as_data() if not level_spec(env.level).tagged and isinstance(hidden, HiddenFacts) else None
    return [solver_source(), solve_cell(env.level, env.request, data)]


def found_from_output(output: str) -> list[tuple[dt.datetime, str | None]]:
    """The candidates of the submission a solve cell printed."""
    try:
        items = json.loads(output)["candidates"]
    except (ValueError, KeyError, TypeError):
        raise ToolFailed(f"the solver cell printed {output[-300:]!r}, not a submission") from None
    return [(dt.datetime.fromisoformat(item["start"]), item.get("room_id")) for item in items]


class ScriptedCodeAgent:
    """The scripted solver through the `python` tool (code mode, native protocol)."""

    name = "scripted"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        if feedback is None:
            output = ""
            for cell in solver_cells(env, hidden):
                output = env.call("python", {"code": cell})
            self.found = found_from_output(output)
        return scripted.submission(env.level, self.found)  # right the first time: feedback has nothing to add


class ScriptedMintModel:
    """The code-mode twin as a model of MINT's protocol (a policy of `episode.engine`): it sends
    the solver's cells in <execute> tags, one per step, then proposes what the last cell printed
    in a <solution> tag (and the same after feedback). Without code execution (context mode) it
    solves through the environment's answered calls and proposes at once."""

    name = "scripted"

    def __init__(self):
        self.cells: list[str] | None = None
        self.solution: str | None = None

    async def reply(self, view: View) -> Reply:
        env = view.env
        if self.solution is None and not any(spec.name == "python" for spec in env.tools):
            found = await asyncio.to_thread(scripted.plan, env, view.hidden)
            self.solution = json.dumps(scripted.submission(env.level, found))
        if self.solution is not None:
            return Reply({"role": "assistant", "content": f"<thought> I have the answer. </thought>\nThe answer is "
                                                          f"<solution> {self.solution} </solution>"})
        if self.cells is None:
            self.cells = solver_cells(env, view.hidden)
            return Reply(_execute("I define the solver.", self.cells.pop(0)))
        if self.cells:
            return Reply(_execute("I solve the request.", self.cells.pop(0)))
        observation = view.messages[-1]["content"].removeprefix("Observation:\n").rsplit("\n", 1)[0]
        found = found_from_output(observation)
        self.solution = json.dumps(scripted.submission(env.level, found))
        return await self.reply(view)


def _execute(thought: str, code: str) -> dict:
    return {"role": "assistant", "content": f"<thought> {thought} </thought>\n<execute>\n{code}\n</execute>"}
