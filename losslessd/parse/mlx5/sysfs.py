"""What the kernel takes when a host script writes RoCE QoS files directly, and what it refuses (the write fails: echo
exits 1 with the kernel's error, and the file keeps its value).

- /sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos: the ToS byte RDMA-CM gives the connections it makes later,
  what `cma_roce_tos -d DEV -t TOS` writes (Linux drivers/infiniband/core/cma_configfs.c default_roce_tos_store:
  kstrtou8(buf, 0, ...)); the DEV directory is made by `mkdir` first (cma_configfs.c make_cma_dev).
- /sys/class/net/IF/qos/prio2buffer and qos/buffer_size: the priority->receive buffer map and the 8 receive buffer
  sizes in bytes, what `mlnx_qos --prio2buffer` / `--buffer_size` set (MLNX_OFED mlnx-ofa_kernel
  drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c mlx5e_store_prio2buffer, mlx5e_store_buffer_size; the NVIDIA
  MLNX_OFED user manual's "Tune Receive Buffers" writes them with `echo`). Upstream mlx5 has no such files (dcbnl only).
"""

from __future__ import annotations

from ...lazyre import lazy

# The path of each file, as a script writes it (the RDMA device may be looked up by its interface at run time, as a
# rendered script does: `$(ls /sys/class/net/IF/device/infiniband)`).
_DEVICE = r"(?:\$\(ls /sys/class/net/[^/\s)]+/device/infiniband\)|[^/\s]+)"
TOS_PATH = lazy(rf"^/sys/kernel/config/rdma_cm/(?P<dev>{_DEVICE})/ports/(?P<port>[0-9]{{1,3}})/default_roce_tos$")
QOS_PATH = lazy(r"^/sys/class/net/(?P<iface>[^/\s]+)/qos/(?P<file>prio2buffer|buffer_size)$")
# mkdir makes a device's directory (its ports/N are made with it: `mkdir -p .../DEV/ports/1` makes nothing more);
# rmdir drops it, and the ToS set stays with the device (cma.c cma_set_default_roce_tos keeps it in the cma_device).
RDMA_CM_DIR = lazy(rf"^/sys/kernel/config/rdma_cm(?:/{_DEVICE}(?:/ports(?:/[0-9]{{1,3}})?)?)?/?$")

# include/uapi/asm-generic/errno-base.h and errno.h, as strerror(3) words them (bash prints them: `echo: write error:`).
EINVAL = "EINVAL, Invalid argument"
ERANGE = "ERANGE, Numerical result out of range"
_MLX5E_MAX = 8  # en/port_buffer.h MLX5E_MAX_BUFFER; en.h MLX5E_MAX_PRIORITY (IEEE 802.1Q: 8 priorities)
_U32 = 1 << 32  # (sscanf "%u" into an unsigned int)
NEWLINE = "\n"  # (what echo writes after the value)


class Refused(ValueError):
    """A write not read: the kernel refuses it (``errno`` its error, the message says why, as the kernel does), or
    (``errno`` None) takes a value no script means."""

    def __init__(self, message: str, errno: str | None) -> None:
        super().__init__(f"{message}: {errno}" if errno else message)
        self.errno = errno


def kstrtou8(text: str) -> int:
    """``text`` as lib/kstrtox.c kstrtou8(s, 0, ...) reads it: an optional `+`, then `0x` hex, a leading-`0` octal or
    decimal digits, then at most one newline (echo's) and nothing else; EINVAL otherwise, ERANGE past 255."""
    s = text[1:] if text.startswith("+") else text
    s = s.removesuffix(NEWLINE)
    if s[:2].lower() == "0x" and len(s) > 2 and s[2] in "0123456789abcdefABCDEF":
        digits, base = s[2:], 16
    elif s.startswith("0"):
        digits, base = s, 8
    else:
        digits, base = s, 10
    shown = text.removesuffix(NEWLINE)[:40]
    if not digits or any(c not in _DIGITS[base] for c in digits):
        raise Refused(f"`{shown}` is no number kstrtou8 reads (decimal, 0x hex or 0 octal)", EINVAL)
    value = int(digits, base) if len(digits.lstrip("0")) <= 3 else 0x100  # (a longer one is past 255 in any base)
    if value > 0xFF:
        raise Refused(f"`{shown}` does not fit the ToS byte (0-255)", ERANGE)
    return value


_DIGITS = {16: "0123456789abcdefABCDEF", 10: "0123456789", 8: "01234567"}


_LEADING_NUMBER = lazy(r"[ \t\n\v\f\r]*([0-9]+)")


def mlx5_list(text: str, hi: int | None) -> list[int]:
    """``text`` as en_sysfs.c reads prio2buffer and buffer_size: split at each `,` (strsep), each part read with
    sscanf "%u" (blanks, then decimal digits; what follows them is left; a part with none is passed over), up to 8
    values (a ninth part is never read); fewer than 8, or a value above ``hi`` (7 for prio2buffer), is EINVAL."""
    values: list[int] = []
    for part in text.split(","):
        if len(values) == _MLX5E_MAX:
            break
        m = _LEADING_NUMBER.match(part)
        if m is None:
            continue
        digits = m.group(1).lstrip("0") or "0"
        if len(digits) > 10 or int(digits) >= _U32:  # (sscanf keeps the low 32 bits of a longer number: not a size
            raise Refused(f"{digits[:24]} is past the 32 bits sscanf's %u keeps", None)  # anyone means)
        value = int(digits)
        if hi is not None and value > hi:
            raise Refused(f"{value} names no receive buffer (0-{hi})", EINVAL)
        values.append(value)
    if len(values) < _MLX5E_MAX:
        shown = text.removesuffix(NEWLINE)[:60]
        raise Refused(f"`{shown}` gives {len(values)} of the 8 values the driver wants", EINVAL)
    return values


def write_fails(value: str, path: str) -> str | None:
    """Why the kernel refuses `echo VALUE > PATH` (a literal value to one of the files above), or None."""
    try:
        if TOS_PATH.match(path):
            kstrtou8(value + NEWLINE)
        elif m := QOS_PATH.match(path):
            mlx5_list(value + NEWLINE, 7 if m.group("file") == "prio2buffer" else None)
    except Refused as exc:
        return f"the kernel refuses the write to {path[:80]} ({exc})" if exc.errno else None
    return None
