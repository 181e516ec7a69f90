"""Pages a passage names by their title: the second hop of a question.

"Ernest Foot was the best friend of the fighter pilot who had how many victories?" finds
Ernest Foot's page, which says "He was the best friend of Albert Ball."; the answer is on
the page titled "Albert Ball", which shares only "fighter pilot" and "victories" with
the question and ranks below pages on other pilots. A corpus whose pages are titled by
what they are about (an encyclopedia, a wiki) names them in its text as a web page links
them, so a title said in the best hits is followed as a link would be.

Only titles of two words or more are followed, as the text writes them (capitalised,
without the "(2013 video game)" or ", California" that tells apart pages of one name),
and only one that few pages share: a manual's "Introduction" or "Release notes" is no
link. A link is followed from a page the query names by its whole title (the first hop
is the page on what the question names), to a page that shares a word with the query
(the second hop answers it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

LINK_FROM = 3  # the best hits whose text is read for titles
LINKS_PER_SEARCH = 3  # pages followed per search, the best hit's first
LINK_WORDS = 6  # the longest title followed, in words
LINK_SHARED = 3  # a title more pages share than this is no link

_WORD = re.compile(r"\w+(?:[.'’-]\w+)*")
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")  # "Tomb Raider (2013 video game)"


def words(text: str) -> list[str]:
    """The text's words as titles are matched: "15.9" and "O'Brien" are one word each."""
    return _WORD.findall(text)


class TitleLinks:
    """The titles of a corpus's pages, as its text names them, and the pages each
    names."""

    def __init__(self, titles: Sequence[str]) -> None:
        pages: dict[tuple[str, ...], list[int]] = {}
        for page, title in enumerate(titles):
            for named in named_forms(title):
                pages.setdefault(named, []).append(page)
        self.pages = {named: found for named, found in pages.items() if len(found) <= LINK_SHARED}

    def named_in(self, text: str) -> list[tuple[int, str]]:
        """The pages whose titles the text says, each once with its title as said,
        longest titles first."""
        said = words(text)
        found: dict[int, str] = {}
        for length in range(LINK_WORDS, 1, -1):
            for at in range(len(said) - length + 1):
                named = tuple(said[at : at + length])
                for page in self.pages.get(named, ()):
                    found.setdefault(page, " ".join(named))
        return list(found.items())


def named_forms(title: str) -> Iterable[tuple[str, ...]]:
    """How a text names a page so titled: the title without its qualifier in
    parentheses, and without what follows its first comma ("San Luis Obispo" of "San
    Luis Obispo, California"); of two words or more, capitalised."""
    name = _QUALIFIER.sub("", title).strip()
    for form in dict.fromkeys((name, name.split(",")[0].strip())):
        said = tuple(words(form))
        if 2 <= len(said) <= LINK_WORDS and said[0][:1].isupper():
            yield said


def query_words(query: str) -> set[str]:
    """The query's words in lower case, read once per search for `names_whole`."""
    return {w.lower() for w in words(query)}


def names_whole(asked: set[str], title: str) -> bool:
    """Whether the query's words (`query_words`) hold every word of the title (case
    aside)."""
    return {w.lower() for w in words(title)} <= asked
