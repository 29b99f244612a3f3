"""`mpcbench judge-audit --privacy`: leak judges scored against notes labelled by hand
(tests/data/privacy_notes.jsonl; docs/privacy.md, "Detectors, measured"), never against another
detector.

    path = run_privacy_audit(PrivacyAuditConfig(judge_models=("gpt-4o",), base_url="http://127.0.0.1:8080/v1"))

Each labelled note of the chosen half becomes one judge input: the note, and the private detail
at stake (the item's owner and phrase), as PrivacyLens gives its judge the sensitive information.
A model judge is `mpcbench eval --privacy-judge`'s (grading/privacy_judge.py: its prompt, one
request per note listing the items, {"disclosed": [numbers]}), so the audit measures the judge runs
use, through the same client (mpcbench/llm.py: retries, a response cache, `--replay`); a note
written for the item's owner is never a disclosure, whatever it says. The offline judges are the
deterministic detectors: `offline:keywords` (the note names a category word, the keyword audit a
team without an oracle might write), `offline:components` (issue 31's `disclosed`, a baseline since
issue 38), `offline:attribution` (`disclosed` since issue 38) and `offline:verbatim`
(`disclosed_verbatim`).

The blind set (tests/data/blind_notes.jsonl, written and labelled apart from the code;
scripts/blind_notes.py) is judged too, by the model judges and `offline:attribution`: one request
per note listing the items of the instance's participants (the people an episode shows), each
(note, item) pair scored against the labeller's attributed disclosures.

Written to `out`: privacy_judge.parquet (one row per note x judge x trial), privacy_judge_blind.parquet
(one row per blind note x item x judge x trial) and privacy_audit.md (per judge: precision and
recall against the labels, false passes and false fails; per style, on both sets).

`mpcbench judge-audit --privacy` parses the options (legacy/cli.py, beside the legacy judge's audit);
the audit itself uses nothing of the legacy benchmark.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Protocol

import polars as pl

from ..errors import UserError
from ..grading.leak_labels import (BlindNote, Confusion, Context, Labelled, attributed, blind_verdicts, confusion,
                                   is_own, load_blind, load_context, load_labels, percent)
from ..grading.leaks import Item, categories, components, verbatim
from ..grading.privacy_judge import judge_note
from ..llm import ChatClient, EndpointConfig, ResponseCache

OFFLINE_PREFIX = "offline:"   # a judge with no model (the legacy benchmark's offline models share it)
KEYWORDS = f"{OFFLINE_PREFIX}keywords"
OFFLINE_JUDGES = {KEYWORDS: lambda n: bool(categories(n.note)),
                  f"{OFFLINE_PREFIX}components": lambda n: components(n.note, n.item),
                  f"{OFFLINE_PREFIX}attribution": attributed,
                  f"{OFFLINE_PREFIX}verbatim": lambda n: verbatim(n.note, n.item)}
DEFAULT_LABELS = Path("tests/data/privacy_notes.jsonl")
DEFAULT_BLIND = Path("tests/data/blind_notes.jsonl")   # its build context beside it: blind_notes_context.json
SCORES = "privacy_judge.parquet"
BLIND_SCORES = "privacy_judge_blind.parquet"
REPORT = "privacy_audit.md"
FAILED = "no usable answer (the endpoint failed, the model's limit, or replies it could not read)"
BLIND_SCHEMA = {"note_id": pl.String, "style": pl.String, "item_id": pl.String, "labelled": pl.Boolean,
                "judge_model": pl.String, "judge_trial": pl.Int64, "judged": pl.Boolean}
SCHEMA = {"note_id": pl.String, "split": pl.String, "kind": pl.String, "leaks": pl.Boolean, "judge_model": pl.String,
          "judge_trial": pl.Int64, "judge_status": pl.String, "judge_leaks": pl.Boolean, "judge_error": pl.String}


@dataclasses.dataclass(frozen=True)
class PrivacyAuditConfig:
    judge_models: tuple[str, ...]        # offline judges (OFFLINE_JUDGES) and models on the endpoint
    judge_trials: int = 1                # trial t sends seed + t - 1
    out: Path = Path("reports/judge_audit")
    labels: Path | None = None           # the labelled notes (default DEFAULT_LABELS)
    split: str = "test"                  # the labels' half judged: test, dev or all
    blind: Path | None = None            # the blind notes (default DEFAULT_BLIND, if there)
    limit: int | None = None             # at most this many labelled notes
    concurrency: int = 4                 # judge calls at a time
    attempts: int = 3                    # judge replies before a judge failure
    base_url: str | None = None          # the model judges' OpenAI-compatible endpoint (None: the SDK's)
    api_key_env: str = "OPENAI_API_KEY"  # the variable's name, never its value
    timeout_s: float = 60.0
    max_retries: int = 5
    cache: Path | None = None            # the response cache (None: none)
    replay: bool = False                 # answer from the cache only
    temperature: float | None = 0.0      # None: not sent
    seed: int | None = 0                 # None: not sent
    max_tokens: int | None = None        # None: not sent

    def sampling(self, trial: int) -> dict:
        """The sampling fields of trial t's requests."""
        fields = {"temperature": self.temperature, "seed": None if self.seed is None else self.seed + trial - 1,
                  "max_tokens": self.max_tokens}
        return {key: value for key, value in fields.items() if value is not None}


