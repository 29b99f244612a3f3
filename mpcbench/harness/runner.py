"""`mpcbench eval`: run an agent on instances, journal every episode, write the result tables.

    config = EvalConfig(agent="scripted", db="build/mpcbench.duckdb", levels=(1, 2), instances=5)
    result = run_eval(config)                  # -> build/runs/<run_id>/
    result.summary                             # per level: mean F1, EM rate, errors

An episode is one (instance, trial). Episodes run concurrently on one event loop, at most
`concurrency` at a time, each with its own cursor of the warehouse (its Environment's).
A finished episode is appended to `journal.jsonl` (one JSON line, flushed and fsynced) before
the next one is counted, so a killed run loses at most the episodes in flight. `resume=True`
runs the episodes missing from the journal (and, with `retry_errors`, those that ended in an
infrastructure error) and never adds a second record of a finished one. Ctrl-C at any moment of
a run ends it with a UserError of exit status 130 naming what is saved and the resume command
(`interrupted`). At the end the tables
are computed from the journal alone (`finalize`, which `mpcbench rescore` also runs): runs,
candidates, tool_calls, turns and failures Parquet tables and run.json (no secret; versions, the
build's content hash, seeds, a summary per level), documented column by column in docs/results.md.

Cost: the model's price (`cost.model_price`: the shipped `prices.toml`, extended by `--prices`)
is saved in run.json, and each episode's cost is in runs.parquet (`cost_usd`, null when the price
is unknown). With `max_cost_usd` an episode starts only while the budget allows it (`cost.Budget`);
the episodes left unrun are named in `EvalResult.stopped`, and `--resume` finishes them.

The `openai` agent's requests and responses are cached in `llm_cache.jsonl` by request hash;
`--agent replay --from RUN` re-runs a recorded run from it without a network.
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..episode.answers import answer_from_record
from ..episode.record import counted_as, failed_record, unscored
from ..episode.tools import HiddenFacts
from ..levels import level_spec
from ..errors import UserError
from ..interrupt import EXIT_STATUS, is_interrupt, run_async
from ..grading.scoring import Grader, quick_score
from ..limiter import AdaptiveLimit
from ..warehouse import db
from .config import (EXTERNAL, FEEDBACK_CACHE, JOURNAL, PRIVACY_JUDGE_CACHE, RUN_JSON,
                     EvalConfig)
from .cost import Budget, episode_cost, model_price
from .journal import Journal, read_journal, read_run_json
from .plans import (AgentPlan, agent_plan, chat_client, concurrency_limit, plan_episodes, preflight,
                    replayed_protocol)
from .provenance import start_run
from .run_setup import prepare_run, run_directory
from .tables import finalize


class Progress:
    """What run_eval reports as it goes (the CLI draws a progress bar from it)."""

    def start(self, total: int, done: int) -> None:
        pass

    def episode(self, record: dict, f1: float | None, exact: bool | None) -> None:
        pass

    def note(self, message: str) -> None:
        """Something the user should know while the run goes on (e.g. concurrency was lowered)."""


@dataclass
class EvalResult:
    run_dir: Path
    run_id: str
    summary: list[dict]
    episodes: int
    ran: int          # episodes run by this call (the rest came from the journal)
    stopped: str | None = None   # why episodes were left unrun (the --max-cost budget), or None
    infrastructure_errors: int = 0
    first_error: str | None = None   # the first infrastructure error
    harness_errors: int = 0          # episodes our own code failed: the run failed
    first_harness_error: dict | None = None   # its journal record (instance_id, error, traceback)


def run_eval(config: EvalConfig, *, resume: bool = False, retry_errors: bool = False, overwrite: bool = False,
             progress: Progress | None = None, given: frozenset[str] = frozenset()) -> EvalResult:
    """Run (or finish) an eval and write its tables; see the module docstring. Nothing is created
    before the options, the warehouse and the endpoint are checked; a run directory this call
    created is removed again if the run fails before any episode is journaled. Ctrl-C, at any
    moment: `interrupted`."""
    run_dir = run_directory(config)
    created = not run_dir.exists()
    try:
        return _start(config, resume=resume, retry_errors=retry_errors, overwrite=overwrite, progress=progress,
                      given=given)
    except BaseException as e:
        saved = len(read_journal(run_dir / JOURNAL)) if run_dir.is_dir() else 0
        if created and run_dir.is_dir() and not saved:
            shutil.rmtree(run_dir, ignore_errors=True)
        if is_interrupt(e) and not isinstance(e, UserError):
            raise interrupted(run_dir, saved) from None
        raise


def _start(config: EvalConfig, *, resume: bool, retry_errors: bool, overwrite: bool, progress: Progress | None,
           given: frozenset[str]) -> EvalResult:
    if config.agent == "replay":   # a resumed replay's saved options are already the recorded run's
        config = replayed_protocol(config)
    prepared = prepare_run(config, resume=resume, overwrite=overwrite, given=given)
    config, run_dir = prepared.config, prepared.run_dir
    if config.agent in EXTERNAL:
        raise UserError(f"{run_dir} is a run of an outside agent ({config.agent}); continue it with "
                        f"`mpcbench {config.agent} --run {run_dir}`")
    progress = progress or Progress()
    con = db.open_existing(Path(config.db), episodes=True)
    try:
        price = model_price(config.model, config.prices) if config.agent == "openai" else None
        if config.max_cost_usd is not None and price is None:
            raise UserError(f"--max-cost: no price for model {config.model!r}; add it to a price table and pass "
                            "--prices FILE (see harness/prices.toml)")
        server = preflight(config) if config.agent == "openai" else None
        plan = agent_plan(config, run_dir, concurrency_limit(config, server, progress.note))
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
        start_run(con, prepared, agent=plan.agent, model=plan.model, notes=plan.notes, planned=len(episodes),
                  resume=resume, price=price)
        return _run(con, config, plan, episodes, prepared.done, run_dir, price, retry_errors=retry_errors, progress=progress)
    finally:
        con.close()


def interrupted(run_dir: Path, saved: int) -> UserError:
    """What Ctrl-C leaves, at any moment of a run (exit status 130): the episodes saved and the
    command that finishes the run (it also writes the tables), or that nothing was saved."""
    if not saved:
        return UserError("interrupted before any episode finished; nothing was saved", EXIT_STATUS)
    planned = (read_run_json(run_dir / RUN_JSON).get("episodes") or {}).get("planned", "?")
    return UserError(f"interrupted: {saved} of {planned} episodes are saved in {run_dir}; finish the run with: "
                     f"mpcbench eval --resume --out {run_dir}", EXIT_STATUS)


def _run(con, config: EvalConfig, plan: AgentPlan, episodes, done: dict, run_dir: Path, price: dict | None, *,
         retry_errors: bool, progress: Progress) -> EvalResult:
    """Run the episodes the journal lacks (`done`: those it holds; with `retry_errors`, also those
    that failed) and write the tables."""
    journal_path = run_dir / JOURNAL
    todo = [(i, level, t) for i, level, t in episodes
            if (i, t) not in done or (retry_errors and unscored(done[(i, t)]))]
    progress.start(len(episodes), len(episodes) - len(todo))
    grader = Grader(con)   # one for the run: the gold, the feedback and the tables
    try:
        gold = grader.gold_keys(sorted({i for i, _, _ in todo}))
        again = {(i, t) for i, _, t in todo}
        kept = [r for key, r in done.items() if key not in again]
        budget = Budget(config.max_cost_usd, [episode_cost(price, r.get("prompt_tokens"), r.get("completion_tokens"))
                                              or 0.0 for r in kept])
        ran = run_async(lambda: _run_all(con, config, plan, todo, journal_path, gold, progress, budget, price,
                                           grader))
        result = finalize(run_dir, con, planned=episodes, grader=grader,
                          judge_client=judge_client(config, run_dir, plan.feedback_from))
    finally:
        grader.close()
    stopped = None
    if budget.skipped:
        stopped = (f"stopped at the --max-cost budget: US${budget.spent:.4f} spent of US${config.max_cost_usd:g}; "
                   f"{budget.skipped} episode(s) not run (finish with --resume --out {run_dir} and a higher "
                   "--max-cost)")
    by_count: dict[str | None, list[dict]] = {}
    for record in read_journal(journal_path).values():
        by_count.setdefault(counted_as(record), []).append(record)
    harness = by_count.get("harness_errors", [])
    errors = [r["error"] for r in by_count.get("infrastructure_errors", [])]
    return EvalResult(run_dir, run_dir.name, result["summary"], len(episodes), ran - budget.skipped, stopped,
                      infrastructure_errors=len(errors), first_error=errors[0] if errors else None,
                      harness_errors=len(harness), first_harness_error=harness[0] if harness else None)


async def _run_all(con, config: EvalConfig, plan: AgentPlan, todo, journal_path: Path, gold, progress,
                   budget: Budget, price: dict | None, grader: Grader) -> int:
    journal = Journal(journal_path)
    limit = asyncio.Semaphore(config.concurrency)
    # The openai SDK allocates many short-lived objects per request; with every long-lived object
    # frozen and a higher first threshold, the collector stops re-walking the same heap (about
    # +20% episodes/s at concurrency 32 on 2 cores). Restored below.
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 50_000), *thresholds[1:])

    feedback = make_feedback(con, config, journal_path.parent, replay_of=plan.feedback_from, limit=plan.limit,
                             grader=grader)

    async def one(instance_id: str, level: int, trial: int) -> dict | None:
        async with limit:
            if not budget.admit():
                return None
            record = await run_episode(con, plan, instance_id, level, trial, config, feedback)
            budget.finish(episode_cost(price, record["prompt_tokens"], record["completion_tokens"]))
            return record

    try:
        tasks = [asyncio.create_task(one(*episode)) for episode in todo]
        for finished in asyncio.as_completed(tasks):
            record = await finished
            if record is None:  # left unrun: the --max-cost budget
                continue
            await asyncio.to_thread(journal.append, record)  # serialized: one append at a time
            if unscored(record):
                progress.episode(record, None, None)
            else:
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
        if feedback is not None and feedback.client is not None:
            await feedback.client.aclose()


def make_feedback(con, config: EvalConfig, run_dir: Path, replay_of: Path | None = None,
                  limit: AdaptiveLimit | None = None, grader: Grader | None = None):
    """The run's FeedbackGiver; llm feedback gets its own client (cached in the run directory, or
    replayed from the recorded run's cache)."""
    client = None
    if config.feedback == "llm":
        if not config.feedback_model:  # EvalConfig.validate refuses it too
            raise UserError("--feedback llm needs --feedback-model (a model on the same endpoint)")
        client = chat_client(config, config.feedback_model, (replay_of or run_dir) / FEEDBACK_CACHE,
                             replay_only=replay_of is not None, limit=limit)
    return config.episode_spec().feedback_giver(con, client, grader=grader)


