"""Every knob of a run, declared once: LangGraph's `context_schema`.

Each field says its type (a `Literal` for choices, so LangGraph Studio shows a dropdown),
default, bounds (`ge`/`gt`, which Studio's JSON schema shows as minimums), help,
whether the CLI takes it (`cli=`), and who may set it when the graph serves others
(`server=`, read by `policy.py`): `Context` checks values against those declarations,
and both `grounded-research` and `grounded-research eval` make their run options from
them. In Python pass `context=Context(...)` to `invoke`/`stream`; a LangGraph server
copies the run's `configurable` into it, through the operator's policy.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin, get_type_hints

from grounded_research.errors import ConfigurationError

if TYPE_CHECKING:  # the CLI reads these knobs for --help without loading LangGraph
    from langgraph.runtime import Runtime


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "grounded-research")


ModelName = Annotated[str, {"__template_metadata__": {"kind": "llm"}}]
"""A model field: LangGraph Studio shows a model picker for it."""

StructuredOutput = Literal["json_schema", "function_calling", "json_mode", "prompt"]
SelectionStrategy = Literal["auto", "none", "keyword", "embeddings", "hybrid"]
TavilySearchDepth = Literal["basic", "advanced"]
TavilyTopic = Literal["general", "news", "finance"]
TavilyTimeRange = Literal["", "day", "week", "month", "year"]
RETRIEVERS = ("local", "tavily", "searxng", "mcp", "urls")


@dataclass(frozen=True)
class Cli:
    """A knob that the command line takes, as `--field-name` unless `name` says otherwise."""

    name: str = ""
    metavar: str = ""
    eval: bool = True
    """`grounded-research eval` takes it too."""

    def option(self, field_name: str) -> str:
        return self.name or "--" + field_name.replace("_", "-")


ON_CLI = Cli()


# Who sets a knob when the graph serves callers other than its operator (a LangGraph
# server; `policy.py` applies these rules, docs/deployment.md "Trust boundary" lists
# them). A knob without one is the caller's, within its declaration. On the CLI and in
# Python the caller is the operator and every knob is theirs.


@dataclass(frozen=True)
class OperatorOnly:
    """The knob reaches secrets, the file system or the network: only the operator sets
    it. A run may repeat the operator's value, never change it."""


@dataclass(frozen=True)
class FromList:
    """A run picks from the operator's list `allowed` (e.g. `models`); `default` is that
    list when the operator gives none (None: any value the knob accepts). '' (inherit,
    none) and the operator's own value are always allowed; with a `separator` the value
    names several (`local,urls`), each of which must be allowed."""

    allowed: str
    default: tuple[str, ...] | None = ()
    separator: str = ""


@dataclass(frozen=True)
class Registered:
    """A run names one of the folders the operator registered under `table`; the run
    gets that folder. '' (none) is always allowed."""

    table: str


@dataclass(frozen=True)
class Ceiling:
    """A run may ask for up to the operator's ceiling (by default the operator's own
    value). With `zero_is_unlimited`, 0 means no limit: a run may ask for it only when the
    ceiling is 0 itself."""

    zero_is_unlimited: bool = False


ServerRule = OperatorOnly | FromList | Registered | Ceiling
OPERATOR_ONLY = OperatorOnly()
UP_TO_OPERATOR = Ceiling()
UNLIMITED_AT_ZERO = Ceiling(zero_is_unlimited=True)
MODELS = FromList("models", default=("extractive",))


def knob(
    help: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    cli: Cli | None = None,
    server: ServerRule | None = None,
) -> dict[str, Any]:
    """A `Context` field's metadata: `help`, `ge` and `gt` under the names pydantic reads,
    so Studio's schema shows them, `cli` for the knobs the command line takes, and
    `server` for the knobs a served run may not set freely."""
    metadata: dict[str, Any] = {"description": help}
    if ge is not None:
        metadata["ge"] = ge
    if gt is not None:
        metadata["gt"] = gt
    if cli is not None:
        metadata["cli"] = cli
    if server is not None:
        metadata["server"] = server
    return metadata


def server_rule(spec: Field[Any]) -> ServerRule | None:
    """Who sets this knob on a server; None: the caller."""
    rule: ServerRule | None = spec.metadata.get("server")
    return rule


