"""The control-character check every device file gets (parse.parse_group): each character of printable.DEVICE_CONTROL is
looked for on its own (memchr), so the list it looks for must be exactly that class."""

from __future__ import annotations

from losslessd.parse import parse_group
from losslessd.printable import DEVICE_CONTROL
from tests.hostile_readers import READERS


def test_each_device_control_character_is_told_and_no_other(tmp_path):
    """Every one of them in a host capture gives the SYS002 issue, naming it; a file with only other characters (tab,
    U+0080-U+00FF, U+2028) none."""
    mlx5 = next(r for r in READERS if r.label == "mlx5")
    text = mlx5.file.read_text(encoding="utf-8")
    assert "Cable len:" in text

    def issues(char: str) -> list[str]:
        path = tmp_path / f"host-{ord(char):x}.capture"
        path.write_text(text.replace("Cable len:", f"Cable{char}len:", 1), encoding="utf-8", newline="")
        device = parse_group("host", [str(path)])
        return [i.message for i in device.issues if "control character" in i.message]

    controls = [chr(c) for c in range(0x100) if DEVICE_CONTROL.match(chr(c))]
    assert len(controls) == 30
    for char in [*controls, "\t", "\x80", "\x85", "\xa0", "\u2028"]:
        found = issues(char)
        assert bool(found) == (char in controls), (hex(ord(char)), found)
        if found:
            assert repr(char) in found[0]
