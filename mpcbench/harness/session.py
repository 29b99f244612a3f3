"""A run whose agent lives outside the harness (an MCP client): the run's instances are served one
after another, each as an episode of the engine (`episode.engine`) whose replies arrive from
outside: each tool call is one step of the episode (`Episode.step`, a reply of one tool call),
so the step budget (`--max-steps`) applies as in `mpcbench eval`, and a valid submission or the
last step ends the episode as there: a journal record, and the next instance.

    run = open_external_run(EvalConfig(agent="mcp", levels=(2,), instances=5, out="build/runs/mcp-l2"))
    run.task()                                    # the current instance's prompt (None when done)
    run.call("list_threads", {"project_id": "P-01"})          # (text, is_error)
    run.call("submit_candidates", {"candidates": [{"start": "2026-03-18T10:00"}]})  # journaled, next
    run.close()                                   # the tables (also written when the run is complete)

The system prompt and the tool list (with `submit_candidates` and its `maxItems` at levels 1-2)
are the engine's, for the current instance. One level at a time. The run's tables are computed
from the journal (`finalize`) once the last instance is answered, and on close. A run directory
that already holds a run of the same selection is continued: the instances its journal lacks are
served, none twice. A failure of ours (a tool's query) ends the instance as a harness error and
says so.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from ..episode.codecs import tool_call, tool_call_message
from ..episode.contract import EndReason
from ..episode.engine import Episode, Reply, View
from ..episode.environment import Environment
from ..errors import UserError
from ..warehouse import db
from .config import JOURNAL, RUN_JSON, EvalConfig
from .episode_spec import fields as episode_fields
from .journal import Journal
from .plans import plan_episodes
from .provenance import start_run
from .run_setup import prepare_run
from .tables import finalize

# what a continued run must share with the saved one: the instances and how each episode is played
_SELECTION = frozenset({"agent", "levels", "instances", "instance_ids", *(f.name for f in episode_fields())})


class OutsideAgent:
    """The policy of an episode whose replies arrive from outside (`ExternalRun.call`): the
    engine never asks it for one."""

    name = "mcp"

    async def reply(self, view: View) -> Reply:
        raise RuntimeError("an outside agent's replies arrive through ExternalRun.call")


class ExternalRun:
    """The instances of one run, served in order to an agent that calls tools from outside.
    Opening one starts the run in `config.out` (default build/runs/<run_id>), or continues the
    run already there when it has the same selection of instances and episode options (checked
    as eval's --resume checks them: `run_setup.prepare_run`)."""

    def __init__(self, config: EvalConfig):
        resume = config.out is not None and (Path(config.out) / RUN_JSON).exists()
        run = prepare_run(config, resume=resume, given=_SELECTION)
        db_path = Path(run.config.db)
        if not db_path.exists():
            raise UserError(f"{db_path} does not exist; run `mpcbench build` first (or pass --db)")
        self.con = db.open_existing(db_path, episodes=True)
        try:
            self.episodes = plan_episodes(self.con, run.config)
            if not self.episodes:
                raise UserError("no instances match --level / --instances / --instance")
            levels = sorted({level for _, level, _ in self.episodes})
            if len(levels) > 1:
                raise UserError(f"serve one level at a time (the instances are of levels {levels}); pass --level")
            start_run(self.con, run, agent=run.config.agent, model=run.config.model,
                      notes=["an outside agent, served over MCP"], planned=len(self.episodes), resume=resume)
        except BaseException:
            self.con.close()
            raise
        self.config, self.run_dir, self.spec = run.config, run.run_dir, run.spec
        self.todo = [e for e in self.episodes if (e[0], e[2]) not in run.done]
        self.level = levels[0]
        self.codec = self.spec.codec()
        self.feedback = self.spec.feedback_giver(self.con)
        self.journal = Journal(self.run_dir / JOURNAL)
        self.unwritten = False               # episodes journaled since the tables were last written
        self._episode: Episode | None = None   # the current instance's, opened when first asked for

    @property
    def episode(self) -> Episode | None:
        """The current instance's episode (None once the run is complete)."""
        if self._episode is None and self.todo:
            env = self.spec.environment(self.con, self.todo[0][0])
            self._episode = self.spec.episode(env, OutsideAgent(), feedback=self.feedback)
            self.started = time.perf_counter()
        return self._episode

    @property
    def env(self) -> Environment | None:
        return self.episode.env if self.episode else None

    @property
    def instance_id(self) -> str | None:
        return self.env.instance_id if self.env else None

    def tool_entries(self) -> list[dict]:
        """The tools as the engine offers them for the current instance (OpenAI function entries:
        the level's catalog, then submit_candidates); the first instance's once the run is done."""
        if self.env is not None:
            return self.codec.request(self.env)["tools"]
        with self.spec.environment(self.con, self.episodes[0][0]) as env:
            return self.codec.request(env)["tools"]

    def instructions(self) -> str:
        """The system prompt an eval agent gets, then the current task."""
        if self.episode is None:
            return self.task_text()
        return f"{self.episode.messages[0]['content']}\n\n{self.task_text()}"

    def task_text(self) -> str:
        if self.env is None:
            return f"The run is complete: all {len(self.episodes)} instances are answered. Results: {self.run_dir}/"
        position = len(self.episodes) - len(self.todo) + 1
        return f"Task {self.env.instance_id} ({position} of {len(self.episodes)}):\n\n{self.env.prompt}"

    def task(self) -> str | None:
        return None if self.env is None else self.env.prompt

    def call(self, name: str, arguments: dict | str | None) -> tuple[str, bool]:
        """A tool's text for the current instance, and whether it is an error text. Each call is
        one step of the episode (`Episode.step`): a valid submission, or the step budget spent,
        ends it as in eval (journaled), and the reply says so and names the next task."""
        episode = self.episode
        if episode is None:
            return f"error: {self.task_text()}", True
        message = tool_call_message(tool_call(name, arguments, f"call_{len(episode.messages)}"))
        step = asyncio.run(episode.step(Reply(message)))
        if episode.out.end is EndReason.HARNESS_ERROR:
            self._finish()
            return (f"error: MPCBench failed on this call ({episode.out.error}); that is not your mistake, and "
                    f"this instance is recorded as a harness error.\n\n{self.task_text()}", True)
        text = "\n\n".join(m["content"] for m in step.messages if m.get("content"))   # a result, then feedback
        is_error = episode.env.trace[-1].error is not None
        if not step.done:
            return text, is_error
        instance_id = episode.env.instance_id
        self._finish()
        if episode.out.end is EndReason.STEP_BUDGET:
            answer = "your last submission" if episode.out.answer is not None else "no answer"
            return (f"{text}\n\nThat was the last of the {episode.max_steps} steps of {instance_id}: it is recorded "
                    f"with {answer}.\n\n{self.task_text()}", is_error)
        return f"{text} Recorded for {instance_id}.\n\n{self.task_text()}", False

    def _finish(self) -> None:
        """Journal the current episode and open the next instance."""
        episode = self.episode
        assert episode is not None
        self.journal.append(episode.record(trial=self.todo[0][2], agent=self.config.agent, model=self.config.model,
                                           latency_s=time.perf_counter() - self.started))
        self.todo.pop(0)
        self.unwritten = True
        episode.env.close()
        self._episode = None
        if not self.todo:     # the run is complete: its tables now
            self.write_tables()

    def write_tables(self) -> None:
        """Score the journal into the run's tables and run.json (`finalize`): once the run is
        complete, and on close; not after every episode, which would cost the whole run each time."""
        finalize(self.run_dir, self.con, planned=self.episodes)
        self.unwritten = False

    def close(self) -> None:
        if self._episode is not None:
            self._episode.env.close()
            self._episode = None
        if self.unwritten or not (self.run_dir / "runs.parquet").exists():
            self.write_tables()
        self.journal.close()
        self.con.close()



def open_external_run(config: EvalConfig) -> ExternalRun:
    """The run `config` asks for (`ExternalRun`), started or continued."""
    return ExternalRun(config)
