"""The six sources of a scenario as DuckDB tables: `legacy_*` raw tables (one row per item of the
JSON files) and `stg_legacy_*` staging views, from `sql/legacy/`.

    >>> con = connect(None)
    >>> create(con)
    >>> load(con, "product_launch", mock_sources("product_launch"))
    >>> con.execute("select count(*) from legacy_jira_issues").fetchone()
    (8,)

`open_warehouse` keeps a DuckDB file in step with the generated data: a scenario whose files
changed since it was loaded (content hash) is loaded again, inside one transaction.
"""

from __future__ import annotations

import hashlib

import duckdb

from .archive import load_json, load_scenario
from .layout import LEGACY_SQL_DIR, SOURCES, Layout, dumps
from .mock import source, world_state
from .project import UserError, connect, layer_views

STAGING = "legacy/10_staging"
TABLES = {  # table: the columns an insert fills, in order
    "legacy_slack_users": ("user_id", "name", "email", "title"),
    "legacy_slack_channels": ("channel_id", "name", "topic", "members"),
    "legacy_slack_messages": ("message_id", "channel_id", "user_id", "ts", "text", "thread_id"),
    "legacy_gmail_threads": ("thread_id", "subject", "labels"),
    "legacy_gmail_messages": ("message_id", "thread_id", "position", "sender", "recipients", "cc", "sent", "body"),
    "legacy_calendar_calendars": ("calendar_id", "owner_email", "name", "timezone"),
    "legacy_calendar_events": ("event_id", "calendar_id", "title", "starts", "ends", "organizer_email", "attendees",
                               "location", "description", "status"),
    "legacy_contacts": ("contact_id", "name", "email", "phone", "company", "team", "title", "notes"),
    "legacy_jira_projects": ("project_key", "name", "lead_email"),
    "legacy_jira_issues": ("issue_key", "project_key", "summary", "description", "status", "priority", "assignee_email",
                           "assignee_name", "reporter_email", "created", "updated", "due_date", "labels"),
    "legacy_jira_comments": ("issue_key", "position", "author_email", "created", "body"),
    "legacy_drive_files": ("file_id", "name", "mime_type", "owner_email", "modified", "content"),
}


def create(con: duckdb.DuckDBPyConnection) -> None:
    """The raw tables (if missing) and the staging views."""
    con.execute((LEGACY_SQL_DIR / "00_raw" / "legacy_tables.sql").read_text())
    for name, sql in layer_views(STAGING):
        con.execute(f"create or replace view {name} as\n{sql}")


def rows(sources: dict[str, dict]) -> dict[str, list[tuple]]:
    """Each raw table's rows (without the scenario id) from the six validated source files."""
    slack, gmail, calendar = sources["slack"], sources["gmail"], sources["calendar"]
    jira, drive = sources["jira"], sources["drive"]
    g = lambda item, key: item.get(key)  # noqa: E731  (optional fields)
    return {
        "legacy_slack_users": [(u["id"], u["name"], u["email"], g(u, "title")) for u in slack["users"]],
        "legacy_slack_channels": [(c["id"], c["name"], g(c, "topic"), c["members"]) for c in slack["channels"]],
        "legacy_slack_messages": [(m["id"], m["channel_id"], m["user_id"], m["ts"], m["text"], g(m, "thread_id"))
                                  for m in slack["messages"]],
        "legacy_gmail_threads": [(t["id"], t["subject"], t.get("labels", [])) for t in gmail["threads"]],
        "legacy_gmail_messages": [(m["id"], t["id"], i, m["from"], m["to"], m.get("cc", []), m["date"], m["body"])
                                  for t in gmail["threads"] for i, m in enumerate(t["messages"], 1)],
        "legacy_calendar_calendars": [(c["id"], c["owner_email"], c["name"], g(c, "timezone")) for c in calendar["calendars"]],
        "legacy_calendar_events": [(e["id"], e["calendar_id"], e["title"], e["start"], e["end"], e["organizer_email"],
                                    e["attendees"], g(e, "location"), g(e, "description"), e["status"])
                                   for e in calendar["events"]],
        "legacy_contacts": [(c["id"], c["name"], c["email"], g(c, "phone"), g(c, "company"), g(c, "team"), g(c, "title"),
                             g(c, "notes")) for c in sources["contacts"]["contacts"]],
        "legacy_jira_projects": [(p["key"], p["name"], p["lead_email"]) for p in jira["projects"]],
        "legacy_jira_issues": [(i["key"], i["project_key"], i["summary"], g(i, "description"), i["status"], i["priority"],
                                g(i, "assignee_email"), g(i, "assignee_name"), i["reporter_email"], i["created"],
                                i["updated"], g(i, "due_date"), i.get("labels", [])) for i in jira["issues"]],
        "legacy_jira_comments": [(i["key"], n, c["author_email"], c["created"], c["body"])
                                 for i in jira["issues"] for n, c in enumerate(i["comments"], 1)],
        "legacy_drive_files": [(f["id"], f["name"], f["mimeType"], f["owner_email"], f["modifiedTime"], f["content"])
                               for f in drive["files"]],
    }


