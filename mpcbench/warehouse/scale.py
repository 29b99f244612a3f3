"""`mpcbench build --out DIR`: the build as partitions of candidates, judged by workers side by side,
written as a partitioned Parquet dataset (`parts`).

    build_partitioned(Path("big"), instances=100_000, engine="ray")   # a local Ray cluster

Partition P of a level is candidates P*size .. (P+1)*size - 1 (`partitions.judge_partition`).
The level keeps the first `wanted` kept candidates in index order, exactly as the DuckDB build
does, so the dataset is the same whatever the partition size and however many workers ran it
(and its export is the DuckDB build's, byte for byte). Partitions are judged in any order; each
is written (`partitions.finalize_partition`) once those before it are known, since its instance
numbers continue theirs. Memory stays flat: a worker holds one partition, the driver a few counts
per partition, and at most `2 × workers` partitions are in flight.

Engines: `local` (one process, or a pool of `jobs` spawned processes) and `ray` (Ray tasks on a
local cluster of `jobs` CPUs, or the cluster at `address`; a task whose worker dies is retried
by Ray). Either way no partition is lost silently: a task that fails for good fails the build,
and the manifest, written last, lists every file with its row count.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from . import db, partitions
from .build import MAX_CANDIDATES_PER_INSTANCE, BuildError, Progress, build_info
from .parts import FORMAT, META_TABLES, meta_path, write_manifest
from ..dataset.store import write_build_info, write_build_stats, write_lock
from ..errors import UserError
from ..sources import LEVELS, SOURCES
from ..world import privacy
from ..world.config import WorldConfig, load_world_config, world_config_path
from ..world.generate import generate_world
from ..world.split import split_configs

DEFAULT_PARTITION_SIZE = 2000
ENGINES = ("local", "ray")
RAY_RETRIES = 3


class InlinePool:
    """jobs = 1: every task runs at once in this process."""

    threads = None   # DuckDB's threads in a task: every core (a pool's workers take one each)

    def submit(self, fn, *args) -> cf.Future:
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args))
        except Exception as e:  # noqa: BLE001 - the driver raises it from .result(), as a pool's future would
            future.set_exception(e)
        return future

    def check(self) -> None:
        """Nothing runs elsewhere, so nothing can die unseen."""


class RayPool:
    """Ray tasks as futures: `submit(fn, *args)` runs fn as a Ray task (retried when its worker dies)."""

    threads = 1      # a Ray task holds one CPU

    def __init__(self, ray):
        self.ray = ray
        self.remote = {}

    def submit(self, fn, *args) -> cf.Future:
        if fn not in self.remote:
            self.remote[fn] = self.ray.remote(max_retries=RAY_RETRIES)(fn)
        return self.remote[fn].remote(*args).future()

    def check(self) -> None:
        """Ray retries a task whose worker died (RAY_RETRIES); its future fails after that."""


class LocalPool:
    """jobs >= 2: spawned worker processes. A worker that dies (killed, out of memory) fails the
    build at once (`check`): ProcessPoolExecutor alone can hang for good when a worker dies holding
    a lock of its call queue, and so can its shutdown, so a failed build kills the workers."""

    threads = 1      # one worker per core: more DuckDB threads per worker would only contend for the cores

    def __init__(self, jobs: int):
        self.pool = cf.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, fn, *args) -> cf.Future:
        return self.pool.submit(fn, *args)

    def _workers(self) -> list:
        return list((self.pool._processes or {}).values())   # no public API lists them

    def check(self) -> None:
        dead = [p for p in self._workers() if p.exitcode is not None]
        if dead:
            raise cf.process.BrokenProcessPool(f"a worker process died (exit code {dead[0].exitcode})")

    def kill(self) -> None:
        for process in self._workers():
            process.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self.pool.shutdown()


@contextmanager
def executor(engine: str, jobs: int, address: str | None) -> Iterator:
    if engine not in ENGINES:
        raise UserError(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "local":
        if address:
            raise UserError("--address is for --engine ray")
        if jobs < 2:
            try:
                yield InlinePool()
            finally:
                partitions.close_contexts()
            return
        pool = LocalPool(jobs)
        try:
            yield pool
        except BaseException:
            pool.kill()
            raise
        pool.close()
        return
    try:
        import ray  # optional: pip install -e '.[scale]'
    except ImportError:
        raise UserError("--engine ray needs Ray: pip install -e '.[scale]'") from None
    try:
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    except Exception as e:  # noqa: BLE001 - ConnectionError, RuntimeError, ...: Ray's own types vary by version
        raise UserError(f"cannot start or reach a Ray cluster{f' at {address}' if address else ''}: "
                        f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    try:
        yield RayPool(ray)
    finally:
        ray.shutdown()


@dataclass
class LevelPlan:
    """The driver's state of one level: what is judged, what is written, and the counts."""
    config: WorldConfig                  # the generator's (its seed may be the private split's)
    wanted: int
    noise_projects: int
    noise_threads: int
    judged: dict[int, partitions.JudgedPartition] = field(default_factory=dict)
    next_part: int = 0                   # the next partition to judge
    written: int = 0                     # partitions 0 .. written-1 are finalized
    kept: int = 0
    threads: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    sampled: int = 0

    @property
    def done(self) -> bool:
        return self.kept >= self.wanted

    def needs_more(self, size: int, in_flight: int) -> bool:
        """Whether to judge another partition now: by the acceptance rate so far, the partitions
        judged and in flight will not reach `wanted`."""
        if self.done:
            return False
        waiting = sum(len(p.kept_threads) for p in self.judged.values())   # judged, not yet written
        judged = self.written + len(self.judged)
        rate = max((self.kept + waiting) / (judged * size), 0.05) if judged else 0.5
        return self.kept + waiting + in_flight * size * rate < self.wanted

    def stats(self) -> dict:
        return {"level": self.config.level, "instances": self.kept, "candidates_sampled": self.sampled,
                "too_few_feasible": self.verdicts.get("too_few_feasible", 0),
                **{f"{s}_not_needed": self.verdicts.get(f"{s}_not_needed", 0) for s in SOURCES}}


