"""The trajectory viewer: one HTML page per episode under `trajectories/`, and an index per run,
linked from report.html (which stays small however big the runs are).

    write_trajectories(runs, labels, Path("reports/x"), "failed")
    # -> reports/x/trajectories/01-<run>/index.html, L1-0003-t1.html, ...

A page shows the prompt, every tool call with its arguments and the text it returned, the
model's messages, each turn's answer with a verdict per candidate (gold rank, or each violation
with its source row, from candidates.parquet), the failure causes of that answer
(failures.parquet) and the feedback the harness gave. A model's tool texts come from the
journal's transcript. An offline agent's transcript keeps only its submissions (a program reads its sources
outside the conversation), so its data-tool calls are run
again on the build recorded in run.json (tools are deterministic SQL), when that file is there
with the same content hash; each text's length is checked against the recorded `result_chars`.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import duckdb
import polars as pl

from ..episode.answers import SUBMIT_TOOL_NAME
from ..episode.record import is_harness_error, unscored
from ..episode.environment import Environment
from ..errors import UserError
from ..harness.journal import read_journal
from ..harness.provenance import build_content_hash
from ..warehouse import db
from .load import Run

WHICH = ("all", "failed", "none")
CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1000px;margin:1.5em auto;padding:0 .8em;
color:#222;overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f7f7;
border:1px solid #e3e3e3;padding:6px;font-size:12px;max-height:32em;overflow-y:auto;margin:.3em 0}
.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:13px;margin:.5em 0;overflow-wrap:normal}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f3f3f3}
details{margin:.3em 0;border-left:3px solid #ddd;padding-left:.5em}summary{cursor:pointer}
.note{color:#555;font-size:13px}.bad{color:#b00}.good{color:#2a7a1a}.who{font-weight:600;margin-top:.8em}"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "run"


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
            f"content='width=device-width, initial-scale=1'><title>{_e(title)}</title><style>{CSS}</style>"
            f"</head><body>{body}</body></html>")


def _table(header: list[str], rows: list[list[str]]) -> str:
    """Cells are HTML already."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


class ToolTexts:
    """The text an offline agent's tool call returned, run again on the run's build; None where the
    build is not there or has other content."""

    def __init__(self, meta: dict):
        build = meta.get("build") or {}
        self.con: duckdb.DuckDBPyConnection | None = None
        self.why = "the run's build is not recorded in run.json"
        path = Path(build["db"]) if build.get("db") else None
        if path is not None and not path.exists():
            self.why = f"the run's build {path} is not there"
        elif path is not None:
            try:
                con = db.open_existing(path)
            except (duckdb.Error, UserError) as e:
                self.why = f"the run's build {path} cannot be opened ({type(e).__name__})"
                return
            if build_content_hash(con) == build.get("content_sha256"):
                self.con, self.why = con, ""
            else:
                con.close()
                self.why = f"the build {path} has changed since the run"

    def texts(self, instance_id: str, calls: list[dict], task: str = "propose") -> list[str | None]:
        if self.con is None:
            return [None] * len(calls)
        with Environment(self.con, instance_id, task=task) as env:   # a booking's writes, again, in its overlay
            return [env.call(c["tool"], c["arguments"]) for c in calls]

    def close(self) -> None:
        if self.con is not None:
            self.con.close()


class _NoTexts:
    """A model's texts are in its transcript; nothing to run again."""
    why = ""

    def texts(self, instance_id: str, calls: list[dict], task: str = "propose") -> list[None]:
        return [None] * len(calls)


_NO_TEXTS = _NoTexts()


