"""A run whose agent lives outside the harness (an MCP client): the run's instances are served one
after another, each tool call goes to the instance's `ToolEnvironment`, and a valid submission
ends the episode exactly as in `mpcbench eval` (a journal record, then the tables by `finalize`).

    run = open_external_run(EvalConfig(agent="mcp", levels=(2,), instances=5, out="build/runs/mcp-l2"))
    run.task()                                    # the current instance's prompt (None when done)
    run.call("list_threads", {"project_id": "P-01"})          # (text, is_error)
    run.submit({"candidates": [{"start": "2026-03-18T10:00"}]})  # journaled, scored, next instance
    run.close()

One level at a time (a level has one tool catalog). A run directory that already holds a run of
the same selection is continued: the instances its journal lacks are served, none twice.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb

from ..agents.openai_agent import system_prompt
from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.contract import AgentOutput, ToolSpec
from ..episode.submission import submit_call
from ..episode.tools import ToolEnvironment
from ..errors import UserError
from ..warehouse import db
from .config import JOURNAL, RUN_JSON, EvalConfig
from .journal import Journal, episode_record, read_journal, turn_answer
from .plans import plan_episodes
from .runner import prepare_run, write_run_meta
from .tables import finalize

_SELECTION = ("agent", "levels", "instances", "instance_ids")


class ExternalRun:
    """The instances of one run, served in order to an agent that calls tools from outside."""

    def __init__(self, con: duckdb.DuckDBPyConnection, config: EvalConfig, run_dir: Path,
                 episodes: list[tuple[str, int, int]], todo: list[tuple[str, int, int]]):
        self.con, self.config, self.run_dir = con, config, run_dir
        self.episodes, self.todo = episodes, list(todo)
        self.level = episodes[0][1]
        self.journal = Journal(run_dir / JOURNAL)
        self.env: ToolEnvironment | None = None
        self._open_next()

    @property
    def instance_id(self) -> str | None:
        return self.env.instance_id if self.env else None

    @property
    def tools(self) -> list[ToolSpec]:
        """The level's catalog (submit_candidates not included), the same for every instance."""
        with ToolEnvironment(self.con, self.episodes[0][0]) as env:
            return env.tools

    def instructions(self) -> str:
        """The rules an eval agent gets as its system prompt, then the current task."""
        return f"{system_prompt(self.level)}\n\n{self.task_text()}"

    def task_text(self) -> str:
        if self.env is None:
            return f"The run is complete: all {len(self.episodes)} instances are answered. Results: {self.run_dir}/"
        position = len(self.episodes) - len(self.todo) + 1
        return f"Task {self.env.instance_id} ({position} of {len(self.episodes)}):\n\n{self.env.prompt}"

    def task(self) -> str | None:
        return None if self.env is None else self.env.prompt

    def call(self, name: str, arguments: dict | str | None) -> tuple[str, bool]:
        """A tool's text for the current instance, and whether it is an error text."""
        if self.env is None:
            return f"error: {self.task_text()}", True
        if name == SUBMIT_TOOL_NAME:
            return self.submit(arguments)
        text = self.env.call(name, arguments)
        self._log(name, self.env.trace[-1].arguments, text)
        return text, self.env.trace[-1].error is not None

    def submit(self, arguments: dict | str | None) -> tuple[str, bool]:
        """Check a submission; a valid one ends the episode (journaled, tables written) and the
        reply names the next task."""
        if self.env is None:
            return f"error: {self.task_text()}", True
        answer = submit_call(self.env, arguments)
        reply = self.env.trace[-1]
        self._log(SUBMIT_TOOL_NAME, reply.arguments, reply.result)
        if not answer.parse_ok:
            return reply.result, True
        env = self.env
        output = AgentOutput(answer=answer, steps=len(env.trace), transcript=self.transcript)
        record = episode_record(instance_id=env.instance_id, trial=self.todo[0][2], level=env.level,
                                agent=self.config.agent, model=self.config.model, mode="tools", output=output,
                                answers=[turn_answer(output, env.level, 1)], trace=env.trace,
                                latency_s=time.perf_counter() - self.started)
        self.journal.append(record)
        self.todo.pop(0)
        env.close()
        self._open_next()
        finalize(self.run_dir, self.con, planned=self.episodes)
        return f"{reply.result} Recorded for {record['instance_id']}.\n\n{self.task_text()}", False

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None
        self.journal.close()
        finalize(self.run_dir, self.con, planned=self.episodes)
        self.con.close()

    def _open_next(self) -> None:
        self.env = None
        if not self.todo:
            return
        self.env = ToolEnvironment(self.con, self.todo[0][0])
        self.started = time.perf_counter()
        self.transcript = [{"role": "system", "content": system_prompt(self.level)},
                           {"role": "user", "content": self.env.prompt}]

    def _log(self, name: str, arguments: str, text: str) -> None:
        """The call as an OpenAI-style transcript (the journal's format, which replay reads)."""
        call_id = f"call_{len(self.transcript)}"
        self.transcript += [
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": call_id, "content": text}]


def open_external_run(config: EvalConfig) -> ExternalRun:
    """Start the run in `config.out` (default build/runs/<run_id>), or continue the run already
    there when it has the same selection of instances."""
    resume = bool(config.out) and (Path(config.out) / RUN_JSON).exists()
    if resume:
        saved = json.loads((Path(config.out) / RUN_JSON).read_text()).get("options") or {}
        wanted = config.public()
        differ = [k for k in _SELECTION if json.dumps(saved.get(k)) != json.dumps(wanted.get(k))]
        if differ:
            raise UserError(f"{config.out} holds a run with other {', '.join(differ)}; choose another --run")
    config, run_dir = prepare_run(config, resume=resume)
    db_path = Path(config.db)
    if not db_path.exists():
        raise UserError(f"{db_path} does not exist; run `mpcbench build` first (or pass --db)")
    con = db.open_existing(db_path)
    try:
        episodes = plan_episodes(con, config)
        if not episodes:
            raise UserError("no instances match --level / --instances / --instance")
        levels = sorted({level for _, level, _ in episodes})
        if len(levels) > 1:
            raise UserError(f"serve one level at a time (the instances are of levels {levels}); pass --level")
        run_dir.mkdir(parents=True, exist_ok=True)  # prepare_run creates nothing
        write_run_meta(con, config, run_dir, agent=config.agent, model=config.model,
                       notes=["an outside agent, served over MCP"], planned=len(episodes), resume=resume)
        done = read_journal(run_dir / JOURNAL, repair=True)
        todo = [e for e in episodes if (e[0], e[2]) not in done]
        return ExternalRun(con, config, run_dir, episodes, todo)
    except BaseException:
        con.close()
        raise
