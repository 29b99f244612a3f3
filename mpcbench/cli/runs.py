"""`mpcbench eval`, `mpcbench rescore` and `mpcbench report`: the commands on eval runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.table import Table

from ..episode.record import COUNTS, counted_as, unscored
from ..harness.ablation import run_ablation
from ..harness.config import AGENTS, EvalConfig
from ..harness.dry_run import dry_run as dry_run_plan
from ..harness.episode_spec import EpisodeSpec
from ..harness.merge import merge_runs
from ..harness.rescore import rescore
from ..harness.runner import EvalResult, Progress as EvalProgress, run_eval
from ..errors import UserError
from ..interrupt import EXIT_STATUS, WHILE_STARTING, is_interrupt
from ..model_limits import CAUSES as MODEL_LIMITS
from ..report.load import parse_prices
from ..report.render import make_report
from ..report.trajectories import WHICH
from .common import console, err, fail, parse_levels
from .dry_run import REQUEST_FORMATS, print_dry_run, print_requests
from .episode_options import episode_options


class BarProgress(EvalProgress):
    """A rich progress bar with the running mean F1, EM and error counts."""

    def __init__(self, bar: Progress, name: str = "eval"):
        self.bar, self.name = bar, name
        self.task: TaskID | None = None
        self.f1: list[float] = []
        self.em = 0
        self.counts = dict.fromkeys(COUNTS, 0)

    def start(self, total: int, done: int) -> None:
        self.task = self.bar.add_task(self.name, total=total, completed=done, stats="")

    def episode(self, record: dict, f1: float | None, exact: bool | None) -> None:
        if not unscored(record):
            self.f1.append(f1 or 0.0)
            self.em += bool(exact)
        if (counted := counted_as(record)) is not None:
            self.counts[counted] += 1
        c, limits = self.counts, sum(self.counts[cause] for cause in MODEL_LIMITS)
        mean = sum(self.f1) / len(self.f1) if self.f1 else 0.0
        stats = (f"F1 {mean:.2f} · EM {self.em}/{len(self.f1)} · parse failures {c['parse_failures']} · "
                 + (f"out of steps {c['step_budget']} · " if c["step_budget"] else "")
                 + (f"model limits {limits} · " if limits else "")
                 + f"infra errors {c['infrastructure_errors']}"
                 + (f" · [red]harness errors {c['harness_errors']}[/red]" if c["harness_errors"] else ""))
        assert self.task is not None  # the runner calls start() before any episode
        self.bar.update(self.task, advance=1, stats=stats)

    def note(self, message: str) -> None:
        self.bar.console.print(f"note: {message}", markup=False, highlight=False, soft_wrap=True)


COLUMN_NAMES = {"step_budget": "out of steps"}


def print_summary(title: str, summary: list[dict]) -> None:
    table = Table(title=title)
    harness = any(s.get("harness_errors") for s in summary)
    limits = [cause for cause in ("step_budget", *MODEL_LIMITS) if any(s.get(cause) for s in summary)]  # where any
    booking = any("task_success" in s for s in summary)   # --task book: F1 and EM of one booking mean little
    for column in ("level", "episodes", *(["task success"] if booking else ["mean F1", "EM rate"]),
                   "parse failures", *limits, "infra errors",
                   *(["harness errors"] if harness else []), "tool calls", "tokens in/out", "cost (US$)"):
        table.add_column(COLUMN_NAMES.get(column, column.replace("_", " ")), justify="right",
                         style="red" if column == "harness errors" else None)
    for s in summary:
        scores = ([f"{s['task_success']:.0%}" if s.get("task_success") is not None else "—"] if booking else
                  ["—" if s["mean_f1"] is None else f"{s['mean_f1']:.3f}",
                   "—" if s["em_rate"] is None else f"{s['em_rate']:.0%}"])
        table.add_row(str(s["level"]), str(s["episodes"]), *scores,
                      str(s["parse_failures"]), *(str(s.get(cause, 0)) for cause in limits),
                      str(s["infrastructure_errors"]),
                      *([str(s.get("harness_errors", 0))] if harness else []), f"{s['mean_tool_calls']:.1f}",
                      f"{s['mean_prompt_tokens']:.0f}/{s['mean_completion_tokens']:.0f}",
                      "n/a" if s.get("cost_usd") is None else f"{s['cost_usd']:.4f}")
    console.print(table)


# eval's options: each EvalConfig field's is named after it (its option: `config.option_name`) and
# takes its default; these are the command's own.
DEFAULT = EvalConfig()
NOT_CONFIG = {"ablation", "ablation_code", "resume", "retry_errors", "overwrite", "dry_run", "like", "show_request"}


def config_of(params: dict, episode: EpisodeSpec) -> EvalConfig:
    """The EvalConfig of eval's options (`ctx.params`) and its episode's."""
    values = {name: value for name, value in params.items() if name not in NOT_CONFIG}
    values.update(episode.options())
    paths = {name: None if values[name] is None else str(values[name])
             for name in ("db", "out", "replay_from", "prices")}
    return EvalConfig(**{**values, **paths, "levels": parse_levels(values["levels"]),
                         "instance_ids": tuple(values["instance_ids"] or ()),
                         "train_db": tuple(map(str, values["train_db"] or ()))})


def given_options(ctx: typer.Context) -> frozenset[str]:
    """The EvalConfig fields the user set on the command line (not left at their defaults)."""
    return frozenset(name for name in ctx.params if name not in NOT_CONFIG
                     and (source := ctx.get_parameter_source(name)) is not None and source.name == "COMMANDLINE")


@episode_options("eval")
def eval_command(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option(help=f"The agent: {', '.join(AGENTS)}.")] = DEFAULT.agent,
    model: Annotated[str | None, typer.Option(help="The model name (--agent openai).")] = DEFAULT.model,
    base_url: Annotated[str | None, typer.Option(help="An OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
                                                      "(default: the SDK's, or $OPENAI_BASE_URL).")] = DEFAULT.base_url,
    api_key_env: Annotated[str, typer.Option(help="The environment variable that holds the key (unset, with "
                                                  "--base-url or $OPENAI_BASE_URL: a placeholder key, for a "
                                                  "server without auth).")] = DEFAULT.api_key_env,
    levels: Annotated[str, typer.Option(help="Levels to run, e.g. 1,2,3.")] = ",".join(map(str, DEFAULT.levels)),
    instances: Annotated[int | None, typer.Option(
        min=1, help="The first N instances of each level (default: all).")] = DEFAULT.instances,
    instance_ids: Annotated[list[str] | None, typer.Option(
        "--instance", help="Run this instance (repeatable).")] = None,
    shard: Annotated[str | None, typer.Option(help="i/n: only the instances at places i, i+n, i+2n ... of the "
                                                   "plan (a deterministic split); join the shards' runs with "
                                                   "mpcbench merge.")] = DEFAULT.shard,
    trials: Annotated[int, typer.Option(
        min=1, help="Episodes per instance (trial t sends seed + t - 1).")] = DEFAULT.trials,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at a time.")] = DEFAULT.concurrency,
    temperature: Annotated[float | None, typer.Option(
        help="Sampling temperature (sent as given).")] = DEFAULT.temperature,
    seed: Annotated[int | None, typer.Option(help="Seed sent to the model (and the random agent).")] = DEFAULT.seed,
    timeout_s: Annotated[float, typer.Option(
        "--timeout", min=0.01, help="Seconds per model call before it is retried.")] = DEFAULT.timeout_s,
    max_retries: Annotated[int, typer.Option(
        min=0, help="Retries per model call (429, 5xx, timeouts, bad bodies).")] = DEFAULT.max_retries,
    tool_choice: Annotated[str, typer.Option(
        help="auto | required | none (small models need required).")] = DEFAULT.tool_choice,
    parallel_tool_calls: Annotated[bool | None, typer.Option(
        "--parallel-tool-calls/--no-parallel-tool-calls",
        help="Send parallel_tool_calls (default: not sent).")] = DEFAULT.parallel_tool_calls,
    max_tokens: Annotated[int | None, typer.Option(
        help="max_tokens per reply (default: not sent).")] = DEFAULT.max_tokens,
    privacy_judge: Annotated[str | None, typer.Option(help="A model (same endpoint) that judges, per final note, "
                                                           "which sensitive items the episode showed it discloses: "
                                                           "judge_disclosed (docs/privacy.md).")] = DEFAULT.privacy_judge,
    ablation: Annotated[bool, typer.Option(help="Run the four MINT configurations (baseline, tools only, "
                                                "feedback only, full) into one directory.")] = False,
    ablation_code: Annotated[bool, typer.Option(help="With --ablation: add the code axis (code only, code with "
                                                     "feedback; --protocol native).")] = False,
    replay_from: Annotated[Path | None, typer.Option("--from", help="The run to replay (--agent replay).")] = None,
    train_db: Annotated[list[Path] | None, typer.Option(help="A build --agent memoriser learns its phrasings "
                                                             "from (a train split; repeatable; docs/ood.md).")] = None,
    prices: Annotated[Path | None, typer.Option(help="A TOML price table ([models.\"NAME\"] input/output, US$ per "
                                                     "million tokens) extending the shipped one.")] = None,
    max_cost_usd: Annotated[float | None, typer.Option(
        "--max-cost", help="Stop starting episodes before the run would cost more than this many US$ "
                           "(resumable).")] = DEFAULT.max_cost_usd,
    out: Annotated[Path | None, typer.Option(help="The run directory (default build/runs/<run_id>).")] = None,
    resume: Annotated[bool, typer.Option(help="Finish the run in --out: run only its missing episodes.")] = False,
    retry_errors: Annotated[bool, typer.Option(help="With --resume: run again the episodes that ended in an "
                                                      "infrastructure error.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Delete the run already in --out and start it again.")] = False,
    dry_run: Annotated[bool, typer.Option(help="Plan the run and print its episodes, each level's first request "
                                               "and an estimate of tokens and cost; send nothing.")] = False,
    like: Annotated[Path | None, typer.Option(help="With --dry-run: take steps and tokens per episode from this "
                                                   "earlier run (default: every episode spends --max-steps).")] = None,
    show_request: Annotated[str | None, typer.Option(
        "--show-request", help="Print the first request of each level's first episode (--instance ID: of that "
                               "instance) in full, as the run would send it with these options, and send nothing: "
                               "text (each message and tool, to read) or json (the body, one line each).")] = None,
    db: Annotated[Path, typer.Option("--db", help="The DuckDB file to read.")] = Path(DEFAULT.db),
    *,
    episode: EpisodeSpec,
) -> None:
    """Run an agent on the benchmark's instances and write runs/candidates/tool_calls Parquet tables.

    The key is read from the environment (OPENAI_API_KEY or --api-key-env) and never written anywhere; a
    server named by --base-url or $OPENAI_BASE_URL gets a placeholder key when the variable is unset."""
    results: list[tuple[str, EvalResult]] = []
    try:  # Ctrl-C from the first line to the last: a run says itself what it left; before and after it, this
        _eval(ctx, episode, results)
    except BaseException as e:
        if isinstance(e, UserError) or not is_interrupt(e):
            raise
        raise UserError(f"interrupted: the run is complete in {results[-1][1].run_dir}" if results else
                        WHILE_STARTING, EXIT_STATUS) from None


def _eval(ctx: typer.Context, episode: EpisodeSpec, results: list[tuple[str, EvalResult]]) -> None:
    """The eval command's work on its parsed options, each run's result appended to `results`."""
    p = ctx.params
    resume, out, ablation, ablation_code = p["resume"], p["out"], p["ablation"], p["ablation_code"]
    like, dry_run, show_request = p["like"], p["dry_run"], p["show_request"]
    overwrite, retry_errors = p["overwrite"], p["retry_errors"]
    if resume and out is None:
        fail("--resume needs --out RUN_DIR", 2)
    if ablation_code and not ablation:
        fail("--ablation-code goes with --ablation", 2)
    config = config_of(ctx.params, episode)
    if like is not None and not dry_run:
        fail("--like goes with --dry-run", 2)
    if show_request is not None:
        if show_request not in REQUEST_FORMATS:
            fail(f"--show-request must be one of {', '.join(REQUEST_FORMATS)}, not {show_request!r}", 2)
        print_requests(dry_run_plan(config, count_tokens=False), show_request)
        return
    if dry_run:
        if ablation or resume:
            fail("--dry-run plans a new run, not --ablation or --resume", 2)
        print_dry_run(dry_run_plan(config, like))
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        given = given_options(ctx)
        if ablation:
            results += run_ablation(config, resume=resume, overwrite=overwrite, code=ablation_code,
                                    progress=lambda name: BarProgress(bar, name), given=given)
        else:
            results.append(("eval", run_eval(config, resume=resume, retry_errors=retry_errors,
                                             overwrite=overwrite, progress=BarProgress(bar), given=given)))
    for name, result in results:
        label = f" ({name})" if ablation and name != result.run_id else ""
        print_summary(f"Run {result.run_id}{label}: {result.episodes} episodes ({result.ran} run now)",
                      result.summary)
    for _, result in results:
        if result.stopped:
            err.print(f"Run {result.run_id}: {result.stopped}", markup=False, highlight=False, soft_wrap=True)
    where = results[0][1].run_dir.parent if ablation else results[0][1].run_dir
    console.print(f"Results: {where}/ (runs, turns, candidates, tool_calls and failures .parquet, run.json"
                  f"{'; ablation.json' if ablation else ''})", markup=False, highlight=False)
    failed = [result for _, result in results if result.harness_errors]
    if failed:
        first = failed[0].first_harness_error or {}
        if ctx.find_root().params.get("debug") and first.get("traceback"):
            err.print(first["traceback"], markup=False, highlight=False, soft_wrap=True)
        fail(f"{sum(r.harness_errors for r in failed)} episode(s) failed in MPCBench's own code (harness errors, "
             f"neither the model's nor the endpoint's; left out of every score); the first, "
             f"{first.get('instance_id')}: {first.get('error')}. See it with --debug; after a fix, rerun them: "
             f"mpcbench eval --resume --retry-errors --out {failed[0].run_dir}")
    for _, result in results:
        if result.episodes and result.infrastructure_errors == result.episodes:
            fail(f"every episode of {result.run_dir} ended in an infrastructure error (the first: "
                 f"{result.first_error}); nothing was measured. Fix the endpoint, then: mpcbench eval --resume "
                 f"--retry-errors --out {result.run_dir}")


def merge_command(
    runs: Annotated[list[Path], typer.Argument(help="The run directories of every shard (mpcbench eval --shard i/n).")],
    out: Annotated[Path, typer.Option(help="The merged run's directory (new).")],
    db_path: Annotated[Path | None, typer.Option("--db", help="The build the shards ran on (default: the one in "
                                                              "their run.json).")] = None,
) -> None:
    """Join the shards of one eval into one run: every shard once, the same options and build, no
    episode missing or twice; the tables are computed again from the joined journals."""
    meta = merge_runs(runs, out, db_path)
    print_summary(f"Merged {len(runs)} shards into {meta['run_id']}: {meta['episodes']['finished']} episodes",
                  meta["summary"])


def rescore_command(
    run: Annotated[Path, typer.Argument(help="A run directory (build/runs/RUN).")],
    db_path: Annotated[Path | None, typer.Option("--db", help="The build to score against "
                                                              "(default: the one in run.json).")] = None,
    force: Annotated[bool, typer.Option(help="Score even if the build's content hash differs.")] = False,
) -> None:
    """Recompute every score and table of a run from its stored trajectories (after a grader change)."""
    meta = rescore(run, db_path, force=force)
    print_summary(f"Rescored {meta['run_id']} (grader {meta['grader_version']})", meta["summary"])


def report_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories (or ablation directories) to report on, side by side.")],
    out: Annotated[Path | None, typer.Option(help="Where to write report.md, report.html and the plots "
                                                  "(default reports/<run>).")] = None,
    price: Annotated[list[str] | None, typer.Option(help="MODEL=IN,OUT: US$ per million prompt and completion "
                                                         "tokens, for the cost column (repeatable).")] = None,
    trajectories: Annotated[str, typer.Option(help="Episode pages under trajectories/: all | failed (a wrong "
                                                   "answer at any turn) | none.")] = "failed",
    judge_audit: Annotated[Path | None, typer.Option(help="The --out directory of `mpcbench judge-audit`: adds "
                                                          "its section and plot.")] = None,
) -> None:
    """Write a report over one or more runs: F1 with bootstrap intervals, EM, failure causes, source
    coverage, tokens; Markdown, PNG plots and one self-contained HTML file, with a page per episode
    (prompt, tool calls and their texts, answers, violations) under trajectories/."""
    if trajectories not in WHICH:
        fail(f"--trajectories takes {' | '.join(WHICH)}, not {trajectories!r}", 2)
    written = make_report(runs, out, prices=parse_prices(price or []), trajectories=trajectories,
                          judge_audit=judge_audit)
    console.print(f"Report: {written / 'report.md'} and {written / 'report.html'}", markup=False, highlight=False)
