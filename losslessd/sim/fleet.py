"""A fleet of look-alike SONiC switches for benches: N copies of one switch's config_db.json, each
with its own hostname and ``ports`` ports made from the template's first port.

    write_fleet("examples/fabric/leaf1/config_db.json", tmp / "fleet", 200)
    Simulator(tmp / "fleet", tmp / "sim", snmp_shared=True)   # one snmpsim process for all of them
"""

from __future__ import annotations

import json
from pathlib import Path


def fleet_config(template: dict, name: str, ports: int) -> dict:
    """The template with hostname ``name``, ports Ethernet0, Ethernet4, ... (SONiC numbers a port by
    its first lane, four lanes a port) configured like the template's first port, and no neighbours."""
    first = next(iter(template["PORT"]))
    names = [f"Ethernet{4 * i}" for i in range(ports)]
    config: dict = {}
    for table, rows in template.items():
        if table == "DEVICE_NEIGHBOR":
            continue
        out = {}
        for key, value in rows.items():
            head, sep, rest = key.partition("|")
            if head == first:  # a row of the first port: one per port
                for i, port in enumerate(names):
                    row = dict(value)
                    if table == "PORT":
                        row.update(alias=f"etp{i + 1}", index=str(i), lanes=",".join(str(4 * i + k) for k in range(4)),
                                   description="")
                    out[port + sep + rest] = row
            elif not head.startswith("Ethernet"):
                out[key] = value  # not a port's row: a map, profile, pool or global setting
        config[table] = out
    config["DEVICE_METADATA"] = {"localhost": dict(template["DEVICE_METADATA"]["localhost"], hostname=name)}
    config["CABLE_LENGTH"] = {k: {p: next(iter(v.values())) for p in names}
                              for k, v in template.get("CABLE_LENGTH", {}).items()}
    return config


def write_fleet(template_file: str | Path, out_dir: str | Path, count: int, ports: int = 64,
                prefix: str = "sw") -> list[str]:
    """Write ``count`` switch folders (``<out_dir>/<prefix>NNN/config_db.json``); returns their names."""
    template = json.loads(Path(template_file).read_text(encoding="utf-8"))
    names = [f"{prefix}{i:03d}" for i in range(1, count + 1)]
    for name in names:
        folder = Path(out_dir) / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config_db.json").write_text(json.dumps(fleet_config(template, name, ports), indent=4),
                                               encoding="utf-8")
    return names
