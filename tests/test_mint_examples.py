"""MINT's in-context examples (episode/mint_examples.json) are real trajectories of the scripted
solver on instances no evaluation holds: built again here from their seeds, every observation is
what the tool returns on that instance, every solution is its gold, and the file is byte for
byte what harness/mint_examples.py writes."""

from __future__ import annotations

import contextlib
import io
from functools import partial

import pytest

from evalkit import default_db, instances
from mpcbench.episode.prompts import EXAMPLES_PATH, mint_system_prompt, stored_examples
from mpcbench.episode.environment import Environment
from mpcbench.grading.scoring import gold_keys
from mpcbench.harness import mint_examples
from mpcbench.warehouse import db
from mpcbench.world.config import load_world_config, world_config_path
from sandboxkit import needs_sandbox

CAP = 2000   # a cell's output is cut there
STALE = "stale MINT examples: rewrite them with `python -m mpcbench.harness.mint_examples`"


@pytest.fixture(scope="module")
def example_con(tmp_path_factory):
    path = tmp_path_factory.mktemp("mint_examples") / "examples.duckdb"
    mint_examples.build_example_worlds(path)
    con = db.connect(path, read_only=True)
    yield con
    con.close()


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_observation_is_what_the_tool_returns_and_the_solution_is_gold(example_con, level):
    """The example's cells run here with the tools answered natively on that instance: each prints
    what the sandbox printed, uncut, and the solution is the instance's gold."""
    example = stored_examples()[f"level{level}"]
    config = load_world_config(world_config_path(level))
    assert example["world_seed"] == mint_examples.example_seed(config.seed) != config.seed
    row = example_con.execute("select i.level, i.prompt, w.seed from instances i join worlds w using (world_id) "
                              "where instance_id = $id", {"id": example["instance_id"]}).fetchone()
    assert row == (level, example["task"], example["world_seed"]), STALE
    env = Environment(example_con, example["instance_id"])
    namespace = {spec.name: partial(lambda name, **arguments: env.call(name, arguments), spec.name)
                 for spec in env.tools}
    try:
        for step in example["steps"]:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(step["code"], namespace)
            assert step["output"] == printed.getvalue() and len(step["output"]) <= CAP, STALE
    finally:
        env.close()
    assert len(env.trace) >= 2 and not any(call.error for call in env.trace)
    gold = gold_keys(example_con, [example["instance_id"]])[example["instance_id"]]
    solution = [(c["start"], c.get("room_id")) for c in example["solution"]["candidates"]]
    assert solution == [(start, room) for start, room in gold], STALE


def test_no_evaluated_build_holds_an_example(tmp_path_factory):
    tasks = {e["task"] for e in stored_examples().values()}
    assert len(tasks) == 4
    dev = {prompt for _, _, prompt in instances(default_db(tmp_path_factory))}
    assert len(dev) == 350 and not tasks & dev


def test_the_prompt_shows_the_levels_example_with_this_runs_countdown():
    example = stored_examples()["level2"]
    prompt = mint_system_prompt(2, [], code=True, steps=30, proposals=3)
    assert f"Task:\n{example['task']}" in prompt
    step = example["steps"][0]   # short enough to be shown whole (tests/test_prompt_budget.py: the cut ones)
    assert f"<execute>\n{step['code']}\n</execute>\nObservation:\n{step['output']}\nYou have 29 " \
           "steps left and 3 chances to propose solution left." in prompt
    assert prompt.endswith("--- End of example ---\n")
    assert stored_examples()["level1"]["task"] not in prompt


@needs_sandbox
def test_the_stored_file_is_what_the_generator_writes(example_con):
    assert mint_examples.examples_text(mint_examples.record_examples(example_con)) == EXAMPLES_PATH.read_text(), STALE