def _call_html(call: dict, meta: dict | None, text: str | None, missing: str = "The text is not recorded.") -> str:
    meta = meta or {}
    step = f"step {meta['step']} · " if meta.get("step") else ""
    error = meta.get("error")
    size = f" · {meta['result_chars']} chars" if meta.get("result_chars") is not None else ""
    flag = " · <span class='bad'>error</span>" if error else ""
    if meta.get("rows_beyond_need"):
        flag += f" · <span class='bad over-read'>read {meta['rows_beyond_need']} personal row(s) beyond the task's scope</span>"
    summary = f"{step}<code>{_e(call['tool'])}</code>({_e(_short(call['arguments']))}){size}{flag}"
    if text is None:
        shown = f"<p class='note'>{_e(missing)}</p>"
    else:
        mismatch = (meta.get("result_chars") is not None and call["tool"] != SUBMIT_TOOL_NAME
                    and len(text) != meta["result_chars"])
        shown = (f"<p class='bad'>Run again, this text has {len(text)} characters, not the "
                 f"{meta['result_chars']} recorded.</p>" if mismatch else "") + f"<pre>{_e(text)}</pre>"
    return (f"<details{' open' if error else ''}><summary>{summary}</summary>"
            f"<div class='note'>arguments</div><pre>{_e(call['arguments'])}</pre>{shown}</details>")


def _short(arguments, limit: int = 90) -> str:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _verdict(c: dict) -> str:
    if c.get("in_gold"):
        return f"<span class='good'>gold, rank {c['gold_rank']}</span>"
    parts = []
    if c.get("problem"):
        parts.append(_e(c["problem"]))
    if c.get("is_duplicate"):
        parts.append("a repeat of an earlier candidate")
    if c.get("violation_rows"):
        parts.append("<br>".join(f"<code>{_e(v)}</code>" for v in c["violation_rows"]))
    elif c.get("feasible"):
        parts.append("feasible, but not among the first N")
    return "<span class='bad'>wrong</span>: " + ("<br>".join(parts) or "unexplained")


def _marked(note: str, phrases: list[str]) -> str:
    """The note, escaped, with every occurrence of the disclosed phrases (any case, any spacing) marked."""
    if not phrases:
        return _e(note)
    pattern = "|".join(r"\s+".join(map(re.escape, p.split())) for p in sorted(phrases, key=len, reverse=True))
    parts = re.split(f"({pattern})", note, flags=re.IGNORECASE)
    return "".join(f"<mark class='bad' title='discloses a sensitive item'>{_e(p)}</mark>" if i % 2 else _e(p)
                   for i, p in enumerate(parts))


def _answer_html(answer: dict, candidates: list[dict], failures: list[dict], disclosed: list[str]) -> str:
    turn = answer.get("turn") or 1
    out = [f"<h3>Answer, turn {turn}</h3>"]
    if not answer.get("parse_ok"):
        out.append(f"<p class='bad'>Not read: {_e(answer.get('error') or 'no answer')}</p>")
    if answer.get("note") is not None:
        out.append(f"<div class='note'>Note to the participants (each phrase it quotes marked):</div>"
                   f"<pre>{_marked(answer['note'], disclosed)}</pre>")
        if disclosed:   # the attribution detector's finds, quoted or not (docs/privacy.md)
            out.append("<div class='note'>It discloses: "
                       + "; ".join(f"<span class='bad'>{_e(p)}</span>" for p in disclosed) + "</div>")
    if answer.get("raw"):
        out.append(f"<details><summary>as written ({answer.get('path') or '?'})</summary>"
                   f"<pre>{_e(answer['raw'])}</pre></details>")
    if candidates:
        out.append(_table(["#", "Start", "Room", "Verdict: each violation as kind:constraint@table.row"],
                          [[str(c["position"]), _e(c.get("start")), _e(c.get("room_id") or ""), _verdict(c)]
                           for c in candidates]))
    elif answer.get("candidates"):
        out.append(_table(["#", "Start", "Room", "Problem"],
                          [[str(i), _e(c.get("start")), _e(c.get("room_id") or ""), _e(c.get("problem") or "")]
                           for i, c in enumerate(answer["candidates"], 1)]))
    if failures:
        out.append("<div class='note'>Failure causes of this answer (failures.parquet):</div>")
        out.append(_table(["Cause", "Source", "Constraint", "Source row", "Stage", "Candidates"],
                          [[_e(f["cause"]), _e(f.get("source")), _e(f"{f.get('constraint_kind') or ''} "
                                                                     f"{f.get('constraint_id') or ''}".strip()),
                            _e(f"{f['source_table']}.{f['source_row_id']}" if f.get("source_table") else ""),
                            _e(f.get("stage")), _e(", ".join(map(str, f.get("positions") or [])))]
                           for f in failures]))
    return "".join(out)


