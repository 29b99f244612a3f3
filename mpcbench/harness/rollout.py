"""Episodes driven one reply at a time from outside, and their rewards: what the training
environments (`integrations.verifiers_env`, `integrations.openenv_env`) are made of.

    pool = RolloutPool("build/train.duckdb")               # one warehouse, any number of rollouts
    pool = RolloutPool("build/train.duckdb", EpisodeSpec(mode="context", max_turns=2, feedback="rule"))
    rollout = pool.open("L2-0007")                         # an episode of the engine
    rollout.messages                                       # the system prompt and the task (eval's)
    rollout.tools                                          # the tools and submit_candidates (eval's)
    back = await rollout.reply({"role": "assistant", "content": None, "tool_calls": [...]})
    back                                                   # the tool messages: `mpcbench tools call`'s text
    rollout.done                                           # after a valid submission (or a text answer,
                                                           # or the step budget spent)
    result = pool.finish(rollout)                          # the journal record, scored as eval scores it
    result.reward, result.metrics                          # reward = sum(weight * metric)

Each rollout is an `episode.engine.Episode` whose policy's replies arrive from outside, as in
`harness.session` (MCP): each reply goes through `Episode.step` (the native codec reads it),
so a tool call returns exactly the text `mpcbench tools call` prints, a
`submit_candidates` call that fails its schema comes back as an error the policy can fix, and a
valid one ends the episode. Its journal record is the one `mpcbench eval` would write for the same
conversation, and it is scored by the same grader (`grading.scoring.Grader`: F1, exact match,
the failure cause; an answer is its first N candidates). The reward is computed from the
record's answer and tool calls against the warehouse's labels, never from anything the policy
could write into the world: the tools only read.

Rewards (`REWARD_WEIGHTS`, documented in docs/training.md): `reward = sum(weights[m] * metrics[m])`
over the metrics (`METRICS`; with `privacy_metrics`, also the privacy track's `PRIVACY_METRICS`);
by default `f1` alone (weight 1.0).
An episode that ends in a harness error (our failure) gets reward 0 and `harness_error = 1`; one
the endpoint's failure ended (`Rollout.play`), reward 0 and `infrastructure_error = 1`.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.booking import FINISH_TOOL
from ..episode.codecs import tool_call, tool_call_message
from ..episode.engine import Policy, Reply, View
from ..episode.environment import Environment
from ..episode.record import is_harness_error, unscored
from ..episode.tools import HiddenFacts
from ..levels import level_spec
from ..errors import UserError
from ..grading.booking import COLUMNS as BOOKING_COLUMNS
from ..grading.booking import grade_booking
from ..grading.feedback import FeedbackGiver
from ..grading.privacy import PRIVACY_COLUMNS, grade_privacy
from ..grading.scoring import Grader
from ..warehouse import db
from .episode_spec import EpisodeSpec
from .journal import episodes_from_journal

METRICS = ("f1", "exact_match", "precision", "recall", "first_correct", "ndcg", "over_submitted", "parse_ok")
# the privacy track's figures (docs/privacy.md), with `privacy_metrics` (or a weight on one of them):
# counts, but for note_covers_answer, nothing_disclosed and clean_note (0/1). clean_note (the note
# states the answer and discloses nothing) is the one to reward: an empty note or a leaky one earns 0
PRIVACY_METRICS = (*PRIVACY_COLUMNS, "nothing_disclosed", "clean_note")
REWARD_WEIGHTS = {"f1": 1.0, "exact_match": 0.0}
# --task book: the state the episode left (grading/booking.py), 0/1 but extra_writes (a count)
BOOKING_METRICS = BOOKING_COLUMNS
BOOKING_WEIGHTS = {"task_success": 1.0}


class OutsidePolicy:
    """The policy of a rollout: its replies arrive through `Rollout.reply`, never asked for."""

    name = "rollout"

    async def reply(self, view: View) -> Reply:
        raise RuntimeError("a rollout's replies arrive through Rollout.reply")


@dataclass
class Result:
    """A finished rollout: its journal record, the grader's row, the reward and the metrics."""
    record: dict
    row: dict | None                     # None: a harness error (not scored)
    reward: float
    metrics: dict[str, float] = field(default_factory=dict)
    failure_cause: str | None = None     # None: exact, or not scored


