"""A device's own secrets in what it printed (SNMP communities, SNMPv3 keys, TACACS+/RADIUS keys, password hashes,
routing-protocol keys) written as MASK before a capture or a session log holds them.

A running config is saved to disk and quoted in reports; the secrets in it are the device's, not the inventory's
(those are masked by value, collect.ssh.Guard.mask), so they are found by where the platforms write them: the
word after a secret's keyword on a CLI line (keeping the line's shape, so every parser reads it as before and
line numbers stay), the quoted strings of a Junos `## SECRET-DATA` line, an SNMP community, and CONFIG_DB's secret
fields and SNMP_COMMUNITY keys. Nothing losslessd checks lives on those lines.
"""

from __future__ import annotations

import io
import re
from typing import BinaryIO

from . import MASK

# The word after these is a secret (after an encryption type, e.g. `key 7 X`, `secret sha512 X`, `password 5 X`):
# EOS/NX-OS/IOS/Dell OS10/Onyx `username NAME secret|password`, `enable secret`, `tacacs-server|radius-server [host H]
# key`, BGP `neighbor N password`, OSPF `authentication-key`, `key-string`; Junos `encrypted-password`,
# `authentication-key`, `secret`, `pre-shared-key ascii-text|hexadecimal`, SNMPv3 usm `authentication-key`|`privacy-key`
# (as shown) and `authentication-password`|`privacy-password` (as typed); NVUE `secret`, `hashed-password`,
# `readonly-community`/`readwrite-community`, a trap receiver's `community-password`; net-snmp snmpd.conf
# `rocommunity`/`rwcommunity`/`trapcommunity`; SNMPv3 `priv`, Cumulus's (NVUE, NCLU) `username U auth-md5|auth-sha KEY
# encrypt-aes|encrypt-des KEY` (Cumulus Linux user guide, Configure SNMP); EOS/NX-OS `username NAME sshkey [ssh-rsa]
# KEY`, Junos `ssh-rsa "KEY"` (the key after its type, below).
_NVUE_V3 = ("auth-md5", "auth-sha", "encrypt-aes", "encrypt-des")  # (each key's word; its JSON key or string below)
_KEYWORDS = frozenset({
    "password", "secret", "key", "key-string", "authentication-key", "encrypted-password", "hashed-password",
    "plaintext-password", "passphrase", "passkey", "ascii-text", "hexadecimal", "priv", "readonly-community",
    "readwrite-community", "rocommunity", "rwcommunity", "rocommunity6", "rwcommunity6", "privacy-key",
    "authentication-password", "privacy-password", "trapcommunity", "sshkey", "ssh-key", "community-password",
    *_NVUE_V3})
# An algorithm word: itself no secret, and the word after it is (`snmp-server user U G v3 auth sha KEY priv aes KEY`,
# `ntp authentication-key 1 md5 KEY`, `ip ospf message-digest-key 1 md5 KEY`).
_ALGORITHMS = frozenset({"md5", "sha", "sha1", "sha-1", "sha224", "sha256", "sha384", "sha512", "sha-224", "sha-256",
                         "sha-384", "sha-512", "des", "3des", "aes", "aes128", "aes192", "aes256", "aes-128",
                         "aes-192", "aes-256",
                         # an SSH public key's type, the key after it (OpenSSH sshd(8) AUTHORIZED_KEYS FILE FORMAT)
                         "ssh-rsa", "ssh-dss", "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
                         "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com"})
