"""Fetching web pages: one URL in, one `WebPage` out, never an exception.

Every hop of a redirect chain passes the SSRF guard before it is requested, and the
connection itself goes through `GuardedBackend`. A page is read as a stream and cut at
`max_bytes`; only HTML, PDF and plain text are kept (other content types are refused
and recorded); 429 and 5xx answers are retried with backoff, honouring `Retry-After`.
Pages that were fetched are cached by URL in the cache folder (metadata as JSON, the
text as a content-addressed snapshot), so a re-run does not fetch them again.
"""

from __future__ import annotations

import asyncio
import codecs
import hashlib
import json
import random
import ssl
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import cache
from pathlib import Path
from typing import Literal, TypedDict
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from grounded_research.files import write_atomic
from grounded_research.retrieval.documents import (
    Document,
    UnreadableDocument,
    html_document,
    pdf_document,
    text_document,
)
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.retrieval.ssrf import (
    BlockedURL,
    GuardedBackend,
    Resolver,
    system_resolver,
    vet,
)

PageStatus = Literal["fetched", "failed", "blocked"]
MAX_REDIRECTS = 5
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CONTENT_KINDS = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "text",
    "text/x-markdown": "text",
    "application/pdf": "pdf",
}
USER_AGENT = "grounded-research/0.1 (research agent; quotes pages it cites)"
CACHE_VERSION = 1


@dataclass(frozen=True)
class WebPage:
    """What became of one URL. `location` is where the text came from (the last hop
    of a redirect chain); `url` is the URL as it was asked for."""

    url: str
    status: PageStatus
    error: str = ""
    location: str = ""
    redirects: tuple[str, ...] = ()
    title: str = ""
    author: str | None = None
    published: str | None = None
    content_type: str = ""
    sha256: str = ""
    fetched_at: str = ""
    cut_at: int | None = None
    note: str = ""  # how the text was decoded, when the bytes were not clean in their charset
    text: str = field(default="", repr=False)
    downloaded: bool = False


@dataclass(frozen=True)
class FetchLimits:
    timeout: float = 20.0
    max_bytes: int = 5_000_000
    retries: int = 2
    backoff: float = 0.5
    longest_wait: float = 30.0  # the most a Retry-After is honoured
    cache_days: float = 7.0
    allow_private: bool = False
    exempt: frozenset[str] = frozenset()  # non-public addresses allowed one by one


class PageCache:
    """Fetched pages by URL: metadata in `pages/`, the text in the snapshot store."""

    def __init__(self, cache_dir: Path, snapshots: SnapshotStore) -> None:
        self.root = cache_dir / "pages"
        self.snapshots = snapshots

    def _path(self, url: str) -> Path:
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.root / digest[:2] / f"{digest}.json"

    def get(self, url: str, max_age_days: float) -> WebPage | None:
        if max_age_days <= 0:
            return None
        try:
            raw = json.loads(self._path(url).read_text(encoding="utf-8"))
            if raw.pop("version", None) != CACHE_VERSION or raw["url"] != url:
                return None
            fetched = datetime.fromisoformat(raw["fetched_at"])
            if datetime.now(UTC) - fetched > timedelta(days=max_age_days):
                return None
            raw["redirects"] = tuple(raw["redirects"])
            page = WebPage(**raw)
            return replace(page, text=self.snapshots.get(page.sha256))
        except (OSError, ValueError, KeyError, TypeError):  # a damaged snapshot too
            return None  # fetched again

    def put(self, page: WebPage) -> None:
        record = asdict(replace(page, text="", downloaded=False)) | {"version": CACHE_VERSION}
        write_atomic(self._path(page.url), json.dumps(record))


class GuardArgs(TypedDict):
    allow_private: bool
    resolve: Resolver
    exempt: frozenset[str]


@dataclass
class _Answer:
    """One request's outcome: a page, or a status worth retrying."""

    page: WebPage | None = None
    retry_status: str = ""
    retry_after: float | None = None


