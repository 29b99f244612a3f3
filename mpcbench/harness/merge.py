"""`mpcbench merge`: the shards of one eval (`mpcbench eval --shard i/n`) joined into one run.

    merge_runs([Path("runs/s1"), Path("runs/s2")], Path("runs/all"))

The shards must be every shard of one n, each once, of the same options (all but the shard, the
run directory and how the endpoint was reached) on the same build; together their journals must
hold exactly the episodes the run without --shard plans: none missing, none twice. The merged
run's journal is theirs, its tables are computed from it as any run's are (`tables.finalize`),
so it is the run that one process would have written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from ..errors import UserError
from ..warehouse import db
from .config import JOURNAL, PRIVACY_JUDGE_CACHE, RESUME_MAY_CHANGE, RUN_JSON, EvalConfig, option_name
from .journal import Journal, read_journal, read_run_json, write_json
from .plans import parse_shard, plan_episodes
from .tables import finalize

IGNORED = {"shard", *RESUME_MAY_CHANGE}


def _shards(run_dirs: list[Path]) -> list[tuple[Path, dict, EvalConfig]]:
    shards = []
    for run_dir in run_dirs:
        if not (run_dir / RUN_JSON).is_file():
            raise UserError(f"{run_dir} holds no run.json: not a run directory")
        meta = read_run_json(run_dir / RUN_JSON)
        config = EvalConfig.from_public(meta.get("options") or {})
        if config.shard is None:
            raise UserError(f"{run_dir} is not a shard (it was run without --shard)")
        shards.append((run_dir, meta, config))
    return shards


def _shard_of(config: EvalConfig) -> tuple[int, int]:
    """(i, n) of a shard run with --shard i/n."""
    if config.shard is None:
        raise UserError("every run merged is a shard, run with --shard i/n")
    return parse_shard(config.shard)


def _check_same(shards: list[tuple[Path, dict, EvalConfig]]) -> None:
    """One line naming the first option (or the build) in which a shard differs from the first."""
    first_dir, first_meta, first = shards[0]
    fields = [f.name for f in dataclasses.fields(EvalConfig) if f.name not in IGNORED]
    for run_dir, meta, config in shards[1:]:
        for name in fields:
            if getattr(config, name) != getattr(first, name):
                raise UserError(f"shards of different runs: {run_dir} has {option_name(name)} "
                                f"{getattr(config, name)!r}, {first_dir} {getattr(first, name)!r}")
        if meta.get("build", {}).get("content_sha256") != first_meta.get("build", {}).get("content_sha256"):
            raise UserError(f"shards of different builds: {run_dir} and {first_dir} (content hash differs)")
    counts = {_shard_of(config)[1] for _, _, config in shards}
    if len(counts) > 1:
        raise UserError(f"shards of different splits: --shard i/n with n = {', '.join(map(str, sorted(counts)))}")
    n = counts.pop()
    seen: dict[int, Path] = {}
    for run_dir, _, config in shards:
        i = _shard_of(config)[0]
        if i in seen:
            raise UserError(f"shard {i}/{n} is given twice: {seen[i]} and {run_dir}")
        seen[i] = run_dir
    missing = sorted(set(range(1, n + 1)) - seen.keys())
    if missing:
        raise UserError(f"shard {missing[0]}/{n} is missing ({len(missing)} of {n} shards not given)")


def merge_runs(run_dirs: list[Path], out: Path, db_path: Path | None = None) -> dict:
    """Check the shards, write the merged run into `out` (a new directory) and return its run.json."""
    shards = _shards([Path(d) for d in run_dirs])
    _check_same(shards)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise UserError(f"--out {out} is not empty; choose a new directory for the merged run")
    _, first_meta, first = shards[0]
    records: dict[tuple[str, int], dict] = {}
    for run_dir, _, _ in shards:
        for key, record in read_journal(run_dir / JOURNAL).items():
            if key in records:
                raise UserError(f"episode {key[0]} trial {key[1]} is in two shards (the second: {run_dir})")
            records[key] = record
    con = db.open_existing(db_path or first.db, episodes=True)
    try:
        planned = plan_episodes(con, dataclasses.replace(first, shard=None))
        wanted = {(i, t) for i, _, t in planned}
        missing = sorted(wanted - records.keys())
        if missing:
            raise UserError(f"the shards lack {len(missing)} episode(s) of the run, e.g. {missing[0][0]} trial "
                            f"{missing[0][1]}; finish the shard with mpcbench eval --resume --out SHARD")
        extra = sorted(records.keys() - wanted)
        if extra:
            raise UserError(f"the shards hold {len(extra)} episode(s) the run does not plan, e.g. {extra[0][0]}")
        out.mkdir(parents=True, exist_ok=True)
        meta = {**first_meta, "run_id": out.name, "created_at": dt.datetime.now().isoformat(timespec="seconds"),
                "options": dataclasses.replace(first, shard=None, out=str(out)).public(),
                "merged_from": sorted(str(d) for d, _, _ in shards), "episodes": {"planned": len(planned)}}
        write_json(out / RUN_JSON, meta)
        journal = Journal(out / JOURNAL)
        try:
            for key in sorted(records, key=lambda k: (records[k]["level"], k)):
                journal.append(records[key])
        finally:
            journal.close()
        caches = [d / PRIVACY_JUDGE_CACHE for d, _, _ in shards if (d / PRIVACY_JUDGE_CACHE).is_file()]
        if caches:   # --privacy-judge: the merged run's tables read the shards' answers (JSON lines, joined)
            (out / PRIVACY_JUDGE_CACHE).write_bytes(b"".join(c.read_bytes() for c in caches))
        return finalize(out, con, planned=planned)
    finally:
        con.close()
