"""The referee of the host script reader: the mlnx_qos calls bash itself makes of a script (a stand-in mlnx_qos that
logs its arguments), beside those losslessd reads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from losslessd.parse.mlx5 import _piped_output_only, script

BASH = shutil.which("bash")


def read_calls(text: str) -> list[str]:
    """The mlnx_qos calls the reader takes the script to make, in order (their arguments): a call piped into readers
    of its output (`| tee -a LOG`) with its own words, one piped into anything else not at all (as the host reader)."""
    calls = (_piped_output_only(words) for _, words, _ in script.commands(text) if words and words[0] == "mlnx_qos")
    return [" ".join(words[1:]) for words in calls if "|" not in words and "|&" not in words]


def bash_calls(text: str, tmp_path: Path) -> list[str]:
    """The mlnx_qos calls bash makes running ``text`` (bash must be installed), with stand-ins for mlnx_qos, which
    logs its arguments, and dcb."""
    assert BASH is not None
    tmp_path.mkdir(parents=True, exist_ok=True)
    log, stub = tmp_path / "calls", tmp_path / "mlnx_qos"
    log.unlink(missing_ok=True)
    # (bash and Python both run it: `python3 ./mlnx_qos ...` runs it as Python, as mlnx-tools' mlnx_qos is run)
    stub.write_text(f"#!/bin/bash\n\"\"\"\":\necho \"$*\" >> {log}\nexit 0\n\"\"\"\nimport sys\n"
                    f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n")
    stub.chmod(0o755)
    # A stand-in dcb that fails where mlx5's kernel refuses (net/dcb/dcbnl.c: no dcbnl_setapptrust, EOPNOTSUPP).
    dcb = tmp_path / "dcb"
    dcb.write_text("#!/bin/bash\n[ \"$1 $2\" != \"apptrust set\" ]\n")
    dcb.chmod(0o755)
    (tmp_path / "s.sh").write_text(text)
    subprocess.run([BASH, str(tmp_path / "s.sh")], env={"PATH": f"{tmp_path}:/usr/bin:/bin"}, check=False,
                   capture_output=True, cwd=tmp_path)
    return log.read_text().splitlines() if log.exists() else []


def assert_calls(lines: list[str], calls: list[str], tmp_path: Path) -> None:
    """The script of ``lines`` (after `#!/bin/bash`) makes ``calls``, as read and, where bash is installed, as run
    (see bash_calls)."""
    text = "\n".join(["#!/bin/bash", *lines]) + "\n"
    assert read_calls(text) == calls
    if BASH:
        assert bash_calls(text, tmp_path) == calls
