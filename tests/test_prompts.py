"""One definition of a device's or shell's prompt (parse.base PROMPT_HOST, SHELL_PROMPT), read alike by every reader
that finds one in a saved output: the LLDP reader's host of the prompt that ran the command, the routing-table
reader's check that a file's JSON documents are one switch's, the NVUE reader's prompt pasted before `nv set` and the
one before a startup.yaml. Each form below was read by one of them before they shared it (lldp's own `_PROMPT`,
base's `_PROMPT_HOST` / `_SHELL_PROMPT`, the NVUE reader's `_PROMPT` and `_TREE_PROMPT_LINE`); now each reads all."""

from __future__ import annotations

import pytest

from losslessd.errors import InputError
from losslessd.parse import lldp, nvue
from losslessd.parse.base import PROMPT_HOST, Input, cli_json_documents, prompt_host
from losslessd.parse.nvue.reader import command_paths

# (the prompt, with H where the switch's name stands): each form one of the readers took before they shared one.
FORMS = [
    "H#",  # EOS / NX-OS privileged (both)
    "H>",  # EOS unprivileged, Junos-less CLIs (both)
    "H(config)#",  # a config mode (both)
    "H(config-if-Et1)#",  # EOS's interface mode (both)
    "H(config if)#",  # a mode with a blank in it (lldp's)
    "H #",  # a blank before the prompt's end (lldp's)
    "H$",  # a shell prompt without the user (lldp's)
    "  H#",  # indented, as a terminal log saves it (base's)
    "user@H>",  # Junos CLI (both)
    "root@H%",  # Junos shell (base's)
    "admin@H:~$",  # a shell below root (both)
    "root@H:~#",  # root's shell (both)
    "cumulus@H:mgmt:~$",  # Cumulus Linux in its management VRF (both)
    "admin@H(config)#",  # a user and a mode (lldp's)
    "first.last@H$",  # a shell prompt without the working directory (base's)
    "[user@H ~]$",  # RHEL / CentOS bash, `[\\u@\\h \\W]\\$` (SHELL_PROMPT's: PROMPT_HOST named no host before)
    "[root@H /etc/nvue.d]#",  # the same, root's
    "[cumulus@H:~]$",  # a bracketed prompt with a colon (the NVUE reader's)
]


@pytest.mark.parametrize("form", FORMS)
def test_every_prompt_form_names_its_switch(form):
    assert prompt_host(PROMPT_HOST.match(form.replace("H", "leaf-1.lab"))) == "leaf-1.lab"


@pytest.mark.parametrize("line", ["{master:0}", '  "peer": "a@b",', "{", "nv set interface swp1 link mtu 9216",
                                  "Interface   Remote Host", "@:~$"])
def test_lines_that_are_no_prompt_name_no_switch(line):
    assert prompt_host(PROMPT_HOST.match(line)) is None


@pytest.mark.parametrize("form", FORMS)
def test_the_lldp_reader_takes_the_device_name_from_every_prompt_form(form):
    """Before: the LLDP reader's own prompt pattern missed the indented prompt and Junos's shell `%`."""
    text = f"{form.replace('H', 'spine7')} show lldp neighbors\nCapability codes: ...\n"
    assert lldp.prompt_host(text) == "spine7"


@pytest.mark.parametrize("form", [f for f in FORMS if f not in ("H(config if)#", "H #", "H$")])
def test_two_switches_prompts_in_one_routing_json_file_are_named_by_every_form(form):
    """A session file holding two JSON documents after prompts naming two switches is refused naming both. Before:
    `admin@leaf1(config)#` named `leaf1(config)`, so a prompt with a mode named another switch than its own."""
    doc = '{"10.0.0.0/24": []}\n'
    first, second = form.replace("H", "leaf1"), form.replace("H", "leaf2")
    text = f"{first} show ip route json\n{doc}{second} show ipv6 route json\n{doc}"
    with pytest.raises(InputError) as err:
        cli_json_documents(text, "routes.json")
    assert "sessions of several switches: the prompts of 'leaf1' (line 1) and 'leaf2' (line 3, " in err.value.message
    same = text.replace("leaf2", "leaf1")
    assert [before for before, _ in cli_json_documents(same, "routes.json")] == [1, 3]


@pytest.mark.parametrize("prompt", ["cumulus@leaf1:mgmt:~$ ", "root@leaf1:~# ", "cumulus@leaf1$ ",
                                    "[cumulus@leaf1 ~]$ ", "[cumulus@leaf1:~]$ "])
def test_a_shell_prompt_pasted_before_nv_set_is_left_out(prompt):
    """Before: only a prompt with a colon (`user@host:dir$`) was left out; `cumulus@leaf1$ nv set ...` (a PS1
    without the directory) and RHEL's bracketed `[user@host dir]$` were a line of unknown words."""
    read = command_paths(f"{prompt}nv set interface swp1 link mtu 9216\n", "leaf1.sh")
    assert ([words for words, _ in read.paths], read.issues) == ([["interface", "swp1", "link", "mtu", "9216"]], [])


@pytest.mark.parametrize("prompt", ["cumulus@leaf01:mgmt:~$", "root@leaf01:~#", "cumulus@leaf01$",
                                    "[cumulus@leaf01 ~]$"])
def test_a_shell_prompt_before_a_startup_yaml_is_left_out(prompt):
    tree = "- set:\n    interface:\n      swp1:\n        type: swp\n    qos:\n      roce:\n        enable: on\n"
    dev = nvue.parse([Input("startup.yaml", f"{prompt} sudo cat /etc/nvue.d/startup.yaml\n{tree}")], "leaf01")
    assert sorted(dev.ports) == ["swp1"] and dev.ports["swp1"].pfc_enabled == [3]


def test_a_json_outputs_session_renaming_the_switch_is_one_switch():
    """The saved JSON outputs' prompt check is SessionHosts' rule (docs/platforms.md, "One switch a file"): a host-name
    command typed between two outputs renames the switch (`hostname leaf2`, Junos's `set system host-name qfx2`), and
    one removing the name lets the next prompt name the default, once. Before, that check was a copy of its own with no
    renames: each of these sessions was refused as two switches' tables (and Junos's `{master:0}` line before a prompt
    between two documents was taken for a third document: the file read as one document, the second unread)."""
    doc = '{"10.0.0.0/24": []}\n'
    sessions = [f"leaf1#show ip route json\n{doc}leaf1#configure\nleaf1(config)#hostname leaf2\n"
                f"leaf2(config)#end\nleaf2#show ipv6 route json\n{doc}",
                f"user@qfx1> show route | display json\n{doc}user@qfx1> configure\n"
                "user@qfx1# set system host-name qfx2\nuser@qfx1# commit and-quit\n{master:0}\n"
                f"user@qfx2> show route | display json\n{doc}",
                f"n1# show ip route | json\n{doc}n1(config)# no switchname\nswitch# show ipv6 route | json\n{doc}"]
    for text in sessions:
        assert len(cli_json_documents(text, "routes.json")) == 2, text
    third = sessions[2] + f"leaf7# show ip route | json\n{doc}"
    with pytest.raises(InputError) as err:
        cli_json_documents(third, "routes.json")
    assert err.value.line == 6 and "the prompts of 'n1' (line 1) and 'leaf7' (line 6, " in err.value.message
