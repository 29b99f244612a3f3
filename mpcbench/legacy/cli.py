"""`mpcbench legacy ...` and `mpcbench judge-audit` (registered on the main app by mpcbench/cli.py).
Each command parses its options and calls one library function."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Annotated, NoReturn

import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from .archive import load_json, load_task, model_config, task_path
from .audit import AuditConfig, run_audit
from .backend import ToolBackend, all_tools, legacy_name
from .generate import PROVIDERS, generate
from .judge import AXES, HEURISTIC, JUDGE_ATTEMPTS, build_judge_input, judge, judge_result
from .layout import DEFAULT_ROOT, Layout, write_json
from .models import Endpoint, is_offline
from .pipeline import PipelineConfig, Progress as PipelineProgress, run_pipeline
from .project import KEYWORDS, EndpointConfig, PrivacyAuditConfig, UserError, run_privacy_audit
from .run import MAX_STEPS, run_task
from .warehouse import open_warehouse

app = typer.Typer(help="The legacy benchmark (archive/): LLM-generated workplace sources, agents, a two-axis LLM judge.",
                  no_args_is_help=True, add_completion=False)
err = Console(stderr=True)

Root = Annotated[Path, typer.Option("--root", help="Where generated data, logs and scores go.")]
BaseUrl = Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible endpoint, e.g. "
                                             "http://127.0.0.1:8080/v1 (default: the SDK's, or $OPENAI_BASE_URL).")]
KeyEnv = Annotated[str, typer.Option("--api-key-env", help="The environment variable that holds the key "
                                     "(unset: a placeholder key for a --base-url server); never written anywhere.")]
Cache = Annotated[Path | None, typer.Option("--cache", help="The response cache (default: ROOT/llm_cache.jsonl).")]
Replay = Annotated[bool, typer.Option("--replay", help="Answer model calls from the cache only (no network).")]
Timeout = Annotated[float, typer.Option("--timeout", min=0.01, help="Seconds per model call before a retry.")]
Retries = Annotated[int, typer.Option("--max-retries", min=0, help="Retries per model call (429, 5xx, timeouts).")]
Temperature = Annotated[float | None, typer.Option(help="Sampling temperature (sent as given).")]
Seed = Annotated[int | None, typer.Option(help="Seed sent to the model.")]
MaxTokens = Annotated[int | None, typer.Option("--max-tokens", help="max_tokens per reply (default: not sent).")]


def fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def check_key(models: list[str], base_url, api_key_env, replay) -> None:
    """Fails early when a model needs a key that is not set."""
    key_check = EndpointConfig(model="", base_url=base_url, api_key_env=api_key_env)
    if not replay and any(not is_offline(m) for m in models) and key_check.api_key() is None:
        fail(f"{key_check.missing_key()} (or use offline models / --replay)")


def endpoint(models: list[str], cache: Path, base_url, api_key_env, replay, timeout, max_retries, temperature, seed,
             max_tokens) -> Endpoint:
    """The endpoint options; fails early when a model needs a key that is not set."""
    check_key(models, base_url, api_key_env, replay)
    return Endpoint(base_url=base_url, api_key_env=api_key_env, cache=cache, replay=replay, timeout_s=timeout,
                    max_retries=max_retries, temperature=temperature, seed=seed, max_tokens=max_tokens)


class Bar(PipelineProgress):
    def __init__(self, bar: Progress, name: str):
        self.bar, self.name = bar, name
        self.task: TaskID | None = None

    def start(self, total: int) -> None:
        self.task = self.bar.add_task(self.name, total=total)

    def advance(self, what: str) -> None:
        if self.task is not None:   # started
            self.bar.update(self.task, advance=1, description=f"{self.name}: {what}")


def _bar() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=True)


@app.command("generate")
def generate_command(
    scenario: Annotated[str, typer.Option(help="The scenario id (archive/scenarios/ID.json).")],
    provider: Annotated[str, typer.Option(help=f"{' | '.join(PROVIDERS)}: a model, the archive's recording, or "
                                               "deterministic data with no model.")] = "replay",
    model: Annotated[str | None, typer.Option(help="The generating model (default: model_config.json's).")] = None,
    attempts: Annotated[int, typer.Option(min=1, help="Replies per step before it fails.")] = 3,
    root: Root = DEFAULT_ROOT, base_url: BaseUrl = None, api_key_env: KeyEnv = "OPENAI_API_KEY", cache: Cache = None,
    timeout: Timeout = 120.0, max_retries: Retries = 5, temperature: Temperature = 0.0, seed: Seed = 0,
    max_tokens: MaxTokens = None,
) -> None:
    """Scenario -> world state -> six sources, each validated against its schema; written all at once or not at all."""
    layout = Layout(root)
    options = None
    if provider == "openai":
        options = endpoint([model or model_config()["data_generation_model"]], cache or layout.cache, base_url,
                           api_key_env, False, timeout, max_retries, temperature, seed, max_tokens)
    try:
        directory = generate(scenario, provider, layout, endpoint=options, model=model, attempts=attempts)
    except UserError as e:
        fail(str(e))
    typer.echo(f"Generated {scenario} ({provider}) into {directory}/")


@app.command("tools")
def tools_command(
    scenario: Annotated[str | None, typer.Option(help="Call a tool on this scenario's data.")] = None,
    call: Annotated[str | None, typer.Option(help="The tool to call, e.g. Jira.get_issue.")] = None,
    args: Annotated[str, typer.Option(help="The arguments as a JSON object.")] = "{}",
    root: Root = DEFAULT_ROOT,
) -> None:
    """List the legacy tools, or call one exactly as an agent would (exit 1 on an error text)."""
    if call is None:
        for name, tool in all_tools().items():
            typer.echo(f"{legacy_name(name)}  =  {tool.signature()}  [{tool.render}]\n    {tool.description}")
        return
    if scenario is None:
        fail("--call needs --scenario", 2)
    try:
        con = open_warehouse(Layout(root), [scenario])
    except UserError as e:
        fail(str(e))
    with ToolBackend(con, scenario) as backend:
        text = backend.call(call, args)
    typer.echo(text)
    if backend.trace[-1].error:
        raise typer.Exit(1)


@app.command("run")
def run_command(
    task: Annotated[Path, typer.Option(help="A task file (or the id of a task in archive/tasks/).")],
    agent_model: Annotated[str, typer.Option(help="A model name, or offline:scripted / offline:bad.")],
    max_steps: Annotated[int, typer.Option(min=1, help="Model calls per task.")] = MAX_STEPS,
    root: Root = DEFAULT_ROOT, base_url: BaseUrl = None, api_key_env: KeyEnv = "OPENAI_API_KEY", cache: Cache = None,
    replay: Replay = False, timeout: Timeout = 60.0, max_retries: Retries = 5, temperature: Temperature = 0.0,
    seed: Seed = 0, max_tokens: MaxTokens = None,
) -> None:
    """Run one agent on one task over the SQL ToolBackend and write the run log."""
    layout = Layout(root)
    options = endpoint([agent_model], cache or layout.cache, base_url, api_key_env, replay, timeout, max_retries,
                       temperature, seed, max_tokens)
    try:
        spec = load_task(task)
        con = open_warehouse(layout, [spec["scenario_id"]])
        try:
            log = asyncio.run(_run_and_close(con, spec, agent_model, options, max_steps))
        finally:
            con.close()
    except UserError as e:
        fail(str(e))
    path = write_json(layout.run_log(spec["task_id"], agent_model), log)
    typer.echo(f"Run log: {path} ({len(log['raw_tool_calls'])} tool calls"
               + (f"; endpoint error: {log['error']}" if log["error"] else "") + ")")


async def _run_and_close(con, spec, agent_model, options, max_steps) -> dict:
    try:
        return await run_task(con, spec, agent_model, options, max_steps)
    finally:
        await options.aclose()


@app.command("judge-input")
def judge_input_command(
    log: Annotated[Path, typer.Option(help="A run log (..._run.json).")],
    judge_model: Annotated[str | None, typer.Option(help="The judge the input is for (names the file; default: "
                                                         "model_config.json's first judge).")] = None,
    task: Annotated[Path | None, typer.Option(help="The task file (default: the archive's task of the log).")] = None,
    output: Annotated[Path | None, typer.Option(help="Where to write it (default: beside the log, seed naming).")] = None,
) -> None:
    """Build the judge input from a run log and its task's answer requirements."""
    try:
        run_log = load_json(log, "run_log")
        spec = load_task(task or task_path(run_log["task_id"]))
        data = build_judge_input(run_log, spec)
    except (UserError, ValueError) as e:
        fail(str(e))
    judge_model = judge_model or model_config()["judge_models"][0]
    path = output or log.with_name(Layout().judge_input(run_log["task_id"], run_log["agent_model"], judge_model).name)
    typer.echo(f"Judge input: {write_json(path, data)}")