def _take(plan: LevelPlan, judged: partitions.JudgedPartition) -> int:
    """Count the partition's verdicts up to the last instance the level takes from it; return how
    many kept candidates it takes."""
    take = min(len(judged.kept_threads), plan.wanted - plan.kept)
    last = plan.kept + take >= plan.wanted          # the DuckDB build stops at the wanted-th kept
    seen = 0
    for verdict in judged.verdicts:
        if last and seen == take:
            break
        plan.verdicts[verdict] = plan.verdicts.get(verdict, 0) + 1
        plan.sampled += 1
        seen += verdict == "kept"
    return take


def _judge_and_write(pool, plans: list[LevelPlan], out: Path, staging: Path, size: int, window: int,
                     progress: Progress | None) -> dict[str, int]:
    files: dict[str, int] = {}
    judging: dict[cf.Future, LevelPlan] = {}
    writing: set[cf.Future] = set()
    while not all(p.done for p in plans) or judging or writing:
        while len(judging) < window:
            in_flight = {id(p): 0 for p in plans}
            for busy in judging.values():
                in_flight[id(busy)] += 1
            plan = next((p for p in plans if p.needs_more(size, in_flight[id(p)])), None)
            if plan is None:
                break
            if plan.next_part * size >= MAX_CANDIDATES_PER_INSTANCE * plan.wanted + 100 + size:
                raise BuildError(f"{plan.config.path}: only {plan.kept} of {plan.wanted} instances after "
                                 f"{plan.next_part * size} candidates; loosen the config")
            judging[pool.submit(partitions.judge_partition, plan.config, size, plan.next_part, staging,
                                 pool.threads)] = plan
            plan.next_part += 1
        finished, _ = cf.wait([*judging, *writing], timeout=1.0, return_when=cf.FIRST_COMPLETED)
        pool.check()
        for future in finished:
            result = future.result()
            if future in writing:
                writing.discard(future)
                files.update(result)
                continue
            plan = judging.pop(future)
            plan.judged[result.part] = result
            while not plan.done and plan.written in plan.judged:
                judged = plan.judged.pop(plan.written)
                take = _take(plan, judged)
                writing.add(pool.submit(partitions.finalize_partition, staging, out, plan.config.level, judged.part,
                                        plan.kept, plan.noise_projects + plan.kept, plan.noise_threads + plan.threads,
                                        take))
                plan.kept += take
                plan.threads += sum(judged.kept_threads[:take])
                plan.written += 1
            if progress:
                progress(plan.config.level, "partitions", plan.kept, plan.wanted)
    return files


