"""The report as a reader sees it: the trajectory pages (prompt, every tool call with the text it
returned, each answer with its violations and source rows, the feedback) for an offline agent
(texts run again on the build) and a model (texts from its transcript); failure causes grouped
across runs with the same causes; the Stage in failures.parquet's words; n/a tokens offline;
the judge audit's section (`--judge-audit`); and report.html opened in a real Chromium at phone
and desktop widths."""

from __future__ import annotations

import doctest
import html
import json
import re
import shutil

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, gold, instances, submit, tiny_db
from fake_openai import FakeOpenAI, reply_tool_calls
from mpcbench.cli import app
from mpcbench.episode.environment import Environment
from mpcbench.harness.config import EvalConfig
from mpcbench.harness.runner import run_eval
from mpcbench.legacy.audit import AuditConfig, run_audit
from mpcbench.legacy.models import Endpoint
from mpcbench.errors import UserError
from mpcbench.report import plots, tables
from mpcbench.report.render import make_report
from mpcbench.report.trajectories import ToolTexts
from mpcbench.warehouse import db

THOUGHT = "Let me check the time before I answer."


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    db_path = tiny_db(tmp_path_factory)
    base = tmp_path_factory.mktemp("pages")
    feedback = dict(max_turns=2, feedback="rule")
    runs = [run_eval(EvalConfig(agent="calendar-only", db=str(db_path), levels=(1, 3), out=str(base / name),
                                **feedback)).run_dir for name in ("cal-a", "cal-b")]
    runs.append(run_eval(EvalConfig(agent="scripted", db=str(db_path), levels=(1,), out=str(base / "scripted"))).run_dir)
    g = gold(db_path)
    wrong = [(start[:-2] + "07", room) for start, room in g["L1-0001"]]  # off the 15-minute grid
    script = PerInstance(db_path, {"L1-0001": [reply_tool_calls([("get_current_time", {})], content=THOUGHT),
                                               submit(wrong, 1), submit(g["L1-0001"], 1)]},
                         default=lambda instance_id, k: submit(g[instance_id], int(instance_id[1])))
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-test")
    try:
        with FakeOpenAI(script) as srv:
            runs.append(run_eval(EvalConfig(agent="openai", model="fake-model", base_url=srv.base_url, db=str(db_path),
                                            levels=(1,), out=str(base / "openai"), **feedback)).run_dir)
    finally:
        mp.undo()
    run_audit(AuditConfig(runs=tuple(runs), out=base / "audit"), Endpoint())   # the offline heuristic judge
    out = make_report(runs, base / "report", judge_audit=base / "audit")
    return db_path, runs, out


def pres(page: str) -> list[str]:
    return [html.unescape(x) for x in re.findall(r"<pre>(.*?)</pre>", page, flags=re.S)]


def test_offline_trajectory_shows_tool_texts_answers_and_violations(setup):
    db_path, runs, out = setup
    page = (out / "trajectories" / "01-cal-a" / "L1-0001-t1.html").read_text()
    prompt = dict((i, p) for i, _, p in instances(db_path))["L1-0001"]
    assert pres(page)[1] == prompt   # after the system prompt, as for a model: the engine's conversation
    calls = pl.read_parquet(runs[0] / "tool_calls.parquet").filter(
        (pl.col("instance_id") == "L1-0001") & (pl.col("tool") != "submit_candidates")).to_dicts()
    assert calls and "not recorded" not in page and "Run again" not in page
    con = db.connect(db_path, read_only=True)
    with Environment(con, "L1-0001") as env:
        for c in calls:  # each text, as `mpcbench tools call` gives it, and as long as the run recorded
            text = env.call(c["tool"], c["arguments"])
            assert len(text) == c["result_chars"] and text in pres(page)
    con.close()
    cands = pl.read_parquet(runs[0] / "candidates.parquet").filter(pl.col("instance_id") == "L1-0001").to_dicts()
    rows = [v for c in cands for v in c["violation_rows"] or []]
    assert rows and all(html.escape(v) in page for v in rows)
    failures = pl.read_parquet(runs[0] / "failures.parquet").filter(pl.col("instance_id") == "L1-0001").to_dicts()
    assert all(f"{f['source_table']}.{f['source_row_id']}" in html.unescape(page) for f in failures)
    feedback = pl.read_parquet(runs[0] / "turns.parquet").filter(pl.col("instance_id") == "L1-0001")["feedback_text"]
    assert feedback[0] and feedback[0] in pres(page)
    assert page.index("Answer, turn 1") < page.index("Feedback") < page.index("Answer, turn 2")


def test_model_trajectory_comes_from_its_transcript(setup):
    db_path, runs, out = setup
    page = (out / "trajectories" / "04-openai" / "L1-0001-t1.html").read_text()
    con = db.connect(db_path, read_only=True)
    with Environment(con, "L1-0001") as env:
        assert env.call("get_current_time", "{}") in pres(page)
    con.close()
    assert THOUGHT in pres(page) and "off the 15-minute grid" in page
    assert page.count("<h3>Answer, turn") == 2 and "exact match" in page and "gold, rank 1" in page
    assert "System prompt" in page


def test_only_failed_episodes_get_pages_by_default_and_the_index_lists_all(setup):
    _, runs, out = setup
    assert not list((out / "trajectories" / "03-scripted").glob("L*.html"))  # every one an exact match
    index = (out / "trajectories" / "03-scripted" / "index.html").read_text()
    assert index.count("not written (--trajectories failed)") == 4
    md = (out / "report.md").read_text()
    assert "[trajectories](trajectories/01-cal-a/index.html)" in md
    assert "<a href='trajectories/01-cal-a/index.html'>" in (out / "report.html").read_text()
    every = make_report(runs[2:3], out.parent / "every", trajectories="all")
    assert len(list((every / "trajectories" / "01-scripted").glob("L*.html"))) == 4
    none = make_report(runs[2:3], out.parent / "none", trajectories="none")
    assert not (none / "trajectories").exists() and "## Trajectories" not in (none / "report.md").read_text()


