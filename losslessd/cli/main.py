"""`losslessd` command line: one small module per subcommand, all calling losslessd.api.

A subcommand's module is imported only when that command runs or its own help is shown: `losslessd --help`
and `losslessd rules` do not import the daemon, the renderer, the simulator or the collectors. The command
list's one-line help texts are read from the modules' sources (their docstrings), not by importing them.
"""

import ast
import atexit
import codecs
import contextlib
import enum
import gc
import importlib
import importlib.util
import inspect
import linecache
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from .. import __version__
from ..errors import DEBUG_ENV, EXIT_BROKEN_PIPE, EXIT_INPUT, EXIT_INTERNAL, REPORT_HINT, InputError, describe_exception
from ..gcpause import gc_paused
from ..limits import ENV_MAX_FILE_MB, file_limit_mb
from ..printable import printable, shown_path

# Subcommands in the order `--help` lists them: name -> (module under losslessd.cli, its function), or, for a
# group of subcommands, name -> (module, None): the module's `app` (a typer.Typer) holds them.
COMMANDS: dict[str, tuple[str, str | None]] = {
    "lint": ("lint", "lint"),
    "fix": ("fix", "fix"),
    "rules": ("rules", "rules"),
    "pull": ("pull", "pull"),
    "sim": ("sim", None),
    "sim-bench": ("simbench", "sim_bench"),
    "render": ("render", "render"),
    "daemon": ("daemon", "daemon"),
    "events": ("history", "events"),
    "history": ("history", "history"),
    "policy": ("policy", None),
    "tune": ("tune", None),
}

# The commands after which the process ends at once (entry, _end_now): each leaves nothing for Python's shutdown to
# do (no thread, pool, log handler, database or temporary file; its report written by limits.write_output, closed).
# None: no command ran (`losslessd --help`, --version, a usage error).
ENDS_AT_ONCE = frozenset({"lint", "rules", None})


class _ValueFirst:
    """Stands in for the validator typer (0.29+) builds for a parameter on its first use, until a value comes.
    typer builds it (a pydantic TypeAdapter: the first one imports pydantic, 115 M instructions) for a value not
    given too, and answers that value (None) without using it: `losslessd rules` imported pydantic for the --help
    flag it was not given. None is answered here as typer answers it (typer._coercion.RuntimeParam.coerce); any
    other value by typer's own validator, built then: every value, error message and exit code is typer's, but for
    an empty path (``--policy ""``, ``lint "$UNSET"``), which typer reads as `.`, the working folder ("`.`: not a
    regular file", or the folder linted): refused naming the option."""

    typers: Any = None  # typer's own validator, once built

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        if param.type_descriptor.annotation in _PATH_TYPES:
            words = value if isinstance(value, list | tuple) else (value,)
            if "" in words:
                raise typer.BadParameter(_EMPTY_PATH, ctx=ctx, param=param)
            if value == "-" and param.type_descriptor.parameter_info.allow_dash:
                return None  # (standard output: the option's default)
            for word in words:
                _path_word(word, param.type_descriptor.parameter_info, ctx, param)
        if self.typers is None:
            plain = _plain(param, value, ctx)
            if plain is not _TYPERS:
                return plain
            param._runtime_param = None  # (typer builds its own, kept here: empty paths are checked on each use)
            self.typers, param._runtime_param = param.get_runtime_param(), self
        return self.typers.coerce(value, param=param, ctx=ctx)


_TYPERS = object()  # (_plain: typer's own validator answers this value)


