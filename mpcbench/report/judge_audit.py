"""The judge audit as a section of `mpcbench report --judge-audit DIR`: read from what
`mpcbench judge-audit --out DIR` wrote (audit.json and judge_audit.png), never recomputed, so the
report shows the audit's own figures.

    section = audit_section(json.loads(Path("reports/judge_audit/audit.json").read_text()))
    # -> {"title", "header", "body", "note", "sentences"}: a report Section but for its image

One row per judge model (its first trial against the oracle): episodes scored and judge failures,
Spearman of the satisfaction score against F1 and EM, the confusion of "judge >= 4" against exact
match, the false-pass rate (with the constraint kinds behind the false passes) and the false-fail
rate; the sentences give judge-vs-judge and trial-vs-trial agreement.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..errors import UserError

AUDIT_JSON, AUDIT_PLOT = "audit.json", "judge_audit.png"


def _num(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def load_audit(audit_dir: Path, out: Path) -> tuple[dict, str]:
    """The audit's figures, and its plot copied into the report directory (its file name there)."""
    audit_dir = Path(audit_dir)
    if not (audit_dir / AUDIT_JSON).is_file() or not (audit_dir / AUDIT_PLOT).is_file():
        raise UserError(f"{audit_dir} holds no judge audit ({AUDIT_JSON} and {AUDIT_PLOT}; "
                        "write one with `mpcbench judge-audit RUN... --out DIR`)")
    figures = json.loads((audit_dir / AUDIT_JSON).read_text())
    if (out / AUDIT_PLOT).resolve() != (audit_dir / AUDIT_PLOT).resolve():
        shutil.copyfile(audit_dir / AUDIT_PLOT, out / AUDIT_PLOT)
    return figures, AUDIT_PLOT


def audit_section(figures: dict) -> dict:
    """The section's title, table, note and sentences (the episodes, agreement).

    >>> fig = {"options": {"episodes": 2, "judge_trials": 1, "runs": ["r"]}, "judge_agreement": None,
    ...        "trial_agreement": [], "judges": [{"judge_model": "j", "scored": 2, "judge_failures": 0,
    ...        "spearman_f1": 1.0, "spearman_em": 1.0, "confusion": {"pass_em": 1, "pass_not_em": 0,
    ...        "fail_em": 0, "fail_not_em": 1}, "breaks_constraint": 1, "false_pass_rate": 0.0,
    ...        "false_pass_constraints": {}, "false_fail_rate": 0.0}]}
    >>> audit_section(fig)["body"]
    [['j', '2', '0', '1.00', '1.00', '1 / 0', '0 / 1', '0% of 1', '—', '0%']]
    """
    header = ["Judge", "Scored", "Judge failures", "Spearman vs F1", "Spearman vs EM", "Pass: EM / not EM",
              "Fail: EM / not EM", "False-pass rate (breaks a constraint)", "Constraints passed anyway",
              "False-fail rate"]
    body = []
    for m in figures["judges"]:
        c = m["confusion"]
        kinds = ", ".join(f"{kind} ({n})" for kind, n in m["false_pass_constraints"].items()) or "—"
        body.append([m["judge_model"], str(m["scored"]), str(m["judge_failures"]), _num(m["spearman_f1"]),
                     _num(m["spearman_em"]), f"{c['pass_em']} / {c['pass_not_em']}", f"{c['fail_em']} / {c['fail_not_em']}",
                     f"{_pct(m['false_pass_rate'])} of {m['breaks_constraint']}", kinds, _pct(m["false_fail_rate"])])
    options = figures["options"]
    sentences = [f"{options['episodes']} episodes from {len(options['runs'])} run(s), each judged "
                 f"{options['judge_trials']} time(s) per judge model."]
    agreement = figures.get("judge_agreement")
    for p in (agreement or {}).get("pairs", []):
        sentences.append(f"{p['judges'][0]} vs {p['judges'][1]} ({p['episodes']} episodes): Cohen's kappa of "
                         f"pass/fail {_num(p['kappa_pass'])}, quadratic-weighted kappa {_num(p['kappa_scores_quadratic'])}.")
    if agreement:
        sentences.append(f"Krippendorff's alpha (interval) over all judges: {_num(agreement['alpha_interval'])}.")
    for t in figures.get("trial_agreement") or []:
        sentences.append(f"{t['judge_model']}, {t['trials']} trials on {t['episodes']} episodes: Krippendorff's "
                         f"alpha (interval) {_num(t['alpha_interval'])}; pass/fail flips on "
                         f"{_pct(t['pass_flip_rate'])} of them.")
    note = ("The legacy benchmark's two-axis LLM judge (`mpcbench judge-audit`, docs/judge_audit.md) on MPCBench "
            "episodes whose answers the oracle scores exactly. A judge passes an answer when its "
            "requirements-satisfaction score is 4 of 5 or more; figures on each judge's first trial, judge failures "
            "left out. False-pass rate: of the answers that break a constraint, the share the judge passes; "
            "false-fail rate: of the exact matches, the share it fails.")
    return {"title": "LLM judge vs. the SQL oracle", "header": header, "body": body, "note": note,
            "sentences": sentences}
