"""`mpcbench report`: tables, bootstrap intervals, plots and one self-contained HTML file over
several runs, one of them with infrastructure errors."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, gold, submit, tiny_db
from fake_openai import FakeOpenAI, status
from mpcbench.cli import app
from mpcbench.errors import UserError
from mpcbench.eval import EvalConfig, run_eval
from mpcbench.report import bootstrap_ci, make_report, parse_prices

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
    assert re.search(r"\| Level 1 \| calendar-only \|[^\n]*\(decomposition/acquisition\) \d+%", md)


def test_failure_causes_coverage_cost_and_infrastructure_errors(report):
    md = (report / "report.md").read_text()
    assert "## Failure causes in detail" in md and "policy:" in md
    assert "| Level 2 | scripted | 100% | 100% | 100% | 100% |" in md  # source coverage
    cost = re.search(r"\| Level 1 \| fake-model \|(?:[^|]*\|){7}\s*([0-9.]+)\s*\|", md)
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


def test_bootstrap_interval():
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75] * 5
    lo, hi = bootstrap_ci(values)
    mean = sum(values) / len(values)
    assert lo < mean < hi and 0 <= lo and hi <= 1
    assert bootstrap_ci(values) == (lo, hi)  # seeded
    assert bootstrap_ci([]) is None and bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)


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
