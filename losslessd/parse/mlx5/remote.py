"""A host script or capture about other hosts: a NIC command run through a remote runner (`ssh gpu01 'mlnx_qos ...'`,
`pdsh -w gpu[01-04] ...`), or several hosts' outputs each line prefixed `HOST: ` (pdsh/clush). What it sets or shows
is those hosts' NICs, so it is named as such rather than as a file no platform wrote.
"""

from __future__ import annotations

from ...errors import InputError
from ...lazyre import lazy
from ..base import Input

# The NIC programs the linux_mlx5 reader reads (mlnx_qos, cma_roce_tos, iproute2 dcb, lldptool, mlxconfig).
_NIC = lazy(r"\b(mlnx_qos|cma_roce_tos|dcb|lldptool|mlxconfig)\b")
# A remote runner typed where a command starts (after `sudo` and its options): ssh(1) `ssh [options] destination
# command`, pdsh(1) and clush(1) `-w HOSTS command`, a site's `on_node HOST command` helper.
_RUNNER = lazy(r"(?:^|[;&|(]|\bdo|\bthen)\s*(?:sudo\s+(?:-\S+\s+)*)?(ssh|pdsh|clush|on_node)\s+(.*)$")
# ssh(1) SYNOPSIS: the options that take a value (the next word, or glued); `-P tag` as the current page lists it.
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
# pdsh(1) "output ... prefixed by the hostname" (clush(1) the same, `HOST: line`; a host name at most 253 characters,
# RFC 1035 2.3.4, as inventory._HOST_NAME): a line of mlnx_qos's output (mlnx_tools python/mlnx_qos pretty_print:
# `DCBX mode:`, `Priority trust state|mode:`, `PFC configuration:`).
_PREFIX_LINE = lazy(r"([A-Za-z0-9][\w.-]{0,252}): +(?:DCBX mode:|Priority trust (?:state|mode):|PFC configuration:)")


def _host(runner: str, args: str) -> str:
    """The host (or host list) ``args`` names to ``runner``: ssh's destination (its options and `user@` left out),
    pdsh's and clush's `-w` list, on_node's first word."""
    words = args.split()
    if runner in ("pdsh", "clush"):
        at = next((i for i, w in enumerate(words) if w.startswith("-w")), None)
        if at is not None:
            return words[at][2:] or (words[at + 1] if at + 1 < len(words) else "?")
        return "?"
    host = (ssh_destination(words)[0] if runner == "ssh" else words[0] if words else None) or "?"
    return host.rsplit("@", 1)[-1].strip("'\"")


def ssh_destination(args: list[str]) -> tuple[str | None, list[str]]:
    """ssh's destination (None when there is none) and the words of the command it runs there, from ssh's arguments
    read as its getopt reads them (openssh-portable ssh.c main, the option string `1246ab:c:e:fgi:kl:m:no:p:qstvxAB:C
    D:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy`: letters bundle, a valued one takes the word's rest or the next word; getopt
    runs again after the destination, so options may follow it, unless `--` ended them)."""
    words, host, ended = iter(args), None, False
    for word in words:
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-") and word != "-":
            for i, letter in enumerate(word[1:], 1):
                if letter in _SSH_VALUED:
                    if i == len(word) - 1:
                        next(words, None)
                    break
        elif host is not None:
            return host, [word, *words]
        else:
            host = word
    return host, []


def other_hosts(inp: Input) -> None:
    """InputError naming the other host a remote-command script configures, or the hosts a prefixed output holds;
    nothing where the file is neither."""
    prefixed: dict[str, int] = {}
    for n, line in enumerate(inp.text.split("\n"), 1):
        if (run := _RUNNER.search(line)) and (nic := _NIC.search(run.group(2))):
            host = _host(run.group(1), run.group(2))
            raise InputError(f"it runs {nic.group(1)} on another host through {run.group(1)} (`{host}`): what it sets "
                             f"is that host's NIC, not one this file describes; lint a capture taken there (`mlnx_qos "
                             f"-i IF` on {host}), or the script as run on {host}", file=inp.path, line=n)
        if (m := _PREFIX_LINE.match(line)) is not None:
            prefixed.setdefault(m.group(1), n)
    if prefixed:
        hosts = list(prefixed)
        raise InputError(f"it holds the mlnx_qos output of {len(hosts)} host{'s' if len(hosts) > 1 else ''} "
                         f"({', '.join(hosts[:5])}{', ...' if len(hosts) > 5 else ''}), each line prefixed `HOST: ` as "
                         "pdsh and clush print them: split it per host (`dshbak -d DIR`, dshbak(1)) and lint each "
                         "host's file", file=inp.path, line=min(prefixed.values()))
