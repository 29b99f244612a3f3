"""`mpcbench eval`: run an agent on instances, journal every episode, write the result tables.

    config = EvalConfig(agent="scripted", db="build/mpcbench.duckdb", levels=(1, 2), instances=5)
    result = run_eval(config)                  # -> build/runs/<run_id>/
    result.summary                             # per level: mean F1, EM rate, errors

An episode is one (instance, trial). Episodes run concurrently on one event loop, at most
`concurrency` at a time, each with its own cursor of the warehouse (its ToolEnvironment's).
A finished episode is appended to `journal.jsonl` (one JSON line, flushed and fsynced) before
the next one is counted, so a killed run loses at most the episodes in flight. `resume=True`
runs the episodes missing from the journal (and, with `retry_errors`, those that ended in an
infrastructure error) and never adds a second record of a finished one. At the end the tables
are computed from the journal alone (`finalize`, which `mpcbench rescore` also runs):

    runs.parquet        one row per (instance, trial): scores, failure cause, tokens, errors
    candidates.parquet  one row per predicted candidate, checked against the oracle
    tool_calls.parquet  one row per tool call (submit_candidates included)
    failures.parquet    one row per (answer, failure cause), naming the constraint and source row
    run.json            configuration (no secret: the key's variable name, the base URL's host),
                        versions, the build's content hash, seeds, and a summary per level

The `openai` agent's requests and responses are cached in `llm_cache.jsonl` by request hash;
`--agent replay --from RUN` re-runs a recorded run from it without a network.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import gc
import hashlib
import json
import os
import platform
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import duckdb
import polars as pl

from . import __version__, db
from .agents.base import AgentOutput
from .answers import SUBMIT_TOOL_NAME, parse_submission
from .errors import UserError
from .scoring import GRADER_VERSION, Episode, Scored, TurnAnswer, gold_keys, quick_score, score_episodes

OFFLINE = ("scripted", "calendar-only", "random")
AGENTS = ("openai", *OFFLINE, "replay")
MODES = ("tools", "context")
JOURNAL = "journal.jsonl"
CACHE = "llm_cache.jsonl"
FEEDBACK_CACHE = "feedback_cache.jsonl"
RUN_JSON = "run.json"
DEFAULT_RUNS_DIR = Path("build/runs")


@dataclass
class EvalConfig:
    """Everything that defines a run (saved in run.json, so a resume needs only the directory)."""
    agent: str = "scripted"
    db: str = str(db.DEFAULT_DB)
    levels: tuple[int, ...] = (1, 2, 3)
    instances: int | None = None            # per level: the first N (by position)
    instance_ids: tuple[str, ...] = ()      # or exactly these
    trials: int = 1
    concurrency: int = 8
    out: str | None = None                  # the run directory (default build/runs/<run_id>)
    mode: str = "tools"                     # tools | context (no tools; every source in the prompt)
    # turns and feedback (MINT): after a wrong answer, feedback and another turn, up to max_turns
    max_turns: int = 1
    feedback: str = "none"                  # none | binary | rule | llm
    feedback_detail: str = "why"            # count | which | why (rule and llm)
    feedback_model: str | None = None       # llm feedback: the model, on the same endpoint
    # the openai agent
    model: str | None = None
    base_url: str | None = None             # only its host goes to run.json
    api_key_env: str = "OPENAI_API_KEY"     # the variable's name, never its value
    temperature: float | None = 0.0
    seed: int | None = 0                    # trial t sends seed + t - 1
    max_steps: int = 30
    timeout_s: float = 60.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    tool_choice: str = "auto"
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    # replay
    replay_from: str | None = None

    def validate(self) -> None:
        if self.agent not in AGENTS:
            raise UserError(f"--agent must be one of {', '.join(AGENTS)}, not {self.agent!r}")
        if self.agent == "openai" and not self.model:
            raise UserError("--agent openai needs --model")
        if self.agent == "replay" and not self.replay_from:
            raise UserError("--agent replay needs --from RUN_DIR")
        if self.mode not in MODES:
            raise UserError(f"--mode must be one of {', '.join(MODES)}")
        from .feedback import DETAILS, KINDS
        if self.feedback not in KINDS:
            raise UserError(f"--feedback must be one of {', '.join(KINDS)}, not {self.feedback!r}")
        if self.feedback_detail not in DETAILS:
            raise UserError(f"--feedback-detail must be one of {', '.join(DETAILS)}, not {self.feedback_detail!r}")
        if self.max_turns < 1:
            raise UserError("--max-turns must be at least 1")
        if (self.max_turns > 1) != (self.feedback != "none"):
            raise UserError("--max-turns above 1 and --feedback other than none go together: a later turn "
                            "starts only from feedback")
        if self.feedback == "llm" and not self.feedback_model:
            raise UserError("--feedback llm needs --feedback-model (a model on the same endpoint)")
        if self.trials < 1 or self.concurrency < 1 or self.max_steps < 1:
            raise UserError("--trials, --concurrency and --max-steps must be at least 1")
        if not set(self.levels) <= {1, 2, 3} or not self.levels:
            raise UserError("--levels takes a subset of 1,2,3")
        from .agents.openai_agent import TOOL_CHOICES
        if self.tool_choice not in TOOL_CHOICES:
            raise UserError(f"--tool-choice must be one of {', '.join(TOOL_CHOICES)}")

    def public(self) -> dict:
        """The options as saved: the base URL reduced to its host."""
        out = dataclasses.asdict(self)
        out["levels"], out["instance_ids"] = list(self.levels), list(self.instance_ids)
        out.pop("base_url")
        out["base_url_host"] = url_host(self.base_url)
        return out

    @classmethod
    def from_public(cls, saved: dict, **override) -> "EvalConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in saved.items() if k in known}
        values["levels"] = tuple(values.get("levels") or (1, 2, 3))
        values["instance_ids"] = tuple(values.get("instance_ids") or ())
        values.update(override)
        return cls(**values)


def url_host(url: str | None) -> str | None:
    """host[:port] of a URL: no scheme, user, password, path or query (they may hold secrets)."""
    if not url:
        return None
    parts = urlsplit(url if "//" in url else f"//{url}")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


# --- provenance ------------------------------------------------------------------------------

def build_content_hash(con: duckdb.DuckDBPyConnection) -> str:
    """sha256 over every raw table's rows in a canonical order: equal data, equal hash."""
    digest = hashlib.sha256()
    for table in db.RAW_TABLES:
        count, md5 = con.execute(
            f"select count(*), md5(coalesce(string_agg(t::varchar, chr(10) order by t::varchar), '')) "
            f"from {table} as t").fetchall()[0]
        digest.update(f"{table}:{count}:{md5}\n".encode())
    return digest.hexdigest()


