"""How a host setup script's lines are cut into commands, read as bash reads them: bash(1) QUOTING (a backslash quotes
the next character, outside quotes too), COMMENTS (a word beginning with an unquoted `#` and the rest of its line are
ignored), Here Documents, and Pipelines and Lists (a line ending in `|`, `|&`, `&&` or `||` goes on at the next). The
referee is bash itself (tests/bashcalls.py): each case's mlnx_qos calls are those bash makes with a stand-in mlnx_qos
that logs its arguments."""

from __future__ import annotations

import pytest

from tests.bashcalls import assert_calls

# bash is the referee of each case (tests.bashcalls): a process each, so not in `make test-fast`.
pytestmark = pytest.mark.slow

TRUST = "mlnx_qos -i eth2 --trust dscp"
PFC = "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0"

# (the script's lines after #!, the mlnx_qos calls bash makes in order)
ESCAPED = {
    # an escaped quote opens no quote, so the comment after it is one and its `<<` opens no here-document (before:
    # `\'` to `it's` was read as quoted, the `<<` after `#` opened one, and the rest of the script was lost)
    "an-escaped-quote-before-a-comment": (["echo Can\\'t find the NIC   # it's DSCP (26 << 2)", TRUST, PFC],
                                          ["-i eth2 --trust dscp", "-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-quote-before-a-quote-in-a-comment": (["echo \\' # ' <<E", TRUST, "E"], ["-i eth2 --trust dscp"]),
    "an-ansi-c-quoted-quote": (["x=$'it\\'s' # <<E", TRUST, "E"], ["-i eth2 --trust dscp"]),
    # an escaped blank before `#` joins it to the word: no comment, the `<<` opens a here-document (before: its body
    # was read as commands)
    "an-escaped-blank-before-a-hash": (["echo a\\ #b <<E", TRUST, "E", PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-semicolon-before-a-hash": (["echo a\\;#b <<E", TRUST, "E", PFC], ["-i eth2 --pfc 0,0,0,1,0,0,0,0"]),
    "an-escaped-backslash-before-a-comment": (["echo a\\\\ #b <<E", TRUST], ["-i eth2 --trust dscp"]),
}


@pytest.mark.parametrize("name", list(ESCAPED))
def test_escapes_outside_quotes_are_read_as_bash_reads_them(name, tmp_path):
    lines, calls = ESCAPED[name]
    assert_calls(lines, calls, tmp_path)
