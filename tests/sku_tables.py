"""Build losslessd/data/sonic_pg_profiles.json from a sonic-buildimage git checkout or mirror.

SONiC's traditional buffer manager (sonic-swss cfgmgr/buffermgr.cpp) sizes a lossless PG from the SKU's
device/<vendor>/<platform>/<SKU>/pg_profile_lookup.ini: one row per (speed, cable length) with size, xon,
xoff, threshold and an optional xon_offset. This script copies those numbers (with the platform's ASIC
type from device/<vendor>/<platform>/platform_asic, the Spectrum generation of Mellanox platforms from
platform/mellanox/asic_table.j2, and the SKU's ingress lossless pool and stock egress profiles and pools from
buffers_defaults_t1.j2, else _t0, when the file writes them literally) into one data file, with the
repository, commit and path of every table, so losslessd can render and check the SKU's own values.

    python -m tests.sku_tables /work/.mirror/sonic-net+sonic-buildimage/repo [REV]

Only numbers are copied; the files themselves are not. Review the diff after a regeneration.
"""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "losslessd" / "data" / "sonic_pg_profiles.json"
REPO = "sonic-net/sonic-buildimage"
_POOL = re.compile(r'"ingress_lossless_pool"\s*:\s*\{(?P<body>[^{}]*)\}', re.S)
_FIELD = re.compile(r'"(size|mode|xoff)"\s*:\s*"([^"]*)"')
# The stock egress objects buffers_config.j2 binds BUFFER_QUEUE to ("<port>|3-4" lossless, the rest lossy), and
# their pools, where the SKU's buffers_defaults writes them literally (no Jinja inside).
_EGRESS_NAMES = ("egress_lossless_profile", "egress_lossy_profile", "egress_lossless_pool", "egress_lossy_pool")
_OBJECT = re.compile(r'"(?P<name>' + "|".join(_EGRESS_NAMES) + r')"\s*:\s*\{(?P<body>[^{}]*)\}', re.S)
# `{% import 'buffers_defaults_objects.j2' as defs with context %}` (sonic-buildimage device/mellanox/*).
_OBJECTS_IMPORT = re.compile(r"\{%\s*import\s+'buffers_defaults_objects\.j2'")
_EGRESS_FIELD = re.compile(r'"(pool|size|type|mode|static_th|dynamic_th)"\s*:\s*"([^"]*)"')


def git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True, text=True).stdout


def rows(text: str) -> list[list]:
    out = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#") or len(words) < 6:
            continue
        speed, cable, size, xon, xoff, threshold = words[:6]
        xon_offset = int(words[6]) if len(words) > 6 and words[6].lstrip("-").isdigit() else None
        out.append([int(speed), cable, int(size), int(xon), int(xoff), int(threshold), xon_offset])
    return out


def pool(gitdir: str, rev: str, files: set[str], folder: str) -> dict | None:
    for name in ("buffers_defaults_t1.j2", "buffers_defaults_t0.j2"):
        path = f"{folder}/{name}"
        if path not in files:
            continue
        text = resolve_text(gitdir, rev, path)
        m = _POOL.search(text or "")
        if not m:
            continue
        fields = dict(_FIELD.findall(m.group("body")))
        got = {k: (int(v) if k != "mode" else v) for k, v in fields.items() if k == "mode" or v.isdigit()}
        return got or None
    return None


def egress(gitdir: str, rev: str, files: set[str], folder: str) -> dict | None:
    """{"profiles": {name: fields}, "pools": {name: fields}} of the stock egress profiles and the pools they take
    from, as the SKU's buffers_defaults_t1.j2 (else _t0) writes them; None unless every one is written literally.
    NVIDIA SKUs write them through buffers_defaults_objects.j2 macros: evaluated (egress_from_macros)."""
    for name in ("buffers_defaults_t1.j2", "buffers_defaults_t0.j2"):
        path = f"{folder}/{name}"
        if path not in files:
            continue
        text = resolve_text(gitdir, rev, path) or ""
        if _OBJECTS_IMPORT.search(text):
            return egress_from_macros(gitdir, rev, folder, name)
        found = {m["name"]: dict(_EGRESS_FIELD.findall(m["body"])) for m in _OBJECT.finditer(text)
                 if "{" not in m["body"] and "%" not in m["body"]}
        profiles = {n: f for n, f in found.items() if n.endswith("_profile")}
        if set(profiles) != {"egress_lossless_profile", "egress_lossy_profile"}:
            return None
        for fields in profiles.values():
            fields["pool"] = fields.get("pool", "").strip("[]").rpartition("|")[2]
        pools = {f["pool"]: found.get(f["pool"]) for f in profiles.values()}
        if any(v is None or not v.get("size", "").isdigit() for v in pools.values()):
            return None
        return {"profiles": profiles, "pools": pools}
    return None


