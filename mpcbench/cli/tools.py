"""`mpcbench tools`: the agent tools from the command line, exactly as an agent sees them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import duckdb
import typer

from ..episode.answers import submit_tool
from ..levels import LEVEL_NAMES, LEVELS
from ..episode.toolfiles import catalog
from ..episode.environment import Environment
from ..errors import HarnessError
from ..warehouse import db

app = typer.Typer(help="The agent tools: each level's catalog, and single calls as an agent makes them.",
                  no_args_is_help=True, add_completion=False)

LevelOption = Annotated[int, typer.Option("--level", min=min(LEVELS), max=max(LEVELS), help=f"The level: {LEVEL_NAMES}.")]


def _fail(message: str, code: int = 1) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@app.command("list")
def list_tools(
    level: LevelOption,
    as_json: Annotated[bool, typer.Option("--json", help="Print the OpenAI `tools` array instead.")] = False,
) -> None:
    """Every tool an agent gets at a level (submit_candidates last), with its argument schema."""
    tools = catalog(level)
    if as_json:
        typer.echo(json.dumps([t.spec.openai() for t in tools] + [submit_tool(level)], indent=2))
        return
    for tool in tools:
        typer.echo(f"{tool.signature()}  [{tool.render}]")
        typer.echo(f"    {tool.description}")
        for p in tool.params:
            extra = {k: v for k, v in p.schema.items() if k not in ("type", "description")}
            typer.echo(f"    - {p.name}{' (required)' if p.required else ''}: {p.schema['description']}"
                       + (f"  {json.dumps(extra)}" if extra else ""))
    submit = submit_tool(level)["function"]
    typer.echo(f"{submit['name']}(candidates: array)\n    {submit['description']}")


@app.command("call")
def call_tool(
    name: Annotated[str, typer.Argument(help="The tool, e.g. search_people.")],
    instance: Annotated[str, typer.Option("--instance", help="The instance whose world the tool reads, e.g. L3-0007.")],
    args: Annotated[str, typer.Option("--args", help="The arguments as a JSON object.")] = "{}",
    db_path: Annotated[Path, typer.Option("--db", help="The DuckDB file to read.")] = db.DEFAULT_DB,
) -> None:
    """Call one tool for an instance and print exactly the text the agent would read (exit 1 on an error text)."""
    if not db_path.exists():
        _fail(f"{db_path} does not exist; run `mpcbench build` first (or pass --db)")
    try:
        con = db.open_existing(db_path)
    except duckdb.Error as e:
        _fail(f"cannot open {db_path}: {e}")
    try:
        env = Environment(con, instance)
    except KeyError:
        _fail(f"no instance {instance!r} in {db_path}")
    with env:
        try:
            text = env.call(name, args)
        except HarnessError as e:
            _fail(f"MPCBench failed on this call, not the arguments ({e}); is {db_path} a complete build?")
    typer.echo(text)
    if env.trace[-1].error:
        raise typer.Exit(1)
