"""The dataset's version: a number that changes whenever the gold answers change (for the same
configs and seeds), so that two scores on different versions are never read as comparable.

    DATASET_VERSION                      # "2": what this package's build and import write
    warehouse_dataset_version(con)       # a warehouse's, from its build_info ("1" when unrecorded)
    run_dataset_version(meta)            # a run's, from its run.json ("1" when unrecorded)

A build and an import record it in `build_info` (`dataset_version`); `mpcbench eval` copies the
warehouse's into run.json and every row of runs.parquet; the HF export's card states it; `mpcbench
report` marks runs of different versions as not comparable. The CHANGELOG says what changed in
each version and how many gold answers per level.

Version 1: the labels before versions were recorded (every warehouse and run without the field).
Version 2: every policy states its working week (issue 36); weekend starts leave most answers.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb

DATASET_VERSION = "2"
UNRECORDED = "1"      # the version of a warehouse or run from before versions were recorded
KEY = "dataset_version"   # its key in build_info and run.json, and its column in runs.parquet


def info_dataset_version(info: Mapping[str, str]) -> str:
    """The version a `build_info` mapping records; "1" when it records none."""
    return str(info.get(KEY) or UNRECORDED)


def warehouse_dataset_version(con: duckdb.DuckDBPyConnection) -> str:
    """The version of the warehouse's gold answers, from its `build_info`; "1" when unrecorded."""
    return info_dataset_version(dict(con.execute("select key, value from build_info").fetchall()))


def run_dataset_version(meta: Mapping) -> str:
    """The version a run's run.json records; "1" for a run from before versions were recorded."""
    return str(meta.get(KEY) or UNRECORDED)