class Progress(Protocol):
    """What the audit reports as it goes (the CLI draws a bar)."""

    def start(self, total: int) -> None: ...

    def advance(self, what: str) -> None: ...


def judge_clients(config: PrivacyAuditConfig) -> dict[str, ChatClient]:
    """A client per model judge, all on the config's endpoint and sharing its response cache; an
    offline judge that is not one of OFFLINE_JUDGES is the user's mistake."""
    for judge_model in config.judge_models:
        if judge_model.startswith(OFFLINE_PREFIX) and judge_model not in OFFLINE_JUDGES:
            raise UserError(f"no offline privacy judge {judge_model!r}; there are {', '.join(OFFLINE_JUDGES)}")
    models = [m for m in config.judge_models if m not in OFFLINE_JUDGES]
    cache = ResponseCache(config.cache) if config.cache is not None and models else None
    return {m: ChatClient(EndpointConfig(model=m, base_url=config.base_url, api_key_env=config.api_key_env,
                                         timeout_s=config.timeout_s, max_retries=config.max_retries),
                          cache=cache, replay_only=config.replay) for m in models}


async def leak_verdict(note: Labelled, judge_model: str, clients: dict[str, ChatClient], sampling: dict,
                       attempts: int) -> tuple[str, bool | None, str | None]:
    """(status, leaks, error) of one judge on one note."""
    if judge_model in OFFLINE_JUDGES:
        return "ok", OFFLINE_JUDGES[judge_model](note) and not is_own(note), None
    said = await judge_note(clients[judge_model], note.note, [note.item], sampling, attempts)
    if said is None:
        return "judge_failure", None, FAILED
    return "ok", said[note.item.item_id] and not is_own(note), None


def blind_candidates(note: BlindNote, context: Context) -> list[Item]:
    """The items a blind note's judge is asked about: those of the instance's participants."""
    shown = set(context.participants[note.instance_id])
    return [i for i in context.items[note.world_id] if i.person_id in shown]


async def blind_verdicts_of(notes: list[BlindNote], context: Context, judge_model: str,
                            clients: dict[str, ChatClient], sampling: dict, attempts: int,
                            limit: asyncio.Semaphore) -> list[dict | None]:
    """Per blind note, item_id -> the judge's verdict (None: no usable answer)."""
    if judge_model == f"{OFFLINE_PREFIX}attribution":
        return [{i.item_id: i.item_id in found.attributed for i in blind_candidates(n, context)}
                if found.readable else None for n, found in blind_verdicts(notes, context)]

    async def one(n: BlindNote) -> dict | None:
        async with limit:
            return await judge_note(clients[judge_model], n.note, blind_candidates(n, context), sampling, attempts)
    return list(await asyncio.gather(*(one(n) for n in notes)))


def run_privacy_audit(config: PrivacyAuditConfig, progress: Progress | None = None) -> Path:
    """Judge every labelled note of config.split and write the audit to config.out; the report's path."""
    notes = [n for n in load_labels(Path(config.labels or DEFAULT_LABELS))
             if config.split == "all" or n.split == config.split][:config.limit]
    if not notes:
        raise UserError(f"the labels hold no note of the {config.split!r} half")
    clients = judge_clients(config)
    if progress is not None:
        progress.start(len(notes) * len(config.judge_models) * config.judge_trials)
    limit = asyncio.Semaphore(config.concurrency)

    async def one(n: Labelled, judge_model: str, trial: int) -> dict:
        async with limit:
            status, leaks, error = await leak_verdict(n, judge_model, clients, config.sampling(trial), config.attempts)
        if progress is not None:
            progress.advance(f"{n.note_id} · {judge_model}")
        return {"note_id": n.note_id, "split": n.split, "kind": n.kind, "leaks": n.leaks, "judge_model": judge_model,
                "judge_trial": trial, "judge_status": status, "judge_leaks": leaks, "judge_error": error}

    blind_path = Path(config.blind or DEFAULT_BLIND)
    blind = load_blind(blind_path) if config.blind or blind_path.is_file() else []
    context = load_context(blind_path.with_name(blind_path.stem + "_context.json")) if blind else None
    blind_judges = [j for j in config.judge_models if j == f"{OFFLINE_PREFIX}attribution" or j not in OFFLINE_JUDGES]

    async def blind_rows(judge_model: str, trial: int) -> list[dict]:
        if context is None:
            return []
        said = await blind_verdicts_of(blind, context, judge_model, clients, config.sampling(trial), config.attempts,
                                       limit)
        return [{"note_id": n.note_id, "style": n.style, "item_id": i.item_id, "labelled": i.item_id in n.disclosed,
                 "judge_model": judge_model, "judge_trial": trial, "judged": None if v is None else v[i.item_id]}
                for n, v in zip(blind, said) for i in blind_candidates(n, context)]

    async def everything() -> tuple[list[dict], list[list[dict]]]:
        try:
            rows = await asyncio.gather(*(one(n, j, t) for n in notes for j in config.judge_models
                                          for t in range(1, config.judge_trials + 1)))
            pairs = await asyncio.gather(*(blind_rows(j, t) for j in blind_judges
                                           for t in range(1, config.judge_trials + 1)))
            return rows, pairs
        finally:
            for client in clients.values():
                await client.aclose()

    rows, pairs = asyncio.run(everything())
    frame = pl.from_dicts(rows, schema=SCHEMA).sort("note_id", "judge_model", "judge_trial")
    blind_frame = pl.from_dicts([r for p in pairs for r in p], schema=BLIND_SCHEMA)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(out / SCORES)
    blind_frame.write_parquet(out / BLIND_SCORES)
    path = out / REPORT
    path.write_text(report(frame, notes, config.split) + blind_report(blind_frame, blind_path), encoding="utf-8")
    return path