def _plain(param: Any, value: Any, ctx: Any) -> Any:
    """A text, path or choice given on the command line (or a list of them), coerced as typer's validator does
    without building it: it is a pydantic TypeAdapter, and importing pydantic is 115 M instructions of a lint whose
    policy needs none (losslessd.policycache). A path is checked by typer's own function (exists, file_okay...),
    a choice matched by typer's own; anything else, and any value either refuses, _TYPERS: typer's validator
    answers it, with its own words (as it does all where a typer release has moved these private functions)."""
    try:
        from typer._param_types import coerce_cli_choice, coerce_cli_path
    except ImportError:
        return _TYPERS
    info, annotation = param.type_descriptor.parameter_info, param.type_descriptor.annotation
    multi = param.multiple or param.nargs == -1
    if info.parser is not None or info.path_type is not None or multi != isinstance(value, list | tuple):
        return _TYPERS
    leaf = annotation.__args__[0] if multi and getattr(annotation, "__origin__", None) is list else annotation
    if multi and leaf is annotation:
        return _TYPERS
    items = list(value) if multi else [value]
    if not all(isinstance(item, str) for item in items):
        return _TYPERS
    try:
        if leaf is str:
            out = items
        elif leaf is Path:
            out = [coerce_cli_path(Path(item), info, path_type=Path, param=param, ctx=ctx) for item in items]
        elif isinstance(leaf, type) and issubclass(leaf, enum.Enum):
            out = [coerce_cli_choice(item, choices=list(leaf), case_sensitive=info.case_sensitive, ctx=ctx)
                   for item in items]
        else:
            return _TYPERS
    except (ValueError, typer.BadParameter):
        return _TYPERS
    return out if multi else out[0]


_PATH_TYPES = (Path, list[Path])  # (typer's annotation of `Path | None`, `list[Path]`)
_EMPTY_PATH = "is empty: name a file or folder (an unset shell variable?); `.` names the working folder"


def _path_word(word: Any, info: Any, ctx: Any, param: Any) -> None:
    """A path as the command line gives it, before typer makes it a Path, which drops what a Path cannot hold: a
    trailing slash or `/.` (_folder_ending: `-o out.json/` wrote the file out.json; `lint leaf1.cfg/` read the file,
    where open(2) says ENOTDIR) and the difference between `-` and `./-`. A path ending in a slash names a folder:
    refused where the option names a file (``dir_okay`` False) or a file is there. `-` stands for standard input or
    output (POSIX.1-2017 XBD 12.2, Utility Syntax Guideline 13): refused where the option does not take it
    (``allow_dash``), rather than read or written as a file named `-` (`-o -` wrote one); `./-` names such a file."""
    if not isinstance(word, str):
        return
    if word == "-":
        raise typer.BadParameter("`-` stands for standard input or output, which this option does not take: name a "
                                 "file or folder (./- for one named -)", ctx=ctx, param=param)
    bare = _folder_ending(word)
    if bare == word or not bare:
        return
    end = printable(shown_path(word[len(bare):]))
    if os.path.exists(bare) and not os.path.isdir(bare):
        raise typer.BadParameter(f"{printable(shown_path(word))} ends with {end}, which names a folder, but "
                                 f"{printable(shown_path(bare))} is a file: drop the {end}", ctx=ctx, param=param)
    if not info.dir_okay:
        raise typer.BadParameter(f"{printable(shown_path(word))} ends with {end}, so it names a folder; this option "
                                 "names a file", ctx=ctx, param=param)


def _folder_ending(word: str) -> str:
    """``word`` without the ending that makes it name a folder and a Path drops: slashes, and `.` after one (Path
    reads `out.json/.` and `out.json/./` as out.json too, where open(2) says ENOTDIR)."""
    seps = os.sep + (os.altsep or "")
    bare = word.rstrip(seps)
    while len(bare) > 1 and bare.endswith(".") and bare[-2] in seps:
        bare = bare[:-1].rstrip(seps)
    return bare


class _ValuesFirst:
    """A command whose parameters (--help among them) build typer's validator only for a value given (_ValueFirst;
    typer builds one from 0.29, pyproject's floor for that reason)."""

    def get_params(self, ctx: Any) -> list:
        return _values_first(super().get_params(ctx))  # type: ignore[misc]

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """A file named with a leading dash where an option goes is read as options: click said only "No such option:
        -s" of `lint -spine1.cfg`, took `-fabric.cfg` for `-f abric.cfg` (an output format) and `lint -out.cfg
        leaf1.cfg` for `-o ut.cfg`, the report written there and the file never linted. Such a word is refused, the
        file named with the two ways to give it."""
        named = _dash_file(self.get_params(ctx), args, self.allow_interspersed_args)  # type: ignore[attr-defined]
        if named:
            shown = printable(shown_path(named))
            raise _USAGE_ERROR(f"{shown} is a file here, but a word starting with - is read as options: write it "
                               f"./{shown}, or after --", ctx=ctx)
        return super().parse_args(ctx, args)  # type: ignore[misc]


