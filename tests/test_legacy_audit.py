"""`mpcbench judge-audit`: the legacy judge on MPCBench episodes, against the oracle. Fake judges
with known scores must give the correlations, confusion, false-pass/false-fail rates and
agreement that the run tables imply, each computed here independently; the agreement
statistics match textbook values."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, submit
from fake_openai import FakeOpenAI, reply_text, reply_tool_calls, status
from legacykit import AXES, judge_input_of, judge_reply
from mpcbench.cli import app
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.legacy import validate
from mpcbench.legacy.agreement import cohen_kappa, krippendorff_alpha, spearman
from mpcbench.legacy.audit import AuditConfig, run_audit
from mpcbench.legacy.judge import JUSTIFICATION_CHARS
from mpcbench.legacy.models import Endpoint
from mpcbench.legacy.project import UserError
from mpcbench.warehouse import db

TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


# --- the statistics against textbook values --------------------------------------------------

def test_krippendorffs_alpha_reproduces_krippendorff_2011():
    """The reliability data of Krippendorff (2011), section C: 4 observers, 12 units, missing values."""
    n = None
    a = [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n]
    b = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3]
    c = [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n]
    d = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n]
    units = list(zip(a, b, c, d))
    assert round(krippendorff_alpha(units, "nominal"), 3) == 0.743
    assert round(krippendorff_alpha(units, "ordinal"), 3) == 0.815
    assert round(krippendorff_alpha(units, "interval"), 3) == 0.849
    assert krippendorff_alpha([[1, None], [2]], "interval") is None


def test_cohens_kappa_matches_the_textbook_example_and_weighting():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o 0.7, p_e 0.5, kappa 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([0, 1, 2], [0, 1, 2], weights="quadratic") == 1.0
    # quadratic weights penalize a 2-step disagreement 4x a 1-step one
    near = cohen_kappa([0, 1, 2, 3], [1, 1, 2, 3], weights="quadratic")
    far = cohen_kappa([0, 1, 2, 3], [2, 1, 2, 3], weights="quadratic")
    assert 1 > near > far


def test_spearman_agrees_with_polars_on_tied_data():
    x = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    y = [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4]
    frame = pl.DataFrame({"x": x, "y": y})
    assert spearman(x, y) == pytest.approx(frame.select(pl.corr("x", "y", method="spearman")).item())
    assert spearman([1, 1, 1], [1, 2, 3]) is None


# --- the audit on fake judges ---------------------------------------------------------------

@pytest.fixture(scope="module")
def runs(db_path, golds, tmp_path_factory) -> list[Path]:
    """Three runs on the tiny build: scripted (all exact), calendar-only (constraint breaks) and a
    fake model that reads the time, then submits the gold at level 1 and one gold start elsewhere."""
    base = tmp_path_factory.mktemp("audit_runs")
    for agent in ("scripted", "calendar-only"):
        run_eval(EvalConfig(agent=agent, db=str(db_path), out=str(base / agent), concurrency=2))

    def behave(instance_id: str, k: int):
        if k == 0:
            return reply_tool_calls([("get_current_time", {})], content="Checking the time first.")
        level = int(instance_id[1])
        return submit(golds[instance_id] if level == 1 else golds[instance_id][:1], level)

    with pytest.MonkeyPatch.context() as mp, FakeOpenAI(PerInstance(db_path, {}, default=behave)) as srv:
        mp.setenv("OPENAI_API_KEY", "sk-audit-test")
        run_eval(EvalConfig(agent="openai", model="fake-agent", base_url=srv.base_url, db=str(db_path),
                            out=str(base / "model"), concurrency=2, max_retries=0))
    return [base / "scripted", base / "calendar-only", base / "model"]


@pytest.fixture(scope="module")
def expected(runs, golds) -> pl.DataFrame:
    """One row per episode, from the run tables alone: F1, EM, the constraint kinds the final
    answer breaks, and the starts it proposes."""
    frames = []
    for run in runs:
        episodes = pl.read_parquet(run / "runs.parquet").filter(pl.col("error").is_null()).select(
            "run_id", "instance_id", "trial", "f1", "exact_match")
        cands = pl.read_parquet(run / "candidates.parquet")
        last = cands.filter(pl.col("turn") == pl.col("turn").max().over("instance_id", "trial"))
        per = last.group_by("run_id", "instance_id", "trial").agg(pl.col("start"), pl.col("violations"))
        frames.append(episodes.join(per, on=["run_id", "instance_id", "trial"], how="left"))
    out = pl.concat(frames).to_dicts()
    for row in out:
        starts = {s for s in row["start"] or [] if s}
        gold = {start for start, _ in golds[row["instance_id"]]}
        row["kinds"] = sorted({k for v in row["violations"] or [] for k in v})
        row["score_a"] = min(5, 2 + len(starts & gold)) if starts else 0
        row["score_b"] = 4 if starts else 1
    return pl.DataFrame(out).select("run_id", "instance_id", "trial", "f1", "exact_match", "kinds", "score_a", "score_b")


def fake_judges(golds):
    """judge-a scores by gold starts it sees in the answer (min(5, 2 + hits); 0 for no time);
    judge-b gives 4 to any answer with a time (3 when asked again with seed 1), else 1."""
    def script(req):
        data = judge_input_of(req)
        starts = set(TIME.findall(data["final_answer"]))
        if req.body["model"] == "judge-a":
            gold = {s for s, _ in golds[data["task_id"]]}
            return judge_reply(min(5, 2 + len(starts & gold)) if starts else 0)
        return judge_reply((3 if req.body["seed"] == 1 else 4) if starts else 1)
    return FakeOpenAI(script)


@pytest.fixture(scope="module")
def audit(runs, golds, tmp_path_factory):
    out = tmp_path_factory.mktemp("audit")
    with pytest.MonkeyPatch.context() as mp, fake_judges(golds) as srv:
        mp.setenv("OPENAI_API_KEY", "sk-audit-test")
        report = run_audit(AuditConfig(runs=tuple(runs), judge_models=("judge-a", "judge-b"), judge_trials=2, out=out,
                                       concurrency=4), Endpoint(base_url=srv.base_url, max_retries=0))
    return report, json.loads((out / "audit.json").read_text()), pl.read_parquet(out / "judge_scores.parquet")


def test_every_episode_is_judged_by_every_judge_and_trial(audit, expected):
    _, _, scores = audit
    assert scores.height == expected.height * 2 * 2
    joined = scores.filter(pl.col("judge_trial") == 1).join(expected, on=["run_id", "instance_id", "trial"])
    a = joined.filter(pl.col("judge_model") == "judge-a")
    assert a.height == expected.height
    assert (a["satisfaction"] == a["score_a"]).all() and (a["f1"] == a["f1_right"]).all()
    assert (a["breaks_constraint"] == (a["kinds"].list.len() > 0)).all()


def test_the_judge_input_of_a_model_episode_carries_its_recorded_tool_results_and_words(audit):
    report, _, _ = audit
    inputs = sorted((report.parent / "judge_inputs").glob("model__L2-*.json"))
    data = json.loads(inputs[0].read_text())
    assert validate.problems(data, "judge_input") == []
    assert [c["tool_name"] for c in data["raw_tool_calls"]] == ["get_current_time"]
    assert json.loads(data["raw_tool_calls"][0]["result"])["now"]
    assert data["rationale"] == "Checking the time first."
    assert "Proposes exactly" in data["answer_requirements"][0]
    gold_free = json.dumps(data["answer_requirements"])
    assert not TIME.search(gold_free)          # requirements never name a gold time


def test_judge_a_figures_are_what_the_run_tables_imply(audit, expected):
    _, figures, _ = audit
    a = next(m for m in figures["judges"] if m["judge_model"] == "judge-a")
    frame = expected.with_columns(pl.col("exact_match").cast(pl.Float64).alias("em"),
                                  (pl.col("score_a") >= 4).alias("passed"), (pl.col("kinds").list.len() > 0).alias("broken"))
    assert a["spearman_f1"] == pytest.approx(frame.select(pl.corr("score_a", "f1", method="spearman")).item())
    assert a["spearman_em"] == pytest.approx(frame.select(pl.corr("score_a", "em", method="spearman")).item())
    broken = frame.filter("broken")
    false_passes = broken.filter("passed")
    assert broken.height > 0 and false_passes.height > 0
    assert a["false_pass_rate"] == pytest.approx(false_passes.height / broken.height)
    kinds = {}
    for row in false_passes.iter_rows(named=True):
        for kind in row["kinds"]:
            kinds[kind] = kinds.get(kind, 0) + 1
    assert a["false_pass_constraints"] == kinds
    em = frame.filter(pl.col("exact_match"))
    assert a["false_fail_rate"] == pytest.approx(em.filter(~pl.col("passed")).height / em.height)
    assert a["confusion"] == {
        "pass_em": frame.filter(pl.col("passed") & pl.col("exact_match")).height,
        "pass_not_em": frame.filter(pl.col("passed") & ~pl.col("exact_match")).height,
        "fail_em": frame.filter(~pl.col("passed") & pl.col("exact_match")).height,
        "fail_not_em": frame.filter(~pl.col("passed") & ~pl.col("exact_match")).height}


def two_rater_alpha(a: list[float], b: list[float]) -> float:
    """Interval alpha for two raters and no missing value: 1 - mean (a-b)^2 / mean pooled (v_i-v_j)^2."""
    observed = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    pooled = a + b
    pairs = [(x - y) ** 2 for i, x in enumerate(pooled) for j, y in enumerate(pooled) if i != j]
    return 1 - observed / (sum(pairs) / len(pairs))


def test_judge_vs_judge_and_trial_vs_trial_agreement(audit, expected):
    _, figures, _ = audit
    a, b = expected["score_a"].to_list(), expected["score_b"].to_list()
    pass_a, pass_b = [s >= 4 for s in a], [s >= 4 for s in b]
    n = len(a)
    p_o = sum(x == y for x, y in zip(pass_a, pass_b)) / n
    p_e = (sum(pass_a) / n) * (sum(pass_b) / n) + (1 - sum(pass_a) / n) * (1 - sum(pass_b) / n)
    pair = figures["judge_agreement"]["pairs"][0]
    assert pair["judges"] == ["judge-a", "judge-b"] and pair["episodes"] == n
    assert pair["kappa_pass"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert figures["judge_agreement"]["alpha_interval"] == pytest.approx(two_rater_alpha(a, b))
    trials = {t["judge_model"]: t for t in figures["trial_agreement"]}
    assert trials["judge-a"]["alpha_interval"] == 1.0 and trials["judge-a"]["pass_flip_rate"] == 0.0
    b_again = [3 if s == 4 else s for s in b]
    assert trials["judge-b"]["alpha_interval"] == pytest.approx(two_rater_alpha(b, b_again))
    assert trials["judge-b"]["pass_flip_rate"] == pytest.approx(sum(s == 4 for s in b) / n)


def test_the_report_section_and_plot_are_written(audit):
    report, figures, _ = audit
    text = report.read_text()
    assert text.startswith("## LLM judge vs. the SQL oracle")
    a = next(m for m in figures["judges"] if m["judge_model"] == "judge-a")
    assert f"| judge-a | {a['scored']} | 0 |" in text
    for kind in a["false_pass_constraints"]:
        assert kind in text
    assert (report.parent / "judge_audit.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "judge_audit.png" in text


def test_judge_failures_are_counted_apart_and_left_out(runs, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-audit-test")
    with FakeOpenAI(lambda req: judge_reply(9)) as srv:
        run_audit(AuditConfig(runs=(runs[0],), judge_models=("judge-x",), out=tmp_path, attempts=2),
                  Endpoint(base_url=srv.base_url, max_retries=0))
    figures = json.loads((tmp_path / "audit.json").read_text())["judges"][0]
    assert figures["scored"] == 0 and figures["judge_failures"] == figures["episodes"] > 0
    assert figures["failure_statuses"] == {"judge_failure": figures["episodes"]}
    assert figures["spearman_f1"] is None and figures["false_pass_rate"] is None


def test_cli_offline_audit_and_its_errors(runs, db_path, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["judge-audit", str(runs[1]), "--judge", "offline", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "offline:heuristic" in result.output and (tmp_path / "a" / "judge_audit.png").exists()
    result = runner.invoke(app, ["judge-audit", str(runs[1])])
    assert result.exit_code == 2 and "give --judge-model NAME" in result.output
    result = runner.invoke(app, ["judge-audit", str(tmp_path), "--judge", "offline"])
    assert result.exit_code == 1 and "is not a finished run directory" in result.output
    changed = tmp_path / "changed.duckdb"
    shutil.copy(db_path, changed)
    con = db.connect(changed)
    con.execute("update people set name = name || ' Jr.' where person_id = (select min(person_id) from people)")
    con.close()
    with pytest.raises(UserError, match="content hash differs"):
        run_audit(AuditConfig(runs=(runs[1],), out=tmp_path / "b", db=changed), Endpoint())


def test_cli_audit_against_an_endpoint_then_replayed_offline_from_its_cache(runs, golds, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-audit-SECRET-7")
    out = tmp_path / "audit"
    with fake_judges(golds) as srv:
        result = CliRunner().invoke(app, ["judge-audit", str(runs[2]), "--base-url", srv.base_url, "--judge-model",
                                          "judge-a", "--max-retries", "0", "--out", str(out)])
        asked = len(srv.requests)
    assert result.exit_code == 0, result.output
    first = pl.read_parquet(out / "judge_scores.parquet")
    assert asked == first.height > 0 and (out / "judge_cache.jsonl").exists()
    monkeypatch.delenv("OPENAI_API_KEY")
    result = CliRunner().invoke(app, ["judge-audit", str(runs[2]), "--judge-model", "judge-a", "--replay",
                                      "--cache", str(out / "judge_cache.jsonl"), "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    assert pl.read_parquet(tmp_path / "again" / "judge_scores.parquet").equals(first)
    for path in out.rglob("*"):
        assert not path.is_file() or b"SECRET" not in path.read_bytes(), path


def test_a_small_context_judge_gets_cut_inputs_and_a_constrained_reply(runs, tmp_path, monkeypatch):
    """--max-input-chars cuts every tool result to one length that fits and says so; --constrained
    sends the reply's JSON Schema as response_format. The fake judge plays a server whose context
    holds 3,000 characters (a longer input: HTTP 400, as llama-server answers) and a small model
    that writes prose unless its sampling is constrained."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-audit-test")
    bound = 3000

    def server(req):
        if len(json.dumps(judge_input_of(req), ensure_ascii=False)) > bound:
            return status(400, message="the request exceeds the available context size")
        fmt = req.body.get("response_format")
        if not fmt:
            return reply_text("The answer looks fine to me, I would say four out of five.")
        reply = {axis: {"score": 4, "justification": "x" * JUSTIFICATION_CHARS} for axis in AXES}
        jsonschema.validate(reply, fmt["json_schema"]["schema"])   # what constrained sampling can write
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**reply, AXES[1]: {"score": 4, "justification": "x" * (JUSTIFICATION_CHARS + 1)}},
                                fmt["json_schema"]["schema"])
        assert validate.problems(reply, "judge_reply") == []
        return reply_text(json.dumps(reply))

    def audit(out, **options):
        with FakeOpenAI(server) as srv:
            run_audit(AuditConfig(runs=(runs[0], runs[1]), judge_models=("tiny",), out=out, attempts=2, **options),
                      Endpoint(base_url=srv.base_url, max_retries=0))
        return pl.read_parquet(out / "judge_scores.parquet")

    plain = audit(tmp_path / "plain")
    # too long for the judge's context, or prose: both the judge's failure, not the endpoint's
    assert set(plain["judge_status"]) == {"judge_failure"}
    too_long_plain = plain.filter(pl.col("judge_error").str.starts_with("context_exceeded"))
    assert too_long_plain.height and too_long_plain["input_chars"].min() > bound
    assert not plain["input_cut"].any()

    fitted = audit(tmp_path / "fitted", max_input_chars=bound, constrained=True)
    ok = fitted.filter(pl.col("judge_status") == "ok")
    assert set(ok["satisfaction"]) == {4} and ok["input_chars"].max() <= bound and ok["input_cut"].any()
    # an input that even cut to empty results stays too long (level 3's many calls) is the judge's failure, recorded
    too_long = fitted.filter(pl.col("input_chars") > bound)
    assert set(too_long["judge_status"]) == {"judge_failure"} and too_long["input_cut"].all()
    assert all("context size" in error for error in too_long["judge_error"])
    assert fitted["input_cut"].to_list() == (plain["input_chars"] > bound).to_list()
    for row in fitted.filter(pl.col("input_cut")).head(3).to_dicts():
        sent = json.loads((tmp_path / "fitted" / "judge_inputs" /
                           f"{row['run_id']}__{row['instance_id']}__t{row['trial']}.json").read_text())
        results = [c["result"] for c in sent["raw_tool_calls"]]
        assert any(r.endswith("more characters cut]") for r in results)
        assert results == [c["result"] for c in sent["tool_trace"]]
        assert validate.problems(sent, "judge_input") == []
    options = json.loads((tmp_path / "fitted" / "audit.json").read_text())["options"]
    assert options["max_input_chars"] == bound and options["constrained"] is True
