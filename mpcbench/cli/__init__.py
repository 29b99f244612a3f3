"""The `mpcbench` command line, joined in one place: each command group is a module of its own
(`warehouse`, `dataset`, `runs`, `tools`, `integrations`), and each command parses its arguments and calls one
library function. `mpcbench = "mpcbench.cli:app"` is the console script."""

from __future__ import annotations

import typer

from ..legacy import cli as legacy
from . import dataset, integrations, runs, tools, warehouse

app = typer.Typer(help="MPCBench: can an agent compose personal context to schedule a meeting?",
                  no_args_is_help=True, add_completion=False)
app.command("build")(warehouse.build_command)
app.command("info")(warehouse.info)
app.command("sql")(warehouse.sql)
app.command("explain")(warehouse.explain)
app.command("version")(warehouse.version)
app.add_typer(tools.app, name="tools")
app.command("export")(dataset.export_command)
app.command("import")(dataset.import_command)
app.command("eval")(runs.eval_command)
app.command("rescore")(runs.rescore_command)
app.command("report")(runs.report_command)
app.add_typer(legacy.app, name="legacy")
app.command("judge-audit")(legacy.judge_audit_command)
app.command("mcp")(integrations.mcp_command)


def main() -> None:
    app()