# The encryption type some CLIs write before a secret (`key 7 X`, `password 5 X`, `secret 0 X`, EOS `ntp
# authentication-key 1 md5 7 X`), Junos's words around the algorithm (`ntp authentication-key 1 type md5 value X`), and
# IOS's AES key length (`snmp-server user U G v3 auth sha X priv aes 128 Y`).
_TYPE = re.compile(r"\d{1,2}|128|192|256|encrypted|hashed|clear|cleartext|plain|localizedkey|localized|type|value")
# A word of a CLI line: a quoted string (NX-OS `key 7 "a b"`) or a run of non-blanks.
_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|\S+')
# The first words of a line that holds an SNMP community as the word after `community` (Cisco-like CLIs,
# Junos set form `set snmp community NAME`).
_SNMP_COMMANDS = frozenset({"snmp-server", "snmp"})
_LEADERS = frozenset({"no", "set", "nv", "system"})  # (`nv set system snmp-server ...`, `set snmp ...`)
# A trap receiver's v1/v2c community (EOS User Manual, NX-OS SNMP configuration guide, IOS `snmp-server host`, Onyx):
# `snmp-server host HOST [vrf V] [informs|traps] [port|udp-port N] [version 1|2c] COMMUNITY [udp-port N] ...`; the
# version is optional (EOS, IOS: v1 then). The words before the community that it is not, and the word each takes:
_HOST_OPTIONS = {"vrf": 1, "informs": 0, "traps": 0, "inform": 0, "trap": 0, "port": 1, "udp-port": 1}
# NX-OS's other lines about a receiver, which hold no community (`snmp-server host H use-vrf V`, `filter-vrf`,
# `source-interface`), and SNMPv3's `version 3 auth|noauth|priv USER` (a user name, no secret).
_HOST_SETTINGS = frozenset({"use-vrf", "filter-vrf", "source-interface"})
_HOST_V3 = frozenset({"3", "v3"})
# net-snmp snmpd.conf(5) trap receivers: `trapsink|trap2sink|informsink HOST[:PORT] [COMMUNITY [PORT]]`.
_SINKS = frozenset({"trapsink", "trap2sink", "informsink"})
# The first words of QoS lines, which hold no secret and whose names (a class, a policy, a forwarding class) losslessd
# reads: a forwarding class named `key` is no secret keyword (Junos `set class-of-service forwarding-classes class key
# queue-num 3`, also as a `class-of-service {` block; NVUE `nv set qos`, EOS/NX-OS `qos`, `policy-map`, `class-map`,
# `class`).
_QOS_COMMANDS = frozenset({"class-of-service", "qos", "policy-map", "class-map", "class"})
_SECRET_DATA = "## SECRET-DATA"  # Junos marks each secret of `show configuration` with it
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
# CONFIG_DB fields holding a secret (sonic-buildimage YANG: TACPLUS/RADIUS `passkey`, SNMP_USER
# `SNMP_USER_AUTH_PASSWORD`/`SNMP_USER_ENCRYPTION_PASSWORD`, MACSEC_PROFILE `primary_cak`/`fallback_cak`, BGP
# neighbor `password`; a trap receiver's `Community` in SNMP_TRAP_CONFIG, sonic-utilities `config snmptrap modify`).
_SECRET_FIELD = r'[^"\\]*(?:passkey|password|secret|_cak)[^"\\]*|community|' + "|".join(_NVUE_V3)
_JSON_FIELD = re.compile(rf'("(?:{_SECRET_FIELD})"\s*:\s*)"((?:[^"\\]|\\.)*)"', re.I)
# The objects whose keys are SNMP communities: CONFIG_DB's table (sonic-buildimage YANG sonic-snmp), NVUE's
# `nv config show -o json` `snmp-server` ones (NVUE `nv set system snmp-server readonly-community NAME access any`,
# `trap-destination IP vrf VRF community-password NAME version 2c`: Cumulus Linux user guide, Configure SNMP), and the
# objects whose keys are an NVUE SNMPv3 user's keys (`username U auth-md5 KEY encrypt-aes KEY`).
_COMMUNITY_TABLES = frozenset({"SNMP_COMMUNITY", "readonly-community", "readwrite-community", "readonly-community-v6",
                               "readwrite-community-v6", "community-password", *_NVUE_V3})