def test_tool_texts_say_why_when_the_build_is_gone_or_changed(setup, tmp_path):
    db_path, _, _ = setup
    assert "is not there" in ToolTexts({"build": {"db": str(tmp_path / "gone.duckdb")}}).why
    changed = ToolTexts({"build": {"db": str(db_path), "content_sha256": "0" * 64}})
    assert "has changed" in changed.why and changed.texts("L1-0001", [{"tool": "x", "arguments": "{}"}]) == [None]
    (tmp_path / "junk.duckdb").write_text("not a database")
    assert "cannot be opened" in ToolTexts({"build": {"db": str(tmp_path / "junk.duckdb")}}).why


def test_cli_refuses_an_unknown_trajectories_value(setup, tmp_path):
    _, runs, _ = setup
    result = CliRunner().invoke(app, ["report", str(runs[2]), "--out", str(tmp_path / "r"), "--trajectories", "most"])
    assert result.exit_code == 2 and "--trajectories takes all | failed | none" in result.output
    assert "Traceback" not in result.output


def _section(md: str, title: str) -> str:
    return md.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_equal_failure_causes_share_rows_and_stage_is_the_parquet_word(setup):
    _, runs, out = setup
    sec = _section((out / "report.md").read_text(), "Failure causes in detail")
    body = [line.split(" | ") for line in sec.splitlines() if re.match(r"\| Level \d", line)]
    assert body and all(row[1] == "calendar-only (cal-a), calendar-only (cal-b)" for row in body)
    keys = [(row[0], row[2]) for row in body]
    assert len(keys) == len(set(keys))  # one row per level and cause, not one per run
    stages = {s for f in runs[:1] for s in pl.read_parquet(f / "failures.parquet")["stage"].drop_nulls()}
    assert {row[3] for row in body} <= stages | {"—"} and "decomposition" not in sec


def test_tokens_are_na_for_offline_agents(setup):
    _, _, out = setup
    sec = _section((out / "report.md").read_text(), "Efficiency, tokens and cost")
    assert re.search(r"\| Level 1 \| scripted \|(?:[^|]*\|){5} n/a \| n/a \|", sec)
    assert re.search(r"\| Level 1 \| fake-model \|(?:[^|]*\|){5} \d+ \| \d+ \|", sec)


def test_docstring_examples_of_the_plots_and_tables():
    assert doctest.testmod(plots).failed == 0 and doctest.testmod(tables).failed == 0


def _browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None, "playwright is not installed (pip install -e '.[dev]')"
    path = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if path is None:
        return None, "no Chromium found (apt-get install chromium); the report is not checked in a browser"
    return (sync_playwright, path), ""


def test_the_judge_audit_section_shows_the_audits_own_figures(setup, tmp_path):
    _, runs, out = setup
    figures = json.loads((out.parent / "audit" / "audit.json").read_text())["judges"][0]
    md = (out / "report.md").read_text()
    section = md[md.index("## LLM judge vs. the SQL oracle"):]
    row = next(line for line in section.splitlines() if line.startswith("| offline:heuristic |"))
    c = figures["confusion"]
    assert row.split(" | ")[1:3] == [str(figures["scored"]), str(figures["judge_failures"])]
    assert f"{c['pass_em']} / {c['pass_not_em']}" in row and f"{c['fail_em']} / {c['fail_not_em']}" in row
    assert f"{100 * figures['false_pass_rate']:.0f}% of {figures['breaks_constraint']}" in row
    assert figures["breaks_constraint"] > 0 and next(iter(figures["false_pass_constraints"])) in row
    assert "![Judge score against the oracle's F1](judge_audit.png)" in section
    assert (out / "judge_audit.png").read_bytes() == (out.parent / "audit" / "judge_audit.png").read_bytes()
    assert "LLM judge vs. the SQL oracle</h2>" in (out / "report.html").read_text()
    with pytest.raises(UserError, match="holds no judge audit"):
        make_report(runs[:1], tmp_path / "r", trajectories="none", judge_audit=tmp_path)
    result = CliRunner().invoke(app, ["report", str(runs[0]), "--out", str(tmp_path / "c"), "--trajectories", "none",
                                      "--judge-audit", str(out.parent / "audit")])
    assert result.exit_code == 0, result.output
    assert "## LLM judge vs. the SQL oracle" in (tmp_path / "c" / "report.md").read_text()


def test_report_in_a_real_browser(setup):
    """No console error, every image loaded, no sideways scrolling at 390 and 1280 px, on the
    report, a run's index and a trajectory page."""
    _, _, out = setup
    found, why = _browser()
    if found is None:
        pytest.skip(why)
    sync_playwright, path = found
    pages = [out / "report.html", out / "trajectories" / "01-cal-a" / "index.html",
             out / "trajectories" / "01-cal-a" / "L3-0001-t1.html"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            for width in (390, 1280):
                page = browser.new_page(viewport={"width": width, "height": 800})
                errors: list[str] = []
                page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                for file in pages:
                    page.goto(file.as_uri())
                    assert errors == [], (file, width, errors)
                    sizes = page.evaluate("[...document.images].map(i => i.complete && i.naturalWidth)")
                    assert all(sizes) and (len(sizes) == 4) == (file.name == "report.html"), (file, sizes)
                    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
                    assert scroll <= inner, (file, width, scroll, inner)
                page.close()
        finally:
            browser.close()
