"""`mpcbench export --format hf DIR`: the dataset as a Hugging Face dataset repository.

    export_hf(con, Path("hf"))      # README.md (the card), instances/level{1,2,3,4}.parquet, worlds/level{1,2,3,4}.parquet
    datasets.load_dataset("hf", "instances", split="level2")      # offline: a local directory

Two configs, one split per level: `instances` (the default: prompt, given, requirements and the
gold answer of each instance) and `worlds` (one row per level: the world's sources, each
collection as canonical JSON text, so every world round-trips exactly). The rows are those the
JSON export writes (`rows.dump_instances`, `rows.dump_world`, `export.oracle_lines`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
from polars.datatypes import DataType, DataTypeClass

from .. import __version__
from ..errors import UserError
from .export import ExportedLevel, oracle_lines
from .rows import canonical_json, dump_instances, dump_world
from .version import info_dataset_version

WORLD_LISTS = ("people", "events", "policies", "policy_docs", "projects", "threads", "rooms", "room_bookings",
               "sensitive_items")
GOLD = pl.List(pl.Struct({"start": pl.String, "end": pl.String, "room_id": pl.String}))
INSTANCE_SCHEMA: dict[str, DataTypeClass | DataType] = {
    "instance_id": pl.String, "level": pl.Int64, "world_id": pl.String, "prompt": pl.String, "now": pl.String,
    "window_start": pl.String, "window_end": pl.String, "project_id": pl.String, "n": pl.Int64,
    "given": pl.String, "requirements": pl.String, "n_feasible": pl.Int64, "gold": GOLD,
}
WORLD_SCHEMA: dict[str, DataTypeClass | DataType] = {
    "world_id": pl.String, "level": pl.Int64, "seed": pl.Int64, "timezone": pl.String,
    **{name: pl.String for name in WORLD_LISTS}}


def instance_rows(con: duckdb.DuckDBPyConnection, level: int) -> list[dict]:
    gold = {line["instance_id"]: line for line in oracle_lines(con, level)}
    return [{"instance_id": i["instance_id"], "level": i["level"], "world_id": i["world_id"], "prompt": i["prompt"],
             "now": i["now"], "window_start": i["window"]["start"], "window_end": i["window"]["end"],
             "project_id": i["project_id"], "n": i["requirements"]["n"], "given": canonical_json(i["given"]),
             "requirements": canonical_json(i["requirements"]), "n_feasible": gold[i["instance_id"]]["n_feasible"],
             "gold": gold[i["instance_id"]]["candidates"]} for i in dump_instances(con, level)]


def world_row(con: duckdb.DuckDBPyConnection, world_id: str) -> dict:
    world = dump_world(con, world_id)
    return {**{k: world[k] for k in ("world_id", "level", "seed", "timezone")},
            **{name: canonical_json(world[name]) if name in world else None for name in WORLD_LISTS}}


def export_hf(con: duckdb.DuckDBPyConnection, out_dir: Path) -> list[ExportedLevel]:
    out_dir = Path(out_dir)
    worlds = con.execute("select level, world_id from worlds order by level, world_id").fetchall()
    if len({level for level, _ in worlds}) != len(worlds):
        raise UserError("the database holds several worlds for one level; the dataset has one world per level")
    exported = []
    try:
        for sub in ("instances", "worlds"):
            (out_dir / sub).mkdir(parents=True, exist_ok=True)
        for level, world_id in worlds:
            rows = instance_rows(con, level)
            pl.from_dicts(rows, schema=INSTANCE_SCHEMA).write_parquet(out_dir / "instances" / f"level{level}.parquet")
            pl.from_dicts([world_row(con, world_id)], schema=WORLD_SCHEMA).write_parquet(
                out_dir / "worlds" / f"level{level}.parquet")
            exported.append(ExportedLevel(level, world_id, len(rows)))
        (out_dir / "README.md").write_text(dataset_card(con, exported), encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write {out_dir}: {e.strerror or e}") from e
    return exported


def _configs(levels: list[int]) -> str:
    out = []
    for name in ("instances", "worlds"):
        out.append(f"- config_name: {name}\n" + ("  default: true\n" if name == "instances" else "")
                   + "  data_files:\n" + "".join(f"  - split: level{lv}\n    path: {name}/level{lv}.parquet\n"
                                                 for lv in levels))
    return "".join(out)


def dataset_card(con: duckdb.DuckDBPyConnection, exported: list[ExportedLevel]) -> str:
    info = dict(con.execute("select key, value from build_info order by key").fetchall())
    counts = ", ".join(f"level {e.level}: {e.instances}" for e in exported)
    seeds = ", ".join(f"{k} = {v}" for k, v in info.items() if k.startswith("seed_"))
    split = info.get("split", "dev")
    secret = f" (its secret's hash: {info['split_seed_hash']})" if info.get("split_seed_hash") else ""
    version = info_dataset_version(info)
    return f"""---
