"""Longest-prefix match over one routing table, as a switch forwards (RFC 1812 section 5.2.4.3: the route with the
longest matching prefix wins). The route parser resolves a BGP next hop with it, the path analysis a destination."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")
_WIDTH = {4: 32, 6: 128}  # address bits of IPv4 and IPv6


class LongestPrefix(Generic[T]):
    """One dict per (IP version, prefix length), tried longest first; a prefix given again keeps the last value."""

    def __init__(self, items: Iterable[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, T]]):
        self._by_length: dict[tuple[int, int], dict[int, T]] = {}
        for network, value in items:
            self._by_length.setdefault((network.version, network.prefixlen), {})[int(network.network_address)] = value
        self._lengths = sorted(self._by_length, key=lambda k: -k[1])

    def match(self, version: int, address: int) -> T | None:
        """The value of the longest prefix holding ``address`` (an int of IP ``version``), None when none does."""
        width = _WIDTH[version]
        by_length = self._by_length
        for v, plen in self._lengths:
            if v == version:
                found = by_length[(v, plen)].get(address >> (width - plen) << (width - plen))
                if found is not None:
                    return found
        return None