def egress_from_macros(gitdir: str, rev: str, folder: str, name: str) -> dict | None:
    """The stock egress objects of an SKU whose buffers_defaults imports buffers_defaults_objects.j2 (NVIDIA
    Spectrum: pool sizes set in the SKU's file, profiles in the shared macros), rendered with Jinja as sonic-cfggen
    renders them for the traditional buffer model (no `dynamic_mode`), one active port: egress_lossless_profile, the
    profile its BUFFER_QUEUE puts queues 0-2 on (q_lossy_profile there, recorded as "lossy"), and their pools."""
    import jinja2

    def load(template: str) -> str | None:
        return resolve_text(gitdir, rev, f"{folder}/{template}")

    env = jinja2.Environment(loader=jinja2.FunctionLoader(load), undefined=jinja2.Undefined)
    module = env.get_template(name).module
    port = "Ethernet0"
    objects = module.generate_buffer_pool_and_profiles_with_inactive_ports("")  # type: ignore[attr-defined]
    queues = module.generate_queue_buffers_with_inactive_ports(port, "")  # type: ignore[attr-defined]
    doc = json.loads("{" + f"{objects}".strip().rstrip(",") + "," + f"{queues}".strip().rstrip(",") + "}")
    profile_of = {}  # queue -> the profile its BUFFER_QUEUE entry names
    for key, fields in doc.get("BUFFER_QUEUE", {}).items():
        low, _, high = key.rpartition("|")[2].partition("-")
        profile_of.update({q: fields.get("profile") for q in range(int(low), int(high or low) + 1)})
    lossy = profile_of.get(0)
    if lossy is None or lossy not in doc["BUFFER_PROFILE"] or profile_of.get(3) != "egress_lossless_profile":
        return None
    profiles = {n: doc["BUFFER_PROFILE"][n] for n in ("egress_lossless_profile", lossy)}
    pools = {f["pool"]: doc["BUFFER_POOL"].get(f["pool"]) for f in profiles.values()}
    if any(v is None or not str(v.get("size", "")).isdigit() for v in pools.values()):
        return None
    return {"profiles": profiles, "pools": pools, "lossy": lossy}


def resolve_path(gitdir: str, rev: str, path: str, depth: int = 0) -> str | None:
    """Where git keeps ``path``'s content: every symlink along it followed, the file's own and a folder's (an SKU's
    `BALANCED -> ../../../common/profiles/th2/7260/BALANCED`, which git stores as one blob, so `BALANCED/x` is not in
    the tree: reading only the file's own link lost the lookup tables of 20 SKUs at 086b03bd70f9); None when a part
    is missing."""
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        listing = git(gitdir, "ls-tree", rev, "--", prefix).split()
        if not listing:
            return None
        if listing[0] == "120000":  # a symlink: its blob is the target path
            if depth >= 8:
                return None
            target = git(gitdir, "show", f"{rev}:{prefix}").strip()
            rest = posixpath.join(posixpath.dirname(prefix), target, *parts[i:])
            return resolve_path(gitdir, rev, posixpath.normpath(rest), depth + 1)
    return path


def resolve_text(gitdir: str, rev: str, path: str) -> str | None:
    real = resolve_path(gitdir, rev, path)
    return None if real is None else git(gitdir, "show", f"{rev}:{real}")


def asic_generations(gitdir: str, rev: str) -> dict[str, str]:
    """platform -> ASIC_TABLE key, from sonic-buildimage platform/mellanox/asic_table.j2 (platform2asic)."""
    text = git(gitdir, "show", f"{rev}:platform/mellanox/asic_table.j2")
    return dict(re.findall(r"'(x86_64-[^']+)'\s*:\s*'(MELLANOX-SPECTRUM[^']*)'", text))


def device_files(gitdir: str, rev: str) -> set[str]:
    """Every file path under device/, with the files of an SKU folder that is a link to another SKU's folder listed
    under the link's name as well (`Arista-7260CX3-Q44 -> Arista-7260CX3-Q64`, `ACS-MSN2700-A1 ->
    ../x86_64-mlnx_msn2700-r0/ACS-MSN2700`): git stores the folder link as one blob, so `ls-tree -r` lists none of
    its files, and 39 SKUs a switch reports as its hwsku had no table at 086b03bd70f9."""
    files, links = set(), []
    for line in git(gitdir, "ls-tree", "-r", rev, "device").splitlines():
        meta, path = line.split("\t", 1)
        files.add(path)
        if meta.startswith("120000") and path.count("/") == 3:  # device/<vendor>/<platform>/<SKU>
            links.append(path)
    folders = {path.rsplit("/", i)[0] for path in files for i in range(1, path.count("/"))}
    linked = set()
    for link in links:
        real = resolve_path(gitdir, rev, link)
        if real in folders:
            linked.update(link + path[len(real):] for path in files if path.startswith(real + "/"))
    return files | linked


