"""The prompt budget: every (level, mode, protocol)'s system message and tool schemas together are
at most 12,500 characters, and docs/mint.md's table of first-request sizes is what the code gives;
MINT's worked example is shown at MINT's scale (a few cells, observations cut, the cut said)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mpcbench.episode.prompts import EXAMPLE_STEPS, OBSERVATION_CHARS, mint_system_prompt, stored_examples
from mpcbench.harness.prompt_sizes import PROMPT_BUDGET, scaffolding_table

DOC = Path(__file__).parents[1] / "docs" / "mint.md"
ROW = re.compile(r"^\| (\d) \| (\w+) \| (\w+) \| ([\d,]+) \| ([\d,]+) \|$", re.M)


def test_the_docs_table_is_the_sizes_and_every_system_message_keeps_the_budget(con):
    sizes = scaffolding_table(con)
    section = DOC.read_text().split("## The prompt budget", 1)[1].split("\n## ", 1)[0]
    documented = [(int(level), mode, protocol, int(system.replace(",", "")), int(schemas.replace(",", "")))
                  for level, mode, protocol, system, schemas in ROW.findall(section)]
    assert documented == sizes, "docs/mint.md's prompt-budget table is stale"
    assert len(sizes) == 4 * (3 + 2)   # MINT: context and code (--protocol mint implies --mode code)
    for rows in (sizes, scaffolding_table(con, privacy=True)):   # the privacy norm adds to every prompt
        assert [row[:3] for row in rows if row[3] + row[4] > PROMPT_BUDGET] == []
    # MINT's example makes its code-mode prompt the largest system message of every level
    for level in range(1, 5):
        by = {(mode, protocol): system for lv, mode, protocol, system, _ in sizes if lv == level}
        assert by[("code", "mint")] == max(by.values())


def test_mints_example_is_a_few_cells_with_their_observations_cut():
    for level in range(1, 5):
        example = stored_examples()[f"level{level}"]
        prompt = mint_system_prompt(level, [], code=True, steps=30, proposals=1)
        shown = example["steps"][:EXAMPLE_STEPS]
        for number, step in enumerate(shown, start=1):
            output = step["output"]
            if len(output) > OBSERVATION_CHARS:
                output = (f"{output[:OBSERVATION_CHARS].rstrip()}\n"
                          f"[... {len(output) - OBSERVATION_CHARS} more characters]")
            assert (f"<execute>\n{step['code']}\n</execute>\nObservation:\n{output}\nYou have {30 - number} steps "
                    "left and 1 chances to propose solution left.") in prompt
        assert all(f"<execute>\n{step['code']}\n</execute>" not in prompt for step in example["steps"][EXAMPLE_STEPS:]
                   if step["code"] not in {s["code"] for s in shown})
        left_out = len(example["steps"]) - len(shown)
        assert (f"[{left_out} more cells like these" in prompt) == (left_out > 0)
        assert prompt.endswith(f"<solution> {json.dumps(example['solution'])} </solution>\n--- End of example ---\n")
