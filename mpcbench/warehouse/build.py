"""`mpcbench build`: generate each level's world, keep the candidates the oracle accepts, and
write the warehouse.

Candidates are sampled in rounds and judged all at once in SQL (oracle_summary,
oracle_necessity): a candidate with fewer than N feasible starts is discarded; one where a
required source does not change the answer is rejected. Candidates are taken in index order
until the level has its instances, so the result depends only on the configs. The levels are
independent (each its own world, generator and in-memory DuckDB), so with `jobs` > 1 (the CLI
uses one per core) they are built in worker processes side by side, the largest first; the
result is the same as one after the other. Worker processes are spawned, which re-imports the
caller's main module: a script that passes `jobs` needs an `if __name__ == "__main__":` guard.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import multiprocessing
import queue
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import duckdb

from . import db
from .. import __version__
from ..dataset.rows import insert_rows, instance_rows, load_dataset, thread_rows
from ..dataset.store import atomic_database, write_build_info, write_build_stats
from ..dataset.version import DATASET_VERSION
from ..levels import level_spec
from ..sources import LEVELS, SOURCES
from ..world.candidates import Candidate, draft_candidate, plan_threads, room_need_finder, write_threads
from ..world import privacy
from ..world.config import WorldConfig, load_world_config, world_config_path
from ..world.generate import generate_world
from ..world.split import PRIVATE_SPLITS, seed_hash, split_configs

if TYPE_CHECKING:
    from multiprocessing.queues import Queue

MAX_CANDIDATES_PER_INSTANCE = 50
# Candidates judged per round at most: DuckDB's memory grows with the round (every candidate's
# grid and violations), the fixed cost of a round is small, and verdicts do not depend on it.
MAX_ROUND = 12000

Progress = Callable[[int, str, int, int], None]


class BuildError(RuntimeError):
    """The configs cannot give the asked instances (e.g. almost every candidate is rejected)."""


@dataclass
class LevelResult:
    config: WorldConfig
    world: dict
    instances: list[dict]
    stats: dict


def judge_candidates(con: duckdb.DuckDBPyConnection, threads_added: bool = False) -> dict[str, str]:
    """Verdict per loaded instance: 'kept', 'too_few_feasible' or '<source>_not_needed'
    (`threads_added`: see `db.refresh`). Violation rows are not stored: the labels need only masks."""
    db.refresh(con, judging=True, threads_added=threads_added)
    rows = con.execute("""
        select s.instance_id, s.has_enough_feasible,
               list(n.source) filter (where not n.is_needed) as not_needed
        from oracle_summary as s
        left join oracle_necessity as n on n.instance_id = s.instance_id
        group by s.instance_id, s.has_enough_feasible
    """).fetchall()
    verdicts = {}
    for instance_id, has_enough, not_needed in rows:
        if not has_enough:
            verdicts[instance_id] = "too_few_feasible"
        elif not_needed:
            first = min(not_needed, key=SOURCES.index)
            verdicts[instance_id] = f"{first}_not_needed"
        else:
            verdicts[instance_id] = "kept"
    return verdicts


def _first_starts_without_threads_and_rooms(con: duckdb.DuckDBPyConnection) -> dict[str, list[dt.datetime]]:
    """For loaded drafts (no threads yet): the first 3N feasible starts when rooms are ignored,
    i.e. the framed starts that break nothing (int_feasible_starts), without the necessity check."""
    db.refresh(con, until="int_feasible_starts", judging=True)
    rows = con.execute("""
        select f.instance_id, f.starts_at
        from int_feasible_starts as f
        join stg_instances as i on i.instance_id = f.instance_id
        qualify row_number() over (partition by f.instance_id order by f.starts_at) <= 3 * i.n
        order by f.instance_id, f.starts_at
    """).fetchall()
    starts: dict[str, list[dt.datetime]] = {}
    for instance_id, starts_at in rows:
        starts.setdefault(instance_id, []).append(starts_at)
    return starts


def _clear_instances(con: duckdb.DuckDBPyConnection) -> None:
    """Empty the instance tables of a judging connection (keyless: `db.create_warehouse(con,
    keys=False)`). Recreated, not deleted from: DuckDB keeps deleted rows in memory, and a
    worker's thousands of rounds would make every later one slower."""
    for table in ("requirement_participants", "requirements", "instances"):
        db.empty_table(con, table)