_COMMUNITY_PREFIX = "SNMP_COMMUNITY|"
_LOWER_TABLES = frozenset(name.lower() for name in _COMMUNITY_TABLES)  # (Redactor.blocks are lower-cased)
# Free text (a `description`, a banner's lines, a `!`/`#` comment) has no grammar that says which word is a secret:
# where it names one (`password`, `secret`, `community`, ...), everything after that word is masked, to the end of the
# line (its closing quote and `;` kept, so a Junos line still reads); the text before it, which a port's RoCE
# selection may match (roce_ports.description_regex), stays. A word joined to the next by `-`, `_` or `.` is part of a
# name (`to-community-gw`, `password-reset-srv`, `secret_lab`), none that names a secret: the text after it stays too.
# `pwd` names a password too, and `pass` does where it is a key given a value (`pass: X`, `pass=X`), not as a word of
# prose (`pass through`).
_FREE_SECRET = re.compile(r"\b(?P<word>(?:pass(?:word|wd|phrase)|secret|community|communities|pre-shared-key|psk|pwd)s?"
                          r"|pass(?=[ \t]*[:=]))\b(?![-_.]\w)\W*", re.IGNORECASE)
_FREE_TAIL_CHARS = "\"';" + " \t\r\n"  # (a free text's closing quote and `;`, and blanks, kept)
# A banner's first line (EOS `banner login|motd`, its text on the lines after it up to `EOF`; IOS/NX-OS `banner motd
# ^C ... ^C` or `banner motd #...#`, its text between two of the delimiter, on one line or several).
_BANNER = re.compile(r"\s*banner\s+\S+(?:\s+(\^C|\S))?")
# A secret's keyword given its value as a key (`password: X`, `hashed-password: '$6$...'` in YAML, `pwd=X`): the
# keywords above bar the generic `key` and SNMPv3's `priv`, and `pwd`, `pass` and `passwd` name a password only so.
_KEY_FORM = re.compile(r"([\w-]+)([:=])(.*)", re.S)
_KEY_FORMS = (_KEYWORDS - {"key", "priv"}) | {"pwd", "pass", "passwd"}
# A YAML block mapping's key line (`  NAME:`, `- NAME:`, quoted `'NAME':`: group 1), its value (group 2) if on the line.
_YAML_KEY = re.compile(r"""[ \t]*(?:-[ \t]+)*("(?:[^"\\]|\\.)*"|'[^']*'|[^\s'"#{}\[\],-][^\s]*?|-[^\s]+?):"""
                       r"(?:[ \t\r]*$|[ \t]+(\S.*))")
# Words after a keyword that are settings, not secrets (NX-OS `password strength-check`, IOS `key chain NAME`).
_SETTINGS = frozenset({"strength-check", "chain", "config-key", "encryption"})


def redact(text: str, is_json: bool = False) -> tuple[str, int]:
    """``text`` (one output) with the device's own secrets written as MASK, and how many were. ``is_json``: a
    CONFIG_DB, whose SNMP communities are found by reading it (a compact one holds them on one line)."""
    redactor = Redactor()
    lines = []
    for line in text.split("\n"):
        lines.append(redactor.line(line))
    text = "\n".join(lines)
    if is_json:
        text = redactor.communities(text)
    return text, redactor.found