def episode_html(rec: dict, row: dict | None, candidates: list[dict], failures: list[dict],
                 texts: "ToolTexts | _NoTexts", title: str, disclosed: list[str] | None = None,
                 beyond: dict[tuple[int, int], int] | None = None) -> str:
    """One episode's page: the transcript walked message by message; an offline agent's data
    tool calls (absent from its transcript) placed at the start of their turn."""
    transcript = rec.get("transcript") or []
    calls = [{**c, "rows_beyond_need": (beyond or {}).get((c.get("turn") or 1, c.get("step") or 0))}
             for c in rec.get("tool_calls") or []]
    answers = {int(a.get("turn") or 1): a for a in rec.get("answers") or []}
    by_turn = lambda items, t: [x for x in items if (x.get("turn") or 1) == t]  # noqa: E731
    recorded = not isinstance(texts, ToolTexts)   # a model's tool texts are in its transcript
    failed = "harness error" if is_harness_error(rec) else "infrastructure error"
    out = [f"<p><a href='index.html'>← all episodes of this run</a></p><h1>{_e(title)}</h1>"]
    if row:
        status = (f"<span class='bad'>{failed}: {_e(row['error'])}</span>" if unscored(row) else
                  f"F1 {row['f1']:.2f} · {'exact match' if row['exact_match'] else 'not an exact match'}"
                  + (f" · primary cause {_e(row['failure_cause'])} ({_e(row['failure_stage'] or '—')}): "
                     f"{_e(row.get('failure_detail') or '')}" if row.get("failure_cause") else ""))
        out.append(f"<p>{status}</p><p class='note'>{row['turns']} turn(s), {row['tool_calls']} tool call(s), "
                   f"{row['latency_s']:.1f} s</p>")
    turn, meta_iter = 1, iter(calls)

    def offline_calls(t: int) -> str:
        data = [c for c in by_turn(calls, t) if c["tool"] != SUBMIT_TOOL_NAME]
        missing = f"The text is not recorded: an offline agent's tool texts are not journaled, and {texts.why}."
        return "".join(_call_html(c, c, text, missing) for c, text in zip(data, texts.texts(rec["instance_id"], data,
                                                                                   rec.get("task", "propose"))))

    def answer(t: int) -> str:
        return (_answer_html(answers[t], by_turn(candidates, t), by_turn(failures, t), disclosed or [])
                if t in answers else "")

    users = 0
    for i, m in enumerate(transcript):
        role = m.get("role")
        if role == "system":
            out.append(f"<details><summary>System prompt</summary><pre>{_e(m.get('content'))}</pre></details>")
        elif role == "user":
            users += 1
            if users == 1:
                out.append(f"<h2>Prompt</h2><pre>{_e(m.get('content'))}</pre><h2>Turn 1</h2>")
            else:
                out.append(answer(turn) + f"<div class='who'>Feedback</div><pre>{_e(m.get('content'))}</pre>")
                turn += 1
                out.append(f"<h2>Turn {turn}</h2>")
            if not recorded:
                out.append(offline_calls(turn))
        elif role == "assistant":
            if m.get("content"):
                out.append(f"<div class='who'>Model</div><pre>{_e(m['content'])}</pre>")
            replies = iter(x for x in transcript[i + 1:] if x.get("role") == "tool")
            for call in m.get("tool_calls") or []:
                function = call.get("function") or {}
                shown = {"tool": function.get("name") or "", "arguments": function.get("arguments") or ""}
                reply = next(replies, None)
                text = reply.get("content") if reply is not None else None
                out.append(_call_html(shown, next(meta_iter, None) if recorded else None, text,
                                      "The text is not recorded." if recorded else
                                      "Submitted to the harness directly: an offline agent gets no tool reply."))
    out.append(answer(turn))
    if rec.get("writes") is not None:   # --task book: the state it left is what is graded
        verdict = "" if not row or row.get("task_success") is None else \
            f" · task success: {'yes' if row['task_success'] else 'no'}"
        out.append(f"<h2>Final state{verdict}</h2><pre>{_e(json.dumps(rec['writes'], indent=2))}</pre>")
    if unscored(rec):
        out.append(f"<p class='bad'>The episode ended in an {failed}: {_e(rec['error'])}</p>")
    return _page(title, "".join(out))


