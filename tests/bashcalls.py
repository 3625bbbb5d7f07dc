"""The referee of the host script reader: the mlnx_qos calls bash itself makes of a script (a stand-in mlnx_qos that
logs its arguments), beside those losslessd reads."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from losslessd.parse.mlx5 import _piped_output_only, script

BASH = shutil.which("bash")
DASH = shutil.which("dash")  # (Debian's /bin/sh: no brace expansion)


def read_calls(text: str) -> list[str]:
    """The mlnx_qos calls the reader takes the script to make, in order (their arguments): a call piped into readers
    of its output (`| tee -a LOG`) with its own words, one piped into anything else not at all (as the host reader)."""
    calls = (_piped_output_only(words) for _, words, _ in script.commands(text) if words and words[0] == "mlnx_qos")
    return [" ".join(words[1:]) for words in calls if "|" not in words and "|&" not in words]


# A stand-in mlnx_qos that reads its words as mlnx-tools python/mlnx_qos does: an optparse OptionParser given a
# version, its options (-f/--pfc, -F/--specific_pfc, -P/--get_pfc, -p/--prio_tc, -s/--tsa, -t/--tcbw, -r/--ratelimit,
# -d/--dcbx, --trust, --dscp2prio, --cable_len, --prio2buffer, --buffer_size, -i/--interface: each takes a value; -a:
# a switch), then exit 1 on a word left over ("Bad arguments") or on no -i ("Interface name is required"); a call it
# accepts is logged.
OPTPARSE_MLNX_QOS = """\
import sys
from optparse import OptionParser
parser = OptionParser(version="%prog 1")
for names in (("-f", "--pfc"), ("-F", "--specific_pfc"), ("-P", "--get_pfc"), ("-p", "--prio_tc"), ("-s", "--tsa"),
              ("-t", "--tcbw"), ("-r", "--ratelimit"), ("-d", "--dcbx"), ("--trust",), ("--dscp2prio",),
              ("--cable_len",), ("--prio2buffer",), ("--buffer_size",), ("-i", "--interface")):
    parser.add_option(*names, action="append" if names == ("--dscp2prio",) else "store")
parser.add_option("-a", action="store_true")
options, args = parser.parse_args()
if args or options.interface is None:
    sys.exit(1)
open(LOG, "a").write(" ".join(sys.argv[1:]) + "\\n")
"""


def bash_calls(text: str, tmp_path: Path, optparse: bool = False, shell: str | None = BASH) -> list[str]:
    """The mlnx_qos calls bash (or ``shell``) makes running ``text`` (it must be installed), with stand-ins for
    mlnx_qos, which logs its arguments (with ``optparse``, those it accepts: OPTPARSE_MLNX_QOS), and dcb."""
    assert shell is not None
    tmp_path.mkdir(parents=True, exist_ok=True)
    log, stub = tmp_path / "calls", tmp_path / "mlnx_qos"
    log.unlink(missing_ok=True)
    if optparse:
        stub.write_text(f"#!{sys.executable}\nLOG = {str(log)!r}\n{OPTPARSE_MLNX_QOS}")
    else:  # (bash and Python both run it: `python3 ./mlnx_qos ...` runs it as Python, as mlnx-tools' mlnx_qos is run)
        stub.write_text(f"#!/bin/bash\n\"\"\"\":\necho \"$*\" >> {log}\nexit 0\n\"\"\"\nimport sys\n"
                        f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n")
    stub.chmod(0o755)
    # A stand-in dcb that fails where mlx5's kernel refuses (net/dcb/dcbnl.c: no dcbnl_setapptrust, EOPNOTSUPP).
    dcb = tmp_path / "dcb"
    dcb.write_text("#!/bin/bash\n[ \"$1 $2\" != \"apptrust set\" ]\n")
    dcb.chmod(0o755)
    (tmp_path / "s.sh").write_text(text)
    subprocess.run([shell, str(tmp_path / "s.sh")], env={"PATH": f"{tmp_path}:/usr/bin:/bin"}, check=False,
                   capture_output=True, cwd=tmp_path)
    return log.read_text().splitlines() if log.exists() else []


def assert_calls(lines: list[str], calls: list[str], tmp_path: Path) -> None:
    """The script of ``lines`` (after `#!/bin/bash`) makes ``calls``, as read and, where bash is installed, as run
    (see bash_calls)."""
    text = "\n".join(["#!/bin/bash", *lines]) + "\n"
    assert read_calls(text) == calls
    if BASH:
        assert bash_calls(text, tmp_path) == calls