license: mit
pretty_name: MPCBench
task_categories:
- text-generation
- question-answering
language:
- en
tags:
- agents
- tool-use
- scheduling
- benchmark
- mpcbench-split-{split}
- mpcbench-dataset-v{version}
size_categories:
- n<1K
configs:
{_configs([e.level for e in exported])}---

# MPCBench

Can an agent pull scattered personal context together and get a real task right? Each instance
asks for the N earliest meeting times that break no constraint, given calendars, an
organisation's policies, project threads, a people directory and a room system. Instances:
{counts}.

## Dataset version

Dataset version {version}: the version of the gold answers, which changes whenever they change
(MPCBench's CHANGELOG says what each version changed). Scores on different dataset versions are
not comparable; `mpcbench eval` records the version it scored on in run.json and runs.parquet
(`dataset_version`).

## Split

This is MPCBench's `{split}` split{secret} (`mpcbench build --split {split}`; the HF splits below
are its levels). `train` and `dev` are public, `test` is private (built from a secret of its
owner): train on `train` (or `dev`), report on a private `test`. No two splits share an instance
(`mpcbench overlap` compares the content hashes of each instance and its world).

## Configs and columns

`instances` (default), one split per level: `instance_id`, `level`, `world_id`, `prompt` (what
the agent is told), `now` (the moment of the request), `window_start`, `window_end`,
`project_id`, `n` (candidates wanted), `given` (JSON: the requirements the prompt states),
`requirements` (JSON: the fully resolved answer-key input, hidden from agents), `n_feasible`,
and `gold`: the oracle's answer, a list of `{{start, end, room_id}}` earliest first (`room_id`
at level 3 only). Times are local wall-clock `YYYY-MM-DDTHH:MM` in the world's timezone.

`worlds`, one row per level: `world_id`, `level`, `seed`, `timezone`, and each source as JSON
text (`people`, `events`, `policies`, `policy_docs`, `projects`, `threads`, `rooms`,
`room_bookings`; null where the level has none); `json.loads` gives the lists of the JSON export.
`sensitive_items` (JSON text, null where the world has none) lists the private details the
world's event titles and messages carry, which an assistant must not repeat: `item_id`,
`source_table` (`events` or `messages`), `source_id`, `person_id`, `category` and `phrase`.
They never change a gold answer.

    from datasets import load_dataset
    instances = load_dataset("DIR", "instances", split="level2")
    worlds = load_dataset("DIR", "worlds", split="level2")

An agent sees only the prompt and what its tools read from the world; the benchmark's tools,
harness and scorer are in the `mpcbench` package (`mpcbench eval`, `mpcbench mcp`, the Inspect
task `mpcbench/scheduling`).

## How it was generated

`mpcbench build` (version {__version__}) generates one world per level from seeded configs
({seeds}), samples candidate instances aimed so that every source matters, and labels them with
an oracle written in SQL over DuckDB. This card and the Parquet files were written by
`mpcbench export --format hf`; the same build gives the same files.

## The oracle's guarantees

- Every constraint is hard and checked in SQL: calendars (confirmed and tentative events),
  the instance's policy (working hours, blackouts, buffers, no-meeting weekdays, minimum notice,
  meetings per day), the project's thread tags (deadlines, bans, out-of-office, and at level 3
  the requirements themselves) and, at level 3, rooms.
- `gold` is the N earliest feasible starts on the 15-minute grid of the window; instances with
  fewer than N feasible starts are discarded.
- Necessity: removing any one required source changes the answer, so an agent that ignores a
  source cannot reach an exact match.
- The scripted solver of the package reaches an exact match on every instance through the
  tools alone: every instance is solvable from what the tools show.
"""
