"""`losslessd` command line: one small module per subcommand, all calling losslessd.api."""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from .. import __version__
from ..errors import InputError
from . import daemon as daemon_cmd
from . import fix as fix_cmd
from . import history as history_cmd
from . import lint as lint_cmd
from . import policy as policy_cmd
from . import pull as pull_cmd
from . import render as render_cmd
from . import rules as rules_cmd
from . import sim as sim_cmd


class _Commands(TyperGroup):
    """Every command ends an operator error (InputError) the same way: one line on stderr, exit 2.
    Done here rather than around ``app()`` so that typer's CliRunner (the tests) sees what a shell sees."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except InputError as exc:
            typer.echo(f"losslessd: error: {exc}", err=True)
            raise typer.Exit(2) from None


app = typer.Typer(cls=_Commands, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Keep RDMA fabrics lossless: lint PFC/ECN/buffer/watchdog settings on switches and NICs.")
app.command("lint")(lint_cmd.lint)
app.command("fix")(fix_cmd.fix)
app.command("rules")(rules_cmd.rules)
app.command("pull")(pull_cmd.pull)
app.command("sim")(sim_cmd.sim)
app.command("render")(render_cmd.render)
app.command("daemon")(daemon_cmd.daemon)
app.command("events")(history_cmd.events)
app.command("history")(history_cmd.history)
app.add_typer(policy_cmd.app, name="policy")


def _version(value: bool):
    if value:
        typer.echo(f"losslessd {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    pass


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
