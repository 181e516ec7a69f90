"""Further sources: what the selection listed by title and location only.

When the token budget is tight, the weakest evidence reaches the writer as a line
naming its source, not as text it could quote. The report lists those sources too, so
a reader knows where else to look; a source the report already cites is not repeated.
"""

from __future__ import annotations

from collections.abc import Iterable

from grounded_research.selection.tokenize import has_cjk
from grounded_research.state import Reference, Source, State

HEADING = {"en": "Further sources", "zh": "其他来源"}
NOTE = {
    "en": "Found for this question but left out of the evidence by the token budget; "
    "nothing above quotes them.",
    "zh": "与本问题相关，但因篇幅预算未纳入证据；上文未引用。",
}


def listed_sources(state: State) -> list[Source]:
    """Sources of the listed evidence, each once, in selection order."""
    seen: dict[str, Source] = {}
    for ids in state.further_sources.values():
        for evidence_id in ids:
            source = state.sources.get(state.record(evidence_id).source_id)
            if source is not None:
                seen.setdefault(source.id, source)
    return list(seen.values())


def further_sources_section(state: State, references: Iterable[Reference] = ()) -> str:
    cited = {reference.source_id for reference in references}
    sources = [s for s in listed_sources(state) if s.id not in cited]
    if not sources:
        return ""
    language = "zh" if has_cjk(state.question) else "en"
    lines = [f"- {line(source)}" for source in sources]
    return f"## {HEADING[language]}\n\n{NOTE[language]}\n\n" + "\n".join(lines) + "\n"


def line(source: Source) -> str:
    """Title and location, as the writer's context shows a listed source."""
    title = " ".join(source.title.split()) or source.location
    where = source.location if source.location != title else ""
    return f"{title} — {where} ({source.origin})" if where else f"{title} ({source.origin})"