def sql_hash() -> str:
    """sha256 of every .sql file the oracle, the tools and the grader use."""
    digest = hashlib.sha256()
    for path in sorted(db.SQL_DIR.rglob("*.sql")):
        digest.update(str(path.relative_to(db.SQL_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def versions() -> dict:
    import openai
    return {"mpcbench": __version__, "grader": GRADER_VERSION, "python": platform.python_version(),
            "duckdb": duckdb.__version__, "polars": pl.__version__, "openai": openai.__version__}


# --- the journal -----------------------------------------------------------------------------

def read_journal(path: str | Path, *, repair: bool = False) -> dict[tuple[str, int], dict]:
    """The journal's records by (instance_id, trial), the last one of a key winning. A torn last
    line (a kill in the middle of a write) is skipped, and with `repair` cut off the file so the
    next append starts on a fresh line."""
    path = Path(path)
    if not path.exists():
        return {}
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if repair and end < len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
    out: dict[tuple[str, int], dict] = {}
    for line in data[:end].splitlines():
        try:
            rec = json.loads(line)
            out[(rec["instance_id"], int(rec["trial"]))] = rec
        except (ValueError, KeyError, TypeError):
            continue
    return out


class Journal:
    def __init__(self, path: Path):
        self.path = path
        self._file = open(path, "ab")

    def append(self, record: dict) -> None:
        self._file.write((json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


# --- episodes --------------------------------------------------------------------------------

def final_raw(output: AgentOutput, level: int) -> str | None:
    """The raw text of the final answer: the submit_candidates arguments it came from, or the
    final text message."""
    answer = output.answer
    if answer is None:
        return None
    for message in reversed(output.transcript or []):
        if message.get("role") != "assistant":
            continue
        if answer.path == "text":
            if message.get("content") is not None and not message.get("tool_calls"):
                return message["content"]
            continue
        for call in reversed(message.get("tool_calls") or []):
            function = call.get("function") or {}
            if function.get("name") == SUBMIT_TOOL_NAME:
                raw = function.get("arguments")
                raw = raw if isinstance(raw, str) else json.dumps(raw)
                if parse_submission(raw, level) == answer:
                    return raw
    return None


def turn_answer(output: AgentOutput, level: int, turn: int, feedback: str | None = None) -> dict:
    """A turn's answer as the journal keeps it (taken when the turn ends: the raw text is found
    at the end of the transcript), with the feedback the harness gave on it."""
    answer = output.answer
    if answer is None:
        return {"turn": turn, "path": None, "raw": None, "parse_ok": False, "error": "no answer",
                "candidates": [], "feedback": feedback}
    return {"turn": turn, "path": answer.path, "raw": final_raw(output, level), "parse_ok": answer.parse_ok,
            "error": answer.error,
            "candidates": [{"start": c.start, "room_id": c.room_id, "raw": c.raw, "problem": c.problem}
                           for c in answer.candidates], "feedback": feedback}


def episode_record(*, instance_id: str, trial: int, level: int, agent: str, model: str | None, mode: str,
                   output: AgentOutput, answers: list[dict], trace: list, latency_s: float) -> dict:
    """One journal line: everything needed to score the episode again, or to replay it."""
    calls = [{"turn": c.turn, "step": c.step, "tool": c.tool, "arguments": c.arguments,
              "result_chars": len(c.result or ""), "latency_ms": round(c.latency_ms, 3), "error": c.error}
             for c in trace]
    return {"v": 1, "instance_id": instance_id, "trial": trial, "level": level, "agent": agent, "model": model,
            "mode": mode, "turns": len(answers), "steps": output.steps,
            "prompt_tokens": output.prompt_tokens, "completion_tokens": output.completion_tokens,
            "latency_s": round(latency_s, 4), "error": output.error, "answers": answers, "tool_calls": calls,
            "transcript": output.transcript}


@dataclass
class AgentPlan:
    """How to make the agent of each episode, and how to run it."""
    make: Callable[[str, int], Any]           # (instance_id, trial) -> Agent
    in_thread: bool                           # a synchronous agent: run it in a worker thread
    agent: str
    model: str | None
    episodes: list[tuple[str, int]] | None = None   # replay: the recorded episodes
    feedback_from: Path | None = None         # replay: the recorded run, whose feedback cache answers
    close: Callable[[], Any] | None = None    # async cleanup
    notes: list[str] = field(default_factory=list)


def chat_client(config: EvalConfig, model: str, cache_path: Path, *, replay_only: bool = False):
    """A client for `model` on the run's endpoint, with its retry options and a response cache."""
    from .llm import ChatClient, EndpointConfig, ResponseCache
    endpoint = EndpointConfig(model=model, base_url=config.base_url, api_key_env=config.api_key_env,
                              timeout_s=config.timeout_s, max_retries=config.max_retries,
                              backoff_base_s=config.backoff_base_s, backoff_max_s=config.backoff_max_s)
    return ChatClient(endpoint, cache=ResponseCache(cache_path), replay_only=replay_only)


def _openai_plan(config: EvalConfig, cache_path: Path, *, replay_only: bool = False, agent: str = "openai") -> AgentPlan:
    from .agents.openai_agent import AgentOptions, OpenAIAgent

    client = chat_client(config, config.model, cache_path, replay_only=replay_only)

    def make(instance_id: str, trial: int):
        seed = None if config.seed is None else config.seed + trial - 1
        return OpenAIAgent(client, AgentOptions(max_steps=config.max_steps, temperature=config.temperature, seed=seed,
                                                tool_choice=config.tool_choice,
                                                parallel_tool_calls=config.parallel_tool_calls,
                                                max_tokens=config.max_tokens))

    return AgentPlan(make, False, agent, config.model, close=client.aclose)


def agent_plan(config: EvalConfig, run_dir: Path) -> AgentPlan:
    if config.agent == "openai":
        return _openai_plan(config, run_dir / CACHE)
    if config.agent in OFFLINE:
        from .agents import make_agent
        return AgentPlan(lambda instance_id, trial: make_agent(config.agent, (config.seed or 0) + trial - 1),
                         True, config.agent, None)
    from .agents.replay import TrajectoryReplayAgent, recorded_run
    source_dir = Path(config.replay_from)
    saved, records = recorded_run(source_dir)
    episodes = sorted(records)
    source = saved.get("options") or {}
    if saved.get("agent") == "openai":
        base = EvalConfig.from_public(source, base_url=None, out=config.out, concurrency=config.concurrency)
        plan = _openai_plan(base, source_dir / CACHE, replay_only=True, agent="replay")
    else:
        plan = AgentPlan(lambda instance_id, trial: TrajectoryReplayAgent(records[(instance_id, trial)]),
                         True, "replay", saved.get("model"))
    plan.episodes = episodes
    plan.feedback_from = source_dir
    plan.notes.append(f"replay of {saved.get('run_id')} ({saved.get('agent')}, model {saved.get('model')})")
    return plan


REPLAYED = ("mode", "max_turns", "feedback", "feedback_detail", "feedback_model")


def replayed_protocol(config: EvalConfig) -> EvalConfig:
    """A replay runs the recorded run's mode, turns and feedback (they shape its conversations)."""
    path = Path(config.replay_from) / RUN_JSON
    saved = (json.loads(path.read_text()).get("options") or {}) if path.exists() else {}
    return dataclasses.replace(config, **{k: saved[k] for k in REPLAYED if k in saved})


def plan_episodes(con: duckdb.DuckDBPyConnection, config: EvalConfig) -> list[tuple[str, int, int]]:
    """(instance_id, level, trial) of every episode, in level and position order."""
    rows = con.execute(
        "select instance_id, level, row_number() over (partition by level order by position) as k "
        "from instances where list_contains($levels, level) "
        "and (len($ids) = 0 or list_contains($ids, instance_id)) order by level, position",
        {"levels": list(config.levels), "ids": list(config.instance_ids)}).fetchall()
    if config.instance_ids:
        missing = sorted(set(config.instance_ids) - {r[0] for r in rows})
        if missing:
            raise UserError(f"no such instance(s) at levels {','.join(map(str, config.levels))}: {', '.join(missing)}")
    chosen = [(i, level) for i, level, k in rows if config.instances is None or k <= config.instances]
    return [(i, level, trial) for i, level in chosen for trial in range(1, config.trials + 1)]


class Progress:
    """What run_eval reports as it goes (the CLI draws a progress bar from it)."""

    def start(self, total: int, done: int) -> None:
        pass

    def episode(self, record: dict, f1: float | None, exact: bool | None) -> None:
        pass


@dataclass
class EvalResult:
    run_dir: Path
    run_id: str
    summary: list[dict]
    episodes: int
    ran: int          # episodes run by this call (the rest came from the journal)


def default_run_id(config: EvalConfig) -> str:
    model = re.sub(r"[^A-Za-z0-9._-]+", "-", config.model or "")
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return "-".join(part for part in (config.agent, model.strip("-"), stamp) if part)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, path)


RUN_FILES = (RUN_JSON, JOURNAL, CACHE, FEEDBACK_CACHE, "reference_calls.json", "runs.parquet",
             "candidates.parquet", "tool_calls.parquet", "failures.parquet", "turns.parquet")


def prepare_run(config: EvalConfig, *, resume: bool, overwrite: bool = False) -> tuple[EvalConfig, Path]:
    """The run directory and the config to run; on resume, the config saved in run.json, with the
    base URL and the concurrency taken from `config` (only the URL's host is saved). `overwrite`
    deletes a previous run's files from the directory first."""
    run_dir = Path(config.out) if config.out else DEFAULT_RUNS_DIR / default_run_id(config)
    saved_path = run_dir / RUN_JSON
    if overwrite and not resume:
        for name in RUN_FILES:
            (run_dir / name).unlink(missing_ok=True)
    if resume:
        if not saved_path.exists():
            raise UserError(f"--resume: {run_dir} holds no run.json (give the run directory with --out)")
        saved = json.loads(saved_path.read_text())
        config_saved = EvalConfig.from_public(saved["options"], base_url=config.base_url, out=str(run_dir),
                                              concurrency=config.concurrency)
        host = saved["options"].get("base_url_host")
        if host and url_host(config.base_url) != host:
            raise UserError(f"--resume: this run used an endpoint at {host}; pass its --base-url again "
                            "(run.json keeps only the host)")
        config = config_saved
    elif saved_path.exists():
        raise UserError(f"{run_dir} already holds a run; use --resume to finish it, --overwrite to start it "
                        "again, or choose another --out")
    config.validate()
    run_dir.mkdir(parents=True, exist_ok=True)
    return config, run_dir


def run_eval(config: EvalConfig, *, resume: bool = False, retry_errors: bool = False, overwrite: bool = False,
             progress: Progress | None = None) -> EvalResult:
    """Run (or finish) an eval and write its tables; see the module docstring."""
    config, run_dir = prepare_run(config, resume=resume, overwrite=overwrite)
    if config.agent == "replay":
        config = replayed_protocol(config)
    progress = progress or Progress()
    db_path = Path(config.db)
    if not db_path.exists():
        raise UserError(f"{db_path} does not exist; run `mpcbench build` first (or pass --db)")
    con = db.connect(db_path, read_only=True)
    try:
        plan = agent_plan(config, run_dir)
        if plan.episodes is not None:
            levels = dict(con.execute("select instance_id, level from instances").fetchall())
            missing = sorted({i for i, _ in plan.episodes} - levels.keys())
            if missing:
                raise UserError(f"the recorded run has instances this database lacks: {', '.join(missing[:5])}")
            episodes = [(i, levels[i], t) for i, t in plan.episodes]
        else:
            episodes = plan_episodes(con, config)
        if not episodes:
            raise UserError("no instances match --levels / --instances / --instance")
        content_hash = build_content_hash(con)
        saved_path = run_dir / RUN_JSON
        run_id = run_dir.name
        meta = json.loads(saved_path.read_text()) if resume else {
            "run_id": run_id, "created_at": dt.datetime.now().isoformat(timespec="seconds"),
            "benchmark_version": __version__, "grader_version": GRADER_VERSION}
        if resume and meta.get("build", {}).get("content_sha256") not in (None, content_hash):
            raise UserError(f"--resume: {db_path} is not the build this run started on (content hash differs)")
        build_info = dict(con.execute("select key, value from build_info order by key").fetchall())
        meta.update({
            "status": "running", "agent": plan.agent, "model": plan.model, "mode": config.mode,
            "base_url_host": url_host(config.base_url), "api_key_env": config.api_key_env if config.agent == "openai" else None,
            "replay_of": config.replay_from, "notes": plan.notes,
            "build": {"db": str(db_path), "content_sha256": content_hash, "info": build_info},
            "sql_sha256": sql_hash(), "versions": versions(),
            "seeds": {"agent_seed": config.seed, "trial_seeds": None if config.seed is None else
                      [config.seed + t for t in range(config.trials)],
                      "worlds": {k: v for k, v in build_info.items() if k.startswith("seed_")}},
            "options": config.public(), "episodes": {"planned": len(episodes)}})
        _write_json(saved_path, meta)

        journal_path = run_dir / JOURNAL
        done = read_journal(journal_path, repair=True)
        todo = [(i, level, t) for i, level, t in episodes
                if (i, t) not in done or (retry_errors and done[(i, t)].get("error"))]
        progress.start(len(episodes), len(episodes) - len(todo))
        gold = gold_keys(con, sorted({i for i, _, _ in todo}))
        ran = asyncio.run(_run_all(con, config, plan, todo, journal_path, gold, progress))
        result = finalize(run_dir, con, planned=episodes)
        return EvalResult(run_dir, run_id, result["summary"], len(episodes), ran)
    finally:
        con.close()


async def _run_all(con, config: EvalConfig, plan: AgentPlan, todo, journal_path: Path, gold, progress) -> int:
    journal = Journal(journal_path)
    limit = asyncio.Semaphore(config.concurrency)
    # The openai SDK allocates many short-lived objects per request; with every long-lived object
    # frozen and a higher first threshold, the collector stops re-walking the same heap (about
    # +20% episodes/s at concurrency 32 on 2 cores). Restored below.
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 50_000), *thresholds[1:])

    feedback = make_feedback(con, config, journal_path.parent, replay_of=plan.feedback_from)

    async def one(instance_id: str, level: int, trial: int) -> dict:
        async with limit:
            return await run_episode(con, plan, instance_id, level, trial, config, feedback)

    try:
        tasks = [asyncio.create_task(one(*episode)) for episode in todo]
        for finished in asyncio.as_completed(tasks):
            record = await finished
            await asyncio.to_thread(journal.append, record)  # serialized: one append at a time
            if record["error"]:
                progress.episode(record, None, None)
            else:
                from .agents.replay import answer_from_record
                answer = answer_from_record(record["answers"][-1], record["level"])
                s = quick_score(record["level"], answer, gold[record["instance_id"]])
                progress.episode(record, s.f1, s.exact_match)
        return len(tasks)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        journal.close()
        if plan.close is not None:
            await plan.close()
        if feedback.client is not None:
            await feedback.client.aclose()


def make_feedback(con, config: EvalConfig, run_dir: Path, replay_of: Path | None = None):
    """The run's FeedbackGiver; llm feedback gets its own client (cached in the run directory, or
    replayed from the recorded run's cache)."""
    from .feedback import FeedbackGiver
    client = None
    if config.feedback == "llm":
        client = chat_client(config, config.feedback_model, (replay_of or run_dir) / FEEDBACK_CACHE,
                             replay_only=replay_of is not None)
    return FeedbackGiver(con, config.feedback, config.feedback_detail, client)


async def run_episode(con, plan: AgentPlan, instance_id: str, level: int, trial: int, config: EvalConfig,
                      feedback) -> dict:
    """Run one episode, turn by turn: after a wrong answer, while turns remain, the feedback and
    the agent's next turn. Whatever goes wrong ends up in the record, never as an exception."""
    from .context import ContextEnvironment
    from .llm import InfrastructureError
    from .tools import ToolEnvironment

    def environment():
        env = ToolEnvironment(con, instance_id)
        if config.mode == "context":
            try:
                return ContextEnvironment(env, answer_calls=plan.in_thread)
            except BaseException:
                env.close()
                raise
        return env

    async def play(step):
        if plan.in_thread:  # a synchronous agent: its own event loop in a worker thread
            return await asyncio.to_thread(lambda: asyncio.run(step()))
        return await step()

    started = time.perf_counter()
    trace: list = []
    answers: list[dict] = []
    output = AgentOutput(answer=None)
    try:
        agent = plan.make(instance_id, trial)
        env = await asyncio.to_thread(environment)
        try:
            trace = env.trace
            output = await play(lambda: agent.run(env))
            for turn in range(1, config.max_turns + 1):
                if output.error:
                    break
                said = await feedback.give(instance_id, level, output.answer, turn=turn, max_turns=config.max_turns)
                answers.append(turn_answer(output, level, turn, said))
                if said is None:
                    break
                output = await play(lambda: agent.follow_up(env, said, turn + 1))
        finally:
            env.close()
    except InfrastructureError as e:  # the feedback model's endpoint failed
        output.error = f"feedback_{e.kind}: {e.message}"
    except Exception as e:  # an agent or harness bug: this episode only
        output = AgentOutput(answer=None, error=f"agent_error: {type(e).__name__}: {e}")
    if not answers or output.error:
        answers.append(turn_answer(output, level, len(answers) + 1))
    return episode_record(instance_id=instance_id, trial=trial, level=level, agent=plan.agent, model=plan.model,
                          mode=config.mode, output=output, answers=answers, trace=trace,
                          latency_s=time.perf_counter() - started)


# --- tables ----------------------------------------------------------------------------------

S, I, F, B, L = pl.String, pl.Int64, pl.Float64, pl.Boolean, pl.List(pl.String)
RUNS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "agent": S, "model": S, "mode": S, "trial": I, "turns": I,
    "steps": I, "parse_ok": B, "answer_path": S, "parse_error": S, "n_pred": I, "n_correct": I, "n_gold": I,
    "precision": F, "recall": F, "f1": F, "exact_match": B, "first_correct": B, "ndcg": F,
    "failure_cause": S, "failure_source": S, "failure_stage": S, "failure_detail": S,
    "sources_required": L, "sources_read": L, "source_coverage": F,
    "max_turns": I, "feedback": S, "solved_turn": I,
    "tool_calls": I, "tool_errors": I, "reference_tool_calls": I, "extra_tool_calls": I,
    "prompt_tokens": I, "completion_tokens": I, "latency_s": F, "error": S, "error_kind": S,
}
CANDIDATES_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "position": I, "start": S, "room_id": S,
    "in_gold": B, "gold_rank": I, "feasible": B, "violations": L, "violation_sources": L, "violation_rows": L,
    "is_duplicate": B, "problem": S, "raw": S,
}
TOOL_CALLS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "step": I, "tool": S, "source": S,
    "arguments": S, "result_chars": I, "latency_ms": F, "error": S,
}
TURNS_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "parse_ok": B, "n_pred": I, "n_correct": I,
    "precision": F, "recall": F, "f1": F, "exact_match": B, "failure_cause": S, "feedback_text": S,
}
FAILURES_SCHEMA = {
    "run_id": S, "instance_id": S, "level": I, "trial": I, "turn": I, "cause": S, "source": S,
    "constraint_kind": S, "constraint_id": S, "source_table": S, "source_row_id": S, "stage": S,
    "n_candidates": I, "positions": pl.List(pl.Int64),
}