Constrained = Annotated[bool, typer.Option(help="Send the judge reply's JSON Schema as response_format "
                                              "(constrained decoding, for small models).")]


@app.command("judge")
def judge_command(
    input: Annotated[Path, typer.Option("--input", help="A judge input (..._judge_input.json).")],
    model: Annotated[str, typer.Option(help=f"The judge model, or {HEURISTIC} (no model).")],
    agent_model: Annotated[str | None, typer.Option(help="The agent the input is about (default: from the file "
                                                         "name).")] = None,
    attempts: Annotated[int, typer.Option(min=1, help="Replies before an invalid one is a judge failure.")] = JUDGE_ATTEMPTS,
    constrained: Constrained = False,
    output: Annotated[Path | None, typer.Option(help="Where to write the result (default: beside the input).")] = None,
    root: Root = DEFAULT_ROOT, base_url: BaseUrl = None, api_key_env: KeyEnv = "OPENAI_API_KEY", cache: Cache = None,
    replay: Replay = False, timeout: Timeout = 60.0, max_retries: Retries = 5, temperature: Temperature = 0.0,
    seed: Seed = 0, max_tokens: MaxTokens = None,
) -> None:
    """Score a judge input on the two axes (0-5 each, with justifications); exit 1 on a judge failure."""
    options = endpoint([model], cache or Layout(root).cache, base_url, api_key_env, replay, timeout, max_retries,
                       temperature, seed, max_tokens)
    try:
        data = load_json(input, "judge_input")
        outcome = asyncio.run(_judge_and_close(data, model, options, attempts, constrained))
    except UserError as e:
        fail(str(e))
    agent = agent_model or _agent_of(input)
    path = output or input.with_name(input.name.replace("_judge_input.json", "") + "_judge_result.json"
                                     if input.name.endswith("_judge_input.json") else input.stem + "_judge_result.json")
    write_json(path, judge_result(data["task_id"], agent, model, outcome))
    if outcome["status"] != "ok":
        fail(f"{outcome['status']}: {outcome['error']} (recorded in {path})")
    typer.echo(f"{AXES[0]} {outcome[AXES[0]]['score']}, {AXES[1]} {outcome[AXES[1]]['score']}: {path}")


