"""`mpcbench import`: check dataset files and load them into a new warehouse.

    report = import_dataset(Path("dataset"), Path("build/imported.duckdb"))
    [(level.level, level.instances, level.too_few_feasible) for level in report.levels]

Every file is read and checked in two passes: the JSON Schemas in `mpcbench/dataset/schema/`
(keys, types, timestamp patterns, rule and tag types with their params, level-specific keys),
then what a schema cannot say (`checks`). All problems are collected and raised together as a
`DatasetError`; only a clean dataset is loaded, into a fresh warehouse next to the target that
is renamed into place. The gold answers are always recomputed by the SQL oracle;
`oracles/*.jsonl` is only compared.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .. import __version__
from ..dataset.checks import InstanceChecker, World, WorldChecker
from ..dataset.export import oracle_lines
from ..dataset.layout import instances_file, oracle_file, world_file
from ..dataset.rows import load_dataset
from ..dataset.store import atomic_database, write_build_info, write_build_stats
from ..dataset.validate import (DatasetError, Doc, Problems, check_schema, level_files, parse_json, read_jsonl,
                                read_text, short, text_at)
from ..dataset.version import DATASET_VERSION
from ..errors import UserError
from ..sources import LEVELS
from . import db


@dataclass
class Source:
    worlds: dict[int, Doc]
    instances: dict[int, list[Doc]]
    oracles: dict[int, dict[str, object]]
    notes: list[str]


def read_and_check(src: Path, problems: Problems) -> Source:
    if not src.is_dir():
        raise DatasetError([f"{src}: not a directory"])
    world_paths: dict[int, Path] = {}
    if not (src / "worlds").is_dir():
        problems.add(str(src), "", "no worlds/ directory (expected worlds/world_level{1,2,3,4}.json)")
    else:
        world_paths = level_files(src / "worlds", "world_level{}.json", problems)
        if not world_paths and not problems.total:
            problems.add(f"{src}/worlds", "", "no world_level{1,2,3,4}.json files")
    worlds: dict[int, Doc] = {}
    for level, path in world_paths.items():
        text = read_text(path, world_file(level), problems)
        doc = None if text is None else parse_json(text, world_file(level), None, problems)
        if doc is not None:
            worlds[level] = doc
    instances: dict[int, list[Doc]] = {}
    if (src / "instances").is_dir():
        for level, path in level_files(src / "instances", "instances_level{}.jsonl", problems).items():
            instances[level] = read_jsonl(path, instances_file(level), problems)

    # worlds: schema, file level, world ids, then each world's own ids, references and intervals
    checked: dict[str, World] = {}
    level_of_world: dict[str, int] = {}
    for level, doc in sorted(worlds.items()):
        check_schema(doc, "world", problems)
        if not isinstance(doc.data, dict):
            continue
        if doc.data.get("level") in LEVELS and doc.data["level"] != level:
            problems.add(doc.where, "level", f"{doc.data['level']}, but the file is for level {level}")
        world_id = text_at(doc.data, "world_id")
        if world_id in level_of_world:
            problems.add(doc.where, "world_id", f"duplicate world_id {short(world_id)} "
                         f"(also in {world_file(level_of_world[world_id])})")
        elif world_id is not None:
            level_of_world[world_id] = level
            checked[world_id] = WorldChecker(doc, problems).check(level)

    # instances: schema, file level, ids, then each against its world
    first_line: dict[str, str] = {}
    for level, docs in sorted(instances.items()):
        if level not in world_paths and docs:
            problems.add(instances_file(level), "", f"no {world_file(level)} for these instances")
        world_known = level in level_of_world.values()   # else its file is unreadable: said already
        for doc in docs:
            check_schema(doc, "instance", problems)
            d = doc.data if isinstance(doc.data, dict) else {}
            if d.get("level") in LEVELS and d["level"] != level:
                problems.add(doc.where, "level", f"{d['level']}, but the file is for level {level}")
                continue
            instance_id = text_at(d, "instance_id")
            if instance_id in first_line:
                problems.add(doc.where, "instance_id", f"duplicate instance_id {short(instance_id)} "
                             f"(first at {first_line[instance_id]})")
            elif instance_id is not None:
                first_line[instance_id] = doc.where
            world_id = text_at(d, "world_id")
            if world_id is None or not world_known:
                continue
            if world_id not in level_of_world:
                problems.add(doc.where, "world_id", f"unknown world {short(world_id)} "
                             f"(the worlds are: {', '.join(sorted(level_of_world))})")
            elif level_of_world[world_id] != level:
                problems.add(doc.where, "world_id", f"{short(world_id)} is the level-{level_of_world[world_id]} "
                             f"world; this instance is level {level}")
            else:
                InstanceChecker(doc, problems).check(checked[world_id])

    # gold answers: only compared with the recomputed ones, so problems here are notes
    oracles: dict[int, dict[str, object]] = {}
    notes: list[str] = []
    if (src / "oracles").is_dir():
        quiet = Problems(cap=5)
        for level, path in level_files(src / "oracles", "oracle_level{}.jsonl", quiet).items():
            oracles[level] = {}
            for doc in read_jsonl(path, oracle_file(level), quiet):
                check_schema(doc, "oracle", quiet)
                if doc.valid:
                    oracles[level][doc.record["instance_id"]] = doc.record
        notes += [f"ignored (the oracle is recomputed): {line}" for line in quiet.lines]
    return Source(worlds, instances, oracles, notes)


@dataclass
class ImportedLevel:
    level: int
    world_id: str
    instances: int
    too_few_feasible: int          # kept although fewer than N starts are feasible
    gold_differs: int | None       # instances whose recomputed gold differs from oracles/; None: no file


@dataclass
class ImportReport:
    db_path: Path
    source: Path
    levels: list[ImportedLevel]
    notes: list[str]

    @property
    def instances(self) -> int:
        return sum(level.instances for level in self.levels)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _load(con: duckdb.DuckDBPyConnection, src: Path, source: Source) -> list[ImportedLevel]:
    db.create_tables(con)
    db.create_views(con)
    for level, doc in sorted(source.worlds.items()):
        load_dataset(con, [doc.record], [d.record for d in source.instances.get(level, [])])
    db.refresh(con)
    too_few = dict(con.execute("select level, count(*) filter (where not has_enough_feasible) "
                               "from oracle_summary group by level").fetchall())
    levels = []
    for level, doc in sorted(source.worlds.items()):
        world = doc.record
        count = len(source.instances.get(level, []))
        kept_too_few = too_few.get(level, 0)
        write_build_stats(con, level=level, world_id=world["world_id"], seed=world["seed"], instances=count,
                          candidates_sampled=count, kept_too_few_feasible=kept_too_few)
        differs = None
        if level in source.oracles:
            stored = source.oracles[level]
            differs = sum(1 for line in oracle_lines(con, level) if stored.get(line["instance_id"]) != line)
        levels.append(ImportedLevel(level, world["world_id"], count, kept_too_few, differs))
    # the gold answers are labelled again by this package's oracle: they are of its dataset version
    info = {"mpcbench_version": __version__, "dataset_version": DATASET_VERSION, "built_by": "mpcbench import",
            "source": src.resolve().name, "levels": ",".join(str(lv.level) for lv in levels)}
    for lv in levels:
        info[f"source_level{lv.level}"] = world_file(lv.level)
        info[f"source_level{lv.level}_sha256"] = _sha256(src / world_file(lv.level))
        info[f"seed_level{lv.level}"] = str(source.worlds[lv.level].record["seed"])
    write_build_info(con, info)
    return levels


def import_dataset(src_dir: Path, db_path: Path, *, force: bool = False) -> ImportReport:
    """Check the dataset files in src_dir and load them into a new warehouse at db_path, with the
    gold answers recomputed. Raises DatasetError listing every problem; then nothing is written.
    An existing db_path is replaced only with `force` (a UserError otherwise)."""
    src_dir, db_path = Path(src_dir), Path(db_path)
    problems = Problems()
    source = read_and_check(src_dir, problems)
    problems.raise_if_any()
    if db_path.exists() and not force:
        raise UserError(f"{db_path} already exists; import writes a new DuckDB file: pass --force to replace it, "
                        "or choose another --db")
    with atomic_database(db_path) as con:
        try:
            levels = _load(con, src_dir, source)
        except duckdb.Error as e:
            raise DatasetError([f"{src_dir}: loading into DuckDB failed: {e}"]) from e
    return ImportReport(db_path, src_dir, levels, source.notes)