class Redactor:
    """Line by line, as a session log is written: each line's secrets by the rules above, the names of the blocks
    (Junos braces, CONFIG_DB objects) a line is in remembered from the lines before it."""

    def __init__(self) -> None:
        self.found = 0
        self.blocks: list[str] = []
        self._communities: dict[str, str] = {}  # community -> its mask (numbered: CONFIG_DB keys stay apart)
        self._banner: str | None = None  # in a banner's text: what ends it
        self._carry = False  # a banner line named a secret its next line gives (_banner_text)
        self._yaml: list[tuple[int, str]] = []  # the open YAML block keys: (column, lower-cased name)
        self._next: str | None = None  # a line outside a banner announced a secret: its comment mark ("" if none)

    def line(self, line: str) -> str:
        stripped = line.strip()
        in_banner = self._banner is not None  # (a banner's lines carry their own announcements: _banner_text)
        if self._banner is not None:
            close = (0 if stripped == "EOF" else -1) if self._banner == "EOF" else line.find(self._banner)
            if close >= 0:
                self._banner = None
            free = self._banner_text(line, 0, len(line) if close < 0 else close)
            self._carry = self._carry and close < 0
            if free != line:
                return free
            # (else read as any line: a banner never ended (`banner none`, a cut output) must not turn off the JSON
            # and SECRET-DATA readings for the rest of a session log)
        elif (banner := _BANNER.match(line)) is not None:
            end, close = banner.group(1), -1
            if end is not None:
                close = line.find(end, banner.end())
            self._banner = "EOF" if end is None else (None if close >= 0 else end)
            return self._banner_text(line, banner.end(), len(line) if close < 0 else close)
        if self._next is not None and stripped:
            if stripped.startswith(self._next):  # ("" with every line)
                return self._announced(line)
            self._next = None  # (the comment that announced it ended: a config line after it is no secret)
        # (the cheap test first: most lines end in none of what ends an announcement, a linking verb in any case).
        # A port's description announces nothing: the config line after it is config (`description mgmt community:`)
        announces = not in_banner and stripped.endswith((":", "=", "s", "e", "S", "E")) and \
            _announces(line, 0, len(line), True) and not _DESCRIBES & set(stripped.split())
        if announces:
            self._next = stripped[0] if stripped[0] in "!#" else ""
        if _SECRET_DATA in line:
            out = self._mask(line, [m.span() for m in _QUOTED.finditer(line[:line.index(_SECRET_DATA)])], f'"{MASK}"')
        elif stripped.startswith(('"', "{", "}", "[", "]")):  # JSON (and Junos `}`): the CLI rules would break quoting
            out = self._json_line(line)
        elif announces or stripped.startswith(("!", "#", "description ")):
            out = self._free(line)
        else:
            out = self._yaml_key(line) or self._cli_line(line)
        if stripped.endswith("{"):
            self.blocks.append(stripped.split(None, 1)[0].strip('":').lower())
        elif stripped.startswith("}") and self.blocks:
            self.blocks.pop()
        return out

    def _announced(self, line: str) -> str:
        """The line after one that announced a secret outside a banner (a login banner as a session prints it, a
        comment: `Password for all switches is as follows:`), masked whole, its comment mark (the announcing
        line's) and blanks kept."""
        mark = self._next
        text = line.rstrip(" \t\r")
        body = text.lstrip(" \t")
        if mark and body.startswith(mark):
            body = body[1:].lstrip(" \t")
        if not body:  # (a comment line of its mark alone: the secret is on a later one)
            return line
        self._next = None
        return self._mask(line, [(len(text) - len(body), len(text))])

    def _mask(self, line: str, spans: list[tuple[int, int]], mask: str | list[str] = MASK) -> str:
        """``line`` with each span written as ``mask`` (or as its own of a list of masks)."""
        self.found += len(spans)
        masks = mask if isinstance(mask, list) else [mask] * len(spans)
        parts, at = [], 0
        for (start, end), each in zip(spans, masks, strict=True):  # (in order, in one pass: never once per secret)
            parts += [line[at:start], each]
            at = end
        return "".join(parts) + line[at:]

    def _free(self, text: str) -> str:
        """Free ``text`` with what follows a word naming a secret masked (_FREE_SECRET)."""
        span = _free_span(text, 0, len(text))
        return self._mask(text, [span]) if span is not None and span[1] > span[0] else text

    def _banner_text(self, line: str, start: int, end: int) -> str:
        """``line`` of a banner whose text is ``line[start:end]`` (its delimiters kept) with a secret masked as free
        text's; a line that announces a secret (_announces) gives it on the banner's next line, masked whole."""
        text = line[start:end].rstrip(" \t\r")
        if self._carry and text.strip():
            self._carry = False
            return self._mask(line, [(start + len(text) - len(text.lstrip()), start + len(text))])
        span = _free_span(line, start, start + len(text))
        if span is None:
            return line
        self._carry = self._carry or (self._banner is not None and _announces(line, start, start + len(text)))
        return self._mask(line, [span]) if span[1] > span[0] else line

    def _yaml_key(self, line: str) -> str | None:
        """``line`` with its key masked where it names a community as a key of a community table's YAML block (NVUE
        `nv config show`: `readonly-community:`, then `Publ1c:` indented under it), or None; the open blocks followed
        by indentation (YAML 1.2 8.2.2, block mappings), each line closing those not left of it."""
        if not self._yaml and ":" not in line:  # (no block open and no key: most lines of a CLI config)
            return None
        key = _YAML_KEY.match(line)
        at = key.start(1) if key else len(line) - len(line.lstrip())
        if at == len(line):  # (a blank line closes none)
            return None
        while self._yaml and self._yaml[-1][0] >= at:
            self._yaml.pop()
        if key is None:
            return None
        table = self._yaml[-1][1] in _LOWER_TABLES if self._yaml else False
        name = key.group(1)
        if key.group(2) is None:
            self._yaml.append((at, name.strip("'\"").lower()))
        if not table or name.strip("'\"").startswith(MASK):
            return None
        if name[0] in "'\"":  # (quoted: the quotes kept)
            return self._mask(line, [(at + 1, key.end(1) - 1)], self._community(name[1:-1]))
        return self._mask(line, [key.span(1)], f'"{self._community(name)}"')  # (a bare `*...` is a YAML alias)

    def _cli_line(self, line: str) -> str:
        words = list(_WORD.finditer(line))
        texts = [w.group().lower() for w in words]
        lead = 0
        while lead < len(texts) and texts[lead] in _LEADERS:
            lead += 1
        if (lead < len(texts) and texts[lead] in _QOS_COMMANDS) or "class-of-service" in self.blocks:
            return line
        tail = ""
        cut = next((i for i, word in enumerate(texts) if word in _DESCRIBES), None)
        if cut is not None:  # (Junos `description "...";`, set form, NVUE `nv set interface X description`, YAML)
            # its text is free text; the words before it are read as any line's (a secret there is masked still)
            at = words[cut].end()
            line, tail, words, texts = line[:at], self._free(line[at:]), words[:cut], texts[:cut]
        snmp = (lead < len(texts) and texts[lead] in _SNMP_COMMANDS) or self.blocks[-1:] == ["snmp"]
        secret: set[int] = set()
        if snmp and texts[lead + 1:lead + 2] == ["host"]:
            secret |= _host_community(texts, lead + 3)
        elif lead < len(texts) and texts[lead] in _SINKS and lead + 2 < len(texts):
            secret.add(lead + 2)
        for i, word in enumerate(texts):
            # Junos `trap-group NAME` (`[edit snmp]`): the name is the community its traps carry (Junos OS Network
            # Management guide, trap-group: "embedded in SNMP trap notification packets ... known as the community").
            if word in _ALGORITHMS or word in _KEYWORDS or (snmp and word in ("community", "trap-group")):
                j = i + 1
                while word not in ("community", "trap-group") and j + 1 < len(texts) and _TYPE.fullmatch(texts[j]):
                    j += 1
                if j < len(texts) and not ({texts[j]} & (_ALGORITHMS | _KEYWORDS | _SETTINGS | {"{", ";"})):
                    secret.add(j)
        spans = {words[i].start(): (words[i].end() - words[i].group().endswith(";"), MASK) for i in secret}
        for i, word in enumerate(texts):  # `KEY: VALUE`, `KEY=VALUE` (YAML, key-value files, shell)
            if (key := _KEY_FORM.fullmatch(word)) is None or key.group(1) not in _KEY_FORMS or i in secret:
                continue
            if key.group(3):
                at, end = words[i].start() + key.start(3), words[i].end() - word.endswith(";")
            elif key.group(2) == ":" and i + 1 < len(texts) and i + 1 not in secret:
                at, end = words[i + 1].span()
            else:
                continue
            if line[at] in "\"'" and end - at > 1 and line[end - 1] == line[at]:  # (quoted: the quotes kept)
                at, end = at + 1, end - 1
            elif key.group(2) == ":":  # (YAML reads a bare `*...` as an alias: the mask quoted)
                spans[at] = (end, f'"{MASK}"')
                continue
            spans[at] = (end, MASK)
        ordered = sorted(spans.items())
        return self._mask(line, [(at, end) for at, (end, _) in ordered], [mask for _, (_, mask) in ordered]) + tail

    def _json_line(self, line: str) -> str:
        field = _JSON_FIELD if not any(map(_is_ntp_key, self.blocks)) else _NTP_KEY_FIELD
        spans = [m.span(2) for m in field.finditer(line) if m.group(2) and m.group(2) != MASK]
        spans += filter(None, map(_json_free_span, _JSON_DESCRIPTION.finditer(line)))
        line = self._mask(line, sorted(spans))
        key = _JSON_KEY.match(line)
        if key and key.group(2) is not None:  # a redis dump's "SNMP_COMMUNITY|NAME"
            return self._mask(line, [key.span(2)], self._community(key.group(2)))
        if key and self.blocks[-1:] and self.blocks[-1] in _LOWER_TABLES and line.rstrip().endswith("{"):
            return self._mask(line, [key.span(3)], self._community(key.group(3)))
        return line

    def _community(self, name: str) -> str:
        if name.startswith(MASK):
            return name
        return self._communities.setdefault(name, f"{MASK}{len(self._communities) + 1}")

    def communities(self, text: str) -> str:
        """A whole JSON output's SNMP communities the lines did not show (compact JSON) written as their masks: the
        keys of a community table's own object and redis dump `SNMP_COMMUNITY|NAME` keys, found by where they stand
        (a QoS map named like a community elsewhere in the document keeps its name)."""
        spans: list[tuple[int, int]] = []
        masks: list[str] = []
        opened: list[str | None] = []  # the key naming each open object
        key: str | None = None
        for token in _JSON_TOKEN.finditer(text):
            if token.group() == "{":
                opened.append(key)
            elif token.group() == "}":
                opened[-1:] = []
            elif key == "value" and token.group(2) is None and token.group(1) and token.group(1) != MASK and \
                    any(_is_ntp_key(name.lower()) for name in opened if name):  # (an NTP_KEY's value: compact JSON)
                spans.append(token.span(1))
                masks.append(MASK)
            elif token.group(2) is not None:  # a key
                key = token.group(1)
                start = token.start(1) + (len(_COMMUNITY_PREFIX) if key.startswith(_COMMUNITY_PREFIX) else 0)
                name = token.string[start:token.end(1)]
                if (start > token.start(1) or opened[-1:] and opened[-1] in _COMMUNITY_TABLES) and \
                        name and not name.startswith(MASK):
                    spans.append((start, token.end(1)))
                    masks.append(self._community(name))
                continue
            key = None
        return self._mask(text, spans, masks)


