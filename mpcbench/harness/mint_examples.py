"""MINT's in-context examples: one real trajectory of the scripted solver per level.

    python -m mpcbench.harness.mint_examples      # rewrites mpcbench/episode/mint_examples.json

Each level's example is an instance that no evaluation holds: the level's world config built
with its seed replaced by `example_seed(seed)` (a hash in a namespace of its own: never the dev
seed, and a `--split test` secret derives it with a chance of 2^-56), `EXAMPLE_POOL` instances,
of which the one with the shortest trajectory is kept. The code-mode solver
(agents/code_solver.py) solves it in the sandbox; the example is the data-tool calls it made, one
`print(tool(...))` cell each (a text longer than a cell shows is kept in a variable and printed
in parts of 1,900 characters, one cell each), with what those cells print when run in a fresh
sandbox on that instance, and the solver's submission as the solution. The solver's own code is
not shown: pasted into the prompt, it would hand every model the answer.

`episode/prompts.py` renders the stored examples (the count-down lines follow the run's budget);
tests/test_mint_examples.py builds the example worlds again and checks that the file is what
this module writes, that every output is what the tool returns and that every solution is the
instance's gold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
from pathlib import Path

import duckdb

from ..agents.code_solver import found_from_output, solver_cells
from ..agents.scripted import submission
from ..sources import LEVELS
from ..episode.code import PYTHON_TOOL, CodeMode
from ..episode.contract import ToolCall
from ..episode.environment import Environment
from ..episode.prompts import EXAMPLES_PATH
from ..episode.tools import HiddenFacts
from ..warehouse import db
from ..warehouse.build import build_levels, load_dataset
from ..world.config import WorldConfig, load_world_config, world_config_path

EXAMPLE_POOL = 4          # instances built per level; the shortest trajectory is the example
PART = 1900               # characters of a tool's text printed per cell (a cell shows 2,000)


def example_seed(config_seed: int) -> int:
    """The seed of a level's example world: 56 bits of sha256("mpcbench-mint-example:" + seed)."""
    digest = hashlib.sha256(f"mpcbench-mint-example:{config_seed}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def example_configs() -> list[WorldConfig]:
    configs = [load_world_config(world_config_path(level)) for level in LEVELS]
    return [dataclasses.replace(c, seed=example_seed(c.seed)) for c in configs]


def build_example_worlds(path: Path) -> None:
    """A warehouse of the example worlds: EXAMPLE_POOL instances per level."""
    con = db.connect(path)
    try:
        db.create_warehouse(con)
        for result in build_levels(example_configs(), EXAMPLE_POOL):
            load_dataset(con, [result.world], result.instances)
        db.refresh(con)
    finally:
        con.close()


def call_cells(call: ToolCall) -> list[tuple[str, str]]:
    """A tool call as the cells that make it again, each with its thought: one that prints the
    text, or, for a text longer than a cell shows, one that keeps it and prints its first part
    and one per further part."""
    arguments = json.loads(call.arguments)
    expression = f"{call.tool}({', '.join(f'{key}={value!r}' for key, value in arguments.items())})"
    if len(call.result) < PART:
        return [(f"I need what {call.tool} says.", f"print({expression})")]
    return [(f"I need what {call.tool} says; the text is long, so I keep it and print it in parts.",
             f"text = {expression}\nprint(text[:{PART}])")] + \
        [("I print the next part of the text.", f"print(text[{first}:{first + PART}])")
         for first in range(PART, len(call.result), PART)]


def solve_in_sandbox(con: duckdb.DuckDBPyConnection, instance_id: str) -> tuple[list[ToolCall], dict]:
    """The code-mode solver on one instance: its data-tool calls and its submission."""
    env = Environment(con, instance_id, CodeMode())
    try:
        output = ""
        for cell in solver_cells(env, HiddenFacts(env.data)):
            output = env.call(PYTHON_TOOL, {"code": cell})
        found = found_from_output(output)
        return [call for call in env.trace if call.via == "code"], submission(env.level, found)
    finally:
        env.close()


def run_cells(con: duckdb.DuckDBPyConnection, instance_id: str, cells: list[str]) -> list[str]:
    """What the cells print, run in order in a fresh sandbox on the instance."""
    env = Environment(con, instance_id, CodeMode())
    try:
        return [env.call(PYTHON_TOOL, {"code": cell}) for cell in cells]
    finally:
        env.close()


def record_example(con: duckdb.DuckDBPyConnection, instance_id: str) -> dict:
    """One instance's trajectory as the prompt shows it."""
    row = con.execute("select level, prompt from instances where instance_id = $id", {"id": instance_id}).fetchone()
    if row is None:
        raise KeyError(f"no instance {instance_id!r} in the database")
    level, prompt = row
    calls, solution = solve_in_sandbox(con, instance_id)
    cells = [cell for call in calls for cell in call_cells(call)]
    outputs = run_cells(con, instance_id, [code for _, code in cells])
    return {"instance_id": instance_id, "level": level, "task": prompt,
            "steps": [{"thought": thought, "code": code, "output": output}
                      for (thought, code), output in zip(cells, outputs)],
            "solution": solution}


def record_examples(con: duckdb.DuckDBPyConnection) -> dict:
    """Every level's example, keyed "level1".."level4", with the seed of its world."""
    examples = {}
    for config in example_configs():
        ids = [row[0] for row in con.execute("select instance_id from instances where level = $level "
                                             "order by position", {"level": config.level}).fetchall()]
        recorded = [record_example(con, instance_id) for instance_id in ids]
        shortest = min(recorded, key=lambda e: sum(len(s["code"]) + len(s["output"]) for s in e["steps"]))
        examples[f"level{config.level}"] = {"world_seed": config.seed, **shortest}
    return examples


def examples_text(examples: dict) -> str:
    """The file's bytes: the same examples always give the same text."""
    return json.dumps(examples, indent=1, ensure_ascii=False) + "\n"


def write_examples(work_dir: Path) -> Path:
    """Build the example worlds under work_dir, record the examples and write EXAMPLES_PATH."""
    path = Path(work_dir) / "mint_examples.duckdb"
    path.unlink(missing_ok=True)
    build_example_worlds(path)
    con = db.connect(path, read_only=True)
    try:
        EXAMPLES_PATH.write_text(examples_text(record_examples(con)))
    finally:
        con.close()
    return EXAMPLES_PATH


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print(f"wrote {write_examples(Path(tmp))}")