def _rows(path: Path) -> dict[tuple[str, int], list[dict]]:
    if not path.exists():
        return {}
    out: dict[tuple[str, int], list[dict]] = {}
    for r in pl.read_parquet(path).to_dicts():
        out.setdefault((r["instance_id"], r["trial"]), []).append(r)
    return out


def write_trajectories(runs: list[Run], labels: list[str], out: Path, which: str) -> list[tuple[str, str, int, int]]:
    """Write the pages of every run's episodes (`all`; `failed`: those with a wrong answer at any
    turn, or an infrastructure error; or `none`); returns (label, index path relative to out, pages written,
    episodes) per run."""
    if which not in WHICH:
        raise UserError(f"--trajectories takes one of {', '.join(WHICH)}, not {which!r}")
    if which == "none":
        return []
    written: list[tuple[str, Path, int, int]] = []
    opened: dict[tuple, ToolTexts] = {}   # one connection per build (db, content hash), shared by its runs
    try:
        for n, (run, label) in enumerate(zip(runs, labels), 1):
            directory = out / "trajectories" / f"{n:02d}-{_slug(run.meta.get('run_id') or label)}"
            written.append(_write_run(run, label, directory, which, opened))
    finally:
        for texts in opened.values():
            texts.close()
    return [(label, index.relative_to(out).as_posix(), pages, total) for label, index, pages, total in written]


def _write_run(run: Run, label: str, directory: Path, which: str,
              opened: dict[tuple, ToolTexts]) -> tuple[str, Path, int, int]:
    directory.mkdir(parents=True, exist_ok=True)
    journal = read_journal(run.path / "journal.jsonl")
    candidates, failures = _rows(run.path / "candidates.parquet"), _rows(run.path / "failures.parquet")
    disclosures = _rows(run.path / "disclosures.parquet")
    beyond: dict[tuple[str, int], dict[tuple[int, int], int]] = {}
    for episode, calls in _rows(run.path / "tool_calls.parquet").items():
        beyond[episode] = {(c["turn"], c["step"]): c["rows_beyond_need"] for c in calls if c.get("rows_beyond_need")}
    rows = {(r["instance_id"], r["trial"]): r for r in run.runs.to_dicts()}
    texts: ToolTexts | _NoTexts = _NO_TEXTS
    if not run.meta.get("model"):  # an offline agent: its tool texts are run again
        build = run.meta.get("build") or {}
        key = (build.get("db"), build.get("content_sha256"))
        texts = opened[key] if key in opened else opened.setdefault(key, ToolTexts(run.meta))
    index, pages = [], 0
    for key in sorted(rows, key=lambda k: (rows[k]["level"], k)):
        row, rec = rows[key], journal.get(key)
        failed = unscored(row) or row.get("solved_turn") != 1  # a wrong answer at some turn
        name = f"{_slug(key[0])}-t{key[1]}.html"
        link = "not in the journal" if rec is None else "not written (--trajectories failed)"
        if rec is not None and (which == "all" or failed):
            title = f"{key[0]} · trial {key[1]} · {label}"
            (directory / name).write_text(episode_html(
                rec, row, candidates.get(key, []), failures.get(key, []), texts, title,
                [d["phrase"] for d in disclosures.get(key, [])], beyond.get(key)))
            link, pages = f"<a href='{_e(name)}'>open</a>", pages + 1
        outcome = ("infrastructure error" if unscored(row) else
                   "exact match" if row.get("exact_match") else _e(row.get("failure_cause")))
        index.append([_e(key[0]), str(key[1]), str(row["level"]),
                      "—" if row.get("f1") is None else f"{row['f1']:.2f}", outcome, link])
    (directory / "index.html").write_text(_page(
        f"Trajectories · {label}",
        f"<p><a href='../../report.html'>← report</a></p><h1>Trajectories · {_e(label)}</h1>"
        f"<p class='note'>Run {_e(run.meta.get('run_id'))}: {pages} of {len(rows)} episode page(s) written.</p>"
        + _table(["Instance", "Trial", "Level", "F1", "Outcome", "Trajectory"], index)))
    return label, directory / "index.html", pages, len(rows)