def _write_meta(out: Path, configs: list[WorldConfig], stats: list[dict], info: dict[str, str]) -> dict[str, int]:
    """build_stats and build_info, as the DuckDB build writes them (the configs' own seeds)."""
    con = db.connect(None)
    try:
        db.create_tables(con)
        for config, s in zip(configs, stats):
            write_build_stats(con, level=config.level, world_id=config.world_id, seed=config.seed,
                              instances=s["instances"], candidates_sampled=s["candidates_sampled"],
                              too_few_feasible=s["too_few_feasible"],
                              not_needed={source: s[f"{source}_not_needed"] for source in SOURCES})
        write_build_info(con, info)
        counts = {}
        for table in META_TABLES:
            (out / meta_path(table)).parent.mkdir(parents=True, exist_ok=True)
            counts[meta_path(table)] = db.value(con.execute(
                f"copy (select * from {table} order by all) to {db.quote_literal(str(out / meta_path(table)))} "
                "(format parquet)"))
        return counts
    finally:
        con.close()


def _check_replaceable(out: Path) -> None:
    """An existing `out` may be replaced only if it is a dataset (it has a manifest) or empty,
    never another directory."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "manifest.json").is_file())):
        raise UserError(f"--out {out} exists and is not an mpcbench dataset; choose another directory")


def _replace_dataset(tmp: Path, out: Path) -> None:
    """Move the finished dataset into place (`_check_replaceable`)."""
    _check_replaceable(out)
    if out.exists():
        shutil.rmtree(out)
    tmp.replace(out)


def build_partitioned(out: Path, levels: tuple[int, ...] = LEVELS, instances: int | None = None,
                      worlds_dir: Path | None = None, progress: Progress | None = None, jobs: int = 1,
                      split: str = "dev", secret: str | None = None, engine: str = "local",
                      address: str | None = None, partition_size: int = DEFAULT_PARTITION_SIZE) -> list[dict]:
    """Build the levels into the Parquet dataset `out`; returns each level's build_stats row."""
    out = Path(out)
    levels = tuple(sorted(levels))
    configs = [load_world_config(world_config_path(level, worlds_dir)) for level in levels]
    generated = split_configs(configs, split, secret)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    with write_lock(out):
        _check_replaceable(out)   # before the build, not after it
        tmp = out.with_name(f".{out.name}.building")
        shutil.rmtree(tmp, ignore_errors=True)
        staging = tmp / ".staging"
        staging.mkdir(parents=True)
        try:
            files = {}
            plans = []
            for config, gen in zip(configs, generated):
                world, _ = privacy.add_world_items(gen, generate_world(gen))   # as build_level: the world's items
                world["seed"] = config.seed
                files.update(partitions.write_world(world, tmp))
                plans.append(LevelPlan(gen, instances if instances is not None else config.instances,
                                       len(world.get("projects", [])), len(world.get("threads", []))))
            plans.sort(key=lambda p: -p.config.level)        # the highest level takes longest: start it first
            # a small build needs no partition larger than itself (the result does not depend on the size)
            partition_size = min(partition_size, max(100, 2 * max(p.wanted for p in plans)))
            with executor(engine, jobs, address) as pool:
                files.update(_judge_and_write(pool, plans, tmp, staging, partition_size, 2 * max(jobs, 1), progress))
            stats = [p.stats() for p in sorted(plans, key=lambda p: p.config.level)]
            files.update(_write_meta(tmp, configs, stats, build_info(configs, split, secret)))
            shutil.rmtree(staging)
            write_manifest(tmp, {"format": FORMAT, "partition_size": partition_size, "files": files,
                                 "levels": {str(p.config.level): {"instances": p.kept, "partitions": p.written}
                                            for p in plans}})
            _replace_dataset(tmp, out)
        except BaseException as e:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(e, (cf.process.BrokenProcessPool,)) or type(e).__module__.startswith("ray"):
                raise UserError(f"a partition task failed ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                                f"nothing was written to {out}") from None
            raise
    return stats
