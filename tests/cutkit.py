"""Test helpers: documents with cuts marked by ✂, and chunks made from them."""

from __future__ import annotations

import re
from typing import Any

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import CharSizer
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

CUT = "\u2702"  # ✂


def unmark(marked: str) -> tuple[str, list[int]]:
    """The text without ✂ markers and the offsets where they were."""
    text_parts: list[str] = []
    cuts: list[int] = []
    pos = 0
    for piece in marked.split(CUT)[:-1]:
        text_parts.append(piece)
        pos += len(piece)
        cuts.append(pos)
    text_parts.append(marked.split(CUT)[-1])
    return "".join(text_parts), cuts


def spans_from_cuts(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    bounds = [0, *cuts, n]
    return [(a, b) for a, b in zip(bounds, bounds[1:])]


def make_chunks(text: str, spans: list[tuple[int, int]], sizer: Any = None, **kw: Any) -> list[Chunk]:
    sizer = sizer or CharSizer()
    return [Chunk(s, e, i, source=text, tokens=sizer.count(text[s:e]), strategy="test", **kw)
            for i, (s, e) in enumerate(spans)]


def marked(marked_text: str, *, kind: str = "markdown", path: str | None = None,
           sizer: Any = None) -> tuple[Document, list[Chunk], list[int]]:
    """A document and its chunks from a text with ✂ cut markers."""
    text, cuts = unmark(marked_text)
    doc = Document(text, kind=kind, path=path)
    return doc, make_chunks(text, spans_from_cuts(len(text), cuts), sizer), cuts


def codes(issues) -> list[str]:
    return [i.code for i in issues]


def at_cut(issues, cut: int) -> list:
    return [i for i in issues if i.cut == cut]


_EXAMPLE = re.compile(
    r"^(?P<f>~{3,}|`{3,})(?P<lang>\w+) (?P<verdict>bad|good)(?P<opts>[^\n]*)\n(?P<body>.*?)\n(?P=f)[ \t]*$",
    re.M | re.S)


def doc_examples(doc_text: str) -> list[dict[str, Any]]:
    """The tagged examples of a rule doc: lang, verdict, options, body."""
    out = []
    for m in _EXAMPLE.finditer(doc_text):
        opts: dict[str, Any] = {}
        for tok in m.group("opts").split():
            if "=" in tok:
                k, v = tok.split("=", 1)
                opts[k] = int(v) if v.isdigit() else v
            else:
                opts[tok] = True
        out.append({"lang": m.group("lang"), "verdict": m.group("verdict"), "opts": opts,
                    "body": m.group("body") + "\n"})
    return out


# -- cuts at given offsets, judged with characters as the unit (the impact tests) --

LOUD = ("error", "warning")


def cut_at(text: str, *offsets: int) -> list[Chunk]:
    bounds = [0, *offsets, len(text)]
    return [Chunk(a, b, k, source=text) for k, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def after(text: str, marker: str) -> int:
    return text.index(marker) + len(marker)


def issues(text: str, chunks, path: str = "doc.md", **settings):
    doc = Document(text, path=path)  # (its kind from the file name, as a file read from disk)
    settings.setdefault("min_tokens", 0)
    return validate(doc, chunks, Settings(**settings), sizer=CharSizer())


def at(found, code: str, cut: int):
    return [i for i in found if i.code == code and i.cut == cut]

