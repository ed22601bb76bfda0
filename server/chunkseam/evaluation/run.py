"""Run questions against chunker configurations: integrity, retrieval, and the link to the linter.

For each configuration every document the questions point into is chunked
and validated through the same entry points as ``lint`` and ``compare``
(:func:`chunkseam.engine.analysis.make_chunks`, :func:`chunkseam.engine.validate.validate`,
within the budget of one analysis). Then:

* **excerpt integrity**: a reference excerpt (trimmed of surrounding
  whitespace) is *intact* when one chunk holds all of it; otherwise the chunk
  boundaries strictly inside it are the cuts that split it, each with the
  issues chunkseam reports at that cut (or none: a clean cut). An excerpt is
  *split loudly* when one of those issues is an error or a warning.
* **retrieval**: all chunks of all those documents form one index; each
  question retrieves the top ``k`` (BM25, optionally a dense model) and is
  scored with :mod:`chunkseam.evaluation.metrics`.
* **the link**: the same figures for the questions one of whose excerpts is
  split loudly, and for the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from chunkseam.evaluation import metrics
from chunkseam.evaluation.questions import Corpus, Question


def describe(settings) -> str:
    """A short label: ``langchain(MarkdownTextSplitter) 256/32 tokens``."""
    name = settings.chunker or "by-file-type"
    splitter = (settings.chunker_options or {}).get("splitter")
    if splitter:
        name += f"({splitter})"
    return f"{name} {settings.size}/{settings.overlap} {settings.unit}"


@dataclass
class DocChunks:
    """One document under one configuration (what a worker sends back)."""

    path: str
    spans: list[tuple[int, int, int]]            # (start, end, size in the unit)
    #: (code, name, severity, cut offset, chunk on the left, chunk on the right)
    issues: list[tuple[str, str, str, int | None, int | None, int | None]]
    broken: int = 0
    chunker: str = ""
    error: str | None = None


def chunk_document(item: tuple[Any, ...]) -> DocChunks:
    """Chunk and validate one document: ``(path, settings, rel[, text])`` (top-level: runs in
    worker processes with --jobs, on Dask workers with --scheduler, which get the text)."""
    from chunkseam.core import budget
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.audit.dump import read_source
    from chunkseam.document.notebook import open_document
    from chunkseam.engine.validate import statistics, validate

    path, settings, rel, *given = item
    try:
        doc = open_document(given[0] if given and given[0] is not None else read_source(path, keep_bom=True), path, settings)
        budget.check_document(len(doc.text))
        with budget.limits(budget.default_seconds(len(doc.text))):
            sizer = sizer_for(settings)
            name, chunks = make_chunks(doc, settings, sizer)
            budget.check_chunks(len(chunks))
            issues = validate(doc, chunks, settings, sizer=sizer)
    except Exception as exc:  # a chunker's refusal, a budget, a library failure: reported, not raised
        return DocChunks(rel, [], [], error=f"{type(exc).__name__}: {exc}"[:500])
    return DocChunks(rel, [(c.start, c.end, c.tokens) for c in chunks],
                     [(i.code, i.name, i.severity, i.cut, i.chunk, i.other_chunk) for i in issues],
                     statistics(chunks, issues).chunks_with_issues, name)


@dataclass
class Excerpt:
    question: str
    path: str
    start: int
    end: int
    intact: bool
    cuts: list[dict[str, Any]]   # {"offset", "issues": [{"code", "name", "severity"}]}

    @property
    def loud(self) -> bool:
        from chunkseam.engine.validate import BROKEN_SEVERITIES

        return any(i["severity"] in BROKEN_SEVERITIES for c in self.cuts for i in c["issues"])


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def excerpt_integrity(question: Question, text: str, dc: DocChunks) -> list[Excerpt]:
    """The question's excerpts, each intact or with the cuts that split it.

    A cut is the boundary between chunk N and N+1: the end of N and the start of
    N+1 (one offset when they touch; two when whitespace lies between them or
    the chunks overlap). A cut splits an excerpt one chunk does not hold when one
    of its offsets is strictly inside it; its issues are those chunkseam reports
    between N and N+1."""
    out = []
    by_pair: dict[tuple[int, int], list[dict[str, str]]] = {}
    for code, name, severity, cut, left, right in dc.issues:
        if cut is not None and left is not None and right is not None:
            by_pair.setdefault((left, right), []).append({"code": code, "name": name, "severity": severity})
    pairs = [(n, sorted({a[1], b[0]})) for n, (a, b) in enumerate(zip(dc.spans, dc.spans[1:]))]
    for ref in question.references:
        s, e = _trim(text, ref.start, ref.end)
        intact = any(cs <= s and e <= ce for cs, ce, _ in dc.spans)
        cuts = []
        if not intact:
            for n, offsets in pairs:
                inside = [o for o in offsets if s < o < e]
                if inside:
                    cuts.append({"offset": inside[0], "chunk": n, "issues": by_pair.get((n, n + 1), [])})
        out.append(Excerpt(question.id, ref.path, s, e, intact, cuts))
    return out


@dataclass
class Scores:
    """Retrieval figures over a group of questions."""

    questions: int = 0
    hits: int = 0
    complete: int = 0
    rr: float = 0.0
    recall: float = 0.0
    precision: float = 0.0
    iou: float = 0.0

    def add(self, rank: int | None, ts: metrics.TokenScores, complete: bool = False) -> None:
        self.questions += 1
        self.hits += rank is not None
        self.complete += complete
        self.rr += 1.0 / rank if rank else 0.0
        self.recall += ts.recall
        self.precision += ts.precision
        self.iou += ts.iou

    def to_dict(self) -> dict[str, Any]:
        n = self.questions or 1
        return {"questions": self.questions,
                "recall_at_k": round(self.hits / n, 6) if self.questions else None,
                "complete_at_k": round(self.complete / n, 6) if self.questions else None,
                "mrr": round(self.rr / n, 6) if self.questions else None,
                "token_recall": round(self.recall / n, 6) if self.questions else None,
                "token_precision": round(self.precision / n, 6) if self.questions else None,
                "token_iou": round(self.iou / n, 6) if self.questions else None}


class ChunkTotals:
    """Mean chunk size and broken-chunk rate of a configuration's totals
    (``chunks``, ``size_total``, ``broken``), shared by eval's results and tune's rows."""

    chunks: int
    size_total: int
    broken: int

    @property
    def mean_size(self) -> float:
        return self.size_total / self.chunks if self.chunks else 0.0

    @property
    def broken_rate(self) -> float:
        return self.broken / self.chunks if self.chunks else 0.0


@dataclass
class Result(ChunkTotals):
    """One configuration's figures."""

    label: str
    settings: Any
    k: int
    documents: int = 0
    chunks: int = 0
    size_total: int = 0
    broken: int = 0
    excerpts: list[Excerpt] = field(default_factory=list)
    retrieval: dict[str, dict[str, Scores]] = field(default_factory=dict)  # retriever -> group -> scores
    per_question: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    chunkers: set[str] = field(default_factory=set)


    @property
    def integrity(self) -> float:
        return sum(x.intact for x in self.excerpts) / len(self.excerpts) if self.excerpts else 0.0

    @property
    def loud_split_share(self) -> float:
        return sum(x.loud for x in self.excerpts) / len(self.excerpts) if self.excerpts else 0.0

    def scores(self, retriever: str | None = None, group: str = "all") -> Scores:
        if not self.retrieval:
            return Scores()
        r = retriever or next(iter(self.retrieval))
        return self.retrieval.get(r, {}).get(group, Scores())

    def split_rules(self) -> dict[str, int]:
        """rule code -> excerpts split by a cut carrying it; ``clean`` for cuts with no issue."""
        out: dict[str, int] = {}
        for x in self.excerpts:
            seen = set()
            for c in x.cuts:
                codes = {i["code"] for i in c["issues"]} or {"clean"}
                seen |= codes
            for code in seen:
                out[code] = out.get(code, 0) + 1
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "label": self.label,
            "chunker": self.settings.chunker or "by file type: " + ", ".join(sorted(self.chunkers)),
            "chunker_options": dict(self.settings.chunker_options or {}),
            "size": self.settings.size, "overlap": self.settings.overlap, "unit": self.settings.unit,
            "k": self.k, "documents": self.documents, "chunks": self.chunks,
            "mean_size": round(self.mean_size, 2),
            "broken_chunks": self.broken, "broken_rate": round(self.broken_rate, 6),
            "excerpts": len(self.excerpts),
            "excerpt_integrity": round(self.integrity, 6),
            "excerpts_split_loudly": sum(x.loud for x in self.excerpts),
            "split_by_rule": self.split_rules(),
            "retrieval": {r: {g: s.to_dict() for g, s in groups.items()} for r, groups in self.retrieval.items()},
        }
        if self.errors:
            d["errors"] = self.errors
        if details:
            d["split_excerpts"] = [
                {"question": x.question, "path": x.path, "start": x.start, "end": x.end,
                 "cuts": x.cuts} for x in self.excerpts if not x.intact]
            d["per_question"] = self.per_question
        return d