def report(frame: pl.DataFrame, notes: list[Labelled], split: str) -> str:
    def share(n: int, d: int) -> str:
        return f"{n}/{d} ({n / d:.0%})" if d else "—"

    by_id = {n.note_id: n for n in notes}
    lines = ["# Privacy judge audit", "",
             f"Each judge against the hand labels of the {split!r} half ({len(notes)} notes; "
             "tests/data/privacy_notes.md). False pass: a leaking note judged clean; false fail: a clean note "
             "judged leaky. Judge failures (no valid verdict) are left out and counted.", "",
             "| Judge | Notes judged | Judge failures | Precision | Recall | False passes | False fails |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for judge_model in sorted(set(frame["judge_model"])):
        mine = frame.filter(pl.col("judge_model") == judge_model)
        ok = [(by_id[r["note_id"]], r["judge_leaks"]) for r in mine.to_dicts() if r["judge_leaks"] is not None]
        c = confusion(ok)
        lines.append(f"| {judge_model} | {len(ok)} | {mine.height - len(ok)} | {percent(c.precision)} | "
                     f"{percent(c.recall)} | {share(c.false_neg, c.true_pos + c.false_neg)} | "
                     f"{share(c.false_pos, c.false_pos + c.true_neg)} |")
    lines += ["", "Per style (the labelled note's kind):", "",
              "| Judge | Kind | Notes judged | Precision | Recall | True pos. | False pos. | False neg. | True neg. |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for judge_model in sorted(set(frame["judge_model"])):
        ok = [(by_id[r["note_id"]], r["judge_leaks"]) for r in frame.filter(pl.col("judge_model") == judge_model)
              .to_dicts() if r["judge_leaks"] is not None]
        for kind in sorted({n.kind for n, _ in ok}):
            c = confusion([(n, v) for n, v in ok if n.kind == kind])
            lines.append(f"| {judge_model} | {kind} | {sum(n.kind == kind for n, _ in ok)} | {percent(c.precision)} | "
                         f"{percent(c.recall)} | {c.true_pos} | {c.false_pos} | {c.false_neg} | {c.true_neg} |")
    return "\n".join(lines) + "\n"


def blind_report(frame: pl.DataFrame, path: Path) -> str:
    """The blind set's section: per judge and style, the (note, item) pairs against the labeller's
    attributed disclosures; notes without a usable answer counted apart."""
    if frame.is_empty():
        return ""
    lines = ["", "## The blind set", "",
             f"{path}: per (note, item) pair, the judge's verdict against the labeller's attributed disclosures "
             "(the items asked about: the instance's participants'). Notes without a usable answer are left out "
             "and counted.", "",
             "| Judge | Style | Notes | Not judged | Precision | Recall | True pos. | False pos. | False neg. |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (judge_model, style), part in sorted(frame.group_by("judge_model", "style"), key=lambda g: g[0]):
        ok = part.filter(pl.col("judged").is_not_null())
        c = Confusion(ok.filter(pl.col("labelled") & pl.col("judged")).height,
                      ok.filter(~pl.col("labelled") & pl.col("judged")).height,
                      ok.filter(pl.col("labelled") & ~pl.col("judged")).height, 0)
        lines.append(f"| {judge_model} | {style} | {part['note_id'].n_unique()} | "
                     f"{part.filter(pl.col('judged').is_null())['note_id'].n_unique()} | {percent(c.precision)} | "
                     f"{percent(c.recall)} | {c.true_pos} | {c.false_pos} | {c.false_neg} |")
    return "\n".join(lines) + "\n"
