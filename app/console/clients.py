"""Who is at the other end of a console login: the TCP peer, or what trusted reverse proxies say it was.

Pure: no I/O. X-Forwarded-For is believed only from DEPUTY_TRUSTED_PROXIES; otherwise anyone could send a new
address with every guess and never meet the login limit. uvicorn's own proxy-header handling (which by default
believes loopback peers) is turned off in `deputy serve`, so this is the only place the header is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network

Network = IPv4Network | IPv6Network
IPV6_PREFIX = 64  # one IPv6 subscriber holds a whole /64: counting single addresses would let them rotate


def _trusted(address: str, networks: Sequence[Network]) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def limit_key(address: str) -> str:
    """The address the login limit counts: IPv6 by its /64, IPv4 and anything unparsable as it is."""
    try:
        parsed = ip_address(address)
    except ValueError:
        return address
    if parsed.version == 4:
        return str(parsed)
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(ip_network(f"{parsed}/{IPV6_PREFIX}", strict=False))


def client_address(peer: str | None, forwarded_for: Iterable[str], trusted: Sequence[Network]) -> str:
    """The client: the peer unless it is a trusted proxy; then, right to left, the first hop no trusted proxy is."""
    if not peer:
        return "unknown"
    if not _trusted(peer, trusted):
        return peer  # a forwarded header from anyone else is the client's own claim: ignored
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            try:
                return str(ip_address(hop))
            except ValueError:
                return peer  # garbage the proxy passed on: the proxy is the best we know
    return hops[0] if hops else peer  # every hop is a trusted proxy: the one farthest away
