"""verifiers 0.4 (`verifiers.v1`): `vf-eval mpcbench` run as a user runs it (a subprocess, its
default mode: the taskset loaded and played by verifiers' own runner, the model behind its
interception server) against a fake OpenAI-compatible endpoint. Its rewards and metrics equal the
scores `mpcbench eval` gives the same model with the same options, instance by instance at levels
1-4; the model sees the same conversation and tools from both. One run (the privacy options) is a
`vf-eval` subprocess; the others take the same command line through vf-eval's own argument
parser and eval runner in the test's process, sparing a subprocess that imports verifiers anew
(about 10 s each). The taskset needs the `train` extra and the module skips without it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from evalkit import skip_without
from fake_openai import FakeOpenAI, reply_tool_calls
from mpcbench.agents import make_agent
from mpcbench.grading.privacy import PRIVACY_COLUMNS
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.episode_spec import EpisodeSpec
from mpcbench.harness.rollout import RolloutPool, program_messages
from mpcbench.harness.runner import run_eval
from test_training_envs import VariedModel, program_script

skip_without("verifiers", "the train extra (verifiers 0.4) is not installed")
VF_EVAL = Path(sys.executable).with_name("vf-eval")

# the options of each run (every one of them a --env.taskset field) and eval's equivalents; the
# weights are the reward's, applied below to eval's columns
OPTIONS = {
    "a one-reply budget, two instances a level": (
        {"max_steps": 1, "instances": 2}, {"max_steps": 1, "instances": 2}),
    "the privacy norm, its metrics and weights": (
        {"privacy_instructions": "on", "privacy_metrics": True,
         "weights": {"f1": 0.5, "exact_match": 0.5, "note_covers_answer": 0.25}},
        {"privacy_instructions": "on"}),
}
SUBPROCESS = "the privacy norm, its metrics and weights"   # the run that is a `vf-eval` subprocess


def note(instance_id: str, keys: list) -> str | None:
    """Every other instance's answer carries a note naming its first start."""
    return f"Proposed {keys[0][0]}." if keys and int(instance_id[-1]) % 2 else None


def vf_eval(url: str, out: Path, options: dict, db_path: Path, subprocess_run: bool = True) -> dict[str, dict]:
    """`vf-eval mpcbench` over every level with these options: per instance, its reward and metrics.
    With `subprocess_run` False, the same command line goes through vf-eval's own parser
    (`pydantic_config.cli` on the config type `vf-eval` narrows) and eval runner in this process."""
    flags = [a for name, value in {"db": str(db_path), "level": None, **options}.items()
             for a in (f"--env.taskset.{name.replace('_', '-')}", json.dumps(value) if isinstance(value, dict)
                       else str(value))]
    argv = ["mpcbench", *flags, "-m", "fake", "--client.base-url", url, "--client.api-key-var", "FAKE_KEY", "-c", "8",
            "--no-push", "--no-rich", "-o", str(out), "--run.name", "run"]
    if subprocess_run:
        done = subprocess.run([str(VF_EVAL), *argv], env={**os.environ, "FAKE_KEY": "sk-test"},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    else:
        from pydantic_config import cli
        from verifiers.v1.cli.eval.runner import run_eval as vf_run_eval
        from verifiers.v1.cli.resolve import narrow_config, with_positional_taskset
        from verifiers.v1.configs.cli.eval import EvalConfig as VfEvalConfig

        argv = with_positional_taskset(argv)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "argv", [str(VF_EVAL), *argv])
            mp.setenv("FAKE_KEY", "sk-test")
            config = cli(narrow_config(VfEvalConfig, argv))
            assert all(e.ok for e in asyncio.run(vf_run_eval(config)))
    found = {}
    for line in (out / "run" / "traces.jsonl").read_text().splitlines():
        (trace,) = json.loads(line)["traces"]
        assert not trace["errors"], trace["errors"]
        found[trace["task"]["key"]] = {"reward": sum(r["score"] * r["weight"] for r in trace["rewards"].values()),
                                       **trace["metrics"]}
    return found


def absent(value: float | None) -> float | None:
    """A metric as runs.parquet holds it: NaN (null in traces.jsonl) is None."""
    return None if value is None or math.isnan(value) else value


def first_requests(model: VariedModel) -> dict[str, dict]:
    """The first request the model got for each instance: its messages and tools."""
    firsts: dict[str, dict] = {}
    for instance_id, _, _, body in model.requests:
        firsts.setdefault(instance_id, {"messages": body["messages"], "tools": body.get("tools")})
    return firsts


