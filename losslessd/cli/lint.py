"""`losslessd lint`: check saved configs against a policy."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import api, policycache, recache, yamlcache
from ..errors import EXIT_INPUT, InputError
from ..limits import not_an_input, reads_recorded, set_max_file_mb, write_output
from ..lint.finding import Severity
from ..printable import printable
from ..report import Format, render
from ..report import text as text_report
from .options import (
    FAMILY_OPTION,
    FORMAT_OPTION,
    IGNORE_OPTION,
    MODEL_OPTION,
    PATHS_ARGUMENT,
    POLICY_OPTION,
    SELECT_OPTION,
    TOPOLOGY_OPTION,
)
from .term import ProgressLine, color_wanted


def lint(
    paths: Annotated[list[Path], PATHS_ARGUMENT],
    policy: Annotated[str, POLICY_OPTION] = "roce-dscp26",
    fmt: Annotated[str | None, FORMAT_OPTION] = None,
    select: Annotated[list[str] | None, SELECT_OPTION] = None,
    ignore: Annotated[list[str] | None, IGNORE_OPTION] = None,
    fail_on: Annotated[Severity, typer.Option("--fail-on", help="Exit 1 when a finding is at least this "
                                              "severe.")] = Severity.warning,
    output_format: Annotated[Format, typer.Option("--output-format", "-f", help="Report format.")] = Format.text,
    output: Annotated[Path | None, typer.Option("--output", "-o", dir_okay=False, allow_dash=True,
                                                help="Write the report to this file instead of stdout (`-`: "
                                                "stdout).")] = None,
    baseline: Annotated[Path | None, typer.Option("--baseline", help="JSON report whose findings are accepted (not "
                                                  "reported).")] = None,
    source_root: Annotated[Path | None, typer.Option("--source-root", exists=True, file_okay=False,
                                                     help="SARIF and GitHub paths are relative to "
                                                     "this folder (default: the git work tree holding the working "
                                                     "directory, else it).")] = None,
    topology: Annotated[Path | None, TOPOLOGY_OPTION] = None,
    fix: Annotated[bool, typer.Option("--fix", help="After the report, print the snippets that resolve fixable "
                                      "findings (as `losslessd fix`; text output only).")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix: also print disruptive "
                                               "fixes.")] = False,
    max_file_mb: Annotated[float | None, typer.Option("--max-file-mb", help="Largest input file read, in MiB "
                                                      "(default 32, or LOSSLESSD_MAX_FILE_MB); larger files are "
                                                      "SYS001 findings.")] = None,
    explain_selection: Annotated[bool, typer.Option("--explain-selection", help="Before the report, list every port "
                                                    "in or out of the RoCE-facing set and the policy rule that "
                                                    "decided (text output on stdout).")] = False,
    model: Annotated[str | None, MODEL_OPTION] = None,
    family: Annotated[str | None, FAMILY_OPTION] = None,
    no_policy_cache: Annotated[bool, typer.Option("--no-policy-cache", help="Validate the policy (and read the "
                                                  "topology file, and compile losslessd's patterns) even where a "
                                                  "lint read these very files before "
                                                  "(as LOSSLESSD_NO_CACHE does); its cache is kept in "
                                                  "$XDG_CACHE_HOME/losslessd (else ~/.cache/losslessd), the "
                                                  f"{policycache.MAX_ENTRIES} policies validated last.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (1: none; default: as many "
                                             "as cores for 400 devices or more; LOSSLESSD_JOBS sets the default; "
                                             "at most two per usable core and one per device). "
                                             "Findings are the same either way.")] = None,
) -> None:
    """Lint device configs (files or folders) against a lossless policy.

    Exit 0: clean. 1: findings at or above --fail-on. 2: unusable input or usage error, nothing
    readable, or nothing checked (no device had a RoCE-facing port the selected rules check). 3: internal
    error (a bug in losslessd; the report is incomplete).
    """
    set_max_file_mb(max_file_mb)
    if fix and (output_format != Format.text or output):
        raise InputError("--fix prints after the text report on stdout; for automation use `losslessd fix -f json`")
    if explain_selection and output_format != Format.text and output is None:  # text before a JSON document is none
        raise InputError(f"--explain-selection prints on stdout, where the {output_format.value} report goes: write "
                         "the report with --output FILE (a JSON report lists the same under devices[].selection)")
    progress = ProgressLine.on_terminal()
    try:
        with reads_recorded() as read, recache.used(not no_policy_cache):  # (what --output must not replace; the
            # patterns' programs kept or read back)
            shown = (lambda what, done, total, note: progress.show(done, total, what, note)) if progress else None
            checked = policycache.load(policy, cache=not no_policy_cache)
            with yamlcache.used(not no_policy_cache):  # (its topology file's document read back, or kept)
                result = api.lint(paths, checked, fmt=fmt, select_codes=select, ignore_codes=ignore,
                                  baseline=api.load_baseline(baseline) if baseline else None, topology=topology,
                                  jobs=jobs, progress=shown, output=output)
    finally:
        if progress:
            progress.close()
    if explain_selection:
        sys.stdout.write(text_report.explain_selection(result) + "\n")
    color = output is None and output_format == Format.text and color_wanted(sys.stdout)
    text = render(output_format.value, result, color=color, srcroot=source_root)
    if output:
        not_an_input(output, [*paths, *(f for d in result.fabric.devices.values() for f in d.files), baseline,
                              topology, result.fabric.topology_source.file if result.fabric.topology_source else None,
                              result.policy.source_file], read, "lint", "report")
        write_output(output, text.encode("utf-8"), "report")
    else:
        sys.stdout.write(text)
    if fix:
        from ..fix import output as fix_output  # the renderer: only when asked
        from ..fix import plan

        fixes = plan(result, unsafe=unsafe_fixes, model=model, family=family)
        for note in fix_output.notes(fixes):
            typer.echo(f"losslessd lint --fix: {note}", err=True)
        sys.stdout.write("\n" + fix_output.text(fixes))
        raise typer.Exit(exit_code(result, result.fails(fail_on), fixes.input_errors))
    raise typer.Exit(exit_code(result, result.fails(fail_on)))


def exit_code(result: api.LintResult, failed: bool, refused: list[str] | None = None) -> int:
    """The run's verdict (LintResult.outcome: 3 crashed, 2 nothing readable or nothing checked, 1 on ``failed``,
    else 0), with its reasons on stderr (shared by lint and fix); 2 also where a fix ``refused`` an input it cannot
    go into as it is (fix.FixResult.input_errors)."""
    outcome = result.outcome(failed)
    lines, code = outcome.lines, outcome.code
    if refused and code < EXIT_INPUT:
        lines, code = [f"error: {why}" for why in refused], EXIT_INPUT
    for line in lines:
        typer.echo(f"losslessd: {printable(line)}", err=True)  # (names input files)
    return code
