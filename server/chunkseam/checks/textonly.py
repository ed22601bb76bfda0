"""Text-only mode (CS401–CS404): chunk dumps with no source to judge against.

The field's first-generation validator asks four questions of each chunk's
text: does it end with ``.!?``, does it start with a capital, are brackets
balanced, are code fences balanced. On documentation that flags every chunk
ending with a heading, a list, a table or a code block. Here each chunk is
parsed as Markdown first, and only *prose* at the chunk's edges is judged:

* CS401 no-sentence-end — the chunk's last block is a paragraph (not in a
  list item) that does not end with ``. ! ? : ; …`` (closing quotes, brackets
  or emphasis after it allowed). Not flagged: chunks ending with a heading,
  list item, table, code, HTML, or a paragraph ending with a URL, a link,
  inline code or an HTML tag, or a directive line (``/// tip``, ``{* … *}``,
  ``!!! note``, ``:::``).
* CS402 no-sentence-start — the chunk's first block is a paragraph (not in a
  list item) whose first letter is lower-case, or which opens with ``, ; : .
  )``. Not flagged: a first word that is code (inline code, digits, ``_`` or
  ``.`` in it, a URL), or a lower-case name the chunk also uses at the start
  of another sentence (``uv is …`` … ``. uv also …``).
* CS403 unbalanced-brackets — the last paragraph or heading leaves a
  bracket open, or the first closes one it never opened (outside inline
  code; ``1)``-style enumerators and smileys are not brackets).
* CS404 broken-fence — the chunk ends inside a fenced code block (a fence
  that never closes) or starts inside one (its first fence line is a bare
  closing marker with code before it).
* CS405 broken-table — the chunk opens with ``|`` table rows that are not
  under a header (its first line is a row and the next is not a delimiter
  row), or ends with a table's header and delimiter row and no body row.

Offsets in these issues are relative to the chunk's own text; ``chunk`` is
the chunk's index in the list. With ``edges=True`` (the default) the list is
one document's chunks in order: the first chunk is not checked for a
sentence start, nor the last for a sentence end.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.checks.base import code_spans
from chunkseam.checks.registry import RULES, resolve_selection

_END_OK = re.compile(r"[.!?:;…。！？][\"'”’)\]*_~`]*\s*$")
_URL_END = re.compile(r"(?:https?://|www\.)\S+\s*$|<[^>]*>\s*$|`\s*$|\)\s*$")
_DIRECTIVE = re.compile(r"^\s*(?:/{3}|!{3}|:{3}|\?{3}|\{\*|\[\^|=== )")
_LEADING = re.compile(r"[*_~\"'“‘(\[]*")
_FENCE_LINE = re.compile(r"^(?:[ \t]*(?:>[ \t]?)*)[ \t]*(`{3,}|~{3,})[ \t]*([^\r\n]*)$", re.M)
_ENUM = re.compile(r"(?:^|(?<=\s))(?:\w{1,2}|\d{1,3})\)")
_SMILEY = re.compile(r"[:;=][-']?[()\]\[]")
_ROW = re.compile(r"^[ \t]{0,3}\|.*\|[ \t]*$")
_DELIM_ROW = re.compile(r"^[ \t]{0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


def _structure(text: str):
    from chunkseam.structure.markdown import Structure

    return Structure(Document(text, kind="markdown"))


def _in_list_item(st, block) -> bool:
    p = block.parent
    while p is not None:
        b = st.blocks[p]
        if b.kind == "list_item":
            return True
        p = b.parent
    return False


def _leaves(st) -> list:
    return [b for b in st.blocks if b.is_leaf]


def _unmatched(text: str) -> tuple[list[int], list[int]]:
    """(unmatched openers, unmatched closers) outside inline code."""
    code = code_spans(text)
    skip = set()
    for a, b in code:
        skip.update(range(a, b))
    for m in _ENUM.finditer(text):
        skip.add(m.end() - 1)
    for m in _SMILEY.finditer(text):
        skip.add(m.end() - 1)
    stack: list[tuple[str, int]] = []
    closers: list[int] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            i += 2
            continue
        if i in skip:
            i += 1
            continue
        if ch in "([{":
            stack.append((ch, i))
        elif ch in ")]}":
            want = pairs[ch]
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == want:
                    del stack[k:]
                    break
            else:
                closers.append(i)
        i += 1
    return [i for _, i in stack], closers


def _first_word(text: str, at: int) -> str:
    m = re.compile(r"[^\s]+").match(text, at)
    return m.group() if m else ""


def _name_like(word: str, body: str) -> bool:
    """A lower-case first word that is code or a name the text starts sentences with."""
    core = word.strip(".,;:!?\"'”’)*_")
    if not core:
        return False
    if any(ch.isdigit() or ch in "_./()[]<>=$@#" for ch in core) or "://" in core:
        return True
    return bool(re.search(r"(?:[.!?]\s+|^\s*|\n\s*)" + re.escape(core) + r"\b", body[1:]))


def _check_one(index: int, text: str, enabled: dict[str, str], first: bool, last: bool,
               make) -> list[Issue]:
    out: list[Issue] = []
    if not text.strip():
        return out
    st = _structure(text)
    leaves = _leaves(st)
    if not leaves:
        return out
    # -- CS404 broken fence
    fence_ends = False
    fence_starts = False
    if "CS404" in enabled:
        markers = [(m.start(), m.end(), m.group(1), m.group(2).strip()) for m in _FENCE_LINE.finditer(text)]
        markers = [mk for mk in markers if not (mk[2][0] == "`" and "`" in mk[3])]
        if markers:
            s0, e0, mark0, info0 = markers[0]
            before = text[:s0]
            lines_before = before.split("\n")
            prev_raw = lines_before[-2] if len(lines_before) >= 2 else ""
            prev_line = prev_raw.strip()
            # a bare marker right after a non-blank code-looking line closes a
            # block that began in an earlier chunk; after a blank line, a colon
            # line, a heading or a list item it opens one
            closer_like = (not first and not info0 and before.strip() != "" and prev_line != ""
                           and not prev_line.endswith((":", ".")) and not prev_line.startswith("#")
                           and not re.match(r"(?:[-*+]|\d{1,9}[.)])(?:\s|$)", prev_line))
            rest = markers[1:] if closer_like else markers
            # pair the remaining markers as markdown-it would: opener, then a closer
            j = 0
            open_at = None
            while j < len(rest):
                s, e, mark, info = rest[j]
                close = next((k for k in range(j + 1, len(rest))
                              if rest[k][2][0] == mark[0] and len(rest[k][2]) >= len(mark)
                              and not rest[k][3]), None)
                if close is None:
                    open_at = (s, e)
                    break
                j = close + 1
            if closer_like:
                fence_starts = True
                out.append(make("CS404", "chunk starts inside a fenced code block: its first fence "
                                "line closes a block opened in an earlier chunk", s0, e0, index,
                                at="start"))
            if open_at is not None and not last:
                fence_ends = True
                out.append(make("CS404", "chunk ends inside a fenced code block: the fence opened "
                                "here closes in a later chunk", open_at[0], open_at[1], index,
                                at="end"))
    # -- CS405 broken table
    if "CS405" in enabled:
        lines = [(m.start(), m.group()) for m in re.finditer(r"[^\r\n]+", text)]
        if not first and len(lines) >= 1 and _ROW.match(lines[0][1]) and not _DELIM_ROW.match(lines[0][1]) \
                and not (len(lines) > 1 and _DELIM_ROW.match(lines[1][1])):
            s0, l0 = lines[0]
            out.append(make("CS405", "chunk starts with table rows that have no header: the header is "
                            "in an earlier chunk", s0, s0 + len(l0), index, at="start"))
        if not last and len(lines) >= 2 and _DELIM_ROW.match(lines[-1][1]) and _ROW.match(lines[-2][1]) \
                and "|" in lines[-1][1]:
            s1, l1 = lines[-2]
            out.append(make("CS405", "chunk ends with a table header: its rows are in a later chunk",
                            s1, lines[-1][0] + len(lines[-1][1]), index, at="end"))
    # -- CS401 no sentence end
    tail = leaves[-1]
    if "CS401" in enabled and not last and not fence_ends and tail.kind == "paragraph" \
            and not _in_list_item(st, tail):
        para = text[tail.start:tail.end]
        last_line = para.rstrip().rsplit("\n", 1)[-1]
        if not (_END_OK.search(para) or _URL_END.search(para) or _DIRECTIVE.match(last_line)
                or _DIRECTIVE.match(para)):
            ls = tail.start + len(para.rstrip()) - len(last_line.lstrip())
            snippet = " ".join(para.split())[-40:]
            out.append(make("CS401", f'chunk ends without ending its sentence: "…{snippet}"',
                            ls, tail.end, index, at="end"))
    # -- CS402 no sentence start
    head = leaves[0]
    if head.kind == "front_matter" and len(leaves) > 1:
        head = leaves[1]
    if "CS402" in enabled and not first and not fence_starts and head.kind == "paragraph" \
            and not _in_list_item(st, head) and head.start <= len(text) - len(text.lstrip()) + 2:
        m = _LEADING.match(text, head.start)
        at = m.end() if m else head.start
        ch = text[at] if at < len(text) else ""
        word = _first_word(text, at)
        bad = (ch.isalpha() and ch.islower() and not _name_like(word, text[at:])) or ch in ",;:.)]}"
        if bad:
            e = text.find("\n", at)
            e = len(text) if e < 0 else e
            out.append(make("CS402", f'chunk starts in the middle of a sentence: "{" ".join(text[at:e].split())[:40]}…"',
                            at, e, index, at="start"))
    # -- CS403 unbalanced brackets at the edges
    if "CS403" in enabled:
        prose = [b for b in leaves if b.kind in ("paragraph", "heading")]
        if prose and not last and prose[-1] is tail:
            openers, _ = _unmatched(text[tail.start:tail.end])
            if openers:
                o = tail.start + openers[0]
                out.append(make("CS403", f'chunk ends inside "{text[o]}…": the bracket opened here '
                                f"closes in a later chunk", o, o + 1, index, at="end"))
        if prose and not first and prose[0] is head:
            _, closers = _unmatched(text[head.start:head.end])
            if closers:
                c = head.start + closers[0]
                out.append(make("CS403", f'chunk starts inside "…{text[c]}": the bracket closed here '
                                f"opened in an earlier chunk", c, c + 1, index, at="start"))
    return out


def validate_text_only(texts: Sequence[str], settings: Any = None, *, edges: bool = True) -> list[Issue]:
    """Text-only issues for chunk texts with no source (see the module doc)."""
    enabled = resolve_selection(settings)

    def make(code: str, message: str, start: int, end: int, chunk: int, **data: Any) -> Issue:
        rule = RULES[code]
        return Issue(code, rule.name, enabled.get(code, rule.severity), message, start, end,
                     chunk=chunk, data=data)

    texts = list(texts or ())
    out: list[Issue] = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            continue
        out.extend(_check_one(i, t, enabled, edges and i == 0, edges and i == len(texts) - 1, make))
    return out