GROUPS = ("all", "split_loudly", "not_split_loudly")


def evaluate(questions: Sequence[Question], corpus: Corpus, configurations: Sequence[tuple[str, Any]], *,
             k: int = 5, retrievers: Sequence[str] = ("bm25",), allow_download: bool = False,
             mapper: Callable[[Callable, list], Iterable] | None = None,
             progress: Callable[[Iterable, int, str], Iterable] | None = None) -> list[Result]:
    """The figures of each ``(label, settings)`` configuration on ``questions``."""
    paths = sorted({q.path for q in questions})
    items = [(str(corpus.file(p)), s, p) for _, s in configurations for p in paths]
    mapper = mapper or (lambda f, xs: map(f, xs))
    done = mapper(chunk_document, items)
    if progress is not None:
        done = progress(done, len(items), "chunking")
    docs_iter = iter(done)
    results = []
    for label, settings in configurations:
        per_doc = {p: next(docs_iter) for p in paths}
        results.append(_score(label, settings, per_doc, questions, corpus, k, retrievers, allow_download))
    return results


def _score(label: str, settings: Any, per_doc: dict[str, DocChunks], questions: Sequence[Question],
           corpus: Corpus, k: int, retrievers: Sequence[str], allow_download: bool) -> Result:
    from chunkseam.evaluation.retrieval import BM25, Dense

    res = Result(label, settings, k)
    ids: list[tuple[str, int, int]] = []
    texts: list[str] = []
    for p, dc in per_doc.items():
        if dc.error:
            res.errors.append(f"{p}: {dc.error}")
            continue
        res.documents += 1
        res.chunkers.add(dc.chunker)
        res.chunks += len(dc.spans)
        res.size_total += sum(n for _, _, n in dc.spans)
        res.broken += dc.broken
        text = corpus.text(p)
        for s, e, _ in dc.spans:
            ids.append((p, s, e))
            texts.append(text[s:e])
    loud_q: dict[str, bool] = {}
    for q in questions:
        dc = per_doc[q.path]
        if dc.error:
            continue
        xs = excerpt_integrity(q, corpus.text(q.path), dc)
        res.excerpts.extend(xs)
        loud_q[q.id] = any(x.loud for x in xs)
    asked = [q for q in questions if q.id in loud_q]
    if not texts or not asked:
        return res
    texts_by_doc = {p: corpus.text(p) for p in per_doc}
    for name in retrievers:
        r = BM25(texts) if name == "bm25" else Dense(name.split(":", 1)[1], texts, allow_download=allow_download)
        found = r.search([q.question for q in asked], min(k, len(texts)))
        groups = {g: Scores() for g in GROUPS}
        for q, top in zip(asked, found):
            retrieved = [ids[i] for i in top]
            refs = [(x.path, x.start, x.end) for x in q.references]
            ts = metrics.token_scores(retrieved, refs)
            rank = metrics.first_relevant_rank(retrieved, refs)
            whole = metrics.complete(retrieved, refs, texts_by_doc)
            groups["all"].add(rank, ts, whole)
            groups["split_loudly" if loud_q[q.id] else "not_split_loudly"].add(rank, ts, whole)
            res.per_question.append({"retriever": r.name, "question": q.id, "rank": rank, "complete": whole,
                                     "split_loudly": loud_q[q.id], "recall": round(ts.recall, 6),
                                     "precision": round(ts.precision, 6), "iou": round(ts.iou, 6)})
        res.retrieval[r.name] = groups
    return res