def _agent_of(judge_input: Path) -> str:
    """The agent model of a judge input written beside its run log (seed naming), else "unknown"."""
    log = judge_input.with_name(judge_input.name.split("__judge-")[0] + "_run.json")
    try:
        return load_json(log, "run_log")["agent_model"]
    except UserError:
        return "unknown"


async def _judge_and_close(data: dict, model: str, options: Endpoint, attempts: int, constrained: bool) -> dict:
    try:
        return await judge(data, model, options, attempts=attempts, constrained=constrained)
    finally:
        await options.aclose()


@app.command("pipeline")
def pipeline_command(
    provider: Annotated[str, typer.Option(help=f"How missing data is generated: {' | '.join(PROVIDERS)}.")] = "replay",
    offline: Annotated[bool, typer.Option(help="Use model_config.json's offline agents and judge (no key).")] = False,
    agent_model: Annotated[list[str] | None, typer.Option(help="An agent model (repeatable; default: "
                                                               "model_config.json's).")] = None,
    judge_model: Annotated[list[str] | None, typer.Option(help="A judge model (repeatable; default: "
                                                               "model_config.json's).")] = None,
    task: Annotated[list[Path] | None, typer.Option(help="A task file or id (repeatable; default: all).")] = None,
    regenerate: Annotated[bool, typer.Option(help="Generate the data again even if it exists.")] = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes at a time.")] = 4,
    max_steps: Annotated[int, typer.Option(min=1, help="Model calls per task.")] = MAX_STEPS,
    attempts: Annotated[int, typer.Option(min=1, help="Judge replies before a judge failure.")] = JUDGE_ATTEMPTS,
    constrained: Constrained = False,
    root: Root = DEFAULT_ROOT, base_url: BaseUrl = None, api_key_env: KeyEnv = "OPENAI_API_KEY", cache: Cache = None,
    replay: Replay = False, timeout: Timeout = 60.0, max_retries: Retries = 5, temperature: Temperature = 0.0,
    seed: Seed = 0, max_tokens: MaxTokens = None,
) -> None:
    """Every task x agent model x judge model: run logs, judge inputs and results, and ROOT/scores.parquet."""
    models = model_config()["offline"] if offline else model_config()
    agents, judges = tuple(agent_model or models["agent_models"]), tuple(judge_model or models["judge_models"])
    options = endpoint([*agents, *judges], cache or Layout(root).cache, base_url, api_key_env, replay, timeout,
                       max_retries, temperature, seed, max_tokens)
    tasks = tuple(Path(t) if Path(t).exists() else task_path(str(t)) for t in task or ())
    config = PipelineConfig(agent_models=agents, judge_models=judges, root=root, provider=provider, regenerate=regenerate,
                            tasks=tasks, concurrency=concurrency, max_steps=max_steps, judge_attempts=attempts,
                            judge_constrained=constrained)
    with _bar() as bar:
        try:
            scores = run_pipeline(config, options, Bar(bar, "pipeline"))
        except UserError as e:
            fail(str(e))
    frame = pl.read_parquet(scores)
    summary = frame.group_by("agent_model", "judge_model").agg(
        pl.len().alias("tasks"), pl.col(AXES[0]).mean().round(2).alias("satisfaction"),
        pl.col(AXES[1]).mean().round(2).alias("grounding"), (pl.col("judge_status") != "ok").sum().alias("judge_failures"),
    ).sort("agent_model", "judge_model")
    with pl.Config(tbl_rows=50, tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        typer.echo(str(summary))
    typer.echo(f"Scores: {scores}; logs: {Layout(root).logs}/")


def judge_audit_command(
    runs: Annotated[list[Path] | None, typer.Argument(help="MPCBench run directories (mpcbench eval --out); "
                                                          "none with --privacy.")] = None,
    judge_model: Annotated[list[str] | None, typer.Option(help="A judge model (repeatable: judge vs judge).")] = None,
    judge: Annotated[str | None, typer.Option(help="`offline`: the deterministic heuristic judge (no model).")] = None,
    judge_trials: Annotated[int, typer.Option(min=1, help="Times each judge scores each episode (trial vs "
                                                          "trial; trial t sends seed + t - 1).")] = 1,
    out: Annotated[Path, typer.Option(help="Where the audit goes: judge_audit.md, judge_audit.png, "
                                           "judge_scores.parquet, the judge files.")] = Path("reports/judge_audit"),
    db_path: Annotated[Path | None, typer.Option("--db", help="The build the runs used (default: run.json's).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many episodes.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge calls at a time.")] = 4,
    attempts: Annotated[int, typer.Option(min=1, help="Judge replies before a judge failure.")] = JUDGE_ATTEMPTS,
    max_input_chars: Annotated[int | None, typer.Option(min=1000, help="Cut longer judge inputs: every tool result "
                                                                        "to one common length that fits.")] = None,
    constrained: Constrained = False,
    privacy: Annotated[bool, typer.Option(help="Audit a leak judge instead (a model judges as eval's "
                                               "--privacy-judge does): does each hand-labelled note, and each blind "
                                               "note's item, leak? Against the labels; --judge offline is "
                                               "the keyword judge (offline:components and offline:verbatim in "
                                               "--judge-model are the deterministic detectors).")] = False,
    labels: Annotated[Path | None, typer.Option(help="--privacy: the labelled notes (default "
                                                     "tests/data/privacy_notes.jsonl).")] = None,
    split: Annotated[str, typer.Option(help="--privacy: the labels' half to judge: test, dev or all.")] = "test",
    base_url: BaseUrl = None, api_key_env: KeyEnv = "OPENAI_API_KEY", cache: Cache = None, replay: Replay = False,
    timeout: Timeout = 120.0, max_retries: Retries = 5, temperature: Temperature = 0.0, seed: Seed = 0,
    max_tokens: MaxTokens = None,
) -> None:
    """Run the legacy two-axis LLM judge on MPCBench episodes and measure it against the SQL oracle: Spearman
    against F1 and exact match, false-pass and false-fail rates, judge-vs-judge and trial-vs-trial agreement.
    With --privacy, a leak judge on the hand-labelled notes, against their labels."""
    if judge not in (None, "offline"):
        fail("--judge takes only `offline` (a model goes in --judge-model)", 2)
    offline = KEYWORDS if privacy else HEURISTIC
    judges = tuple(judge_model or ()) + ((offline,) if judge == "offline" else ())
    if not judges:
        fail("give --judge-model NAME (repeatable) or --judge offline", 2)
    if split not in ("test", "dev", "all"):
        fail(f"--split takes test, dev or all, not {split!r}", 2)
    if not privacy and not runs:
        fail("give the run directories to audit", 2)
    cache = cache or out / "judge_cache.jsonl"
    if privacy:
        check_key(list(judges), base_url, api_key_env, replay)
        audit = partial(run_privacy_audit, PrivacyAuditConfig(
            judge_models=judges, judge_trials=judge_trials, out=out, labels=labels, split=split, limit=limit,
            concurrency=concurrency, attempts=attempts, base_url=base_url, api_key_env=api_key_env, timeout_s=timeout,
            max_retries=max_retries, cache=cache, replay=replay, temperature=temperature, seed=seed,
            max_tokens=max_tokens))
    else:
        options = endpoint(list(judges), cache, base_url, api_key_env, replay, timeout, max_retries, temperature, seed,
                           max_tokens)
        audit = partial(run_audit, AuditConfig(
            runs=tuple(runs or ()), judge_models=judges, judge_trials=judge_trials, out=out, db=db_path, limit=limit,
            concurrency=concurrency, attempts=attempts, max_input_chars=max_input_chars, constrained=constrained),
            options)
    with _bar() as bar:
        try:
            report = audit(Bar(bar, "judge-audit"))
        except UserError as e:
            fail(str(e))
    typer.echo(report.read_text(encoding="utf-8"))
    if privacy:
        typer.echo(f"Audit: {report} (verdicts {report.with_name('privacy_judge.parquet')})")
        return
    typer.echo(f"Audit: {report} (plot {report.with_name('judge_audit.png')}, scores "
               f"{report.with_name('judge_scores.parquet')})")