@dataclass(kw_only=True)
class Context:
    corpus: str = field(
        default="",
        metadata=knob(
            "Local corpus: a folder (read recursively) or one .jsonl file.",
            cli=ON_CLI,
            server=Registered("corpora"),
        ),
    )
    retrievers: str = field(
        default="auto",
        metadata=knob(
            "Comma-separated retrievers: local, tavily, searxng, mcp, urls. 'auto': local "
            "with a corpus, plus urls when urls are given; with neither, searxng when "
            "searxng_url is set, else tavily when TAVILY_API_KEY is set.",
            cli=Cli("--retriever"),
            server=FromList("retrievers", default=None, separator=","),
        ),
    )
    urls: list[str] = field(
        default_factory=list,
        metadata=knob(
            "Web pages to research (the 'urls' retriever); the CLI reads them from a file, "
            "one URL a line (# comments).",
            cli=Cli(metavar="FILE", eval=False),
        ),
    )
    model: ModelName = field(
        default="extractive",
        metadata=knob(
            "'extractive' (offline, no LLM) or provider:name, e.g. 'openai:gpt-4.1-mini'.",
            cli=ON_CLI,
            server=MODELS,
        ),
    )
    base_url: str = field(
        default="",
        metadata=knob(
            "Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1, "
            "LM Studio); OPENAI_BASE_URL fills it when left empty.",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    planner_model: ModelName = field(
        default="",
        metadata=knob(
            "Model that plans and checks gaps; empty = model.", cli=ON_CLI, server=MODELS
        ),
    )
    writer_model: ModelName = field(
        default="",
        metadata=knob("Model that writes the report; empty = model.", cli=ON_CLI, server=MODELS),
    )
    verifier_model: ModelName = field(
        default="",
        metadata=knob("Model that checks citations; empty = model.", cli=ON_CLI, server=MODELS),
    )
    structured_output: StructuredOutput = field(
        default="json_schema",
        metadata=knob(
            "How models return JSON: 'json_schema' (response_format), 'function_calling' "
            "(tools), 'json_mode', or 'prompt' (asked in the prompt only).",
            cli=ON_CLI,
        ),
    )
    model_timeout: float = field(
        default=120.0,
        metadata=knob(
            "Seconds one model request may take.", gt=0, cli=ON_CLI, server=UP_TO_OPERATOR
        ),
    )
    model_retries: int = field(
        default=2,
        metadata=knob(
            "Retries of a model request after a timeout or rate limit.", ge=0, server=UP_TO_OPERATOR
        ),
    )
    max_output_tokens: int = field(
        default=0,
        metadata=knob(
            "Most tokens one model answer may have (0: the model's limit).",
            ge=0,
            cli=ON_CLI,
            server=UNLIMITED_AT_ZERO,
        ),
    )
    max_sub_questions: int = field(
        default=4,
        metadata=knob(
            "Sub-questions the planner may add to the question.",
            ge=1,
            cli=ON_CLI,
            server=UP_TO_OPERATOR,
        ),
    )
    max_rounds: int = field(
        default=2,
        metadata=knob(
            "Re-search rounds for gaps after the first search (0 = none).",
            ge=0,
            cli=ON_CLI,
            server=UP_TO_OPERATOR,
        ),
    )
    results_per_query: int = field(
        default=8,
        metadata=knob(
            "Passages each retriever returns per query.", ge=1, cli=ON_CLI, server=UP_TO_OPERATOR
        ),
    )
    chunk_size: int = field(
        default=600, metadata=knob("Target passage size in characters.", ge=1, server=OPERATOR_ONLY)
    )
    token_budget: int = field(
        default=4000,
        metadata=knob(
            "Tokens of evidence the writer may receive.", ge=1, cli=ON_CLI, server=UP_TO_OPERATOR
        ),
    )
    evidence_per_sub_question: int = field(
        default=32,
        metadata=knob(
            "Most evidence passages selected per sub-question; the token budget usually "
            "binds first.",
            ge=0,
        ),
    )
    sources_per_sub_question: int = field(
        default=0,
        metadata=knob(
            "Most sources quoted per sub-question, the best ranked first; the others are "
            "listed under further sources (0: no limit but the token budget).",
            ge=0,
            cli=ON_CLI,
        ),
    )
    follow_up_floor: float = field(
        default=0.4,
        metadata=knob(
            "A passage that only a follow-up query found is selected when it scores at least "
            "this share of the best candidate's keyword score against its sub-question, or "
            "when its title or headings name what that query names (0: no floor).",
            ge=0,
            cli=ON_CLI,
        ),
    )
    selection_strategy: SelectionStrategy = field(
        default="auto",
        metadata=knob(
            "How evidence is ranked for the writer: 'none' (the retriever's order), "
            "'keyword' (BM25, jieba for Chinese), 'embeddings' (vector similarity), "
            "'hybrid' (rank fusion of both); 'auto': hybrid when an embedder is available, "
            "else keyword.",
            cli=Cli("--selection"),
        ),
    )
    embeddings: str = field(
        default="local",
        metadata=knob(
            "Embedder for the embeddings and hybrid strategies: 'local' (an offline MiniLM "
            "shipped with the package), 'none', or a LangChain model as provider:model, e.g. "
            "'openai:text-embedding-3-small'.",
            cli=ON_CLI,
            server=FromList("embeddings", default=("local", "none")),
        ),
    )
    dense_retrieval: bool = field(
        default=False,
        metadata=knob(
            "Search the local corpus by embeddings too, fused with the keyword ranking: "
            "every chunk is embedded once, when indexed, with the embeddings knob's embedder "
            "(costly on a large corpus: see the README).",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    embeddings_base_url: str = field(
        default="",
        metadata=knob("Base URL of an OpenAI-compatible embeddings server.", server=OPERATOR_ONLY),
    )
    writer_context_tokens: int = field(
        default=0,
        metadata=knob(
            "The writer model's context window in tokens; the evidence gets what is left "
            "after the prompt and answer reserves, at most token_budget (0: token_budget alone "
            "limits it).",
            ge=0,
        ),
    )
    prompt_reserve_tokens: int = field(
        default=1500,
        metadata=knob("Tokens of the writer's context kept for its instructions.", ge=0),
    )
    answer_reserve_tokens: int = field(
        default=2000, metadata=knob("Tokens of the writer's context kept for its answer.", ge=0)
    )
    memory_share: float = field(
        default=0.25,
        metadata=knob(
            "Share of the evidence token budget that a follow-up's research memory (facts, "
            "constraints, open questions of the thread's earlier turns) may take; the least "
            "relevant facts shrink to pointers beyond it.",
            ge=0,
        ),
    )
    drift_threshold: float = field(
        default=0.3,
        metadata=knob(
            "A follow-up sharing less than this share of its terms with the thread's memory "
            "is another topic: it starts a fresh memory (the old one is kept).",
            ge=0,
        ),
    )
    min_independent_sources: int = field(
        default=2,
        metadata=knob(
            "Independent sources a sub-question needs before it is closed.",
            ge=0,
            cli=Cli("--min-sources"),
        ),
    )
    follow_up_queries: int = field(
        default=3, metadata=knob("Most follow-up queries per gap.", ge=0, server=UP_TO_OPERATOR)
    )
    approve_plan: bool = field(
        default=False,
        metadata=knob(
            "Stop after planning until a person accepts or edits the plan.", cli=Cli(eval=False)
        ),
    )
    cache_dir: str = field(
        default_factory=default_cache_dir,
        metadata=knob(
            "Where corpus indexes, source snapshots and fetched pages are kept.",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    allow_private_network: bool = field(
        default=False,
        metadata=knob(
            "Let the web fetcher reach loopback, private, link-local and metadata addresses "
            "(intranets, tests). Off: such URLs become blocked sources.",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    tavily_search_depth: TavilySearchDepth = field(
        default="basic", metadata=knob("Tavily search depth: basic or advanced.")
    )
    tavily_topic: TavilyTopic = field(
        default="general", metadata=knob("Tavily topic: general, news or finance.")
    )
    tavily_time_range: TavilyTimeRange = field(
        default="", metadata=knob("Tavily time range: day, week, month, year, or '' for any.")
    )
    tavily_max_results: int = field(
        default=5,
        metadata=knob("Most pages one Tavily search returns.", ge=0, server=UP_TO_OPERATOR),
    )
    tavily_include_domains: list[str] = field(
        default_factory=list, metadata=knob("Tavily searches only these domains.")
    )
    tavily_exclude_domains: list[str] = field(
        default_factory=list, metadata=knob("Tavily never returns these domains.")
    )
    tavily_base_url: str = field(
        default="https://api.tavily.com",
        metadata=knob(
            "Tavily API base URL (tests point it at a local server).", server=OPERATOR_ONLY
        ),
    )
    searxng_url: str = field(
        default="",
        metadata=knob(
            "Base URL of a SearXNG instance for the 'searxng' retriever (its JSON API, "
            "/search?format=json, must be on in its settings.yml). Asked directly, as the "
            "operator's own service; the pages it finds pass the SSRF guard.",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    searxng_max_results: int = field(
        default=5,
        metadata=knob("Most pages one SearXNG search returns.", ge=0, server=UP_TO_OPERATOR),
    )
    mcp_server: str = field(
        default="",
        metadata=knob(
            "The MCP server the 'mcp' retriever asks: an http(s) URL (streamable HTTP), or a "
            "command and its arguments, split as a shell would split them but never run by "
            "a shell (starting it needs allow_mcp_server_start).",
            cli=Cli(metavar="URL|COMMAND"),
            server=OPERATOR_ONLY,
        ),
    )
    mcp_tool: str = field(
        default="",
        metadata=knob(
            "The tool of mcp_server the 'mcp' retriever calls with each query.",
            cli=Cli(metavar="NAME"),
            server=OPERATOR_ONLY,
        ),
    )
    mcp_query_argument: str = field(
        default="query",
        metadata=knob("The argument of mcp_tool that receives the query.", server=OPERATOR_ONLY),
    )
    allow_mcp_server_start: bool = field(
        default=False,
        metadata=knob(
            "Consent to start mcp_server's command as a process (it runs with your rights); "
            "off, a command is refused and only a URL may be asked.",
            cli=ON_CLI,
            server=OPERATOR_ONLY,
        ),
    )
    search_concurrency: int = field(
        default=8,
        metadata=knob(
            "Searches in flight at once, across all parallel branches.", ge=1, server=UP_TO_OPERATOR
        ),
    )
    fetch_concurrency: int = field(
        default=8,
        metadata=knob(
            "Page fetches in flight at once, across all parallel branches.",
            ge=1,
            server=UP_TO_OPERATOR,
        ),
    )
    search_timeout: float = field(
        default=30.0,
        metadata=knob("Seconds one search call may take.", gt=0, server=UP_TO_OPERATOR),
    )
    fetch_timeout: float = field(
        default=20.0,
        metadata=knob(
            "Seconds one page may take, redirects and retries included.",
            gt=0,
            server=UP_TO_OPERATOR,
        ),
    )
    fetch_retries: int = field(
        default=2,
        metadata=knob("Retries of a page after a 429 or 5xx answer.", ge=0, server=UP_TO_OPERATOR),
    )
    max_page_bytes: int = field(
        default=5_000_000,
        metadata=knob(
            "Bytes read of one page; longer HTML/text is cut there.", ge=1, server=UP_TO_OPERATOR
        ),
    )
    max_pages: int = field(
        default=60,
        metadata=knob(
            "Web pages one run may use (fetched or cached).", ge=0, server=UP_TO_OPERATOR
        ),
    )
    max_searches: int = field(
        default=0,
        metadata=knob(
            "Search calls one run may start, every retriever and branch counted (0 = no "
            "limit); a search past it is not started, and the run goes on to its report.",
            ge=0,
            server=UNLIMITED_AT_ZERO,
        ),
    )
    page_cache_days: float = field(
        default=7.0,
        metadata=knob("Days a fetched page is reused from the cache (0 = never).", ge=0),
    )
    run_deadline: float = field(
        default=900.0,
        metadata=knob(
            "Seconds after the run's start when no new search or fetch begins (0 = no "
            "deadline); the report is written from what was found.",
            ge=0,
            server=UNLIMITED_AT_ZERO,
        ),
    )

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, os.PathLike) and knob_types()[spec.name] is str:
                value = os.fspath(value)  # corpus=Path(...) from Python: a path is a string
                setattr(self, spec.name, value)
            check_knob(spec, value)
        if self.dense_retrieval and self.embeddings.strip() in ("", "none"):
            raise ConfigurationError("dense_retrieval needs an embedder, but embeddings is 'none'")
        if self.writer_context_tokens and self.evidence_budget < 1:
            raise ConfigurationError(
                f"writer_context_tokens ({self.writer_context_tokens}) leaves no room for "
                "evidence after prompt_reserve_tokens and answer_reserve_tokens"
            )

    @property
    def evidence_budget(self) -> int:
        """Tokens of evidence the writer may receive: token_budget, or less when the
        writer's context window minus the prompt and answer reserves is smaller."""
        if not self.writer_context_tokens:
            return self.token_budget
        room = self.writer_context_tokens - self.prompt_reserve_tokens - self.answer_reserve_tokens
        return min(self.token_budget, room)

    @property
    def ranks_by_embeddings(self) -> bool:
        """Whether the selection strategy asks for the embedder (which may be off)."""
        return self.selection_strategy not in ("none", "keyword")

    @property
    def retriever_names(self) -> list[str]:
        """The retrievers to use; 'auto' picks them from what the run was given."""
        names = [name.strip() for name in self.retrievers.split(",") if name.strip()]
        if names != ["auto"]:
            return names
        picked = ["local"] if self.corpus else []
        if self.urls:
            picked.append("urls")
        if not picked and self.searxng_url:
            picked.append("searxng")
        if not picked:
            picked.append("tavily" if os.environ.get("TAVILY_API_KEY") else "local")
        return picked

    def retriever_problem(self) -> str:
        """What the chosen retrievers lack to run ('' when nothing): asked before a run
        starts, and again when its retrievers are built."""
        names = self.retriever_names
        unknown = [name for name in names if name not in RETRIEVERS]
        if unknown:
            return f"unknown retriever {unknown[0]!r} (known: {', '.join(RETRIEVERS)})"
        if "searxng" in names and not self.searxng_url:
            return "the searxng retriever needs --searxng-url URL"
        if "urls" in names and not self.urls:
            return "the urls retriever needs URLs (--urls FILE)"
        if "mcp" in names:
            if not self.mcp_server.strip() or not self.mcp_tool:
                return "the mcp retriever needs --mcp-server URL|COMMAND and --mcp-tool NAME"
            if not self.mcp_server_is_url:
                try:
                    shlex.split(self.mcp_server)
                except ValueError as error:
                    return f"--mcp-server {self.mcp_server!r} is not a command line: {error}"
            if not self.mcp_server_is_url and not self.allow_mcp_server_start:
                return (
                    f"starting the MCP server {self.mcp_server.strip()!r} needs "
                    "--allow-mcp-server-start (it runs as a process with your rights)"
                )
        return ""

    @property
    def mcp_server_is_url(self) -> bool:
        """Whether `mcp_server` names a server to connect to, not a command to start."""
        return self.mcp_server.strip().lower().startswith(("http://", "https://"))

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> Context:
        """Build from loose options (CLI, `research(**config)`), rejecting unknown names."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown option(s): {', '.join(unknown)}")
        return replace(cls(), **{k: v for k, v in values.items() if v is not None})


@functools.cache
def knob_types() -> dict[str, Any]:
    """Each `Context` field's declared type (model names are plain `str` here)."""
    return get_type_hints(Context)


_KINDS: dict[Any, tuple[str, Callable[[Any], bool]]] = {
    bool: ("true or false", lambda v: isinstance(v, bool)),
    int: ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    float: ("a number", lambda v: isinstance(v, int | float) and not isinstance(v, bool)),
    str: ("a string", lambda v: isinstance(v, str)),
    list[str]: (
        "a list of strings",
        lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
    ),
}


def check_knob(spec: Field[Any], value: Any) -> None:
    """Raise a one-line `ConfigurationError` unless `value` fits the field's declared type,
    choices and bounds."""
    declared = knob_types()[spec.name]
    if get_origin(declared) is Literal:
        allowed = get_args(declared)
        if value not in allowed:
            raise ConfigurationError(
                f"{spec.name} must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}"
            )
        return
    kind, fits = _KINDS[declared]
    if not fits(value):
        raise ConfigurationError(f"{spec.name} must be {kind}, got {value!r}")
    ge, gt = spec.metadata.get("ge"), spec.metadata.get("gt")
    if ge is not None and value < ge:
        bound = "not be negative" if ge == 0 else f"be at least {ge}"
        raise ConfigurationError(f"{spec.name} must {bound}, got {value}")
    if gt is not None and value <= gt:
        bound = "be positive" if gt == 0 else f"be more than {gt}"
        raise ConfigurationError(f"{spec.name} must {bound}, got {value}")


def get_context(runtime: Runtime[Context] | None) -> Context:
    """The run's knobs. A graph built with `resources.RunGraph` hands each invocation a
    `Context` of its own, whatever the caller gave; a node called outside such a graph
    may find None (the defaults) or a dict of fields. The run's resources are not
    reached from here but with `resources.resources_of`."""
    if runtime is None or runtime.context is None:
        return Context()
    context = runtime.context
    if isinstance(context, dict):  # some callers hand a plain mapping through
        return Context.from_mapping(context)
    return context