# (click's UsageError, which typer vendors (a private module) from 0.28: no one public module to import it from)
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def _dash_file(params: list, args: list[str], interspersed: bool) -> str | None:
    """The first word of ``args`` that names a file (or link) and starts with a dash where click reads an option:
    not an option's own name, nor the value of the option before it, nor after ``--``."""
    takes_value = {name: not (getattr(p, "is_flag", False) or getattr(p, "count", False))
                   for p in params if p.param_type_name == "option" for name in (*p.opts, *p.secondary_opts)}
    value_next = False
    for arg in args:
        if value_next or arg in takes_value:
            value_next = not value_next and takes_value[arg]
            continue
        if arg == "--" or (not interspersed and not arg.startswith("-")):
            return None
        if arg.startswith("-") and arg != "-" and arg.split("=", 1)[0] not in takes_value and os.path.lexists(arg):
            return arg
    return None


def _values_first(params: list) -> list:
    for param in params:
        if getattr(param, "_runtime_param", False) is None:
            param._runtime_param = _ValueFirst()
    return params


class _Command(_ValuesFirst, TyperCommand):
    """A subcommand (lint, rules...): _ValuesFirst."""


class CommandGroup(_ValuesFirst, TyperGroup):
    """A group whose --help lists each command with the whole first paragraph of its help (click cuts it
    after some 60 characters with "...", in mid-phrase); _ValuesFirst, its subcommands too (`tune report`)."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None and not isinstance(command, _ValuesFirst):
            _values_first(command.params)
        return command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.short_help or _first_paragraph(command.help)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def echo_error(message: str) -> None:
    """The one form of an operator error on stderr, whichever command writes it: ``losslessd: error: ...``, its
    text made printable (a file name or device answer may hold control characters that would drive the terminal)."""
    with contextlib.suppress(OSError):  # stderr refuses it (`2> /dev/full`): the exit code alone says it then
        typer.echo(f"losslessd: error: {printable(message)}", err=True)


def _first_paragraph(text: str | None) -> str:
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split()) if text else ""


def new_app(cls: type[TyperGroup] = CommandGroup, **settings: Any) -> typer.Typer:
    """A losslessd command or group. Help is plain text: one look on a terminal, in a pipe and in the docs,
    and no rich import (`losslessd --help` starts in half the time). No shell-completion options, no rich
    tracebacks (main() reports errors)."""
    return typer.Typer(cls=cls, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
                       **settings)


class _Listed(TyperCommand):
    """A subcommand as `losslessd --help` lists it (name and help text) before its module is imported. The help
    text is read from the module's source only when a listing shows it (running a command never needs it)."""

    _text: str | None = None
    _read = False

    @property
    def help(self) -> str | None:
        if not self._read and self.name in COMMANDS:
            self._text, self._read = _help(*COMMANDS[self.name]), True
        return self._text

    @help.setter
    def help(self, value: str | None) -> None:  # click's __init__ sets it (None)
        self._text = value


