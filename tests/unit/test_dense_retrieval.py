"""Dense retrieval over the local corpus (an option): vectors built at index time,
each chunk embedded once, fused with BM25F."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from grounded_research.selection.vectors import dense_retrieval, vector_file
from grounded_research.text.tokenize import tokenize
from tests.conftest import write


class ConceptEmbedder:
    """A fake embedder: one dimension per concept, synonyms share it."""

    id = "test-concepts"
    concepts = (("car", "automobile", "vehicle"), ("battery", "cell"), ("rain", "weather"))

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: object) -> object:
        import numpy as np

        rows = []
        for text in list(texts):  # type: ignore[call-overload]
            self.texts.append(text)
            words = tokenize(text)
            rows.append([1e-3 + sum(w in c for w in words) for c in self.concepts])
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_dense_retrieval_embeds_each_chunk_once_and_finds_paraphrases(
    tmp_path: Path, cache_dir: str
) -> None:
    """Index-time vectors go to the vector file the selection reads, one per chunk."""
    from grounded_research.retrieval import local

    embedder = ConceptEmbedder()
    dense = dense_retrieval(embedder)  # type: ignore[arg-type]
    root = tmp_path / "corpus"
    write(root, "cars.md", "# Cars\n\nThe car drives on the road.\n")
    write(root, "weather.md", "# Weather\n\nRain falls in April.\n")
    plain = local.LocalCorpus(root, Path(cache_dir), 600)
    assert plain.refresh().embedded == 0
    assert not plain.search_sync("automobile", 1)
    first = local.LocalCorpus(root, Path(cache_dir), 600, dense)
    assert first.refresh().embedded == 2
    assert first.search_sync("automobile", 1)[0].location == "cars.md"  # no shared word

    reopened = local.LocalCorpus(root, Path(cache_dir), 600, dense)
    assert reopened.refresh().embedded == 0
    time.sleep(0.01)
    write(root, "weather.md", "# Weather\n\nRain falls in May.\n")
    os.utime(root / "weather.md")
    assert reopened.refresh().embedded == 1
    assert embedder.texts[-1] == "Weather\nWeather\n# Weather\n\nRain falls in May."
    shared = vector_file(reopened.index_dir, embedder)  # the selection's file
    assert len(shared) == 3


def test_the_dense_retrieval_knob_reaches_the_corpus_of_a_run(
    tmp_path: Path, cache_dir: str
) -> None:
    """`dense_retrieval` opens the corpus with the run's embedder (here the shipped
    MiniLM), a corpus of its own beside the keyword-only one; without an embedder the
    knob is refused before anything runs."""
    from grounded_research.configuration import Context
    from grounded_research.errors import ConfigurationError
    from grounded_research.resources import RunResources

    root = tmp_path / "corpus"
    write(root, "cars.md", "# Cars\n\nThe car drives on the road.\n")
    write(root, "weather.md", "# Weather\n\nRain falls in April.\n")
    given = {"corpus": str(root), "cache_dir": cache_dir, "embeddings": "local"}
    keyword_only = RunResources(Context(**given)).corpus()
    dense = RunResources(Context(**given, dense_retrieval=True)).corpus()
    assert dense is not keyword_only
    assert not keyword_only.search_sync("automobile", 1)
    assert dense.search_sync("automobile", 1)[0].location == "cars.md"
    with pytest.raises(ConfigurationError, match="needs an embedder"):
        Context(corpus=str(root), dense_retrieval=True, embeddings="none")
