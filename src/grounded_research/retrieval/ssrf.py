"""The SSRF guard: a URL someone else chose (a search result, a redirect, a line of
`--urls`) must not turn the fetcher against the machine it runs on or its network.

A URL passes only if its scheme is http(s), its host is not spelled in an odd way
(`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1` all mean 127.0.0.1 to `inet_aton`), it is
not a metadata name, and every address the host resolves to is public. The check runs
on every redirect hop, and again in the connection itself (`GuardedBackend`): the
socket goes to the very address that was checked, so a DNS answer that changes between
the check and the connect (DNS rebinding) gains nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpcore

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""`(host, port) -> addresses`: the one place a name becomes addresses (tests fake it)."""

ALLOWED_SCHEMES = frozenset({"http", "https"})
METADATA_NAMES = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2"}
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_DENIED_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",  # "this network"
        "100.64.0.0/10",  # carrier-grade NAT
        "192.0.0.0/24",  # IETF protocol assignments
        "192.88.99.0/24",  # 6to4 relays
        "198.18.0.0/15",  # benchmarking
        "::/96",  # IPv4-compatible IPv6 (deprecated)
        "::ffff:0:0/96",  # IPv4-mapped IPv6
        "64:ff9b:1::/48",  # local-use NAT64
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Anything made only of digits, hex digits, 'x' and dots is meant as an IP address.
_NUMERIC_HOST = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+))*\.?$", re.I)
_CANONICAL_IPV4 = re.compile(
    r"^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$"
)


class BlockedURL(Exception):
    """A URL the guard refuses; the message is the reason, shown on the source."""


@dataclass(frozen=True)
class Target:
    """A URL that passed the guard: where it points and the addresses it resolved to."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


async def system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def refusal(address: IPAddress) -> str | None:
    """Why this address must not be fetched from, or None when it is public."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return "an IPv4-mapped IPv6 address"
        embedded = address.sixtofour
        if address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            inner = refusal(embedded)
            return f"an IPv6 address wrapping {embedded} ({inner})" if inner else None
    checks = (
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "the unspecified address"),
        (address.is_private, "a private address"),
        (address.is_reserved, "a reserved address"),
        (
            any(address in net for net in _DENIED_NETWORKS if net.version == address.version),
            "a special-purpose address",
        ),
        (not address.is_global, "not a public address"),
    )
    return next((reason for failed, reason in checks if failed), None)


def check_addresses(
    host: str, addresses: Iterable[str], exempt: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """All of them public (or exempt by name), or `BlockedURL` naming the first that
    is not."""
    found = tuple(addresses)
    if not found:
        raise BlockedURL(f"{host} resolves to no address")
    for text in found:
        if text in exempt:
            continue
        reason = refusal(ipaddress.ip_address(text.split("%", 1)[0]))
        if reason:
            where = f"{host} is" if host == text else f"{host} resolves to {text},"
            raise BlockedURL(f"{where} {reason}")
    return found


def split_url(url: str) -> tuple[str, str, int]:
    """Scheme, host and port of a URL, refusing what is not plainly an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise BlockedURL(f"invalid URL: {error}") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise BlockedURL(f"scheme {scheme or '(none)'!r} is not allowed (http and https only)")
    host = (parts.hostname or "").lower()
    if not host:
        raise BlockedURL("URL has no host")
    return scheme, host, port or (443 if scheme == "https" else 80)


def check_host_name(host: str) -> IPAddress | None:
    """Refuse names that need no DNS to be refused; an IP literal is returned as such."""
    if host.rstrip(".") in METADATA_NAMES:
        raise BlockedURL(f"{host} is a cloud metadata name")
    if host == "localhost" or host.rstrip(".").endswith(".localhost"):
        raise BlockedURL(f"{host} is a loopback name")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _NUMERIC_HOST.match(host) and not _CANONICAL_IPV4.match(host):
        raise BlockedURL(f"{host} is an unusual spelling of an IP address")
    return None


async def vet(
    url: str,
    *,
    allow_private: bool,
    resolve: Resolver = system_resolver,
    exempt: frozenset[str] = frozenset(),
) -> Target:
    """Check one URL (one redirect hop) before it is requested. `allow_private` lets
    non-public addresses through, except cloud metadata endpoints, which hold
    credentials and never a page worth citing; `exempt` names single addresses allowed
    although not public (one test server, not the whole network)."""
    _, host, port = split_url(url)
    if allow_private:
        if host.rstrip(".") in METADATA_NAMES:
            raise BlockedURL(f"{host} is a cloud metadata name")
    else:
        literal = check_host_name(host)
        if literal is not None:
            return Target(url, host, port, check_addresses(host, [str(literal)], exempt))
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        try:
            addresses = await resolve(host, port)
        except (OSError, UnicodeError) as error:
            raise BlockedURL(f"cannot resolve {host}: {error}") from None
    if not allow_private:
        return Target(url, host, port, check_addresses(host, addresses, exempt))
    for text in addresses:
        if ipaddress.ip_address(text.split("%", 1)[0]) in METADATA_ADDRESSES:
            where = f"{host} is" if host == text else f"{host} resolves to {text},"
            raise BlockedURL(f"{where} a cloud metadata address (never fetched)")
    return Target(url, host, port, tuple(addresses))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, resolving and checking the host itself at connect
    time and connecting to the checked address. TLS still uses the host name (httpcore
    passes it as SNI), and the Host header is untouched."""

    def __init__(
        self,
        *,
        allow_private: bool,
        resolve: Resolver = system_resolver,
        exempt: frozenset[str] = frozenset(),
    ) -> None:
        self.allow_private = allow_private
        self.resolve = resolve
        self.exempt = exempt
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        url = f"http://{_bracketed(host)}:{port}/"
        target = await vet(
            url, allow_private=self.allow_private, resolve=self.resolve, exempt=self.exempt
        )
        last_error: Exception | None = None
        for address in target.addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                last_error = error
        assert last_error is not None
        raise last_error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise BlockedURL("unix sockets are never fetched")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
