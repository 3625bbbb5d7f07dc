"""`losslessd` command line: one small module per subcommand, all calling losslessd.api."""

from __future__ import annotations

import os
import sys
import traceback

import typer
from typer.core import TyperGroup

from .. import __version__
from ..errors import DEBUG_ENV, EXIT_BROKEN_PIPE, EXIT_INPUT, EXIT_INTERNAL, REPORT_HINT, InputError, describe_exception
from ..limits import ENV_MAX_FILE_MB
from . import daemon as daemon_cmd
from . import fix as fix_cmd
from . import history as history_cmd
from . import lint as lint_cmd
from . import policy as policy_cmd
from . import pull as pull_cmd
from . import render as render_cmd
from . import rules as rules_cmd
from . import sim as sim_cmd
from . import simbench as simbench_cmd
from . import tune as tune_cmd


class _Commands(TyperGroup):
    """Every command ends an operator error (InputError) the same way: one line on stderr, exit 2.
    Done here rather than around ``app()`` so that typer's CliRunner (the tests) sees what a shell sees."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except InputError as exc:
            typer.echo(f"losslessd: error: {exc}", err=True)
            raise typer.Exit(EXIT_INPUT) from None


app = typer.Typer(cls=_Commands, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Keep RDMA fabrics lossless: lint PFC/ECN/buffer/watchdog settings on switches and NICs.\n\n"
                  "Exit codes (every command): 0 clean; 1 findings (lint, fix) or devices that failed (pull); "
                  "2 unusable input or usage error, nothing readable; 3 internal error (a bug in losslessd, "
                  f"never a finding; {DEBUG_ENV}=1 or --debug prints its traceback). Input files are read "
                  f"only if they are regular files within the size limit (32 MiB; --max-file-mb or "
                  f"{ENV_MAX_FILE_MB} raise it).")
app.command("lint")(lint_cmd.lint)
app.command("fix")(fix_cmd.fix)
app.command("rules")(rules_cmd.rules)
app.command("pull")(pull_cmd.pull)
app.command("sim")(sim_cmd.sim)
app.command("sim-bench")(simbench_cmd.sim_bench)
app.command("render")(render_cmd.render)
app.command("daemon")(daemon_cmd.daemon)
app.command("events")(history_cmd.events)
app.command("history")(history_cmd.history)
app.add_typer(policy_cmd.app, name="policy")
app.add_typer(tune_cmd.app, name="tune")


def _version(value: bool):
    if value:
        typer.echo(f"losslessd {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
          debug: bool = typer.Option(False, "--debug", help=f"Print the traceback of an internal error (as "
                                     f"{DEBUG_ENV}=1 does).")):
    if debug:
        os.environ[DEBUG_ENV] = "1"


def main() -> None:
    """Run the CLI: every outcome is an exit code of the table above, never a bare traceback."""
    try:
        app()
    except SystemExit as exc:
        # click answers a closed stdout (EPIPE) with exit 1 after wrapping stdout: 1 means findings here.
        if exc.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            sys.exit(EXIT_BROKEN_PIPE)
        _flush_stdout()  # a report still buffered when the reader left ends as a broken pipe, not as findings
        raise
    except InputError as exc:
        typer.echo(f"losslessd: error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # `losslessd lint ... | head`: the reader left; nothing to report
        _reader_left()
    except Exception as exc:  # noqa: BLE001 - a bug: one line, its own exit code, never read as findings
        internal_error(exc)


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_left()


def _reader_left() -> None:
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so that the interpreter's final flush is quiet
    except OSError:
        pass
    sys.exit(EXIT_BROKEN_PIPE)


def internal_error(exc: BaseException) -> None:
    """Report an exception that is a bug in losslessd and exit 3."""
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        traceback.print_exception(exc, file=sys.stderr)
    typer.echo(f"losslessd: internal error: {describe_exception(exc)}", err=True)
    typer.echo(f"losslessd: {REPORT_HINT}", err=True)
    sys.exit(EXIT_INTERNAL)