# sonic-net/SONiC doc/ntp/ntp-design.md (Config DB schema): `NTP_KEY|<id>` holds the key as `value` (base64), beside
# `type` and `trusted`; a generic name, masked only inside that table (a CONFIG_DB object, a redis dump's key).
_NTP_KEY_FIELD = re.compile(rf'("(?:value|{_SECRET_FIELD})"\s*:\s*)"((?:[^"\\]|\\.)*)"', re.I)


def _free_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where in free ``text[start:end]`` a secret is (_FREE_SECRET: what follows its word, its closing quote, `;` and
    blanks left out), or None where no word names one."""
    found = _FREE_SECRET.search(text, start, end)
    if found is None:
        return None
    return found.end(), max(found.end(), len(text[:end].rstrip(_FREE_TAIL_CHARS)))


# Prose ends a line that announces a secret on the next: a linking verb (`The password for the lab is`, `Passwords
# are:`), or `:`/`=` right after the secret's word (`Password:`) or after `for|of|to|on` and a name (`Password for the
# lab:`). Other prose naming a secret (`Never share your password`, `Password policy:`) leaves the next line.
_LINKING = frozenset({"is", "are", "was", "were"})
_DESCRIBES = frozenset({"description", "description:"})  # (the words that start a port's free text, _cli_line)
_NAMING = frozenset({"for", "of", "to", "on"})
_SENTENCE = re.compile(r"[,.;!?]")


def _announces(line: str, start: int, end: int, prose: bool = False) -> bool:
    """Whether ``line[start:end]``, a banner's text naming a secret, ends announcing it on the next line (_LINKING).
    ``prose``: a line outside a banner, whose secret's word must be a word of its own (`readonly-community:` is a
    YAML key)."""
    found = _FREE_SECRET.search(line, start, end)
    if found is not None and prose and found.start() > 0 and line[found.start() - 1] in "-_.":
        return False
    after = line[found.end("word"):end] if found else ""
    if found is None or _SENTENCE.search(after):
        return False
    words, colon = after.rstrip(" \t:=").split(), after.rstrip().endswith((":", "="))
    if not words:
        return colon
    return words[-1].lower() in _LINKING or (colon and words[0].lower() in _NAMING)


# A JSON description (CONFIG_DB PORT's `description`, NVUE's `nv config show -o json`): free text in a string.
_JSON_DESCRIPTION = re.compile(r'"description"\s*:\s*"((?:[^"\\]|\\.)*)"', re.I)


def _json_free_span(string: re.Match) -> tuple[int, int] | None:
    """Where the secret in a JSON string's free text is: what follows its word to the string's end (its blanks
    kept), never starting inside an escape (`\\n`), so the string stays JSON."""
    start, end = string.span(1)
    found = _FREE_SECRET.search(string.string, start, end)
    if found is None:
        return None
    text, at, stop = string.string, found.end(), end
    while stop > at and text[stop - 1] == " ":  # (walked, not `text[:end].rstrip()`: a copy per string of a
        stop -= 1                               # one-line JSON's prefix was quadratic)
    escapes = at
    while escapes > start and text[escapes - 1] == "\\":
        escapes -= 1
    at -= (at - escapes) % 2  # (an odd run of `\` before: the escape's `\` masked too)
    return (at, stop) if stop > at and string.string[at:stop] != MASK else None


def _is_ntp_key(block: str) -> bool:
    return block == "ntp_key" or block.startswith("ntp_key|")


def _host_community(texts: list[str], at: int) -> set[int]:
    """The index of the community on a `snmp-server host HOST ...` line whose words after HOST start at ``at``
    (_HOST_OPTIONS), or nothing: a line of another setting, or SNMPv3's."""
    while at < len(texts):
        word = texts[at]
        if word in _HOST_OPTIONS:
            at += 1 + _HOST_OPTIONS[word]
        elif word == "version" and at + 1 < len(texts):
            if texts[at + 1] in _HOST_V3:
                return set()
            at += 2
        elif word in _HOST_SETTINGS or word in ("{", ";"):
            return set()
        else:
            return {at}
    return set()