def content_hash(files: dict[str, dict]) -> str:
    """The hash of a scenario's generated files, as they are written."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + dumps(files[name]).encode() + b"\0")
    return digest.hexdigest()


def load(con: duckdb.DuckDBPyConnection, scenario_id: str, files: dict[str, dict]) -> None:
    """Replace a scenario's rows with those of `files` ({"world_state": ..., "slack": ..., ...})."""
    settings = files["world_state"]["global_settings"]
    con.execute("begin transaction")
    try:
        for table in ("legacy_scenarios", *TABLES):
            con.execute(f"delete from {table} where scenario_id = $s", {"s": scenario_id})
        con.execute("insert into legacy_scenarios values ($s, $title, $tz, $start, $hash)",
                    {"s": scenario_id, "title": files["world_state"]["title"], "tz": settings["timezone"],
                     "start": settings["start_date"], "hash": content_hash(files)})
        for table, table_rows in rows(files).items():
            columns = TABLES[table]
            if table_rows:
                marks = ", ".join("?" for _ in range(len(columns) + 1))
                con.executemany(f"insert into {table} (scenario_id, {', '.join(columns)}) values ({marks})",
                                [(scenario_id, *row) for row in table_rows])
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise


def read_generated(layout: Layout, scenario_id: str) -> dict[str, dict]:
    """A scenario's generated files, each checked against its schema."""
    directory = layout.data(scenario_id)
    if not directory.is_dir():
        raise UserError(f"no generated data for scenario {scenario_id!r} in {directory}; run "
                        f"`mpcbench legacy generate --scenario {scenario_id}` first")
    return {name: load_json(directory / f"{name}.json", name) for name in ("world_state", *SOURCES)}


def open_warehouse(layout: Layout, scenario_ids: list[str]) -> duckdb.DuckDBPyConnection:
    """The legacy DuckDB file with these scenarios' current data loaded (reloading what changed)."""
    files = {s: read_generated(layout, s) for s in scenario_ids}
    try:
        con = connect(layout.db)
    except duckdb.Error as e:
        raise UserError(f"cannot open {layout.db}: {e}") from None
    create(con)
    loaded = dict(con.execute("select scenario_id, content_sha256 from legacy_scenarios").fetchall())
    for scenario_id, generated in files.items():
        if loaded.get(scenario_id) != content_hash(generated):
            load(con, scenario_id, generated)
    return con


def mock_sources(scenario_id: str) -> dict[str, dict]:
    """The mock provider's files of an archive scenario (for tests and examples)."""
    state = world_state(load_scenario(scenario_id))
    return {"world_state": state, **{name: source(state, name) for name in SOURCES}}