def _frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    return pl.from_dicts([{k: row.get(k) for k in schema} for row in rows], schema=schema)


def episodes_from_journal(records: list[dict]) -> list[Episode]:
    from .agents.replay import answer_from_record
    out = []
    for rec in records:
        answers = [TurnAnswer(int(a.get("turn") or 1), answer_from_record(a, rec["level"]))
                   for a in rec.get("answers") or []]
        out.append(Episode(rec["instance_id"], int(rec["trial"]), int(rec["level"]),
                           answers or [TurnAnswer(1, None)],
                           [c for c in rec.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME],
                           rec.get("error")))
    return out


def reference_calls(run_dir: Path, con, content_hash: str, instance_ids: list[str]) -> dict[str, int]:
    """The scripted solver's tool calls per instance, cached in the run directory per build."""
    from .scoring import reference_tool_calls
    path = run_dir / "reference_calls.json"
    cached = json.loads(path.read_text()) if path.exists() else {}
    calls = cached.get("calls", {}) if cached.get("build_sha256") == content_hash else {}
    missing = [i for i in instance_ids if i not in calls]
    if missing:
        calls.update(reference_tool_calls(con, missing))
        _write_json(path, {"build_sha256": content_hash, "calls": calls})
    return calls


def finalize(run_dir: Path, con: duckdb.DuckDBPyConnection, planned: list | None = None) -> dict:
    """Score the journal's episodes and write the tables and run.json's summary."""
    from .scoring import tool_sources

    meta = json.loads((run_dir / RUN_JSON).read_text())
    run_id = meta["run_id"]
    records = sorted(read_journal(run_dir / JOURNAL).values(),
                     key=lambda r: (r["level"], r["instance_id"], r["trial"]))
    scored: Scored = score_episodes(con, episodes_from_journal(records))
    final = scored.final()
    content_hash = meta.get("build", {}).get("content_sha256") or build_content_hash(con)
    reference = reference_calls(run_dir, con, content_hash, sorted({r["instance_id"] for r in records}))
    sources = tool_sources()
    level_of = {r["instance_id"]: r["level"] for r in records}

    options = meta.get("options") or {}
    feedback_after = {(r["instance_id"], r["trial"], int(a.get("turn") or 1)): a.get("feedback")
                      for r in records for a in r.get("answers") or []}
    turns = [{"run_id": run_id, **a, "feedback_text": feedback_after.get((a["instance_id"], a["trial"], a["turn"]))}
             for a in scored.answers]
    solved = {}
    for a in scored.answers:
        if a["exact_match"]:
            solved.setdefault((a["instance_id"], a["trial"]), a["turn"])

    runs = []
    for rec in records:
        key = (rec["instance_id"], rec["trial"])
        calls = [c for c in rec.get("tool_calls") or [] if c["tool"] != SUBMIT_TOOL_NAME]
        row = {"run_id": run_id, **{k: rec.get(k) for k in ("instance_id", "level", "agent", "model", "mode", "trial",
                                                             "turns", "steps", "prompt_tokens", "completion_tokens",
                                                             "latency_s", "error")},
               "tool_calls": len(calls), "tool_errors": sum(1 for c in calls if c.get("error")),
               "reference_tool_calls": reference.get(rec["instance_id"]),
               "max_turns": options.get("max_turns", 1), "feedback": options.get("feedback", "none"),
               "solved_turn": None if rec.get("error") else solved.get(key)}
        if row["reference_tool_calls"] is not None:
            row["extra_tool_calls"] = max(len(calls) - row["reference_tool_calls"], 0)
        if rec.get("error"):
            row.update({"error_kind": str(rec["error"]).split(":", 1)[0], "failure_cause": "infrastructure"})
        else:
            s = dict(final[key])
            for k in ("instance_id", "trial", "turn", "level"):
                s.pop(k)
            row.update(s)
        runs.append(row)
    candidates = [{"run_id": run_id, "level": level_of[c["instance_id"]], **c} for c in scored.candidates]
    tool_calls = [{"run_id": run_id, "instance_id": rec["instance_id"], "level": rec["level"], "trial": rec["trial"],
                   **c, "source": sources.get(c["tool"])} for rec in records for c in rec.get("tool_calls") or []]
    failures = [{"run_id": run_id, "level": level_of[f["instance_id"]], **f} for f in scored.failures]

    _frame(runs, RUNS_SCHEMA).write_parquet(run_dir / "runs.parquet")
    _frame(candidates, CANDIDATES_SCHEMA).write_parquet(run_dir / "candidates.parquet")
    _frame(tool_calls, TOOL_CALLS_SCHEMA).write_parquet(run_dir / "tool_calls.parquet")
    _frame(failures, FAILURES_SCHEMA).write_parquet(run_dir / "failures.parquet")
    _frame(turns, TURNS_SCHEMA).write_parquet(run_dir / "turns.parquet")

    summary = summarize(runs)
    planned_n = len(planned) if planned is not None else meta.get("episodes", {}).get("planned", len(records))
    meta.update({"status": "complete" if len(records) >= planned_n else "incomplete",
                 "finished_at": dt.datetime.now().isoformat(timespec="seconds"),
                 "grader_version": GRADER_VERSION, "sql_sha256": sql_hash(),
                 "episodes": {"planned": planned_n, "finished": len(records),
                              "infrastructure_errors": sum(1 for r in runs if r.get("error"))},
                 "summary": summary})
    _write_json(run_dir / RUN_JSON, meta)
    return meta