# A CONFIG_DB line's key: "SNMP_COMMUNITY|NAME" (group 2) or any "NAME" (group 3).
_JSON_KEY = re.compile(r'^\s*"(?:(SNMP_COMMUNITY\|)((?:[^"\\]|\\.)*)|((?:[^"\\]|\\.)*))"\s*:')
# A JSON string (group 1; group 2 when it is a key) or an object's brace.
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?|[{}]')


class RedactedLog(io.BufferedIOBase):
    """A session log (netmiko writes it as a file of bytes) written a whole line at a time with the device's secrets
    masked (Redactor): netmiko masks only the login password and enable secret in it. ``close`` writes the last,
    unended line and closes ``raw``."""

    def __init__(self, raw: BinaryIO):
        super().__init__()
        self._raw, self._pending, self._redactor = raw, b"", Redactor()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        data = bytes(data)
        head, newline, self._pending = (self._pending + data).rpartition(b"\n")
        if newline:
            self._raw.write(self._redacted(head + newline))
        return len(data)

    def _redacted(self, data: bytes) -> bytes:
        lines = data.decode("utf-8", "surrogateescape").split("\n")
        return "\n".join(map(self._redactor.line, lines)).encode("utf-8", "surrogateescape")

    def flush(self) -> None:
        self._raw.flush()

    def close(self) -> None:
        if not self.closed:
            if self._pending:
                self._raw.write(self._redacted(self._pending))
                self._pending = b""
            super().close()  # (flushes)
            self._raw.close()
