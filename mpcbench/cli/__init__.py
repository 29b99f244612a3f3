"""The `mpcbench` command line, joined in one place: each command group is a module of its own
(`warehouse`, `dataset`, `runs`, `tools`, `integrations`), and each command parses its arguments and calls one
library function. `mpcbench = "mpcbench.cli:app"` is the console script.

A `UserError` that reaches this level, from any command, is printed as one line (no traceback
unless `mpcbench --debug ...`) and becomes the exit status it carries."""

from __future__ import annotations

from typing import Annotated

import typer
from typer.core import TyperGroup

from ..errors import UserError
from ..legacy import cli as legacy
from . import dataset, integrations, runs, tools, warehouse
from .common import report_error


class Commands(TyperGroup):
    """The command group: one line for a user error, wherever in a command it is raised."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as e:
            report_error(e, debug=bool(ctx.params.get("debug")))


app = typer.Typer(help="MPCBench: can an agent compose personal context to schedule a meeting?",
                  no_args_is_help=True, add_completion=False, cls=Commands)


@app.callback()
def options(debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an error too.")] = False) -> None:
    """MPCBench: can an agent compose personal context to schedule a meeting?"""


app.command("build")(warehouse.build_command)
app.command("check")(warehouse.check)
app.command("info")(warehouse.info)
app.command("sql")(warehouse.sql)
app.command("explain")(warehouse.explain)
app.command("version")(warehouse.version)
app.add_typer(tools.app, name="tools")
app.command("export")(dataset.export_command)
app.command("import")(dataset.import_command)
app.command("overlap")(dataset.overlap_command)
app.command("eval")(runs.eval_command)
app.command("rescore")(runs.rescore_command)
app.command("merge")(runs.merge_command)
app.command("report")(runs.report_command)
app.add_typer(legacy.app, name="legacy")
app.command("judge-audit")(legacy.judge_audit_command)
app.command("mcp")(integrations.mcp_command)
app.command("serve-env")(integrations.serve_env_command)
app.command("trajectories")(integrations.trajectories_command)


def main() -> None:
    app()
