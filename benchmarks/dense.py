"""Dense retrieval (retrieval/dense.py) switched on for a measurement: the local corpus's
chunks embedded at index time with the local MiniLM, into the vector file the hybrid
selection reads (so a run never embeds them again), fused with BM25F.

    python benchmarks/dense.py eval DATASET --corpus ... [eval options]   # whole graph
    python benchmarks/retrieval.py DATASET --corpus ... --dense           # retrieval only

Dense retrieval has no configuration knob yet: `install()` sets `local.DENSE`, which is
what a knob would do from the layer that knows the embedders.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from grounded_research.retrieval import local
from grounded_research.retrieval.dense import DenseIndex, Key
from grounded_research.selection.embeddings import Embedder, build_embedder
from grounded_research.selection.vectors import PassageText, VectorFile, key_text, vector_file


class FileStore:
    """A `dense.VectorStore` over the selection's vector file of one folder."""

    def __init__(self, vectors: VectorFile) -> None:
        self.file = vectors

    def __contains__(self, key: Key) -> bool:
        return key_text(key) in self.file._rows  # read only: which keys have a row

    def get(self, keys: Sequence[Key], texts: Sequence[str]) -> np.ndarray:
        matrix, _ = self.file.vectors(
            [PassageText(key, text) for key, text in zip(keys, texts, strict=True)]
        )
        return matrix


def dense_index(folder: Path, embedder: Embedder) -> DenseIndex:
    return DenseIndex(
        FileStore(vector_file(folder, embedder)), lambda query: embedder.embed([query])[0]
    )


def install(spec: str = "local") -> None:
    """Every local corpus opened from now on in this process retrieves densely too."""
    embedder = build_embedder(spec)
    if embedder is None:
        raise SystemExit(f"no embedder for {spec!r}")
    local.DENSE = lambda folder: dense_index(folder, embedder)


def main() -> int:
    install()
    from grounded_research.cli import main as cli

    sys.argv = ["grounded-research", *sys.argv[1:]]
    cli()
    return 0


if __name__ == "__main__":
    sys.exit(main())
