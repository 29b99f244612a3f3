"""`mpcbench report`: tables, bootstrap intervals, plots and one self-contained HTML file over
several runs, one of them with infrastructure errors; then an ablation directory of synthetic
multi-turn, repeated-trial runs (Ablation, Turns, Repeated trials and Modes sections, numbers
worked out by hand) and a run directory of the old format."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, gold, submit, tiny_db
from fake_openai import FakeOpenAI, status
from mpcbench.cli import app
from mpcbench.errors import UserError
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.harness.tables import RUNS_SCHEMA
from mpcbench.report.load import parse_prices
from mpcbench.report.render import make_report
from mpcbench.report.stats import bootstrap_se, mde

SECRET = "sk-report-SECRET-77"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    db_path = tiny_db(tmp_path_factory)
    base = tmp_path_factory.mktemp("report-runs")
    out = [run_eval(EvalConfig(agent=agent, db=str(db_path), out=str(base / agent))).run_dir
           for agent in ("scripted", "calendar-only")]
    g = gold(db_path)
    script = PerInstance(db_path, {"L1-0001": [status(500)]},
                         default=lambda instance_id, k: submit(g[instance_id], int(instance_id[1])))
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", SECRET)
    try:
        with FakeOpenAI(script) as srv:
            out.append(run_eval(EvalConfig(agent="openai", model="fake-model", base_url=srv.base_url, db=str(db_path),
                                           levels=(1, 2), out=str(base / "openai"), max_retries=1,
                                           backoff_base_s=0.01)).run_dir)
    finally:
        mp.undo()
    return out


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    return make_report(runs, tmp_path_factory.mktemp("report"), prices=parse_prices(["fake-model=2.5,10"]))


def test_report_files(report):
    for name in ("report.md", "report.html", "f1_by_level.png", "failure_causes.png"):
        assert (report / name).exists(), name
    assert (report / "f1_by_level.png").read_bytes().startswith(PNG)
    assert (report / "failure_causes.png").read_bytes().startswith(PNG)


def test_results_table_per_level_and_model(report):
    md = (report / "report.md").read_text()
    assert "| Level 1 | scripted | 4 | 1.00 [1.00, 1.00] | 100% |" in md
    for level in (1, 2, 3):
        assert f"| Level {level} | calendar-only |" in md
    assert "| Level 1 | fake-model | 3 (+1) | 1.00 [1.00, 1.00] | 100% |" in md  # one infra error, kept apart
    assert "| Level 3 | fake-model" not in md
    assert re.search(r"\| Level 1 \| calendar-only \|[^\n]*\(acquisition\) \d+%", md)  # failures.parquet's word
    assert "decomposition/acquisition |" not in md


def test_failure_causes_coverage_cost_and_infrastructure_errors(report):
    md = (report / "report.md").read_text()
    assert "## Failure causes in detail" in md and "policy:" in md
    assert "| Level 2 | scripted | 100% | 100% | 100% | 100% |" in md  # source coverage
    cost = re.search(r"\| Level 1 \| fake-model \|(?:[^|]*\|){7}\s*([0-9.]+)\s*\|",
                     _section(md, "Efficiency, tokens and cost"))
    assert cost and float(cost.group(1)) > 0
    assert re.search(r"\| Level 1 \| fake-model \| server_error \| 1 \|", md)


def test_html_is_self_contained(report):
    html = (report / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 2
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html and "<link" not in html
    assert "Avg F1 [95% CI]" in html


def test_no_key_in_the_report_or_the_runs(report, runs):
    for directory in (report, *runs):
        for path in directory.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path


def test_prices_and_bad_inputs(tmp_path):
    assert parse_prices(["gpt-x=0.15,0.6"]) == {"gpt-x": (0.15, 0.6)}
    with pytest.raises(UserError):
        parse_prices(["gpt-x=cheap"])
    with pytest.raises(UserError, match="not a finished run"):
        make_report([tmp_path], tmp_path / "out")


def test_cli_report(runs, tmp_path):
    result = CliRunner().invoke(app, ["report", *map(str, runs[:2]), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "report.html").exists()
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "nothing")])
    assert bad.exit_code == 1


# --- synthetic runs: an ablation (multi-turn feedback, 4 trials) and an old-format run ----------

NEW_COLUMNS = ("max_turns", "feedback", "solved_turn")
TURNS_SCHEMA = {"run_id": pl.String, "instance_id": pl.String, "level": pl.Int64, "trial": pl.Int64,
                "turn": pl.Int64, "parse_ok": pl.Boolean, "n_pred": pl.Int64, "n_correct": pl.Int64,
                "precision": pl.Float64, "recall": pl.Float64, "f1": pl.Float64, "exact_match": pl.Boolean,
                "failure_cause": pl.String, "feedback_text": pl.String}
ERROR = "server_error: 500 after 5 tries"


def episode(instance_id: str, trial: int, f1: float, solved_turn: int | None = None, *, error: str | None = None,
            prompt: int = 1000, completion: int = 100) -> dict:
    """One runs.parquet row; an infrastructure error carries F1 1.0 and huge token counts, so that
    counting it anywhere shows."""
    em = error is not None or solved_turn is not None
    return {"instance_id": instance_id, "level": int(instance_id[1]), "trial": trial, "agent": "openai", "model": "m1",
            "turns": solved_turn or 1, "steps": 4, "parse_ok": True, "n_pred": 5, "n_correct": round(5 * f1),
            "n_gold": 5, "precision": f1, "recall": f1, "f1": 1.0 if error else f1, "exact_match": em,
            "first_correct": em, "ndcg": f1, "failure_cause": None if em else "policy_violation",
            "failure_source": None if em else "policy", "failure_stage": None if em else "integration",
            "sources_required": ["calendar"], "sources_read": ["calendar"], "source_coverage": 1.0,
            "solved_turn": None if error else solved_turn, "tool_calls": 3, "tool_errors": 0,
            "reference_tool_calls": 3, "extra_tool_calls": 0,
            "prompt_tokens": 99999 if error else prompt, "completion_tokens": 99999 if error else completion,
            "latency_s": 1.0, "error": error, "error_kind": "server_error" if error else None}


def write_run(path, rows: list[dict], *, options: dict, turns: list[dict] | None = None, old: bool = False,
              ablation: dict | None = None):
    path.mkdir(parents=True)
    schema = {k: v for k, v in RUNS_SCHEMA.items() if not (old and k in NEW_COLUMNS)}
    schema.update({} if old else {"max_turns": pl.Int64, "feedback": pl.String, "solved_turn": pl.Int64})
    rows = [{**r, "run_id": path.name, "mode": options.get("mode", "tools"), "max_turns": options.get("max_turns"),
             "feedback": options.get("feedback")} for r in rows]
    pl.from_dicts([{k: r.get(k) for k in schema} for r in rows], schema=schema).write_parquet(path / "runs.parquet")
    if turns is not None:
        pl.from_dicts([{"run_id": path.name, **{k: t.get(k) for k in TURNS_SCHEMA if k != "run_id"}} for t in turns],
                      schema=TURNS_SCHEMA).write_parquet(path / "turns.parquet")
    meta = {"run_id": path.name, "agent": "openai", "model": rows[0]["model"], "options": options,
            "episodes": {"infrastructure_errors": sum(1 for r in rows if r["error"])}}
    if ablation:
        meta["ablation"] = ablation
    (path / "run.json").write_text(json.dumps(meta))
    return path


def turn_rows(instance_id: str, trial: int, f1_by_turn: list[float]) -> list[dict]:
    last = len(f1_by_turn)
    return [{"instance_id": instance_id, "level": int(instance_id[1]), "trial": trial, "turn": t, "parse_ok": True,
             "f1": f1, "exact_match": f1 == 1.0, "feedback_text": None if t == last else "2 of 5 candidates are wrong"}
            for t, f1 in enumerate(f1_by_turn, 1)]


# Level 1, full config (tools + rule feedback, 3 turns): the turn each trial was solved at (None:
# never); instance C's fourth trial is an infrastructure error.
FULL_SOLVED = {"L1-A": [1, 2, None, None], "L1-B": [1, 1, 2, 3], "L1-C": [None, None, None, "error"],
               "L1-D": [1, None, 3, 2]}
BASELINE_F1 = {"L1-A": 0.5, "L1-B": 0.5, "L1-C": 0.1, "L1-D": 0.5}
LEVEL2 = ("L2-E", "L2-F")  # solved at once by every config


@pytest.fixture(scope="module")
def ablation_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("ablation")
    configs = [("baseline", "context", "none", 1), ("tools-only", "tools", "none", 1),
               ("feedback-only", "context", "rule", 3), ("full", "tools", "rule", 3)]
    for name, mode, feedback, max_turns in configs:
        rows, turns = [], []
        for trial in range(1, 5):
            for instance in LEVEL2:
                rows.append(episode(instance, trial, 1.0, 1))
                turns += turn_rows(instance, trial, [1.0])
            for instance, f1 in BASELINE_F1.items():
                if name == "full":
                    solved = FULL_SOLVED[instance][trial - 1]
                    if solved == "error":
                        rows.append(episode(instance, trial, 0.0, error=ERROR))
                        turns += turn_rows(instance, trial, [1.0])
                    else:  # F1 0.5 before the turn it is solved at, 1.0 then; 0.0 throughout if never
                        rows.append(episode(instance, trial, 0.0 if solved is None else 1.0, solved,
                                            prompt=3000, completion=300))
                        turns += turn_rows(instance, trial, [0.0] * 3 if solved is None else [0.5] * (solved - 1) + [1.0])
                elif name == "tools-only":
                    rows.append(episode(instance, trial, f1 + 0.25, prompt=1500, completion=300))
                    turns += turn_rows(instance, trial, [f1 + 0.25])
                else:
                    rows.append(episode(instance, trial, f1, prompt=8000, completion=100))
                    turns += turn_rows(instance, trial, [f1] * max_turns)
        options = {"mode": mode, "max_turns": max_turns, "feedback": feedback, "feedback_detail": "which", "trials": 4}
        write_run(base / name, rows, options=options, turns=None if name == "baseline" else turns,
                  ablation={"group": "abl-1", "config": name})
    (base / "ablation.json").write_text(json.dumps({"ablation_id": "abl-1", "configs": [
        {"name": name, "mode": mode, "feedback": feedback, "run_dir": name} for name, mode, feedback, _ in configs]}))
    return base


@pytest.fixture(scope="module")
def old_run(tmp_path_factory):
    """A run from before multi-turn feedback: no max_turns/feedback/solved_turn, no turns.parquet."""
    rows = [episode("L1-A", 1, 1.0, 1), episode("L1-B", 1, 0.5), episode("L1-C", 1, 1.0, 1),
            episode("L1-D", 1, 0.0, error=ERROR), episode("L3-Z", 1, 0.0, error=ERROR)]
    for r in rows:
        r["model"] = "old-model"
    return write_run(tmp_path_factory.mktemp("old") / "old-run", rows, options={"agent": "openai"}, old=True)


@pytest.fixture(scope="module")
def ablation_report(ablation_dir, old_run, tmp_path_factory):
    out = make_report([ablation_dir, old_run], tmp_path_factory.mktemp("ablation-report"))
    return out, (out / "report.md").read_text()


def _section(md: str, title: str) -> str:
    return md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_ablation_directory_expands_into_its_four_runs(ablation_report):
    _, md = ablation_report
    runs = _section(md, "Runs")
    for name in ("baseline", "tools-only", "feedback-only", "full"):
        assert f"| {name} | m1 · {name} | openai | m1 |" in runs
    assert "| full | m1 · full | openai | m1 | tools | 3 | rule (which) | 4 |" in runs
    assert "| old-run | old-model | openai | old-model | tools | 1 | none | 1 |" in runs
    # the error row (F1 1.0) counts in no score: 12 scored episodes of F1 1.0 or 0.0 give 9/15
    assert "| Level 1 | m1 · full | 15 (+1) | 0.60 [" in _section(md, "Results")


def test_ablation_section(ablation_report):
    _, md = ablation_report
    sec = _section(md, "Ablation")
    row = re.search(r"\| Level 1 \| abl-1 \| m1 \|([^\n]*)\|", sec).group(1).split("|")
    cells = [c.strip() for c in row]
    assert cells[0].startswith("0.40 [") and cells[0].endswith("EM 0%")        # baseline: (12 × 0.5 + 4 × 0.1) / 16
    assert cells[1].startswith("0.65 [") and cells[1].endswith("EM 0%")        # tools-only: baseline + 0.25
    assert cells[2].startswith("0.40 [")                                       # feedback-only
    assert cells[3].startswith("0.60 [") and cells[3].endswith("EM 60%")       # full: 9 of 15 scored
    assert cells[4] == "+0.25 [+0.25, +0.25]"   # + 0.25 on every pair
    assert cells[5] == "+0.00 [+0.00, +0.00]"
    # full − baseline over the 15 pairs without the error: (9 − (12 × 0.5 + 3 × 0.1)) / 15 = +0.18
    diff, lo, hi = re.fullmatch(r"([+-]\d\.\d\d) \[([+-]\d\.\d\d), ([+-]\d\.\d\d)\]", cells[6]).groups()
    assert diff == "+0.18" and float(lo) < 0.18 < float(hi)
    # per feedback turn (2 of them): full − tools-only over the 15 pairs without the error,
    # (9 − (12 × 0.75 + 3 × 0.35)) / 15 / 2 = −0.035 (tools-only: A, B, D 4 × 0.75, C 3 × 0.35)
    assert cells[7] == "-0.035" and cells[8] == "+0.000"
    assert cells[9] == "1"  # infrastructure errors, counted apart
    assert re.search(r"\| Level 2 \| abl-1 \| m1 \| 1\.00 \[1\.00, 1\.00\], EM 100% \|", sec)
    assert "old-model" not in sec


def test_turns_section(ablation_report):
    out, md = ablation_report
    sec = _section(md, "Turns")
    # solved within 1, 2, 3 turns: 4, 7, 9 of 15 scored episodes; F1 per turn carries a solved
    # episode's answer forward: (4 + 5 × 0.5) / 15, (7 + 2 × 0.5) / 15, 9 / 15
    assert "| Level 1 | m1 · full | tools | rule (which) | 3 | 15 (+1) | 27% | 47% | 60% | +33 pts | 0.43 | 0.53 | 0.60 |" in sec
    assert "| Level 1 | m1 · feedback-only | context | rule (which) | 3 | 16 | 0% | 0% | 0% | +0 pts | 0.40 | 0.40 | 0.40 |" in sec
    assert "| Level 1 | m1 · baseline | context | none | 1 | 16 | 0% | — | — | +0 pts | 0.40 | — | — |" in sec
    assert "| Level 2 | m1 · full | tools | rule (which) | 3 | 8 | 100% | 100% | 100% | +0 pts | 1.00 | 1.00 | 1.00 |" in sec
    # the old run: solved at turn 1 iff an exact match (2 of 3 scored), F1 from runs.parquet
    assert "| Level 1 | old-model | tools | none | 1 | 3 (+1) | 67% | — | — | +0 pts | 0.83 | — | — |" in sec
    assert "| Level 3 | old-model | tools | none | 1 | 0 (+1) | — | — | — | — | — | — | — |" in sec  # nothing scored
    assert "![Success by turn budget](success_by_turn.png)" in sec
    assert (out / "success_by_turn.png").read_bytes().startswith(PNG)


def test_repeated_trials_section(ablation_report):
    _, md = ablation_report
    sec = _section(md, "Repeated trials")
    # exact matches per instance, scored trials only: A 2/4, B 4/4, C 0/3 (one error), D 3/4
    # pass^k: (.5+1+0+.75)/4, (1/6+1+0+3/6)/4, (0+1+0+1/4)/4, (0+1+0)/3 (C has only 3 trials)
    # pass@k: same at 1, (5/6+1+0+1)/4, (1+1+0+1)/4, (1+1+1)/3; flips: A and D of 4
    assert re.search(r"\| Level 1 \| m1 · full \| 4 \| 4 \| 15 \(\+1\) \| 56% \| 42% \| 31% \| 33% \| "
                     r"56% \| 71% \| 75% \| 100% \| 50% \| 0\.\d{3} \| \d\.\d\d \|", sec)
    assert "| Level 1 | m1 · baseline | 4 | 4 | 16 | 0% | 0% | 0% | 0% | 0% | 0% | 0% | 0% | 0% |" in sec
    # instance D of the old run has only an infrastructure error: it is no instance of these scores
    assert "| Level 1 | old-model | 3 | 1 | 3 (+1) | 67% | — | — | — | 67% | — | — | — | — |" in sec
    assert "| Level 3 | old-model | 0 | 1 | 0 (+1) | — | — | — | — | — | — | — | — | — | — | — |" in sec
    # the MDE sentence: SE of mean F1 by bootstrap over instances, scored episodes only
    f1 = [1.0 if s not in (None, "error") else 0.0 for i, ss in FULL_SOLVED.items() for s in ss if s != "error"]
    clusters = [i for i, ss in FULL_SOLVED.items() for s in ss if s != "error"]
    se = bootstrap_se(f1, clusters)
    assert se != pytest.approx(bootstrap_se(f1))  # clustering changes it
    sentence = (f"- Level 1, m1 · full: with 4 instances × 4 trial(s), differences in mean F1 smaller than "
                f"{mde(se):.2f} (MDE = 2.8 × √2 × SE, SE = {se:.3f}) are within noise")
    assert sentence in sec
    assert "- Level 2, m1 · full: every scored episode has the same F1" in sec
    assert "Level 3, old-model:" not in sec  # nothing scored: no sentence


def test_modes_section(ablation_report):
    _, md = ablation_report
    sec = _section(md, "Modes")
    assert "| Level 1 | m1 · baseline | context | 16 | 8000 | 100 | 0.40 | 0% |" in sec
    assert "| Level 1 | m1 · tools-only | tools | 16 | 1500 | 300 | 0.65 | 0% |" in sec
    assert "| Level 1 | m1 · full | tools | 15 (+1) | 3000 | 300 | 0.60 | 60% |" in sec  # not the error's 99999


def test_section_order_and_html(ablation_report):
    out, md = ablation_report
    titles = re.findall(r"^## (.+)$", md, flags=re.M)
    assert titles[:9] == ["Runs", "Results", "Ablation", "Turns", "Repeated trials", "Modes", "MINT metrics",
                          "ΔFeedback and ΔCode", "Outcomes"]
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    assert 'alt="Success by turn budget"' in html and "<h2>Repeated trials</h2>" in html
    assert "<li>Level 1, m1 · full: with 4 instances" in html


def test_delta_feedback_pairs_runs_that_differ_only_in_feedback(ablation_report):
    _, md = ablation_report
    sec = _section(md, "ΔFeedback and ΔCode")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in sec.splitlines() if re.match(r"\| Level \d", line)]
    by_pair = {(r[0], r[3].split(":")[0], r[4].split(":")[0]): r for r in rows}
    assert all(r[2] == "ΔFeedback" for r in rows) and "old-model" not in sec
    # context, no feedback -> context, rule feedback: the same F1 on every pair, nothing solved
    same = by_pair[("Level 1", "m1 · baseline", "m1 · feedback-only")]
    assert same[5:] == ["16", "+0.0 [+0.0, +0.0] pts", "+0.00 [+0.00, +0.00]"]
    # tools -> tools with feedback: 15 pairs (the error is left out), 9 solved against 0; F1 9 against
    # 3 × (0.75 + 0.75 + 0.75) + 3 × 0.35 + 0.75 ... = 10.05 over 15 pairs
    full = by_pair[("Level 1", "m1 · tools-only", "m1 · full")]
    assert full[5] == "15" and full[6].startswith("+60.0 [") and full[7].startswith("-0.07 [")
    assert ("Level 1", "m1 · baseline", "m1 · full") not in by_pair        # mode differs too: no pair
    assert by_pair[("Level 2", "m1 · tools-only", "m1 · full")][5:] == ["8", "+0.0 [+0.0, +0.0] pts",
                                                                         "+0.00 [+0.00, +0.00]"]


def test_delta_code_on_two_tiny_runs_with_a_known_paired_difference(tmp_path):
    """Code lifts F1 by 0.2 on every pair and solves B and D (of A..D): ΔF1 +0.20 exactly, Δsuccess
    +50 points; instance E is only in the code run and pairs with nothing."""
    f1 = {"L1-A": 0.2, "L1-B": 0.8, "L1-C": 0.4, "L1-D": 0.8}
    tools = [episode(i, 1, x) for i, x in f1.items()]
    code = [episode(i, 1, x + 0.2, 1 if i in ("L1-B", "L1-D") else None) for i, x in f1.items()]
    code.append(episode("L1-E", 1, 1.0, 1))
    runs = [write_run(tmp_path / "tools", tools, options={"mode": "tools", "max_turns": 1, "feedback": "none"}),
            write_run(tmp_path / "code", code, options={"mode": "code", "max_turns": 1, "feedback": "none"})]
    md = (make_report(runs, tmp_path / "r") / "report.md").read_text()
    rows = [line for line in _section(md, "ΔFeedback and ΔCode").splitlines() if re.match(r"\| Level \d", line)]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[:3] == ["Level 1", "m1", "ΔCode"] and cells[3].startswith("m1 (tools): tools,") and cells[4].startswith("m1 (code): code,")
    assert cells[5] == "4" and cells[7] == "+0.20 [+0.20, +0.20]"
    diff, lo, hi = re.fullmatch(r"([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\] pts", cells[6]).groups()
    assert diff == "+50.0" and float(lo) < 50 < float(hi) and 0 <= float(lo) and float(hi) <= 100
    # the same two runs with the mode the other way round give no ΔCode (code -> tools is not asked)
    assert md.count("ΔCode |") == 1


def test_old_format_run_alone(old_run, tmp_path):
    md = (make_report([old_run], tmp_path) / "report.md").read_text()
    assert "| Level 1 | old-model | 3 (+1) | 0.83 [" in md
    assert "| Level 3 | old-model | 0 (+1) | — | — |" in md  # only an infrastructure error
    for title in ("Ablation", "Turns", "Repeated trials", "Modes"):
        assert f"## {title}" not in md
    assert not (tmp_path / "success_by_turn.png").exists()


def test_runs_of_an_ablation_given_one_by_one_keep_their_config(ablation_dir, tmp_path):
    md = (make_report([ablation_dir / "full", ablation_dir / "baseline"], tmp_path) / "report.md").read_text()
    sec = _section(md, "Ablation")
    assert re.search(r"\| Level 1 \| abl-1 \| m1 \| 0\.40 \[[^|]*\| — \| — \| 0\.60 \[[^|]*\| — \| — \| \+0\.18 \[", sec)


def test_cli_report_on_an_ablation_directory(ablation_dir, tmp_path):
    result = CliRunner().invoke(app, ["report", str(ablation_dir), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "## Ablation" in (tmp_path / "r" / "report.md").read_text()


def test_multi_turn_run_with_only_infrastructure_errors(tmp_path):
    rows = [episode("L1-A", 1, 0.0, error=ERROR), episode("L1-B", 1, 0.0, error=ERROR)]
    run = write_run(tmp_path / "down", rows, options={"mode": "tools", "max_turns": 3, "feedback": "binary"}, turns=[])
    out = make_report([run], tmp_path / "r")
    sec = _section((out / "report.md").read_text(), "Turns")
    assert "| Level 1 | m1 | tools | binary | 3 | 0 (+2) | — | — | — | — | — | — | — |" in sec
    assert not (out / "success_by_turn.png").exists() and "success_by_turn.png" not in sec
