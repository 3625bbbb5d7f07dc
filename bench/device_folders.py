"""CPU of finding the devices of a fleet whose switches are SONiC folders holding more than their config_db.json
(README "Limits", a device's folder holding more): each other file is read and its platform sniffed, to tell a
device put there (a config_db.json copied to a fabric's root) from the folder's own files (an /etc/sonic copy).

Three fleets of N switch folders are walked (losslessd.fabric._Inputs, what lint does before parsing), each walk's
CPU printed beside the reference measured in the same run: a whole lint (one process) of the bare fleet:
  bare        config_db.json only (the walk lists folders and reads nothing)
  companions  config_db.json and K files of the size of /etc/sonic's own (3 KB of prose each: no platform's)
  etc_sonic   the same prose at the names /etc/sonic's own files have (losslessd.parse.SONIC_OWN_FILES, up to K)
  devices     config_db.json and K EOS running-configs (each a device of its own)

    python bench/device_folders.py [--switches 300] [--companions 8]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from losslessd.api import lint  # noqa: E402
from losslessd.fabric import _Inputs  # noqa: E402
from losslessd.parse import SONIC_OWN_FILES  # noqa: E402

SONIC = (ROOT / "examples" / "fabric" / "leaf1" / "config_db.json").read_text(encoding="utf-8")
EOS = (ROOT / "tests" / "fixtures" / "raw" / "arista_eos" / "roce-leaf.cfg").read_text(encoding="utf-8")
PROSE = (ROOT / "README.md").read_text(encoding="utf-8")[:3000]


def fleet(folder: Path, switches: int, companions: int, kind: str) -> Path:
    for i in range(switches):
        switch = folder / f"sw{i}"
        switch.mkdir(parents=True)
        (switch / "config_db.json").write_text(SONIC.replace('"hostname": "leaf1"', f'"hostname": "sw{i}"'))
        if kind == "etc_sonic":
            for name in sorted(SONIC_OWN_FILES)[:companions]:
                (switch / name).write_text(PROSE)
            continue
        for k in range(companions if kind != "bare" else 0):
            text = PROSE if kind == "companions" else EOS.replace("hostname roce-leaf1", f"hostname sw{i}-eos{k}")
            (switch / f"file{k}.cfg").write_text(text)
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--switches", type=int, default=300)
    ap.add_argument("--companions", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = {kind: fleet(Path(tmp) / kind, args.switches, args.companions, kind)
                 for kind in ("bare", "companions", "etc_sonic", "devices")}
        start = time.process_time()
        lint([paths["bare"]], jobs=1)
        reference = time.process_time() - start
        print(f"reference: lint of the bare fleet ({args.switches} switches, one process) {reference:.3f} s CPU")
        for kind, path in paths.items():
            start = time.process_time()
            groups = _Inputs([str(path)]).groups
            spent = time.process_time() - start
            each_switch = {"bare": 0, "etc_sonic": min(args.companions, len(SONIC_OWN_FILES))}
            files = args.switches * each_switch.get(kind, args.companions)
            each = f", {spent / files * 1000:.2f} ms a file beside config_db.json" if files else ""
            print(f"{kind:11} {len(groups):6} devices found in {spent:.3f} s CPU = {spent / reference:.2f}x the "
                  f"reference{each}")


if __name__ == "__main__":
    main()
