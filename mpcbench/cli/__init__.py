"""The `mpcbench` command line, joined in one place: each command group is a module of its own
(`warehouse`, `dataset`, `runs`, `tools`, `integrations`), and each command parses its arguments and calls one
library function. The console script is `mpcbench.__main__:main`, which calls `main` here.

A `UserError` that reaches this level, from any command, is printed as one line (no traceback
unless `mpcbench --debug ...`) and becomes the exit status it carries. Ctrl-C, at any moment, is
one line and exit status 130 (`mpcbench.interrupt`)."""

from __future__ import annotations

from typing import Annotated

import typer
from typer.core import TyperGroup

from ..errors import UserError
from ..interrupt import EXIT_STATUS, WHILE_STARTING, is_interrupt, leaving, watch
from ..legacy import cli as legacy
from . import dataset, integrations, runs, tools, warehouse
from .common import err, fail, report_error


# What Ctrl-C leaves of a command that does not say it itself: `eval` says it from its first line
# on (a run names the episodes saved), so only a press while its options are parsed reaches here.
INTERRUPTED = {"build": "interrupted: mpcbench build stopped before it finished; nothing was written: a build "
                        "writes its database whole or not at all",
               "eval": WHILE_STARTING}


class Commands(TyperGroup):
    """The command group: one line for a user error, wherever in a command it is raised, and one
    line with exit status 130 for Ctrl-C, at whatever moment (`interrupt`)."""

    def invoke(self, ctx):
        # From here a press is the command's to answer. Before, while typer parses the command line,
        # `mpcbench.__main__`'s handler answers it: typer would turn Ctrl-C into a silent exit 130.
        watch()
        try:
            return super().invoke(ctx)
        except UserError as e:
            if e.code == EXIT_STATUS:
                leaving()
            report_error(e, debug=bool(ctx.params.get("debug")))
        except (typer.Exit, typer.Abort):   # the command's own way out, already said
            raise
        except BaseException as e:
            if not is_interrupt(e):
                raise
            leaving()
            name = ctx.invoked_subcommand or ""
            fail(INTERRUPTED.get(name) or f"interrupted: mpcbench {name} stopped before it finished; run it again "
                                           "for its whole output", EXIT_STATUS)


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
    try:
        app()
    except KeyboardInterrupt:  # pressed before a command runs (Commands.invoke answers it within one)
        leaving()
        err.print(f"[bold red]error:[/] {WHILE_STARTING}", highlight=False)
        raise SystemExit(EXIT_STATUS) from None
    finally:  # the command is over: a press while Python shuts down must not undo its exit status
        leaving()