class _LazyGroup(CommandGroup):
    """The top-level group: builds a subcommand from its module when it is run or its help is asked for, and
    ends an operator error (InputError) of every command the same way: one line on stderr, exit 2 (done here
    rather than around ``app()`` so that typer's CliRunner, in the tests, sees what a shell sees)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        for name in COMMANDS:
            self.commands.setdefault(name, _Listed(name=name))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        _ran[0] = name
        if isinstance(command, _Listed) and name is not None:
            command = self.commands[name] = _load(name, *COMMANDS[name])
        return name, command, rest

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            echo_error(str(exc))
            raise typer.Exit(EXIT_INPUT) from None


def _load(name: str, module: str, function: str | None) -> Any:
    # What a command's import makes (pydantic's validators, the model's classes) lives as long as the process: the
    # collector paused, it is not scanned again and again while it is made (13 M instructions of the example lint).
    with gc_paused():
        mod = importlib.import_module(f"{__package__}.{module}")
    if function is None:
        group = typer.main.get_group(mod.app)
        group.name = name
        return group
    one = new_app()
    one.command(name, cls=_Command)(getattr(mod, function))
    with _parameters_read_once():
        return typer.main.get_command(one)


@contextmanager
def _parameters_read_once() -> Iterator[None]:
    """While typer builds a command, its function's parameters are read from its signature once: typer reads them
    (inspect.signature, typing.get_type_hints, a copy of each option's settings: 2.5 M instructions for lint's 19)
    for the command's parameters, then all again where its callback wants only their names (typer.main.get_callback,
    which neither changes nor keeps what it is given). Where a typer release reads them otherwise, nothing changes."""
    read = getattr(typer.main, "get_params_from_function", None)
    if read is None:
        yield
        return
    seen: dict[Any, Any] = {}

    def once(func: Any) -> Any:
        if func not in seen:
            seen[func] = read(func)
        return seen[func]

    typer.main.get_params_from_function = once
    try:
        yield
    finally:
        typer.main.get_params_from_function = read



def _help(module: str, function: str | None) -> str | None:
    """The help text typer would show: the function's docstring, or the `help=` of the module's Typer(...)."""
    spec = importlib.util.find_spec(f"{__package__}.{module}")
    if spec is None or spec.origin is None:
        return None
    with open(spec.origin, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if function is not None and isinstance(node, ast.FunctionDef) and node.name == function:
            return ast.get_docstring(node)
        if function is None and isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                isinstance(t, ast.Name) and t.id == "app" for t in node.targets):
            for kw in node.value.keywords:
                if kw.arg == "help" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    return kw.value.value
    return None


app = new_app(_LazyGroup, no_args_is_help=True,
              help="Keep RDMA fabrics lossless: lint PFC/ECN/buffer/watchdog settings on switches and NICs.\n\n"
                  "Exit codes (every command): 0 clean; 1 findings (lint, fix), devices that failed (pull) or a tune "
                  "stopped early; 2 unusable input or usage error, nothing readable or nothing checked, a report that "
                  f"cannot be written; 3 internal error (a bug in losslessd, never a finding; {DEBUG_ENV}=1 or --debug "
                  "prints its traceback). Input files are read only if they are regular files within the size limit "
                  f"(32 MiB; --max-file-mb or {ENV_MAX_FILE_MB} raise it).")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"losslessd {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False,
          debug: Annotated[bool, typer.Option("--debug", help=f"Print the traceback of an internal error (as "
                                              f"{DEBUG_ENV}=1 does).")] = False) -> None:
    if debug:
        os.environ[DEBUG_ENV] = "1"


@contextmanager
def one_command() -> Iterator[None]:
    """What a command sets for the process (--debug, --max-file-mb) lasts until it ends: a program that runs
    several commands in one process (the tests, bench/hostile_sweep.py) starts each one afresh."""
    debug = os.environ.get(DEBUG_ENV)
    try:
        with file_limit_mb(None):
            yield
    finally:
        if debug is None:
            os.environ.pop(DEBUG_ENV, None)
        else:
            os.environ[DEBUG_ENV] = debug


_ran: list[str | None] = [None]  # (the command the last main() resolved: _end_now)


def entry() -> None:
    """The process's own entry (the losslessd script, ``python -m losslessd``): main, then the process ends at once
    where Python's shutdown has nothing left to do (_end_now). A program that runs commands in its own process calls
    main, which returns (raises SystemExit) as any function does."""
    try:
        main()
    except SystemExit as exc:
        if _outermost(sys._getframe(1)):
            _end_now(exc.code)
        raise


def _outermost(caller: Any) -> bool:
    """Whether ``caller`` (entry's) is the process's own outermost code, with nothing of anyone's to run after it:
    the losslessd script's, `python -c`'s, or the module `python -m` runs (below it only runpy's frames). A program
    that runs the module itself (runpy.run_module, a profiler, coverage) gets main's SystemExit back."""
    frame = caller.f_back
    while frame is not None:
        if frame.f_globals.get("__name__") != "runpy":
            return False
        frame = frame.f_back
    return True


def _end_now(code: object) -> None:
    """End the process with ``code`` without Python's shutdown (os._exit), where it would do nothing that shows:
    8 M instructions of the example lint's 587 M tearing down modules and freeing a heap the process gives back.
    Taken only after a command of ENDS_AT_ONCE, with standard output and error the process's own and flushed, no
    exit handler but main's heap freeze (atexit: logging's flush, multiprocessing's, a weakref.finalize, coverage
    and any the host registered all register one), no thread but this one and none of threading's exit handlers
    (concurrent.futures'), and no one watching: not under a tracer or profiler, not with -W or PYTHONWARNINGS (a
    ResourceWarning of a file left open is shown at shutdown), -X options (dev mode, importtime...), -i, -v or
    PYTHONVERBOSE (the modules' teardown is shown), or PYTHONMALLOCSTATS. Otherwise it returns, and the process
    ends as Python ends it."""
    if not (code is None or type(code) is int) or _ran[0] not in ENDS_AT_ONCE:
        return
    flags = sys.flags
    if flags.dev_mode or flags.inspect or flags.verbose or sys.warnoptions or sys._xoptions \
            or sys.gettrace() is not None or sys.getprofile() is not None or os.environ.get("PYTHONMALLOCSTATS"):
        return
    handlers = getattr(atexit, "_ncallbacks", None)  # (CPython's; elsewhere nothing tells: Python's shutdown runs)
    if handlers is None or handlers() != 1:
        return
    threading = sys.modules.get("threading")
    if threading is not None and (threading.active_count() != 1 or getattr(threading, "_threading_atexits", 0)):
        return
    if sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__:  # (replaced: _stdout_gone, a host's)
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # (the reader left, the disk filled, a stream closed: Python's shutdown says so)
        return
    os._exit(code or 0)


def main() -> None:
    """Run the CLI: every outcome is an exit code of the table above, never a bare traceback (a subcommand's
    module is imported inside ``app()``: an import that fails is an internal error too)."""
    # The policy and settings models are losslessd's own: no pydantic plugin has business in them, and looking
    # for one reads every installed package's entry points on each start (25 M instructions of the example lint's
    # 1,429 M in the development venv; more with more packages). pydantic's documentation (Concepts > Plugins,
    # "Disabling plugins", pydantic 2.7+) names the variable: `__all__`, `1` or `true` disable every plugin. Set
    # for the command line's own process only (the Python API leaves its host's environment alone); an operator's
    # own value wins (PYDANTIC_DISABLE_PLUGINS= scans again).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _ran[0] = None
    # At exit Python collects every generation, again after tearing the modules down: 75 M instructions of the
    # example lint's 1,451 M scanning a heap the process is about to give back. Frozen, every object is still freed
    # by its reference count; only a garbage cycle left at exit is not collected, whose finalizers Python's data
    # model does not promise to run at exit anyway (object.__del__). Once, however often main runs in a process.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    _closed_streams_opened()
    _streams_escape_what_they_cannot_encode()
    with one_command():
        _run()


def _json_escape_error(exc: UnicodeError) -> tuple[str, int]:
    """A codecs error handler writing each character a stream cannot encode as JSON's escape of it: `\\u03a9`, a
    pair of `\\uXXXX` surrogates past U+FFFF (RFC 8259 section 7; json.dumps's ensure_ascii writes just that), so a
    JSON or SARIF report stays a valid document and a text one shows where the character was."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    import json  # (only here: no command's start-up imports it for this)

    # (only characters outside the stream's ASCII reach here, so none of those JSON escapes otherwise: `"`, `\\`)
    return json.dumps(exc.object[exc.start:exc.end])[1:-1], exc.end


def _closed_streams_opened() -> None:
    """A command started with a standard stream closed (`>&-`, `2>&-`, `<&-`, or by a parent that closed it): Python
    leaves its sys.stdin, stdout or stderr None, and `lint 2>&-` was an internal error (exit 3, the progress line
    asking whether stderr is a terminal) of a lint with nothing wrong, `lint >&-` one too. Each closed descriptor of
    0-2 is given /dev/null, as OpenSSH's sanitise_stdfd (misc.c) gives it, so that no file the command opens takes
    its number (a report opened as descriptor 1 would get what is written to standard output): standard input then
    reads end of file (a confirmation reads no), standard error writes nothing (there is nowhere to say it: the exit
    code does), and standard output, opened read-only, refuses each write (EBADF), so a report written there is
    "cannot write to standard output" (exit 2), as `> /dev/full` is, and `-o FILE` still writes the file."""
    for fd, name, flags, mode in ((0, "stdin", os.O_RDONLY, "r"), (1, "stdout", os.O_RDONLY, "w"),
                                  (2, "stderr", os.O_WRONLY, "w")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, flags)
            except OSError:
                continue
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        setattr(sys, name, open(fd, mode, encoding="utf-8", errors="backslashreplace", closefd=False))  # noqa: SIM115


def _streams_escape_what_they_cannot_encode() -> None:
    """Standard output and error in a locale that is not UTF-8 (LC_ALL=C where Python's locale coercion and UTF-8
    mode are off, PEP 538 and 540; PYTHONIOENCODING=ascii or latin-1) write ASCII, every other character as its JSON
    escape (_json_escape_error): a device or file name outside the encoding was an internal error (exit 3,
    UnicodeEncodeError) of every command that printed it, and a Latin-1 `é` in a JSON report on stdout made a
    document that is not the UTF-8 RFC 8259 (section 8.1) asks for. UTF-8 streams are left as they are."""
    codecs.register_error("losslessd-json-escape", _json_escape_error)
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        try:
            utf8 = encoding is not None and codecs.lookup(encoding).name == "utf-8"
        except LookupError:
            utf8 = False
        reconfigure = getattr(stream, "reconfigure", None)  # (io.TextIOWrapper's; a replaced stream may lack it)
        if not utf8 and callable(reconfigure):
            with contextlib.suppress(OSError, ValueError):  # (a stream already closed: left as it is)
                reconfigure(encoding="ascii", errors="losslessd-json-escape")


def _run() -> None:
    try:
        _working_directory_exists()
        app()
    except SystemExit as exc:
        # click answers a closed stdout (EPIPE) with exit 1 after wrapping stdout: 1 means findings here.
        if exc.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            sys.exit(EXIT_BROKEN_PIPE)
        _flush_stdout()  # a report still buffered when the reader left ends as a broken pipe, not as findings
        raise
    except InputError as exc:
        echo_error(str(exc))
        sys.exit(EXIT_INPUT)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # `losslessd lint ... | head`: the reader left; nothing to report
        _reader_left()
    except OSError as exc:
        if _writing_stdout(exc):  # `> file` on a full disk, `> /dev/full`: the operator's to fix, not a bug
            echo_error(f"cannot write to standard output: {exc.strerror or exc}")
            _stdout_gone(EXIT_INPUT)
        internal_error(exc)
    except Exception as exc:  # noqa: BLE001 - a bug: one line, its own exit code, never read as findings
        internal_error(exc)


def _writing_stdout(exc: OSError) -> bool:
    """Whether ``exc`` came from writing to standard output: the commands write there with sys.stdout.write or
    click's echo (the frame that raised is one of those), never with print."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    code = tb.tb_frame.f_code
    if code.co_name in ("echo", "secho") and code.co_filename.endswith(f"click{os.sep}utils.py"):  # (typer/_click)
        return not tb.tb_frame.f_locals.get("err")
    return "sys.stdout." in linecache.getline(code.co_filename, tb.tb_lineno)


def _working_directory_exists() -> None:
    """Every command names files relative to the working directory: one removed under the shell is the operator's
    to change, not a bug (exit 2, not 3)."""
    try:
        os.getcwd()
    except OSError as exc:
        raise InputError(f"the working directory is gone ({exc.strerror}): cd to an existing folder and run the "
                         "command again") from None


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_left()
    except OSError as exc:  # the report never got out: not findings (1), not clean (0)
        echo_error(f"cannot write to standard output: {exc.strerror or exc}")
        _stdout_gone(EXIT_INPUT)


def _reader_left() -> None:
    _stdout_gone(EXIT_BROKEN_PIPE)


def _stdout_gone(code: int) -> None:
    try:
        # (so that the interpreter's final flush is quiet)
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    except OSError:
        pass
    sys.exit(code)


def internal_error(exc: BaseException) -> None:
    """Report an exception that is a bug in losslessd and exit 3."""
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    with contextlib.suppress(OSError):  # (as echo_error: never Python's exit 1 for the exception)
        typer.echo(f"losslessd: internal error: {printable(describe_exception(exc))}", err=True)
        typer.echo(f"losslessd: {REPORT_HINT}", err=True)
    sys.exit(EXIT_INTERNAL)
