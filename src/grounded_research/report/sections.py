"""The report's sections after its body, in the order the report writes them: one table
that the writer renders from and the readers of a report parse by.

A report is `# question`, the body (a section per sub-question, "Findings" for the whole
question), then the sections below. Sections that hold claims are read back by the
verifier and the evaluation; the body's claims end at the first section that holds none.
A model writing the body may add sections of its own under these names (or the others a
writer might give them): the writer cuts them off, since the report adds its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from grounded_research.gaps.rules import UNANSWERED
from grounded_research.text.tokenize import has_cjk

Language = Literal["en", "zh"]


@dataclass(frozen=True)
class Section:
    key: str
    headings: dict[Language, str]
    holds_claims: bool
    also: tuple[str, ...] = field(default=())  # other headings a writer may give it


SECTIONS = (
    Section("conflicts", {"en": "Conflicts", "zh": "冲突"}, holds_claims=True, also=("conflict",)),
    Section(
        "unresolved",
        {"en": "Unresolved", "zh": "未解决"},
        holds_claims=False,
        also=("unresolved questions", "open questions", "未解决的问题"),
    ),
    Section("reprints", {"en": "Reprints", "zh": "转载"}, holds_claims=False),
    Section("further_sources", {"en": "Further sources", "zh": "其他来源"}, holds_claims=False),
    Section(
        "references",
        {"en": "References", "zh": "参考来源"},
        holds_claims=False,
        also=("sources", "参考", "参考文献", "来源"),
    ),
)
_BY_KEY = {section.key: section for section in SECTIONS}
_UNRESOLVED = _BY_KEY["unresolved"].headings
_CONFLICTS = _BY_KEY["conflicts"].headings

# The report's other fixed words.
LABELS: dict[Language, dict[str, str]] = {
    "en": {
        "findings": "Findings",
        "answer": "Answer",
        "closest": "Closest material",
        "not_answered": "The sources searched do not answer this question ({why}); the "
        "closest material found is quoted below.",
        "not_answered_unquoted": "The sources searched do not answer this question ({why}); "
        "nothing found comes close enough to quote.",
        "no_direct": f"No passage answers this directly; see {_UNRESOLVED['en']}.",
        "disagree": f"The sources disagree; the most recent first (see {_CONFLICTS['en']}).",
        "latest": "most recent",
        "conflict_columns": "| value | source | date |",
        "reprint_of": "reprints",
        "further_sources_note": "Found for this question but left out of the evidence by the "
        "token budget; nothing above quotes them.",
        "no_sources": "No sources found. The searched sources hold nothing that matches "
        "this question, so there is no report: nothing here is invented.",
        "not_used": "Could not be used ({status}): {location}: {why}",
        "more_not_used": "{count} more sources could not be used (see the evidence table)",
        "searches_failed": "{failed} of {calls} search calls failed (see the warnings)",
        "limits": "The run used up {limits}.",
        "limit_max_rounds": "its rounds of searching again for what is missing (max_rounds)",
        "limit_max_searches": "its searches (max_searches)",
        "limit_max_pages": "the pages it may fetch (max_pages)",
        "limit_run_deadline": "its time (run_deadline)",
        "limit_token_budget": "its room for evidence: some passages found are left out "
        "(token_budget)",
        # What stays open, in words (`unresolved.in_plain_words`): {about} is the
        # sub-question, or the question as "this question".
        "this_question": "this question",
        "about": "“{text}”",
        "on": "On {about}: {sentence}",
        "gap_no_evidence": "No source found speaks to {about}.",
        "gap_facet": "No source found mentions {terms}.",
        "gap_few_sources": "Only {found} independent source answers {about}; {required} are "
        "wanted.",
        "gap_no_sources": "No independent source answers {about}.",
        "gap_uncorroborated": "Only one source gives a figure in {unit} for {subject}; no "
        "second source confirms it.",
        "gap_conflict": "Sources disagree on {subject}: {values} (see {conflicts}).",
        "or": "or",
        # Why the question is not answered (`unresolved.reason_in_words`): the gap
        # check's own words, {what} being what is missing.
        **{f"why_{reason}": words for reason, words in UNANSWERED.items()},
    },
    "zh": {
        "findings": "结论",
        "answer": "答案",
        "closest": "最接近的内容",
        "not_answered": "检索到的资料没有回答这个问题（{why}）；下面引用的是找到的最接近的内容。",
        "not_answered_unquoted": "检索到的资料没有回答这个问题（{why}）；"
        "找到的内容都不够接近，未予引用。",
        "no_direct": f"没有段落直接回答这一点；见“{_UNRESOLVED['zh']}”。",
        "disagree": f"来源说法不一；最新的在前（见“{_CONFLICTS['zh']}”）。",
        "latest": "最新",
        "conflict_columns": "| 数值 | 来源 | 日期 |",
        "reprint_of": "转载自",
        "further_sources_note": "与本问题相关，但因篇幅预算未纳入证据；上文未引用。",
        "no_sources": "未找到任何来源。检索到的资料中没有与此问题相关的内容，"
        "因此不生成报告，也不编造任何内容。",
        "not_used": "无法使用（{status}）：{location}：{why}",
        "more_not_used": "另有 {count} 个来源无法使用（见证据表）",
        "searches_failed": "{calls} 次检索中有 {failed} 次失败（见警告）",
        "limits": "运行已用尽{limits}。",
        "limit_max_rounds": "补充搜索的轮数（max_rounds）",
        "limit_max_searches": "搜索次数（max_searches）",
        "limit_max_pages": "可抓取的网页数（max_pages）",
        "limit_run_deadline": "运行时间（run_deadline）",
        "limit_token_budget": "证据的篇幅：部分找到的段落未被采用（token_budget）",
        "this_question": "这个问题",
        "about": "“{text}”",
        "on": "关于{about}：{sentence}",
        "gap_no_evidence": "没有找到与{about}相关的来源。",
        "gap_facet": "找到的来源都没有提到{terms}。",
        "gap_few_sources": "只有 {found} 个独立来源回答{about}；需要 {required} 个。",
        "gap_no_sources": "没有独立来源回答{about}。",
        "gap_uncorroborated": "只有一个来源给出{subject}以 {unit} 计的数值，没有第二个来源证实。",
        "gap_conflict": "来源在{subject}上说法不一：{values}（见“{conflicts}”）。",
        "or": "或",
        "why_unnamed": "没有段落提到 {what}",
        "why_unsaid": "没有段落提到 {what}",
        "why_unheaded": "相关段落都没有提到 {what}",
        "why_no_kind": "相关段落都没有给出{what}",
        "kind_date": "日期",
        "kind_version": "版本号",
        "kind_quantity": "数值",
        "kind_name": "名称",
        "kind_comparison": "可比较的日期或版本",
        "kind_any": "答案",
    },
}


def language(question: str) -> Language:
    """The report is written in Chinese for a question with Chinese characters."""
    return "zh" if has_cjk(question) else "en"


def heading(key: str, lang: Language) -> str:
    """The section's heading line."""
    return f"## {_BY_KEY[key].headings[lang]}"


def _names(sections: list[Section]) -> str:
    names = [name for s in sections for name in (*s.headings.values(), *s.also)]
    return "|".join(re.escape(name.lower()) for name in sorted(names, key=len, reverse=True))


# Where a report's claims end: the first heading that starts with a section of no claims.
AFTER_CLAIMS = re.compile(
    r"^#{1,6}\s*(?:" + _names([s for s in SECTIONS if not s.holds_claims]) + ")",
    re.IGNORECASE | re.MULTILINE,
)
# The heading of the report's Conflicts section, whose tables are the report's own
# summary of the quotes below them, not claims.
CONFLICTS_HEADING = re.compile(
    r"^#{1,6}\s*(?:" + _names([_BY_KEY["conflicts"]]) + r")\s*$", re.IGNORECASE
)
# A heading a model wrote for a section the report adds itself.
REPORT_OWN = re.compile(
    r"^#{1,6}\s*(?:" + _names(list(SECTIONS)) + r")\s*:?\s*$", re.IGNORECASE | re.MULTILINE
)