def judge_client(config: EvalConfig, run_dir: Path, replay_of: Path | None = None):
    """--privacy-judge's client, its cache in the run directory (a replay starts from the recorded
    run's, so the same notes are not judged again); None without a judge."""
    if not config.privacy_judge:
        return None
    cache = run_dir / PRIVACY_JUDGE_CACHE
    if replay_of is not None and (replay_of / PRIVACY_JUDGE_CACHE).is_file() and not cache.exists():
        shutil.copyfile(replay_of / PRIVACY_JUDGE_CACHE, cache)
    return chat_client(config, config.privacy_judge, cache)


async def run_episode(con, plan: AgentPlan, instance_id: str, level: int, trial: int, config: EvalConfig,
                      feedback) -> dict:
    """Play one episode through the engine (`episode.engine`): whatever goes wrong ends up in the
    record, never as an exception."""
    started = time.perf_counter()
    spec = config.episode_spec()
    try:
        env = await asyncio.to_thread(spec.environment, con, instance_id, answer_calls=plan.offline)
    except Exception as e:  # noqa: BLE001 - the episode could not start: ours, as a harness error
        return failed_record(e, instance_id=instance_id, trial=trial, level=level, agent=plan.agent,
                             model=plan.model, mode=config.mode, latency_s=time.perf_counter() - started,
                             task=config.task)
    try:
        hidden = HiddenFacts(env.data) if plan.offline and not level_spec(level).tagged else None
        episode = spec.episode(env, plan.make(instance_id, trial), feedback=feedback, hidden=hidden)
        await episode.play()
    except Exception as e:  # noqa: BLE001 - the policy could not be made
        return failed_record(e, instance_id=instance_id, trial=trial, level=level, agent=plan.agent,
                             model=plan.model, mode=config.mode, latency_s=time.perf_counter() - started,
                             task=config.task)
    finally:
        env.close()
    return episode.record(trial=trial, agent=plan.agent, model=plan.model, latency_s=time.perf_counter() - started)