@pytest.mark.parametrize("name", list(OPTIONS))
def test_vf_eval_rewards_equal_eval_scores_with_the_same_options(db_path, tmp_path, monkeypatch, name):
    options, eval_options = OPTIONS[name]
    weights = options.get("weights", {"f1": 1.0})
    model = VariedModel(db_path, note=note)
    with FakeOpenAI(model) as srv:
        got = vf_eval(srv.base_url, tmp_path / "vf", options, db_path, subprocess_run=name == SUBPROCESS)
        asked_by_vf, model.requests[:] = first_requests(model), []
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        run = run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path),
                                  levels=(1, 2, 3, 4), max_retries=0, out=str(tmp_path / "eval"), **eval_options))
    runs = {r["instance_id"]: r for r in pl.read_parquet(run.run_dir / "runs.parquet").iter_rows(named=True)}
    assert set(got) == set(runs) and {i[:2] for i in got} == {"L1", "L2", "L3", "L4"}
    assert len(got) == 4 * eval_options.get("instances", 4)
    for instance_id, row in runs.items():
        want = {"f1": row["f1"], "exact_match": float(row["exact_match"]), **(   # a null figure: NaN
            {m: None if row[m] is None else float(row[m]) for m in PRIVACY_COLUMNS} if options.get("privacy_metrics")
            else {})}
        assert {m: absent(got[instance_id][m]) for m in want} == want, instance_id
        assert got[instance_id]["reward"] == pytest.approx(sum(w * want[m] for m, w in weights.items())), instance_id
    # what the model was asked is eval's: the system prompt (with the norm or without), the task, the tools
    assert asked_by_vf == first_requests(model)
    assert all(("privacy" in r["messages"][0]["content"].lower()) == (options.get("privacy_instructions") == "on")
               for r in asked_by_vf.values())
    if options.get("max_steps") == 1:   # the model calls a tool first: no answer within one reply
        assert {v["reward"] for v in got.values()} == {0.0}
    else:
        assert len({v["reward"] for v in got.values()}) > 2


def test_shortcut_agents_earn_no_more_than_calendar_only_through_verifiers(db_path, tmp_path, monkeypatch):
    """Spray and the office-hours prober, played through verifiers' own eval runner (in process,
    `vf-eval`'s `run_eval`) on the first two instances of each level: mean reward at most the
    calendar-only baseline's (test_training_envs.py checks it on every instance, on the engine)."""
    from verifiers.v1.cli.eval.runner import run_eval as vf_run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig as VfEvalConfig

    monkeypatch.setenv("FAKE_KEY", "sk-test")
    pool = RolloutPool(db_path)
    means = {}
    try:
        for agent in ("calendar-only", "spray", "prober"):
            with FakeOpenAI(program_script(pool, agent)) as srv:
                config = VfEvalConfig.model_validate({
                    "env": {"taskset": {"id": "mpcbench", "db": str(db_path), "level": None, "instances": 2}},
                    "model": "fake",
                    "client": {"base_url": srv.base_url, "api_key_var": "FAKE_KEY"}, "max_concurrent": 8,
                    "push": False, "rich": None, "output_dir": str(tmp_path), "run": {"name": agent}})
                episodes = asyncio.run(vf_run_eval(config))
            assert len(episodes) == 2 * 4 and all(e.ok for e in episodes)
            means[agent] = statistics.mean(e.traces[0].reward for e in episodes)
    finally:
        pool.close()
    assert means["spray"] <= means["calendar-only"] and means["prober"] <= means["calendar-only"], means


def test_the_tasksets_step_budget_is_the_engines():
    from mpcbench.episode.engine import DEFAULT_MAX_STEPS
    from mpcbench.integrations.verifiers_env import MPCBenchConfig

    assert MPCBenchConfig().max_steps == DEFAULT_MAX_STEPS


def test_bad_options_are_one_line_errors(db_path):
    from pydantic import ValidationError

    from mpcbench.integrations.verifiers_env import MPCBenchConfig, MPCBenchTaskset

    with pytest.raises(ValidationError, match="less than or equal to 4"):
        MPCBenchConfig(level=7)
    for options, message in (({"split": "train"}, "holds the dev split, not train"),
                             ({"weights": {"f2": 1.0}}, "no metric f2 to weigh"),
                             ({"db": str(db_path) + ".missing"}, "does not exist")):
        with pytest.raises(SystemExit, match=message):
            MPCBenchTaskset(MPCBenchConfig(**{"db": str(db_path), **options})).load()


def test_vf_eval_booking_rewards_equal_evals_task_success(db_path, tmp_path, monkeypatch):
    """`vf-eval mpcbench --env.taskset.scheduling-task book` (its parser and runner, in process): a
    model that books as the scripted agent does gets, instance by instance at levels 1-4, eval's
    task_success as its reward and eval's parts."""
    pool = RolloutPool(db_path, EpisodeSpec(task="book"))
    scripts = {}
    try:
        for instance_id, _, _ in pool.instances():
            rollout = pool.open(instance_id)
            task = rollout.messages[1]["content"]
            rollout.close()
            (message,) = program_messages(pool.con, make_agent("scripted"), instance_id, task="book")
            scripts[task] = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
    finally:
        pool.close()
    model = lambda req: reply_tool_calls(scripts[next(m["content"] for m in req.messages if m["role"] == "user")])  # noqa: E731
    with FakeOpenAI(model) as srv:
        got = vf_eval(srv.base_url, tmp_path / "vf", {"scheduling_task": "book"}, db_path, subprocess_run=False)
    run = run_eval(EvalConfig(agent="scripted", db=str(db_path), task="book", out=str(tmp_path / "eval")))
    runs = {r["instance_id"]: r for r in pl.read_parquet(run.run_dir / "runs.parquet").iter_rows(named=True)}
    assert set(got) == set(runs) and {i[:2] for i in got} == {"L1", "L2", "L3", "L4"}
    for instance_id, row in runs.items():
        assert got[instance_id]["reward"] == got[instance_id]["task_success"] == float(row["task_success"]) == 1.0
        for part in ("booked_start_ok", "attendees_ok", "confirmation_ok"):
            assert got[instance_id][part] == float(bool(row[part])), (instance_id, part)