def _sample_round(con: duckdb.DuckDBPyConnection, config: WorldConfig, world: dict,
                  ks: range, room_needs) -> tuple[list[Candidate], dict[str, str]]:
    """Draft candidates ks, aim their threads at the answer without them (planned, not written:
    `ThreadPlan`), and judge them all; they stay loaded (with the oracle's views over them) until
    `_clear_instances`."""
    drafts = [draft_candidate(config, world, k) for k in ks]
    insert_rows(con, instance_rows([d.instance for d in drafts]))
    if not level_spec(config.level).threads:
        candidates = drafts
    else:
        targets = _first_starts_without_threads_and_rooms(con)
        _clear_instances(con)
        plans = [
            plan_threads(config, world, d, targets[d.instance["instance_id"]], room_needs)
            for d in drafts
            if len(targets.get(d.instance["instance_id"], ())) >= d.instance["requirements"]["n"]
        ]
        insert_rows(con, thread_rows(world["world_id"], [p.project for p in plans],
                                     [t for p in plans for t in p.tag_threads()]))
        insert_rows(con, instance_rows([p.instance for p in plans]))
        candidates = [Candidate(p.k, p.instance, p.project, [], p.targets, p) for p in plans]
    verdicts = {d.instance["instance_id"]: "too_few_feasible" for d in drafts}
    verdicts.update(judge_candidates(con, threads_added=level_spec(config.level).threads))
    by_id = {c.instance["instance_id"]: c for c in candidates}
    return [by_id.get(d.instance["instance_id"], d) for d in drafts], verdicts


def select_instances(config: WorldConfig, world: dict, wanted: int, room_needs,
                     progress: Progress | None = None) -> tuple[list[Candidate], dict]:
    con = db.connect(None)
    db.create_warehouse(con, keys=False)
    load_dataset(con, [world], [])
    kept: list[Candidate] = []
    counts = {"too_few_feasible": 0, **{f"{s}_not_needed": 0 for s in SOURCES}}
    next_k = 0
    while len(kept) < wanted:
        if next_k > MAX_CANDIDATES_PER_INSTANCE * wanted + 100:
            raise BuildError(f"{config.path}: only {len(kept)} of {wanted} instances after "
                             f"{next_k} candidates; loosen the config")
        # size the round by the acceptance rate so far, so that few rounds are needed
        judged = len(kept) + sum(counts.values())
        rate = max(len(kept) / judged, 0.05) if judged else 0.5
        size = min(math.ceil((wanted - len(kept)) / rate * 1.2) + 8, MAX_ROUND)
        candidates, verdicts = _sample_round(con, config, world, range(next_k, next_k + size), room_needs)
        _clear_instances(con)
        next_k += size
        for candidate in candidates:
            if len(kept) == wanted:
                break
            verdict = verdicts[candidate.instance["instance_id"]]
            if verdict == "kept":
                kept.append(candidate)
            else:
                counts[verdict] += 1
        if progress:
            progress(config.level, "sampling", len(kept), wanted)
    con.close()
    stats = {"candidates_sampled": len(kept) + sum(counts.values()), **counts}
    return kept, stats


def build_level(config: WorldConfig, wanted: int, progress: Progress | None = None) -> LevelResult:
    world = generate_world(config)
    spec = level_spec(config.level)
    room_needs = room_need_finder(world) if spec.rooms else None  # one cache for every round
    kept, stats = select_instances(config, world, wanted, room_needs, progress)
    if spec.threads:
        kept = [write_threads(config, c.planned()) for c in kept]   # judged on their tags alone (ThreadPlan)
    # sensitive items last, with generators of their own: nothing chosen above moves
    private_world, calendars = privacy.add_world_items(config, world)
    final_world = dict(private_world)
    items = list(final_world.get("sensitive_items", []))
    for i, candidate in enumerate(kept):
        written, found = privacy.add_candidate_items(config, calendars, candidate.k, candidate.instance,
                                                     candidate.threads)
        kept[i] = replace(candidate, threads=written)
        items += found
    if items:
        final_world["sensitive_items"] = items
    if spec.threads:
        final_world["projects"] = world["projects"] + [c.project for c in kept]
        final_world["threads"] = final_world["threads"] + [t for c in kept for t in c.threads]
    instances = []
    for number, candidate in enumerate(kept, start=1):
        instances.append({**candidate.instance, "instance_id": f"L{config.level}-{number:04d}"})
    return LevelResult(config, final_world, instances, stats)


