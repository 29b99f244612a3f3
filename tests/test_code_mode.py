"""Code mode and MINT's protocol end to end: the scripted code-mode twin under both protocols, a
fake model speaking MINT's protocol (malformed replies included), and the refusal without a
sandbox."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, shared_dir, submission
from fake_openai import FakeOpenAI, reply_text
from mpcbench.cli import app
from mpcbench.episode.engine import DEFAULT_MAX_STEPS
from mpcbench.errors import UserError
from mpcbench.harness import ablation, run_setup
from mpcbench.harness.ablation import run_ablation
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.report.render import make_report
from mpcbench.episode.code import CodeMode
from mpcbench.episode.codecs import INVALID_ACTION, STOP, parse_action
from sandboxkit import host_pid_namespace, needs_sandbox, processes_in


@pytest.mark.parametrize("text, kind, content", [
    ("<thought>x</thought> <execute>print(1)</execute>", "execute", "print(1)"),
    ("The answer is <solution> [1] </solution> trailing", "solution", " [1] "),
    ("no tag at all", "invalid", ""),
    ("<execute>print(2)", "execute", "print(2)"),                                    # the stop word ate </execute>
    ("<execute>x = 1</execute>\nObservation: 42\n<solution>[]</solution>", "execute", "x = 1"),  # invented lines
    ("<solution>[]</solution><execute>print(3)</execute>", "solution", "[]"),      # both: the first wins
    ("<execute>print(4)<solution>[]</solution>", "execute", "print(4)"),           # both, the first unclosed
    ("Observation: 5\nI am done.", "invalid", ""),
])
def test_a_reply_is_one_action_cut_at_the_first_closing_tag(text, kind, content):
    action = parse_action(text)
    assert (action.kind, action.content) == (kind, content)
    assert "Observation: 42" not in action.reply and "print(3)" not in action.reply


def code_twin_run(db_path, tmp_path_factory, protocol: str) -> tuple[Path, dict]:
    """The scripted code twin on every instance of the tiny build at concurrency 4, each episode's
    sandbox looked at as its environment closes: (its run directory, {"em_rates", "closed"}), run
    once per test session for the two tests below (the module's tests are spread test by test,
    tests/conftest.py; tests/evalkit.py shares the run on disk), so that the process check needs no
    run of its own."""
    def make(folder: Path) -> None:
        closed: list[tuple[str, list[int], bool]] = []   # namespace, its processes after close, bwrap still there
        close = CodeMode.close

        def closing(mode):
            namespace, bwrap = host_pid_namespace(mode.worker), mode.worker._proc.pid
            close(mode)
            closed.append((namespace, processes_in(namespace), os.path.exists(f"/proc/{bwrap}")))

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(CodeMode, "close", closing)
            result = run_eval(EvalConfig(agent="scripted", db=str(db_path), mode="code", protocol=protocol,
                                         concurrency=4, out=str(folder / "run")))
        seen = {"em_rates": [s["em_rate"] for s in result.summary], "closed": closed}
        (folder / "seen.json").write_text(json.dumps(seen))
    folder = shared_dir(tmp_path_factory, f"code-twin-{protocol}", make)
    return folder / "run", json.loads((folder / "seen.json").read_text())


@needs_sandbox
@pytest.mark.parametrize("protocol", ["native", "mint"])
def test_the_scripted_code_twin_solves_every_instance_inside_the_sandbox(db_path, tmp_path, tmp_path_factory,
                                                                          protocol):
    run_dir, seen = code_twin_run(db_path, tmp_path_factory, protocol)
    assert seen["em_rates"] == [1.0, 1.0, 1.0, 1.0]
    runs = pl.read_parquet(run_dir / "runs.parquet")
    assert set(runs["mode"]) == {"code"} and set(runs["protocol"]) == {protocol}
    assert (runs["code_tool_calls"] > 0).all() and (runs["cells"] == 2).all()
    assert (runs["tool_calls"] == runs["code_tool_calls"] + 2).all()
    calls = pl.read_parquet(run_dir / "tool_calls.parquet")
    from_code = calls.filter(pl.col("via") == "code")
    assert set(from_code["cell"]) == {2}                      # the first cell only defines the solver
    assert "get_current_time" in set(from_code["tool"])
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["protocol"] == protocol and meta["options"]["mode"] == "code"
    replay = run_eval(EvalConfig(agent="replay", replay_from=str(run_dir), db=str(db_path),
                                 out=str(tmp_path / f"{protocol}-replay")))
    assert [s["em_rate"] for s in replay.summary] == [1.0, 1.0, 1.0, 1.0]


@needs_sandbox
@pytest.mark.parametrize("protocol", ["native", "mint"])
def test_every_sandbox_process_is_gone_when_its_episode_ends_at_concurrency_4(db_path, tmp_path_factory, protocol):
    """Episodes run side by side on pooled threads (MINT's cells on the threads of each turn's own
    event loop); as each episode's environment closes, its pid namespace is empty. Every instance:
    16 episodes, four times the 4 slots (the run of the test above: `code_twin_run`)."""
    _, seen = code_twin_run(db_path, tmp_path_factory, protocol)
    assert seen["em_rates"] == [1.0, 1.0, 1.0, 1.0]
    assert len(seen["closed"]) == 16        # (a freed namespace's id may come again)
    assert all(left == [] and not bwrap_left for _, left, bwrap_left in seen["closed"])


def test_mint_implies_code_mode_and_refuses_offline_baselines():
    config = EvalConfig(protocol="mint")
    config.validate()
    assert config.mode == "code"
    with pytest.raises(UserError, match="--mode code runs the agents"):
        EvalConfig(agent="random", mode="code").validate()
    with pytest.raises(UserError, match="--protocol must be one of"):
        EvalConfig(protocol="react").validate()


def test_code_mode_refuses_in_one_line_where_no_sandbox_starts(db_path, tmp_path, monkeypatch):
    monkeypatch.setattr(run_setup, "sandbox_status", lambda: (False, "code sandbox cannot start: no bwrap"))
    with pytest.raises(UserError, match="^--mode code needs a sandbox: code sandbox cannot start: no bwrap$"):
        run_eval(EvalConfig(agent="scripted", db=str(db_path), mode="code", out=str(tmp_path / "x")))


@needs_sandbox
def test_a_fake_model_speaking_mint_with_malformed_replies(db_path, golds, tmp_path, monkeypatch):
    first, second = "L1-0001", "L1-0002"
    answer = {i: json.dumps(submission(golds[i], 1)) for i in (first, second)}
    scripts = {
        first: [reply_text("I will look at the calendars now."),                       # no tag: invalid
                reply_text("<thought>time</thought><execute>now = get_current_time()\nprint(now)</execute>\n"
                           "Observation: made up\n<solution>{}</solution>"),            # invented observation
                reply_text(f"<solution>{answer[first]}</solution><execute>print(1)</execute>")],  # both tags
        second: [reply_text("<execute>print(get_busy_intervals(person_id='nobody', start_date='2026-01-01', "
                            "end_date='2026-01-02'))"),                                   # unclosed (stop word)
                 reply_text(f"The answer is <solution> {answer[second]}")],
    }
    script = PerInstance(db_path, scripts)
    script.by_prompt = {f"Task:\n{p}": i for p, i in script.by_prompt.items()}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-code-mode")
    with FakeOpenAI(script) as srv:
        result = run_eval(EvalConfig(agent="openai", model="fake", base_url=srv.base_url, db=str(db_path),
                                     levels=(1,), instance_ids=(first, second), protocol="mint", max_retries=0,
                                     out=str(tmp_path / "mint")))
        requests = list(srv.requests)
    assert all("tools" not in r.body and r.body["stop"] == STOP for r in requests)
    assert "already imported in <execute> environment" in requests[0].messages[0]["content"]
    runs = pl.read_parquet(result.run_dir / "runs.parquet").sort("instance_id")
    assert runs["exact_match"].to_list() == [True, True]
    assert runs["invalid_actions"].to_list() == [1, 0]
    assert runs["steps"].to_list() == [3, 2]
    journal = {json.loads(line)["instance_id"]: json.loads(line)
               for line in (result.run_dir / "journal.jsonl").read_text().splitlines()}
    said = journal[first]["transcript"]
    assert said[3]["content"] == (INVALID_ACTION + f"\nYou have {DEFAULT_MAX_STEPS - 1} steps left and 1 chances to "
                                  "propose solution left.")
    assert "made up" not in said[4]["content"] and said[4]["content"].endswith("</execute>")
    assert said[5]["content"].startswith('Observation:\n{"now": ')
    assert said[5]["content"].endswith(f"You have {DEFAULT_MAX_STEPS - 2} steps left and 1 chances to propose solution left.")
    assert "print(1)" not in said[6]["content"]
    other = journal[second]["transcript"]
    assert other[3]["content"].startswith("Observation:\nerror: ")
    calls = pl.read_parquet(result.run_dir / "tool_calls.parquet")
    assert calls.filter(pl.col("via") == "code")["tool"].to_list() == ["get_current_time", "get_busy_intervals"]


def test_least_squares_gives_mints_slope_and_r2():
    from mpcbench.report.stats import least_squares
    assert least_squares([1, 2, 3], [0.2, 0.4, 0.6]) == (0.2, 1.0)
    slope, r2 = least_squares([1, 2, 3, 4], [0.1, 0.3, 0.2, 0.4])
    assert abs(slope - 0.08) < 1e-9 and abs(r2 - 0.64) < 1e-9
    assert least_squares([1], [0.5]) is None


def test_the_report_shows_mint_metrics_and_no_uncited_figures(db_path, tmp_path):
    from mpcbench.report.render import make_report
    run = run_eval(EvalConfig(agent="scripted", db=str(db_path), levels=(1,), out=str(tmp_path / "run")))
    text = (make_report([run.run_dir], tmp_path / "report") / "report.md").read_text()
    mint = text.split("## MINT metrics", 1)[1].split("##", 1)[0]
    assert "| Level 1 | scripted | tools | native | 4 | 100% | — | — | 0% |" in mint
    # figures of another build, with no build or source a reader can check, are not shown
    assert "GPT-4o" not in text and "Published results" not in text


# --- the ablation's code axis ----------------------------------------------------------------

@needs_sandbox
def test_ablation_code_adds_code_only_and_code_full_and_the_report_shows_delta_code(db_path, tmp_path):
    out = tmp_path / "abl"
    result = CliRunner().invoke(app, ["eval", "--agent", "scripted", "--ablation", "--ablation-code", "--levels",
                                      "1", "--instances", "2", "--db", str(db_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "ablation.json").read_text())
    assert [(c["name"], c["mode"], c["feedback"], c["max_turns"]) for c in manifest["configs"]][4:] == [
        ("code-only", "code", "none", 1), ("code-full", "code", "rule", 3)]
    for name in ("code-only", "code-full"):
        rows = pl.read_parquet(out / name / "runs.parquet")
        assert rows.height == 2 and set(rows["mode"]) == {"code"} and (rows["cells"] > 0).all()
        assert rows["exact_match"].all()
    md = (make_report([out], tmp_path / "rep") / "report.md").read_text()
    ablation = md.split("## Ablation\n", 1)[1].split("\n## ", 1)[0]
    assert "code-only: F1 [95% CI], EM" in ablation and "code-full − baseline: ΔF1 [95% CI]" in ablation
    deltas = md.split("## ΔFeedback and ΔCode\n", 1)[1].split("\n## ", 1)[0]
    code_rows = [line for line in deltas.splitlines() if "| ΔCode |" in line]
    # tools-only -> code-only and full -> code-full: the scripted solver is exact either way
    assert len(code_rows) == 2 and all("| 2 | +0.0 [+0.0, +0.0] pts | +0.00 [+0.00, +0.00] |" in r for r in code_rows)


def test_ablation_code_is_refused_before_any_configuration_runs(db_path, tmp_path, monkeypatch):
    plain = CliRunner().invoke(app, ["eval", "--agent", "scripted", "--ablation-code", "--db", str(db_path)])
    assert plain.exit_code == 2 and "--ablation-code goes with --ablation" in plain.output
    with pytest.raises(UserError, match="under --protocol mint the tools configurations already run code"):
        run_ablation(EvalConfig(agent="scripted", db=str(db_path), protocol="mint", out=str(tmp_path / "m")),
                     code=True)
    with pytest.raises(UserError, match="--mode code runs the agents"):
        run_ablation(EvalConfig(agent="calendar-only", db=str(db_path), out=str(tmp_path / "c")), code=True)
    monkeypatch.setattr(ablation, "sandbox_status", lambda: (False, "code sandbox cannot start: no bwrap"))
    with pytest.raises(UserError, match="^--ablation-code needs a sandbox: code sandbox cannot start: no bwrap$"):
        run_ablation(EvalConfig(agent="scripted", db=str(db_path), out=str(tmp_path / "s")), code=True)
    assert not any(tmp_path.iterdir())                        # nothing ran, nothing was written
