"""A memorised-policy agent: it knows every policy of the public dev build (memorised from a build
of the repository's configs) and reads only calendars and the clock. On the dev build that is
worth a lot at level 1 (the policy is the only other source there); on a world drawn with another
seed (the private test split, `--split test --secret-seed`) its memory names no policy of the
world, and it falls to about the calendar-only baseline.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import statistics
from pathlib import Path

import pytest

from mpcbench.agents.baselines import DEFAULT_DURATION_MIN, CalendarOnlyAgent, DEFAULT_N, NO_ROOM, grid_starts
from mpcbench.agents.offline import OfflineAgent
from mpcbench.agents.scripted import DAY, Reader, Sources, Task, is_feasible, read_prompt
from mpcbench.episode.engine import play
from mpcbench.episode.environment import Environment
from mpcbench.grading.scoring import gold_keys, quick_score
from mpcbench.warehouse import build, db
from evalkit import shared_build

WORLDS_DIR = Path(__file__).resolve().parent.parent / "worlds"
INSTANCES = 40         # the test split's
DEV_INSTANCES = 12
ALLOWED_TOOLS = {"get_busy_intervals", "list_events", "list_recurring_events", "get_current_time"}  # calendars: L1, L2+, L4
SECRET = "a secret this test never writes anywhere"


def memorise(con) -> dict[str, dict[str, dict]]:
    """policy id -> rule type -> params, as a model trained on the public build would know them."""
    memory: dict[str, dict[str, dict]] = {}
    for policy_id, rule_type, params in con.execute(
            "select policy_id, rule_type, params from policy_rules order by policy_id, position").fetchall():
        memory.setdefault(policy_id, {})[rule_type] = json.loads(params)
    return memory


class MemorisedPolicyAgent(OfflineAgent):
    """Applies the memorised rules of the prompt's policy to the participants' calendars. A policy
    it does not know (or a prompt that names none) gets the typical working hours of the ones it
    knows (median start and end), the best a memory of other worlds offers."""
    name = "memorised-policy"

    def __init__(self, memory: dict[str, dict[str, dict]]):
        self.memory = memory
        hours = [rules["working_hours"] for rules in memory.values()]
        self.typical = {"working_hours": {"start": statistics.median_low(h["start"] for h in hours),
                                          "end": statistics.median_low(h["end"] for h in hours)}}

    def answer(self, env, feedback):
        read = Reader(env)
        task: Task = read_prompt(env.request, env.level)
        task.now = read.now()
        task.duration_min = task.duration_min or DEFAULT_DURATION_MIN
        task.n = task.n or DEFAULT_N
        busy = {p: read.busy(p, task.window_start - DAY, task.window_end + DAY) for p in task.participants}
        src = Sources(self.memory.get(task.policy_id, self.typical), busy)
        found = []
        for start in grid_starts(task.days()):
            if is_feasible(task, src, start, start + dt.timedelta(minutes=task.duration_min)):
                found.append((start, NO_ROOM))
                if len(found) == task.n:
                    break
        return found


class Whitelisted:
    """The environment with every tool but the allowed ones refused (a test failure)."""

    def __init__(self, inner: Environment):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def call(self, name, arguments, *, turn=1):
        assert name in ALLOWED_TOOLS, f"the memorised-policy agent called {name}"
        return self.inner.call(name, arguments, turn=turn)


def scores(con, agent: OfflineAgent, levels: tuple[int, ...] = (1, 2, 3, 4)) -> dict[int, tuple[float, float]]:
    """Per level of `levels`: mean F1 and exact-match rate."""
    ids = [r[0] for r in con.execute("select instance_id from instances where list_contains($levels, level) "
                                     "order by level, position", {"levels": list(levels)}).fetchall()]
    gold = gold_keys(con, ids)
    per_level: dict[int, list] = {}
    for instance_id in ids:
        with Environment(con, instance_id) as env:
            answer = asyncio.run(play(agent, Whitelisted(env))).out.answer
            per_level.setdefault(env.level, []).append(quick_score(env.level, answer, gold[instance_id]))
    return {level: (sum(s.f1 for s in found) / len(found), sum(s.exact_match for s in found) / len(found))
            for level, found in per_level.items()}


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    # dev: the session's build of 12 instances a level (tests/test_scale.py and
    # tests/test_oracle_reference.py read it too), made once per session
    paths = {"dev": shared_build(tmp_path_factory, (1, 2, 3, 4), DEV_INSTANCES),
             "test": tmp_path_factory.mktemp("memorised") / "test.duckdb"}
    build.build(paths["test"], (1, 2, 3, 4), instances=INSTANCES, worlds_dir=WORLDS_DIR,
                split="test", secret=SECRET)
    cons = {name: db.connect(path, read_only=True) for name, path in paths.items()}
    yield cons
    for con in cons.values():
        con.close()


@pytest.fixture(scope="module")
def table(builds):
    """(build, agent) -> level -> (F1, EM): every level of the test split, level 1 of the dev
    build (the only one a test reads there; the memory has the policies of all four)."""
    memory = memorise(builds["dev"])
    return {(name, agent.name): scores(con, agent, (1,) if name == "dev" else (1, 2, 3, 4))
            for name, con in builds.items()
            for agent in (MemorisedPolicyAgent(memory), CalendarOnlyAgent())}


def test_the_test_split_draws_other_policies(builds):
    dev, other = (set(memorise(con)) for con in builds.values())
    assert dev and other and not dev & other


def test_memorised_policies_solve_level_1_of_the_dev_build(table):
    memorised, calendar = table["dev", "memorised-policy"], table["dev", "calendar-only"]
    assert memorised[1][1] >= 0.95          # level 1 needs only the calendars and the policy
    assert memorised[1][0] > calendar[1][0] + 0.5


def test_memorised_policies_fall_to_the_calendar_only_baseline_on_the_test_split(table):
    memorised, calendar = table["test", "memorised-policy"], table["test", "calendar-only"]
    for level in (1, 2, 3, 4):
        assert memorised[level][0] <= calendar[level][0] + 0.1, (level, memorised, calendar)
        assert memorised[level][1] <= calendar[level][1] + 0.05, (level, memorised, calendar)