def summarize(runs: list[dict]) -> list[dict]:
    """Per level: episodes, mean F1 and EM rate over the scored ones, errors, calls and tokens."""
    out = []
    for level in sorted({r["level"] for r in runs}):
        rows = [r for r in runs if r["level"] == level]
        scored = [r for r in rows if not r.get("error")]
        n = len(scored)
        out.append({
            "level": level, "episodes": len(rows), "scored": n,
            "infrastructure_errors": len(rows) - n,
            "mean_f1": sum(r["f1"] for r in scored) / n if n else None,
            "em_rate": sum(bool(r["exact_match"]) for r in scored) / n if n else None,
            "parse_failures": sum(1 for r in scored if not r.get("parse_ok")),
            "mean_tool_calls": sum(r["tool_calls"] for r in rows) / len(rows),
            "mean_prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in rows) / len(rows),
            "mean_completion_tokens": sum(r.get("completion_tokens") or 0 for r in rows) / len(rows),
        })
    return out


def rescore(run_dir: str | Path, db_path: str | Path | None = None, *, force: bool = False) -> dict:
    """Recompute every table of a run from its journal (after a grader change)."""
    run_dir = Path(run_dir)
    if not (run_dir / RUN_JSON).exists():
        raise UserError(f"{run_dir} holds no run.json: not a run directory")
    meta = json.loads((run_dir / RUN_JSON).read_text())
    db_path = Path(db_path or meta.get("build", {}).get("db") or db.DEFAULT_DB)
    if not db_path.exists():
        raise UserError(f"{db_path} does not exist (pass --db)")
    con = db.connect(db_path, read_only=True)
    try:
        recorded = meta.get("build", {}).get("content_sha256")
        if recorded and not force and build_content_hash(con) != recorded:
            raise UserError(f"{db_path} is not the build this run was made on (content hash differs); "
                            "pass --force to score against it anyway")
        return finalize(run_dir, con)
    finally:
        con.close()


