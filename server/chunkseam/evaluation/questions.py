"""Questions and their reference excerpts.

Two file formats:

* **CSV** in the shape of Chroma's published chunking evaluation
  (``questions_df.csv``): columns ``question``, ``references`` (a JSON list of
  ``{"content", "start_index", "end_index"}``, character offsets into one
  corpus document, end exclusive) and ``corpus_id`` (the document: a path
  relative to the corpus directory, with or without its ``.md``/``.txt``
  suffix, as Chroma's ``corpora/<id>.md``).
* **JSONL**, one question per line: ``question``, ``path`` (relative to the
  corpus directory) and ``references``, each either ``{"start", "end"}``
  (or ``start_index``/``end_index``) offsets, or ``{"quote": "exact text"}``
  (or a plain string) located in the document. A quote is found exactly, else
  with any run of whitespace matching any other; a quote not found is an
  error that names the question. Optional: ``id``.

Offsets are into the text chunkseam analyses: the file's text, or for a
notebook its view of the cells (:mod:`chunkseam.document.notebook`).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable


class QuestionsError(ValueError):
    """A questions file that cannot be used: names the file, the line and the question."""


@dataclass(frozen=True)
class Reference:
    path: str       # corpus-relative path (the corpus id)
    start: int
    end: int        # exclusive
    content: str

    def __len__(self) -> int:
        return self.end - self.start

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "start_index": self.start, "end_index": self.end}


@dataclass
class Question:
    id: str
    question: str
    path: str
    references: list[Reference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "path": self.path,
                "references": [r.to_dict() for r in self.references]}


class Corpus:
    """The documents questions point into, read once (and opened as chunkseam opens them)."""

    def __init__(self, root: str | Path, settings: Any = None) -> None:
        self.root = Path(root)
        self.settings = settings
        self._docs: dict[str, Any] = {}
        self._resolved: dict[str, str] = {}

    def resolve(self, corpus_id: str) -> str:
        """The corpus-relative path of ``corpus_id`` (tries the suffixes Chroma's corpora use)."""
        if corpus_id in self._resolved:
            return self._resolved[corpus_id]
        root = self.root.resolve()
        if Path(corpus_id).is_absolute() or not (self.root / corpus_id).resolve().is_relative_to(root):
            raise FileNotFoundError(corpus_id)  # only documents inside the corpus directory
        for cand in (corpus_id, corpus_id + ".md", corpus_id + ".txt", "corpora/" + corpus_id + ".md",
                     "corpora/" + corpus_id + ".txt"):
            p = self.root / cand
            if p.is_file():
                self._resolved[corpus_id] = cand
                return cand
        raise FileNotFoundError(corpus_id)

    def file(self, rel: str) -> Path:
        return self.root / rel

    def document(self, rel: str):
        doc = self._docs.get(rel)
        if doc is None:
            from chunkseam.audit.dump import read_source
            from chunkseam.document.notebook import open_document

            p = self.root / rel
            doc = open_document(read_source(p, keep_bom=True), str(p), self.settings)
            self._docs[rel] = doc
        return doc

    def text(self, rel: str) -> str:
        return self.document(rel).text



def locate(text: str, quote: str, *, occurrence: int = 1) -> tuple[int, int] | None:
    """``(start, end)`` of ``quote`` in ``text``: the ``occurrence``-th exact
    match, else the first match where any run of whitespace in the quote matches
    any run of whitespace in the text (a quote copied from a rendered page)."""
    if not quote.strip():
        return None
    at = -1
    for _ in range(max(1, occurrence)):
        at = text.find(quote, at + 1)
        if at < 0:
            break
    if at >= 0:
        return at, at + len(quote)
    from itertools import islice

    pattern = r"\s+".join(re.escape(w) for w in quote.split())
    found = list(islice(re.finditer(pattern, text), max(1, occurrence)))
    if len(found) >= max(1, occurrence):
        return found[-1].start(), found[-1].end()
    return None


def _where(file: str, line: int, question: str) -> str:
    q = question if len(question) <= 80 else question[:77] + "..."
    return f"{file}:{line}: question {q!r}"


def load(file: str | Path, corpus: Corpus) -> list[Question]:
    """The questions of a ``.csv`` or ``.jsonl`` file (by suffix; else sniffed)."""
    p = Path(file)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise QuestionsError(f"{file}: cannot read the questions: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise QuestionsError(f"{file}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json") or (suffix != ".csv" and text.lstrip().startswith("{")):
        questions = load_jsonl(text, corpus, str(file))
    else:
        questions = load_csv(text, corpus, str(file))
    if not questions:
        raise QuestionsError(f"{file}: no questions")
    return questions


def _document_text(corpus: Corpus, corpus_id: str, where: str) -> tuple[str, str]:
    try:
        rel = corpus.resolve(corpus_id)
    except FileNotFoundError:
        raise QuestionsError(f"{where}: document {corpus_id!r} not found under {corpus.root}") from None
    try:
        return rel, corpus.text(rel)
    except Exception as exc:  # unreadable, not UTF-8, not a notebook …
        raise QuestionsError(f"{where}: cannot read {rel}: {exc}") from None


def _offsets(ref: dict[str, Any], where: str) -> tuple[int, int] | None:
    for a, b in (("start_index", "end_index"), ("start", "end")):
        if a in ref or b in ref:
            s, e = ref.get(a), ref.get(b)
            if not (isinstance(s, int) and isinstance(e, int)) or isinstance(s, bool) or isinstance(e, bool):
                raise QuestionsError(f"{where}: reference offsets {a}/{b} must be integers, got {s!r}/{e!r}")
            return s, e
    return None


def _check_span(s: int, e: int, text: str, rel: str, where: str) -> None:
    if not (0 <= s < e <= len(text)):
        raise QuestionsError(f"{where}: reference [{s}, {e}) is not a span of {rel} "
                             f"({len(text)} characters)")


def load_csv(text: str, corpus: Corpus, file: str = "<csv>") -> list[Question]:
    reader = csv.DictReader(text.splitlines(keepends=True))
    missing = {"question", "references", "corpus_id"} - set(reader.fieldnames or ())
    if missing:
        raise QuestionsError(f"{file}: missing column{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(sorted(missing))} (expected question, references, corpus_id)")
    out: list[Question] = []
    for n, row in enumerate(reader):
        line = reader.line_num
        q = (row.get("question") or "").strip()
        where = _where(file, line, q)
        try:
            refs = json.loads(row.get("references") or "")
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{where}: references is not JSON: {exc}") from None
        if not isinstance(refs, list) or not refs:
            raise QuestionsError(f"{where}: references must be a non-empty JSON list")
        rel, doc_text = _document_text(corpus, (row.get("corpus_id") or "").strip(), where)
        question = Question(str(n), q, rel)
        for ref in refs:
            if not isinstance(ref, dict):
                raise QuestionsError(f"{where}: a reference must be an object, got {ref!r}")
            span = _offsets(ref, where)
            if span is None:
                raise QuestionsError(f"{where}: a reference needs start_index and end_index")
            s, e = span
            _check_span(s, e, doc_text, rel, where)
            question.references.append(Reference(rel, s, e, str(ref.get("content", doc_text[s:e]))))
        out.append(question)
    return out


def load_jsonl(text: str, corpus: Corpus, file: str = "<jsonl>") -> list[Question]:
    out: list[Question] = []
    seen: set[str] = set()
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{file}:{line_no}: not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise QuestionsError(f"{file}:{line_no}: expected an object with question, path, references")
        q = obj.get("question")
        if not isinstance(q, str) or not q.strip():
            raise QuestionsError(f"{file}:{line_no}: missing \"question\"")
        where = _where(file, line_no, q)
        path = obj.get("path", obj.get("corpus_id"))
        if not isinstance(path, str) or not path:
            raise QuestionsError(f"{where}: missing \"path\" (the document, relative to the corpus)")
        refs = obj.get("references")
        if not isinstance(refs, list) or not refs:
            raise QuestionsError(f"{where}: \"references\" must be a non-empty list")
        rel, doc_text = _document_text(corpus, path, where)
        qid = str(obj.get("id", len(out)))
        if qid in seen:
            raise QuestionsError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        question = Question(qid, q.strip(), rel)
        for ref in refs:
            if isinstance(ref, str):
                ref = {"quote": ref}
            if not isinstance(ref, dict):
                raise QuestionsError(f"{where}: a reference must be a quote string or an object, got {ref!r}")
            span = _offsets(ref, where)
            if span is None:
                quote = ref.get("quote", ref.get("content"))
                if not isinstance(quote, str) or not quote.strip():
                    raise QuestionsError(f"{where}: a reference needs \"quote\" or start/end offsets")
                occurrence = ref.get("occurrence", 1)
                span = locate(doc_text, quote, occurrence=occurrence if isinstance(occurrence, int) else 1)
                if span is None:
                    short = quote if len(quote) <= 60 else quote[:57] + "..."
                    raise QuestionsError(f"{where}: excerpt {short!r} not found in {rel}")
            s, e = span
            _check_span(s, e, doc_text, rel, where)
            question.references.append(Reference(rel, s, e, doc_text[s:e]))
        out.append(question)
    return out


def write_csv(questions: Iterable[Question], out) -> None:
    """The questions in Chroma's CSV shape (``question``, ``references``, ``corpus_id``)."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["question", "references", "corpus_id"])
    for q in questions:
        w.writerow([q.question, json.dumps([r.to_dict() for r in q.references]), q.path])