def main(gitdir: str, rev: str = "HEAD") -> None:
    commit = git(gitdir, "rev-parse", rev).strip()
    files = device_files(gitdir, commit)
    spectrum = asic_generations(gitdir, commit)
    asic_of: dict[str, str | None] = {}
    tables: dict[str, list] = {}
    skus: dict[str, list] = {}
    for path in sorted(f for f in files if f.endswith("/pg_profile_lookup.ini")):
        parts = path.split("/")
        if len(parts) < 5:
            continue
        vendor, platform, sku = parts[1], parts[2], parts[3]
        variant = "/".join(parts[4:-1]) or None  # BALANCED, per-ASIC 0/1 ...
        text = resolve_text(gitdir, commit, path)
        table = rows(text or "")
        # A file of comment lines alone (the Arista 7060X6 SKUs' `# PG lossless profiles.` header): buffermgr.cpp
        # readPgProfileLookupFile skips empty and '#' lines, so buffermgrd holds no row and binds nothing; kept as an
        # empty table (a SKU of no file, or of rows this reader cannot read, stays unknown; device/common/profiles
        # holds files SKUs link to, no SKU).
        if not table and (text is None or vendor == "common" or any(line.strip() and not line.startswith("#")
                                              for line in text.splitlines())):
            continue
        key = json.dumps(table)
        table_id = next((tid for tid, t in tables.items() if json.dumps(t) == key), None)
        if table_id is None:
            table_id = f"t{len(tables) + 1}"
            tables[table_id] = table
        folder = f"device/{vendor}/{platform}"
        if folder not in asic_of:
            asic_of[folder] = (resolve_text(gitdir, commit, f"{folder}/platform_asic") or "").strip() or None
        entry = {"vendor": vendor, "platform": platform, "asic": asic_of[folder], "path": path, "table": table_id}
        if platform in spectrum:
            entry["asic_table"] = spectrum[platform]
        if variant:
            entry["variant"] = variant
        pool_facts = pool(gitdir, commit, files, posixpath.dirname(path))
        if pool_facts:
            entry["ingress_lossless_pool"] = pool_facts
        egress_facts = egress(gitdir, commit, files, posixpath.dirname(path))
        if egress_facts:
            entry["egress"] = egress_facts
        skus.setdefault(sku, []).append(entry)
    doc = {
        "about": "SONiC per-SKU lossless PG headroom (pg_profile_lookup.ini rows: speed Mb/s, cable, size, xon, xoff, "
                 "threshold, xon_offset), the SKU's ingress_lossless_pool and its stock egress profiles and pools, "
                 "copied by tests/sku_tables.py",
        "source": {"repo": REPO, "commit": commit},
        "columns": ["speed_mbps", "cable", "size", "xon", "xoff", "threshold", "xon_offset"],
        "tables": tables,
        "skus": dict(sorted(skus.items())),
    }
    spectrum_lines = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(spectrum.items()))
    lines = ["{"]
    lines.append(f'  "about": {json.dumps(doc["about"])},')
    lines.append(f'  "source": {json.dumps(doc["source"])},')
    lines.append(f'  "columns": {json.dumps(doc["columns"])},')
    lines.append('  "mellanox_platform_asic_table": {')
    lines.append(spectrum_lines)
    lines.append("  },")
    lines.append('  "tables": {')
    for n, (tid, table) in enumerate(tables.items()):
        body = ",\n".join(f"      {json.dumps(row)}" for row in table)
        lines.append(f'    "{tid}": [\n{body}\n    ]{"," if n < len(tables) - 1 else ""}')
    lines.append("  },")
    lines.append('  "skus": {')
    items = list(doc["skus"].items())
    for n, (sku, entries) in enumerate(items):
        lines.append(f'    {json.dumps(sku)}: {json.dumps(entries)}{"," if n < len(items) - 1 else ""}')
    lines.append("  }")
    lines.append("}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(skus)} SKUs, {len(tables)} distinct tables, commit {commit}")


if __name__ == "__main__":
    main(*sys.argv[1:])