class WebFetcher:
    def __init__(
        self,
        cache_dir: str | Path,
        limits: FetchLimits,
        resolve: Resolver = system_resolver,
    ) -> None:
        self.limits = limits
        self.resolve = resolve
        self.snapshots = SnapshotStore.in_cache(cache_dir)
        self.cache = PageCache(Path(cache_dir), self.snapshots)
        self._guard = GuardArgs(
            allow_private=limits.allow_private, resolve=resolve, exempt=limits.exempt
        )

    async def fetch(self, url: str, timeout: float | None = None) -> WebPage:
        """The page at `url`, from the cache when it holds a fresh copy; `timeout`
        (seconds for this page, everything included) defaults to the limits'."""
        url = url.strip()
        try:
            await vet(url, **self._guard)
        except BlockedURL as reason:
            return WebPage(url=url, status="blocked", error=str(reason), location=url)
        cached = self.cache.get(url, self.limits.cache_days)
        if cached is not None and await self._still_allowed(cached):
            return cached
        seconds = self.limits.timeout if timeout is None else min(timeout, self.limits.timeout)
        try:
            async with asyncio.timeout(seconds):
                page = await self._download(url, time.monotonic() + seconds)
        except TimeoutError:
            page = WebPage(url=url, status="failed", error=f"timed out after {seconds:g} s")
        except BlockedURL as reason:  # refused at connect time
            page = WebPage(url=url, status="blocked", error=str(reason))
        except httpx.HTTPError as error:
            page = WebPage(url=url, status="failed", error=_describe(error))
        page = replace(page, location=page.location or url, downloaded=True)
        if page.status == "fetched":
            self.cache.put(page)
        return page

    async def _still_allowed(self, page: WebPage) -> bool:
        """A cached page is reused only if every hop it took would pass the guard now."""
        try:
            for hop in page.redirects:
                await vet(hop, **self._guard)
        except BlockedURL:
            return False
        return True

    async def _download(self, url: str, deadline: float) -> WebPage:
        backend = GuardedBackend(**self._guard)
        async with httpx.AsyncClient(
            transport=_GuardedTransport(backend),
            follow_redirects=False,
            trust_env=False,  # a proxy would connect to addresses the guard never saw
            timeout=httpx.Timeout(self.limits.timeout),
            headers={"User-Agent": USER_AGENT, "Accept": ", ".join(CONTENT_KINDS) + ";q=0.9"},
        ) as client:
            attempt = 0
            while True:
                answer = await self._follow(client, url)
                if answer.page is not None:
                    return answer.page
                attempt += 1
                tried = f"{answer.retry_status} (after {attempt} attempts"
                if attempt > self.limits.retries:
                    return WebPage(url=url, status="failed", error=tried + ")")
                wait = self.limits.backoff * 2 ** (attempt - 1) * (1 + random.random() / 4)
                wait = max(wait, answer.retry_after or 0.0)
                if wait > self.limits.longest_wait or time.monotonic() + wait >= deadline:
                    error = f"{tried}; a retry in {wait:.1f} s would pass the time limit)"
                    return WebPage(url=url, status="failed", error=error)
                await asyncio.sleep(wait)

    async def _follow(self, client: httpx.AsyncClient, url: str) -> _Answer:
        """One attempt: follow redirects by hand, checking every hop."""
        hops: list[str] = []
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            hops.append(current)
            try:
                await vet(current, **self._guard)
            except BlockedURL as reason:
                where = f"redirect to {current}: " if len(hops) > 1 else ""
                return _Answer(WebPage(url=url, status="blocked", error=f"{where}{reason}"))
            async with client.stream("GET", current) as response:
                status = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                if response.status_code in RETRY_STATUSES:
                    return _Answer(retry_status=status, retry_after=_retry_after(response))
                if not response.is_success:
                    return _Answer(WebPage(url=url, status="failed", error=status))
                return _Answer(await self._read(url, tuple(hops), response))
        too_many = f"more than {MAX_REDIRECTS} redirects"
        return _Answer(WebPage(url=url, status="failed", error=too_many, redirects=tuple(hops)))

    async def _read(self, url: str, hops: tuple[str, ...], response: httpx.Response) -> WebPage:
        final = hops[-1]
        declared = response.headers.get("content-type", "").split(";")[0].strip().lower()
        kind = CONTENT_KINDS.get(declared)
        failed = WebPage(url=url, status="failed", location=final, redirects=hops)
        if declared and kind is None:
            error = f"content type {declared} is not fetched (HTML, PDF and plain text only)"
            return replace(failed, error=error, content_type=declared)
        size = int(response.headers.get("content-length") or 0)
        if kind == "pdf" and size > self.limits.max_bytes:
            return replace(failed, error=f"PDF of {size} bytes is over the byte cap")
        data = bytearray()
        cut_at: int | None = None
        async for piece in response.aiter_bytes():
            data += piece
            if len(data) > self.limits.max_bytes:
                cut_at = self.limits.max_bytes
                del data[cut_at:]
                break
        kind = kind or _sniff(bytes(data[:512]))
        if kind is None:
            return replace(failed, error="no content type and not recognisably HTML or PDF")
        if kind == "pdf" and cut_at is not None:
            return replace(failed, error=f"PDF over the byte cap ({cut_at} bytes)")
        try:  # extraction is CPU work: off the event loop, so other fetches go on
            document = await asyncio.to_thread(
                _document, bytes(data), kind, final, response.charset_encoding
            )
        except UnreadableDocument as problem:
            return replace(failed, error=problem.reason)
        except Exception as error:  # a parser failure makes this one page a failed source
            return replace(failed, error=f"{type(error).__name__}: {error}")
        return WebPage(
            url=url,
            status="fetched",
            location=final,
            redirects=hops,
            title=document.title,
            author=document.author,
            published=document.published,
            content_type=declared or kind,
            sha256=await asyncio.to_thread(self.snapshots.put, document.text),
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            cut_at=cut_at,
            note=document.note,
            text=document.text,
        )