# --- ablation --------------------------------------------------------------------------------

ABLATION = (("baseline", "context", False), ("tools-only", "tools", False),
            ("feedback-only", "context", True), ("full", "tools", True))
ABLATION_JSON = "ablation.json"
DEFAULT_ABLATION_TURNS = 3


def run_ablation(config: EvalConfig, *, resume: bool = False, overwrite: bool = False,
                 progress: Callable[[str], Progress] | None = None) -> list[tuple[str, EvalResult]]:
    """The four MINT configurations on the same instances, one run each in one directory:
    baseline (context, no feedback), tools only, feedback only (context) and full (tools and
    feedback). The feedback configurations use `config.feedback` (rule if none was chosen) and
    `config.max_turns` (3 if it was 1)."""
    root = Path(config.out) if config.out else DEFAULT_RUNS_DIR / f"ablation-{default_run_id(config)}"
    feedback = config.feedback if config.feedback != "none" else "rule"
    turns = config.max_turns if config.max_turns > 1 else DEFAULT_ABLATION_TURNS
    root.mkdir(parents=True, exist_ok=True)
    configs = []
    for name, mode, with_feedback in ABLATION:
        configs.append({"name": name, "mode": mode, "feedback": feedback if with_feedback else "none",
                        "max_turns": turns if with_feedback else 1, "run_dir": name})
    _write_json(root / ABLATION_JSON, {"ablation_id": root.name, "configs": configs})
    results = []
    for c in configs:
        one = dataclasses.replace(config, out=str(root / c["run_dir"]), mode=c["mode"], feedback=c["feedback"],
                                  max_turns=c["max_turns"])
        result = run_eval(one, resume=resume and (root / c["run_dir"] / RUN_JSON).exists(), overwrite=overwrite,
                          progress=progress(c["name"]) if progress else None)
        meta = json.loads((result.run_dir / RUN_JSON).read_text())
        meta["ablation"] = {"group": root.name, "config": c["name"]}
        _write_json(result.run_dir / RUN_JSON, meta)
        results.append((c["name"], result))
    return results
