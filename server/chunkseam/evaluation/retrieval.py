"""Retrievers: BM25 (bm25s, offline) and, when installed and cached, a dense model.

A retriever is built over the texts of one configuration's chunks and answers
``search(queries, k)`` with, per query, the indices of the top ``k`` texts,
best first; ties are broken by position (the earlier chunk first), so a run is
reproducible. Nothing here touches the network unless ``allow_download``.
"""

from __future__ import annotations

from typing import Sequence


class RetrieverUnavailable(RuntimeError):
    """A retriever that cannot run here (library missing, model not cached): says how to get it."""


def _top_k(scores, k: int) -> list[int]:
    import numpy as np

    scores = np.asarray(scores, dtype="float64")
    order = np.lexsort((np.arange(len(scores)), -scores))  # score desc, then position asc
    return [int(i) for i in order[:k]]


class BM25:
    """Okapi BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over lower-cased
    words of two or more letters or digits, English stop words removed, no stemming."""

    name = "bm25"

    def __init__(self, texts: Sequence[str]) -> None:
        try:
            import bm25s
        except ImportError:
            raise RetrieverUnavailable(
                "BM25 retrieval needs bm25s: pip install \"chunkseam[eval]\"") from None
        self._bm25s = bm25s
        tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
        self._vocab = tokens.vocab
        self._n = len(texts)
        self._model = bm25s.BM25()
        self._model.index(tokens, show_progress=False)

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        import numpy as np

        words = self._bm25s.tokenize(list(queries), stopwords="en", show_progress=False, return_ids=False)
        out = []
        for q in words:
            ids = [self._vocab[w] for w in q if w in self._vocab]
            scores = self._model.get_scores(ids) if ids else np.zeros(self._n)
            out.append(_top_k(scores, k))
        return out


class Dense:
    """Cosine similarity of normalised embeddings from a local model
    (sentence-transformers, else fastembed). Without ``allow_download`` the model
    is loaded from the local cache only (or a local directory)."""

    def __init__(self, model: str, texts: Sequence[str], *, allow_download: bool = False) -> None:
        self.name = f"dense:{model}"
        self._encode = _load_encoder(model, allow_download)
        self._matrix = self._encode(list(texts))

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        q = self._encode(list(queries))
        sims = q @ self._matrix.T
        return [_top_k(row, k) for row in sims]


def _load_encoder(model: str, allow_download: bool):
    import os

    import numpy as np

    errors = []
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        SentenceTransformer = None  # noqa: N806
        errors.append("sentence-transformers is not installed")
    if SentenceTransformer is not None:
        saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        if not allow_download:
            os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
        try:
            st = SentenceTransformer(model, device="cpu", local_files_only=not allow_download)

            def encode(texts):
                return np.asarray(st.encode(texts, normalize_embeddings=True, batch_size=32,
                                            show_progress_bar=False), dtype="float32")
            return encode
        except Exception as exc:  # not cached, not a model …
            errors.append(f"sentence-transformers could not load {model!r} "
                          f"{'' if allow_download else 'from the local cache '}({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''})")
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    try:
        from fastembed import TextEmbedding
    except ImportError:
        TextEmbedding = None  # noqa: N806
        errors.append("fastembed is not installed")
    if TextEmbedding is not None:
        try:
            te = TextEmbedding(model_name=model, local_files_only=not allow_download)

            def encode(texts):
                m = np.asarray(list(te.embed(texts)), dtype="float32")
                norms = np.linalg.norm(m, axis=1, keepdims=True)
                return m / np.where(norms == 0, 1, norms)
            return encode
        except Exception as exc:
            errors.append(f"fastembed could not load {model!r} ({type(exc).__name__}: {exc})"[:300])
    hint = "" if allow_download else "; pass --allow-download to let the library download it"
    raise RetrieverUnavailable(f"dense model {model!r} unavailable: " + "; ".join(errors) + hint)