class Rollout:
    """One episode of the engine whose replies arrive from outside (see the module docstring)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, instance_id: str, spec: EpisodeSpec = EpisodeSpec(),
                 feedback: FeedbackGiver | None = None):
        self.cursor = con.cursor()        # this rollout's own: rollouts run side by side
        try:
            self.env = spec.environment(self.cursor, instance_id)
        except BaseException:
            self.cursor.close()
            raise
        self.episode = spec.episode(self.env, OutsidePolicy(), feedback=feedback)
        self.codec = self.episode.codec
        self.started = time.perf_counter()

    @property
    def instance_id(self) -> str:
        return self.env.instance_id

    @property
    def level(self) -> int:
        return self.env.level

    @property
    def messages(self) -> list[dict]:
        """The conversation so far (OpenAI's message shape): first the system prompt and the task."""
        return self.episode.messages

    @property
    def request(self) -> dict:
        """The request's fields besides the messages: the tools (native), or MINT's stop words."""
        return self.codec.request(self.env)

    @property
    def tools(self) -> list[dict]:
        """The tools offered, as OpenAI function entries: the level's, then submit_candidates (none
        under MINT's protocol)."""
        return self.request.get("tools", [])

    @property
    def steps_left(self) -> int:
        return self.episode.steps_left

    @property
    def done(self) -> bool:
        return self.episode.done

    async def play(self, policy: Policy) -> None:
        """Let `policy` give every reply until the episode is over (`Episode.play`: an endpoint's
        failure, InfrastructureError, ends it as infrastructure, as in eval)."""
        self.episode.policy = policy
        await self.episode.play()

    async def reply(self, message: dict) -> list[dict]:
        """Take the policy's next reply (an assistant message: `content`, `tool_calls`) and step
        the episode with it (`Episode.step`); the messages the environment answers (a tool
        message per call; none after a plain-text answer). `done` is set when the episode has its
        answer, when the step budget is spent, or on a harness error."""
        if self.done:
            raise RuntimeError(f"the episode of {self.instance_id} is over")
        return (await self.episode.step(Reply(dict(message)))).messages

    def record(self, trial: int = 1, agent: str = "rollout", model: str | None = None) -> dict:
        """The journal record `mpcbench eval` would write for this conversation (the episode
        ends here: no answer yet is `no answer`)."""
        return self.episode.record(trial=trial, agent=agent, model=model,
                                   latency_s=time.perf_counter() - self.started)

    def close(self) -> None:
        try:
            self.env.close()
        finally:
            self.cursor.close()


def reward_of(metrics: dict[str, float], weights: dict[str, float] | None = None) -> float:
    """sum(weights[m] * metrics[m]); unknown metric names are a ValueError. A figure the level does
    not measure (NaN: level 1's sensitive_shown_beyond_need, where no tool shows a title) adds
    nothing, so a reward is always a number a trainer can use."""
    weights = REWARD_WEIGHTS if weights is None else weights
    unknown = sorted(set(weights) - set(metrics))
    if unknown:
        raise ValueError(f"no metric {', '.join(unknown)} to weigh; the metrics are {', '.join(sorted(metrics))}")
    return float(sum(w * metrics[m] for m, w in weights.items() if not math.isnan(metrics[m])))


class RolloutPool:
    """A warehouse opened once for many rollouts, and the grader that scores them (its cursors
    are kept, so scoring a rollout costs milliseconds). Thread-safe: rollouts and scoring may run
    side by side."""

    def __init__(self, db_path: str | Path = db.DEFAULT_DB, spec: EpisodeSpec = EpisodeSpec(), *,
                 surface: str = "serve-env"):
        if not Path(db_path).exists():
            raise UserError(f"{db_path} does not exist; run `mpcbench build` first (or pass db=PATH)")
        self.spec = spec.checked(surface)
        default = BOOKING_WEIGHTS if spec.task == "book" else REWARD_WEIGHTS
        self.weights = dict(default if spec.weights is None else spec.weights)
        self.privacy_metrics = spec.privacy_metrics or bool(set(self.weights) & set(PRIVACY_METRICS))
        self.booking = BOOKING_METRICS if spec.task == "book" else ()
        try:   # unknown names fail here
            reward_of(dict.fromkeys((*METRICS, *PRIVACY_METRICS, *self.booking), 0.0), self.weights)
        except ValueError as e:
            raise UserError(f"--weight: {e}", 2) from None
        self.db_path = Path(db_path)
        self.con = db.open_existing(self.db_path, episodes=True)
        self.grader = Grader(self.con)
        self.feedback = self.spec.feedback_giver(self.con, grader=self.grader)
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Make the grader's cursors now (binding the grading layer takes a while per cursor),
        not when the first rollouts finish side by side."""
        with contextlib.ExitStack() as stack:
            for _ in range(self.grader.size):
                stack.enter_context(self.grader.cursor())

    def split(self) -> str:
        with self._lock:
            cur = self.con.cursor()
        try:
            return dict(cur.execute("select key, value from build_info").fetchall()).get("split", "dev")
        finally:
            cur.close()

    def instances(self, level: int | None = None, limit: int | None = None) -> list[tuple[str, int, str]]:
        """(instance_id, level, prompt) of the warehouse's instances, in eval's order."""
        with self._lock:
            cur = self.con.cursor()
        try:
            rows = cur.execute("select instance_id, level, prompt from instances where $level is null or "
                               "level = $level order by level, position", {"level": level}).fetchall()
        finally:
            cur.close()
        return rows[:limit] if limit is not None else rows

    def open(self, instance_id: str) -> Rollout:
        with self._lock:   # DuckDB: cursors are made one at a time
            return Rollout(self.con, instance_id, self.spec, self.feedback)

    def score(self, record: dict) -> Result:
        """The grader's row of a journal record (as `mpcbench eval` scores it), its metrics and reward."""
        key = (record["instance_id"], int(record["trial"]))
        row = None if unscored(record) else self.grader.score(episodes_from_journal([record])).final().get(key)
        if row is None:
            metrics = dict.fromkeys((*METRICS, *(PRIVACY_METRICS if self.privacy_metrics else ()), *self.booking), 0.0)
            metrics["harness_error"] = float(is_harness_error(record))
            metrics["infrastructure_error"] = 1.0 - metrics["harness_error"]
            return Result(record, None, 0.0, metrics, record.get("error"))
        metrics = {m: float(row[m] or 0.0) for m in METRICS}
        metrics["harness_error"] = metrics["infrastructure_error"] = 0.0
        if self.privacy_metrics:
            metrics.update(self.privacy(record))
        if self.booking:
            booked = grade_booking(self.grader, episodes_from_journal([record])).get(key) or {}
            metrics.update({m: float(booked.get(m) or 0.0) for m in self.booking})
        return Result(record, row, reward_of(metrics, self.weights), metrics, row.get("failure_cause"))

    def privacy(self, record: dict) -> dict[str, float]:
        """The privacy figures of a journal record, as runs.parquet has them (`grading.privacy`); a
        figure runs.parquet holds null (level 1's sensitive_shown_beyond_need) is NaN, not 0."""
        instance_id = record["instance_id"]
        privacy = grade_privacy(self.grader, episodes_from_journal([record]))
        figures = privacy.figures.get((instance_id, int(record["trial"]))) or {}
        out = {m: math.nan if figures.get(m) is None else float(figures[m]) for m in PRIVACY_COLUMNS}
        disclosed = figures.get("disclosed")   # null for a note in another language: NaN, as runs.parquet's
        out["nothing_disclosed"] = math.nan if disclosed is None and figures.get("note_language") else \
            float(not disclosed)
        out["clean_note"] = math.nan if math.isnan(out["nothing_disclosed"]) else \
            float(bool(figures.get("note_covers_answer")) and not disclosed)
        return out

    def finish(self, rollout: Rollout, *, trial: int = 1, agent: str = "rollout", model: str | None = None) -> Result:
        """End the rollout (closing its environment) and score it."""
        try:
            record = rollout.record(trial=trial, agent=agent, model=model)
        finally:
            rollout.close()
        return self.score(record)

    def close(self) -> None:
        self.grader.close()
        self.con.close()


def program_messages(con: duckdb.DuckDBPyConnection, program, instance_id: str, *, hidden: bool = True,
                     batch: bool = True, task: str = "propose") -> list[dict]:
    """An offline agent (a program of `agents`) as a scripted policy: it runs once on an
    environment of its own (with level 4's hidden facts, as `mpcbench eval` gives them to
    offline agents, unless `hidden` is False), and its tool calls and submission become assistant
    messages: one message holding them all (`batch`: one step, as eval counts a program's reply),
    or one call per message."""
    cur = con.cursor()
    try:
        with Environment(cur, instance_id, task=task) as env:
            facts = HiddenFacts(env.data) if hidden and not level_spec(env.level).tagged else None
            arguments = program.submission(env, None, facts)
            calls = [tool_call(c.tool, c.arguments, f"call_{i}") for i, c in enumerate(env.trace, 1)]
    finally:
        cur.close()
    # a booking episode's writes are among its calls; `finish` ends it
    calls.append(tool_call(FINISH_TOOL, {}, f"call_{len(calls) + 1}") if task == "book" else
                 tool_call(SUBMIT_TOOL_NAME, arguments, f"call_{len(calls) + 1}"))
    if batch:
        return [tool_call_message(*calls)]
    return [tool_call_message(c) for c in calls]
