"""Issue 15 item 9: the committed JSON schemas are generated from the pydantic models that validate the
files, and an editor checking a file against the schema agrees with the loader."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from losslessd import schemas
from losslessd.policy import PolicyFile, shipped


@pytest.mark.parametrize("name", sorted(schemas.generated()))
def test_committed_schema_is_the_generated_one(name):
    committed = (schemas.ROOT / name).read_text(encoding="utf-8")
    assert committed == schemas.text(schemas.generated()[name]()), f"{name} is stale: run `make schemas`"


POLICIES = [  # (file text, whether it is a valid policy file)
    ("name: a\nlossless: {priorities: [3, 4], dscp: [26]}\n", True),
    ("name: a\nlossless: {priorities: [3, 8]}\n", False),
    ("name: a\nlossless: {priorities: []}\n", False),
    ("name: a\nlossless: {priorities: [3, 3]}\n", False),
    ("name: a\nlossless: {priorities: ['3']}\n", False),
    ("name: a\nlossless: {dscp: [64]}\n", False),
    ("name: A_b\n", False),
    ("name: a\nextends: roce-dscp26\necn: {required: false}\n", True),
    ("name: a\ncnp: {priority: 6}\n", False),
    ("name: a\ncnp: null\n", True),
    ("name: a\necn: {requried: true}\n", False),
    ("name: a\necn: {min_threshold_bytes: {min: -1}}\n", False),
    ("name: a\necn: {speed_reference_gbps: 0}\n", False),
    ("name: a\necn: {assume_congested_queues: 0}\n", False),
    ("name: a\necn: {required: 'yes'}\n", False),
    ("name: a\nwatchdog: {actions: [drop, alert]}\n", True),
    ("name: a\nwatchdog: {actions: []}\n", False),
    ("name: a\nwatchdog: {actions: [shout]}\n", False),
    ("name: a\nnic: {trust: null, dcqcn: {rpg_time_reset: 300}}\n", True),
    ("name: a\nnic: {dcqcn: {rpg_time_reset: fast}}\n", False),
    ("name: a\nscheduler: {min_lossless_weight_pct: 101}\n", False),
    ("name: a\ninfiniband: {partition_mtu_bytes: 4096, topology: torus}\n", True),
    ("name: a\ninfiniband: {partition_mtu_bytes: 4000}\n", False),
    ("name: a\nroce_ports: {select: some}\n", False),
    ("name: a\nsource_file: x.yaml\n", False),
]


def test_shipped_policies_match_the_schema():
    validator = jsonschema.Draft202012Validator(schemas.generated()["policies/schema.json"]())
    for name, path in shipped().items():
        assert not list(validator.iter_errors(yaml.safe_load(path.read_text()))), name


INVENTORIES = [  # (file text, whether its shape is valid: what the schema can say, before credentials are read)
    ("hosts: {leaf1: {platform: sonic, port: 2222, groups: [sw]}}\ngroups: {sw: {username: admin}}\n", True),
    ("hosts: {leaf1: null}\ndefaults: {platform: eos, data: {credentials: {password_env: PW}, site: dc1}}\n", True),
    ("hosts: {s1: {data: {snmp: {version: 3, auth_protocol: SHA256, priv_protocol: aes256, port: 1161}}}}\n", True),
    ("hosts: {s1: {data: {snmp: {version: v2c, community_file: /run/c}}}}\n", True),
    ("hosts: {s1: {data: {gnmi: {port: 6030, tls: false}, interfaces: [ens1f0np0], rdma_devices: [mlx5_0]}}}\n", True),
    ("hosts: {s1: {connection_options: {netmiko: {extras: {}}}}}\n", True),
    ("hosts: {s1: {port: 0}}\n", False),
    ("hosts: {s1: {platform: vyos}}\n", False),
    ("hosts: {s1: {platform: opensm}}\n", False),
    ("hosts: {s1: {port: '22'}}\n", False),
    ("hosts: {s1: {hostnmae: x}}\n", False),
    ("hosts: {s1: {password: hunter2}}\n", False),
    ("hosts: {s1: {data: {credentials: {password: hunter2}}}}\n", False),
    ("hosts: {s1: {data: {snmp: {version: 1}}}}\n", False),
    ("hosts: {s1: {data: {snmp: {priv_protocol: des}}}}\n", False),
    ("hosts: {s1: {data: {interfaces: [a/b]}}}\n", False),
    ("hosts: {s1: {data: {gnmi: {tls: 'yes'}}}}\n", False),
    ("hosts: {s1: {groups: [[null]]}}\n", False),
    ("hosts: {s1: {hostname: ' '}}\n", False),
    ("hosts: {s1: {}}\ndefaults: {groups: [a]}\n", False),
    ("hosts: {s1: {}}\nextra: 1\n", False),
]


@pytest.mark.parametrize("name,text,valid", [("policies/schema.json", *case) for case in POLICIES]
                         + [("docs/inventory.schema.json", *case) for case in INVENTORIES])
def test_schema_and_loader_agree(name, text, valid):
    """An editor checking the file against the committed schema says what the loader's model says."""
    from losslessd.inventory import InventoryFile

    data = yaml.safe_load(text)
    by_schema = jsonschema.Draft202012Validator(schemas.generated()[name]()).is_valid(data)
    try:
        {"policies/schema.json": PolicyFile, "docs/inventory.schema.json": InventoryFile}[name].model_validate(
            data, strict=True)
        by_model = True
    except ValueError:
        by_model = False
    assert (by_schema, by_model) == (valid, valid)