class _GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport with its connection pool on the guarded network backend
    (httpx has no public switch for the backend; the pool is its documented core)."""

    def __init__(self, backend: GuardedBackend) -> None:
        super().__init__(verify=shared_ssl_context(), trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=shared_ssl_context(), network_backend=backend, max_connections=10
        )


@cache
def shared_ssl_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle (slow)."""
    return httpx.create_ssl_context()


def _document(data: bytes, kind: str, location: str, charset: str | None) -> Document:
    fallback = _name_in_url(location)
    if kind == "pdf":
        return pdf_document(data, location, fallback)
    if kind == "text" and b"\x00" in data[:8192]:
        raise UnreadableDocument(location, "binary content served as text")
    text, note = _decode(data, charset)
    if kind == "html":
        return replace(html_document(text, location, fallback, search_metadata=True), note=note)
    return replace(text_document(text, location, fallback), note=note)


def _decode(data: bytes, charset: str | None) -> tuple[str, str]:
    """The text in the charset the server named, else UTF-8, else cp1252, and a note
    when the bytes were not clean in it (a quote from it is then not the page's bytes).
    A page cut by the byte cap may end inside a sequence: that tail is dropped, not a
    reason to guess."""
    named = charset
    if named:
        try:
            codecs.lookup(named)
        except LookupError:
            named = None
    decoder = codecs.getincrementaldecoder(named or "utf-8")
    try:
        return decoder().decode(data, final=False), ""
    except UnicodeDecodeError as error:
        where = f"not valid {named or 'UTF-8'} from byte {error.start}"
    if named:
        return decoder(errors="replace").decode(data, final=False), f"{where}: shown as U+FFFD"
    return data.decode("cp1252", errors="replace"), f"{where}: read as cp1252"


def _sniff(head: bytes) -> str | None:
    stripped = head.lstrip().lower()
    if stripped.startswith(b"%pdf-"):
        return "pdf"
    if stripped.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return "html"
    return None


def _name_in_url(url: str) -> str:
    parts = urlsplit(url)
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    return last or parts.hostname or url


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _describe(error: httpx.HTTPError) -> str:
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if text != type(error).__name__ else text