_progress_queue: Queue | None = None   # in a worker process: where its progress events go


def _start_worker(events: Queue) -> None:
    global _progress_queue
    _progress_queue = events


def _build_level_in_worker(config: WorldConfig, wanted: int) -> LevelResult:
    events = _progress_queue
    if events is None:
        raise RuntimeError("a build worker runs after _start_worker")
    return build_level(config, wanted, lambda *event: events.put(event))


def build_levels(configs: list[WorldConfig], instances: int | None, progress: Progress | None = None,
                 jobs: int = 1) -> Iterator[LevelResult]:
    """build_level for every config, in up to `jobs` worker processes; yields the results in
    config order, each as soon as it and those before it are done."""
    wanted = [instances if instances is not None else c.instances for c in configs]
    workers = min(len(configs), jobs)
    if workers < 2:
        yield from (build_level(c, n, progress) for c, n in zip(configs, wanted))
        return
    context = multiprocessing.get_context("spawn")  # no fork of a process that may hold threads
    events = context.Queue()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(events,)) as pool:
        # level 3 takes longest: start it first so the others share the remaining worker
        order = sorted(range(len(configs)), key=lambda i: -configs[i].level)
        futures = {i: pool.submit(_build_level_in_worker, configs[i], wanted[i]) for i in order}
        for i in range(len(configs)):
            while True:
                finished = futures[i].done()
                try:
                    while True:
                        event = events.get(timeout=0.05)
                        if progress:
                            progress(*event)
                except queue.Empty:
                    pass
                if finished:
                    break
            yield futures[i].result()


def build_info(configs: list[WorldConfig], split: str, secret: str | None) -> dict[str, str]:
    """The `build_info` rows: what built the data (the package's version and the dataset's, the
    version of its gold answers), from which configs (their own seeds), which split."""
    info = {"mpcbench_version": __version__, "dataset_version": DATASET_VERSION, "built_by": "mpcbench build",
            "levels": ",".join(str(c.level) for c in configs), "split": split}
    if split in PRIVATE_SPLITS:
        if secret is None:
            raise ValueError(f"a {split} split is built with its secret")
        info["split_seed_hash"] = seed_hash(secret)
    for c in configs:
        info[f"config_level{c.level}"] = Path(c.path).name
        info[f"config_level{c.level}_sha256"] = hashlib.sha256(Path(c.path).read_bytes()).hexdigest()
        info[f"seed_level{c.level}"] = str(c.seed)
    return info


def build(db_path: Path, levels: tuple[int, ...] = LEVELS, instances: int | None = None,
          worlds_dir: Path | None = None, progress: Progress | None = None, jobs: int = 1,
          split: str = "dev", secret: str | None = None) -> list[LevelResult]:
    """Build the `dev` split, or the `test` split from `secret` (see world/split.py): its derived
    seeds stay in memory; the worlds, build_stats and build_info keep the configs' seeds."""
    configs = [load_world_config(world_config_path(level, worlds_dir)) for level in levels]
    generated = split_configs(configs, split, secret)
    results = []
    with atomic_database(db_path) as con:
        db.create_warehouse(con)
        for config, result in zip(configs, build_levels(generated, instances, progress, jobs)):  # load each while the rest build
            result.world["seed"] = config.seed
            load_dataset(con, [result.world], result.instances)
            s = result.stats
            write_build_stats(con, level=config.level, world_id=config.world_id,
                              seed=config.seed, instances=len(result.instances),
                              candidates_sampled=s["candidates_sampled"], too_few_feasible=s["too_few_feasible"],
                              not_needed={source: s[f"{source}_not_needed"] for source in SOURCES})
            results.append(result)
        write_build_info(con, build_info(configs, split, secret))
        db.refresh(con)
    return results
