"""The SSRF guard, without sockets: name resolution is faked at the resolver boundary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from grounded_research.retrieval.ssrf import BlockedURL, GuardedBackend, vet
from grounded_research.retrieval.web import FetchLimits, WebFetcher

DNS = {
    "example.com": ["93.184.216.34"],
    "v6.example.com": ["2606:4700::1111"],
    "evil.example": ["127.0.0.1"],
    "intranet.example": ["10.1.2.3"],
    "mixed.example": ["93.184.216.34", "192.168.0.10"],
    "cgnat.example": ["100.64.12.1"],
    "metadata-alias.example": ["169.254.169.254"],
    "v6-metadata.example": ["fd00:ec2::254"],
    "mapped.example": ["::ffff:10.0.0.1"],
    "nat64-loopback.example": ["64:ff9b::7f00:1"],
    "nat64-public.example": ["64:ff9b::808:808"],
    "nothing.example": [],
}


def fake_resolver(table: dict[str, list[str]]) -> Callable[[str, int], Awaitable[list[str]]]:
    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"unknown host {host}")
        return table[host]

    return resolve


REFUSED = [
    # schemes
    "file:///etc/passwd",
    "ftp://example.com/file",
    "gopher://example.com:70/",
    "javascript:alert(1)",
    "data:text/html,<h1>x</h1>",
    "//example.com/no-scheme",
    "http:///no-host",
    # loopback, private, link-local, CGNAT, multicast, reserved, unspecified
    "http://127.0.0.1/",
    "http://127.255.255.254:8080/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://169.254.1.1/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://0.0.0.0/",
    "http://198.18.0.1/",
    "http://192.0.0.8/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[ff02::1]/",
    # IPv4 inside IPv6
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:8.8.8.8]/",  # mapped: refused even when the IPv4 address is public
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::a00:1]/",
    "http://[2002:7f00:1::]/",
    # cloud metadata
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/",
    "http://metadata-alias.example/",
    "http://v6-metadata.example/",
    # odd spellings of 127.0.0.1 (and of a public address: refused all the same)
    "http://2130706433/",
    "http://0x7f000001/",
    "http://017700000001/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://0x7f.0.0.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127.0.0.1./",
    "http://134744072/",
    # names
    "http://localhost/",
    "http://LOCALHOST:8000/",
    "http://app.localhost/",
    "http://evil.example/",
    "http://intranet.example/",
    "http://mixed.example/",  # one private address among public ones is enough
    "http://cgnat.example/",
    "http://mapped.example/",
    "http://nat64-loopback.example/",
    "http://nothing.example/",
    "http://unknown.example/",
    "http://user:pass@127.0.0.1/",
    "http://example.com:99999/",
]

ALLOWED = [
    "http://example.com/",
    "https://example.com:8443/page?q=1",
    "http://93.184.216.34/",
    "http://[2606:4700::1111]/",
    "https://v6.example.com/",
    "http://nat64-public.example/",
]


@pytest.mark.parametrize("url", REFUSED)
async def test_every_ssrf_case_is_refused(url: str) -> None:
    with pytest.raises(BlockedURL) as refused:
        await vet(url, allow_private=False, resolve=fake_resolver(DNS))
    assert str(refused.value)  # always says why


@pytest.mark.parametrize("url", ALLOWED)
async def test_public_addresses_pass(url: str) -> None:
    target = await vet(url, allow_private=False, resolve=fake_resolver(DNS))
    assert target.addresses


async def test_the_explicit_option_lifts_the_guard_for_addresses_not_schemes() -> None:
    resolve = fake_resolver({**DNS, "127.0.0.1": ["127.0.0.1"], "localhost": ["127.0.0.1"]})
    for url in ("http://127.0.0.1:8000/", "http://localhost/", "http://intranet.example/"):
        assert (await vet(url, allow_private=True, resolve=resolve)).addresses
    with pytest.raises(BlockedURL):
        await vet("file:///etc/passwd", allow_private=True, resolve=resolve)
    for metadata in ("http://169.254.169.254/", "http://metadata.google.internal/"):
        with pytest.raises(BlockedURL, match="metadata"):
            await vet(metadata, allow_private=True, resolve=resolve)


async def test_an_exempt_address_is_allowed_alone() -> None:
    resolve = fake_resolver(DNS)
    exempt = frozenset({"127.0.0.1"})
    await vet("http://127.0.0.1:8000/", allow_private=False, resolve=resolve, exempt=exempt)
    with pytest.raises(BlockedURL, match="private"):
        await vet("http://10.0.0.1/", allow_private=False, resolve=resolve, exempt=exempt)


async def test_reasons_name_the_address() -> None:
    with pytest.raises(BlockedURL, match=r"evil\.example resolves to 127\.0\.0\.1, a loopback"):
        await vet("http://evil.example/", allow_private=False, resolve=fake_resolver(DNS))
    with pytest.raises(BlockedURL, match="metadata"):
        await vet("http://169.254.169.254/", allow_private=False, resolve=fake_resolver(DNS))
    with pytest.raises(BlockedURL, match="unusual spelling"):
        await vet("http://0x7f.1/", allow_private=False, resolve=fake_resolver(DNS))


def rebinding(
    first: list[str], then: list[str], good_answers: int
) -> Callable[[str, int], Awaitable[list[str]]]:
    """A name that resolves to `first` for `good_answers` lookups, then to `then`."""
    calls = 0

    async def resolve(host: str, port: int) -> list[str]:
        nonlocal calls
        calls += 1
        return first if calls <= good_answers else then

    return resolve


async def test_connect_time_check_defeats_dns_rebinding() -> None:
    backend = GuardedBackend(
        allow_private=False, resolve=rebinding(["93.184.216.34"], ["127.0.0.1"], 1)
    )
    await vet("http://rebind.example/", allow_private=False, resolve=backend.resolve)
    with pytest.raises(BlockedURL, match="loopback"):
        await backend.connect_tcp("rebind.example", 80, timeout=1)


async def test_the_fetcher_turns_refusals_into_blocked_pages(tmp_path: Path) -> None:
    """Checked before the request, on the hop, and at connect time: never an exception,
    and no socket is opened (the last check refuses before connecting)."""
    fetcher = WebFetcher(tmp_path, FetchLimits(), resolve=fake_resolver(DNS))
    page = await fetcher.fetch("http://evil.example/admin")
    assert page.status == "blocked" and "loopback" in page.error
    page = await fetcher.fetch("gopher://example.com/")
    assert page.status == "blocked" and "scheme" in page.error

    rebinder = rebinding(["93.184.216.34"], ["10.0.0.7"], 2)  # the URL check, the hop check
    fetcher = WebFetcher(tmp_path, FetchLimits(), resolve=rebinder)
    page = await fetcher.fetch("http://rebind.example/")
    assert page.status == "blocked" and "10.0.0.7" in page.error
