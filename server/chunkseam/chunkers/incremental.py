"""Incremental re-chunking for the sequential strategies (``recursive``,
``langchain``, ``fixed``, ``sentence``): re-chunk from the chunk holding an
edit and stop where the new run meets the old one, shifted by the edit.

Every strategy here is a left-to-right process over units of the text
(top-level pieces, sentences, token windows) with a small state between two
units. A run records that state at every unit; the run of an edited text
starts from the recorded state at the first unit the edit touches (the units
before it are the same text, so the state there is the same) and walks
forward. Once it is past the edit, at a unit whose text is unchanged, and its
state is the old state at that unit (the same units, shifted by the edit's
length delta), the rest of the run is the old run, shifted: it is copied, not
recomputed. The result is identical to a run from scratch by construction;
tests/chunkers/test_incremental.py checks that over random edits for each strategy.

A run is kept on the :class:`~chunkseam.document.text.Document` it was made for
(``Document.memo``); an edited document finds its nearest ancestor's run
through ``Document.lineage()`` (the server keeps the previous version alive
as its last result), so neither the server nor the caller passes anything.

* ``recursive`` (LangChain's ``RecursiveCharacterTextSplitter``): the units
  are the top-level pieces (the text split at the first separator that
  occurs). The state before piece ``k`` is the start of the merge buffer
  (the pieces carried into the chunk being built); a piece of ``size`` or
  more flushes the buffer and is split on its own (its output depends on its
  text only, and is reused while its text is unchanged). A change of the
  top-level separator (the edit adds or removes the only occurrence of a
  separator) is a run from scratch.
* ``langchain`` with a ``RecursiveCharacterTextSplitter``: the installed
  splitter itself re-splits a window around the edit, chosen with the
  ``recursive`` run (see below); any difference is a full split.
* ``sentence``: the units are sentences, found paragraph by paragraph; the
  state before a chunk is its first sentence and the sentence after the chunk
  before it.
* ``fixed``: token windows depend only on the whole text's tokens, which are
  spliced around the edit; when the edit changes the number of tokens every
  later window moves (the cuts after the edit are new, and judged anew),
  otherwise they are the old ones shifted. Character windows are cut afresh
  (a few thousand list items).

Each strategy offers its own incremental interface, next to the code whose
state it continues: ``recursive.recursive_run`` and ``recursive.langchain_update``
(:mod:`chunkseam.chunkers.recursive`), ``sentence.sentence_run``
(:mod:`chunkseam.chunkers.sentence`) and ``fixed.token_text``
(:mod:`chunkseam.chunkers.fixed`). This module holds what they share: finding
the previous version's run (:func:`find_previous`) and comparing or shifting
the lists a run keeps.
"""

from __future__ import annotations

from typing import Any

from chunkseam.document.text import Document

#: ancestors searched for a run to update (nearest first)
LINEAGE = 8


def find_previous(doc: Document, key: Any) -> tuple[Any, int, int, int] | None:
    """The run kept under ``key`` by the nearest ancestor of ``doc`` that has
    one, with the edit from it: ``(run, start, end, inserted)``."""
    for ancestor, start, end, inserted in doc.lineage()[:LINEAGE]:
        run = ancestor.memoised(key)
        if run is not None:
            return run, start, end, inserted
    return None


def common_prefix(new: list, old: list, limit: int) -> int:
    """How many leading items ``new`` and ``old`` share, at most ``limit``."""
    limit = min(limit, len(new), len(old))
    if new[:limit] == old[:limit]:
        return limit
    lo, hi = 0, limit  # new[:lo] == old[:lo]; new[:hi] != old[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new[lo:mid] == old[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def common_suffix(new: list, old: list, limit: int) -> int:
    """How many trailing items ``new`` and ``old`` share, at most ``limit``."""
    limit = min(limit, len(new), len(old))
    if limit <= 0:
        return 0
    if new[len(new) - limit:] == old[len(old) - limit:]:
        return limit
    lo, hi = 0, limit  # the last lo items agree; the last hi do not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new[len(new) - mid:] == old[len(old) - mid:]:
            lo = mid
        else:
            hi = mid
    return lo


def shifted(values: list[int], k: int, delta: int) -> list[int]:
    """``values[k:]``, each plus ``delta``."""
    if not delta:
        return values[k:]
    return list(map(delta.__add__, values[k:]))
