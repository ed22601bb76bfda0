"""CS101–CS106: one chunk on its own.

* CS101 oversize — ``chunk.oversize`` is set (a chunker kept an atomic unit
  whole over the budget) or the chunk's size is over ``settings.size``. In
  token units two tokens of slack are allowed: a token window re-encoded on
  its own can gain a token at each edge.
* CS102 fragment — fewer than ``settings.min_tokens`` units, unless the chunk
  is the document's only chunk (a small document is not a fragment). The last
  chunk is judged like any other: a 3-token remainder is a bad retrieval unit.
* CS103 dangling-reference — the chunk (not the document's first) opens, at a
  sentence start of a paragraph, with one of ``settings.dangling_words``
  (case-insensitive, whole words), after any list marker, block-quote marker,
  emphasis or opening quote; or whose first sentence points back further
  on ("Using the same techniques as above, …", "… the previous example …":
  ``_BACK_REF``). Chunks that start with a heading, code or a
  table are not checked, nor chunks that start mid-sentence (CS002's job).
* CS104 no-context — Markdown only: the document has headings, the chunk's
  ``heading_path`` is empty, it contains no heading itself, and a heading
  does enclose its start (so there was a path to carry).
* CS105 over-model-limit — the chunk has more tokens than the embedding
  model reads (``model-max-tokens``, or the limit of a known
  ``embedding-model``), special tokens included; distinct from CS101, which
  is about the chunker's own size. Flagged where the model stops reading.
* CS106 decoration-chunk (opt-in) — the chunk, trimmed, is decoration
  (:func:`decoration_of`: a badge row, a sponsor wall, a table of contents,
  licence text …): it holds nothing a question is answered with.
"""

from __future__ import annotations

import re
from functools import lru_cache

from chunkseam.core import budget
from chunkseam.core.issue import Issue
from chunkseam.checks.base import ChunkView, Context, snippet_after

_MARKUP = re.compile(r"(?:[ \t]*(?:>[ \t]?|[-+*][ \t]+|\d{1,9}[.)][ \t]+))*[*_~\"'“‘(\[]*")


def _first_line(text: str, start: int, end: int) -> tuple[int, int]:
    """The first line of ``text[start:end]`` with a word on it (past a
    ``/**`` or a lone brace), else its first non-blank line, as a span."""
    first = None
    s = start
    while s < end:
        while s < end and text[s].isspace():
            s += 1
        e = s
        while e < end and text[e] not in "\r\n":
            e += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s >= end:
            break
        if first is None:
            first = (s, max(e, s))
        if _WORDY.search(text, s, e):
            return (s, max(e, s))
        s = e + 1
        if s - start > 400:
            break
    if first is None:
        s = min(s, end)
        return (s, s)
    return first


_WORDY = re.compile(r"\w")


def _units(ctx: Context) -> str:
    return getattr(ctx.settings, "unit", "tokens") or "tokens"


def oversize(ctx: Context, view: ChunkView) -> Issue | None:
    size = getattr(ctx.settings, "size", None)
    tokens = view.tokens
    meta = getattr(view.obj, "meta", None)
    if isinstance(meta, dict) and meta.get("size_unit"):
        # the chunker sized in its own unit (Haystack words, passages …): only its flag counts
        tokens = None
    slack = 0 if _units(ctx) == "chars" else 2
    over = bool(view.oversize) or (
        tokens is not None and isinstance(size, int) and size > 0 and tokens > size + slack)
    if not over:
        return None
    s, e = _first_line(ctx.text, view.start, view.end)
    unit = _units(ctx)
    if tokens is not None and isinstance(size, int):
        msg = f"chunk {view.position + 1} has {tokens} {unit}, over the size of {size}"
    else:
        msg = f"chunk {view.position + 1} is over the size budget"
    quiet = False
    if view.oversize:
        from chunkseam.checks.code import kept_whole

        what = kept_whole(ctx, view.start, view.end)
        msg += f" ({what} kept whole)" if what else " (an atomic unit kept whole)"
        # nothing is cut: the chunker kept the unit whole on purpose, and a
        # chunk up to twice the size still embeds as one topic (info)
        quiet = (not getattr(ctx.settings, "loud_kept_whole", False) and tokens is not None
                 and isinstance(size, int) and tokens <= KEPT_WHOLE_RATIO * size)
        if quiet:
            msg += f" — nothing is cut; loud from {KEPT_WHOLE_RATIO} times the size"
        elif not getattr(ctx.settings, "loud_decoration", False):
            where = decoration_of(ctx, view.start, view.end)
            if where:  # a sponsor table kept whole: nothing is cut, nobody retrieves it
                quiet = True
                msg += f" — in {where} (decoration)"
            elif tokens is not None and isinstance(size, int) and size > 0:
                # over the size only through inline image data (an icon's SVG path in a
                # data URL): the text a reader reads fits in twice the size
                from chunkseam.checks.decoration import data_url_chars

                data = data_url_chars(ctx.text, view.start, view.end)
                if data and tokens * (1 - data / (view.end - view.start)) <= KEPT_WHOLE_RATIO * size:
                    quiet = True
                    msg += (f" — over the size through inline image data ({data} characters of data URLs)"
                            " (decoration)")
    issue = ctx.issue("CS101", msg, s, e, chunk=view.position,
                      hint="split the unit, raise the size, or accept it",
                      chunk_span=[view.start, view.end], tokens=tokens, size=size)
    if quiet:
        from chunkseam.checks.impact import quieter

        issue.severity = quieter(issue.severity)
        issue.data["impact"] = "decoration" if msg.endswith("(decoration)") else "kept-whole"
    return issue


def decoration_of(ctx: Context, s: int, e: int) -> str:
    """What the chunk ``[s, e)`` is when it is decoration (a sponsor table, an
    MDX export block, a template bound to data …; see
    :mod:`chunkseam.checks.decoration`): its text read as raw markup, or a
    block of the document's structure covering 80% of it. "" for content."""
    from chunkseam.checks.decoration import region

    where = region("html_block", ctx.text[s:e])
    if where or ctx.doc.kind not in ("markdown", "text") or e <= s:
        return where
    for b in ctx.structure.strictly_containing((s + e) // 2):
        if min(b.end, e) - max(b.start, s) >= 0.8 * (e - s):
            where = region(b.kind, ctx.text[b.start : b.end])
            if where:
                return where
    return ""


#: CS101: a chunk kept whole over the size is info up to this many times the size
KEPT_WHOLE_RATIO = 2


def _trimmed(text: str, s: int, e: int) -> tuple[int, int]:
    """The span ``s``–``e`` of ``text`` without its leading and trailing white space."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def fragment(ctx: Context, view: ChunkView) -> Issue | None:
    minimum = getattr(ctx.settings, "min_tokens", 0) or 0
    if view.tokens is None or len(ctx.chunks) < 2 or view.tokens >= minimum:
        return None
    text = ctx.text
    s, e = _trimmed(text, view.start, view.end)
    whole = whole_section(ctx, s, e)
    unit = _units(ctx)
    one = unit[:-1] if view.tokens == 1 and unit.endswith("s") else unit  # "1 token", "1 char"
    msg = (f'chunk {view.position + 1} has only {view.tokens} {one} '
           f'(the minimum is {minimum} {unit}): "{snippet_after(text, s, e, 40, e)}"')
    if whole:
        msg += " — a whole section (its heading and all its body): small, not a fragment"
    data = {"tokens": view.tokens, "min_tokens": minimum}
    if unit != "tokens":  # the size in the run's own unit, named so ("chars": {"chars": n, "min_chars": m})
        data = {unit: view.tokens, f"min_{unit}": minimum}
    issue = ctx.issue("CS102", msg, s, e, chunk=view.position,
                      hint="merge it with a neighbour", **data)
    if whole:  # (a hint: below info, whatever the rule is graded)
        issue.severity = "hint" if issue.severity != "off" else issue.severity
        issue.data["impact"] = "whole-section"
    return issue


def whole_section(ctx: Context, s: int, e: int) -> bool:
    """Whether ``text[s:e]`` (a chunk, trimmed) is a whole section: a
    heading, at least one block of its body, and nothing of it left out —
    the chunk ends where the next heading starts or the document ends (a
    heading and its short body, "## License" + "MIT", is a complete unit,
    not a fragment)."""
    if ctx.doc.kind != "markdown":
        return False
    st = ctx.structure
    first = st.leaf_at(s)
    if first is None or first.kind != "heading" or first.end >= e:
        return False
    if st.first_leaf_between(first.end, e) is None:
        return False  # the heading alone
    text = ctx.text
    n = len(text)
    k = e
    while k < n and text[k].isspace():
        k += 1
    if k >= n:
        return True
    nxt = st.leaf_at(k)
    return nxt is not None and nxt.kind == "heading" and nxt.start == k


_UNSET = object()


@lru_cache(maxsize=64)
def _dangling_re(words: tuple[str, ...]) -> re.Pattern[str] | None:
    parts = []
    for w in sorted({w.strip().lower() for w in words if w and w.strip()}, key=len, reverse=True):
        parts.append(r"\s+".join(re.escape(p) for p in w.split()))
    if not parts:
        return None
    return re.compile(r"(?:" + "|".join(parts) + r")(?![\w-])", re.IGNORECASE)


_ADJ = (r"possible|impossible|recommended|important|necessary|unnecessary|worth|likely|unlikely|"
        r"easy|easier|hard|harder|difficult|common|best|better|advisable|helpful|useful|crucial|"
        r"essential|obvious|clear|true|good|safe|required|preferable|sufficient|tempting|tricky|"
        r"straightforward|simple|natural|normal|convenient|expected|known|time|a good idea|"
        r"a bad idea|up to you|fine|okay|ok|enough|critical|vital|key|wise|mandatory|optional|"
        r"encouraged|discouraged|allowed|forbidden|customary|standard practice|typical")
_ADV = (r"also|not|often|usually|generally|therefore|thus|now|still|always|sometimes|very|quite|"
        r"really|highly|strongly|equally|more|less|much|even|particularly|especially|entirely|"
        r"perfectly|technically|therefore|however|just|so|too|far|considered")
#: "It" that stands for nothing: "It is possible to…", "It's recommended that…", "It seems…"
_EM = r"[*_]{0,2}"  # "It is *highly* recommended": emphasis around a word
_EXPLETIVE_IT = re.compile(
    r"it(?:'s|\u2019s|\s+is|\s+was|\s+will\s+be|\s+would\s+be|\s+may\s+be|\s+might\s+be|"
    r"\s+can\s+be|\s+could\s+be|\s+should\s+be|\s+has\s+been|\s+had\s+been|\s+becomes?|"
    r"\s+remains?)\s+(?:" + _EM + r"(?:" + _ADV + r")" + _EM + r"\s+)*" + _EM + r"(?:" + _ADJ + r")\b"
    # "It seems…", "It can happen that…", "It may turn out that…"
    r"|it\s+(?:(?:can|may|might|could|will|would|should|does|did|often|sometimes|also|then)\s+)*"
    r"(?:seems?|appears?|turns?\s+out|follows|happens?|takes)\b", re.IGNORECASE)
#: "This guide…", "This page…": the document speaking of itself
_SELF = re.compile(
    r"(?:this|these)\s+(?:guide|page|document|tutorial|section|article|chapter|part|post|readme|"
    r"notebook|doc|docs|documentation|walkthrough|quickstart|cookbook|lesson|repository|repo|"
    r"project|site|changelog|faq|reference|how-to|overview)s?\b", re.IGNORECASE)
#: "This module provides…", "This library lets you…": what the document is about
#: describing itself, not a thing named before
_SELF_DESCRIBED = re.compile(
    r"(?:this|the\s+present)\s+(?:[\w`'-]+\s+)?(?:module|package|library|crate|gem|tool|toolkit|plugin|"
    r"extension|framework|sdk|app|application|action|integration|binding|bindings|wrapper|server|"
    r"client|cli|service|bot|theme|template|starter|boilerplate|implementation|port)s?\s+"
    r"(?:(?:also|now|only|still)\s+)?(?:provides|offers|contains|implements|includes|is|are|lets|allows|"
    r"helps|supports|exposes|adds|enables|makes|gives|aims|brings|wraps|ships|uses|was|can|will|"
    r"requires|depends|works)\b", re.IGNORECASE)
#: "The previous version…": a release, not text before
_RELEASE = re.compile(r"the\s+(?:previous|preceding)\s+(?:(?:major|minor|patch|stable)\s+)?(?:version|release)s?\b",
                      re.IGNORECASE)
#: "This example shows…" followed by the example in the same chunk
_FORWARD = re.compile(
    r"(?:this|these|the\s+following)\s+(?:[\w`*_'-]+\s+){0,3}?(?:example|examples|snippet|snippets|code|sample|"
    r"samples|listing|demo|script|command|commands)\b", re.IGNORECASE)
_EXHIBIT = re.compile(
    r"^[ \t>]*(?:`{3,}|~{3,}|\||<(?:pre|code|img|table|CodeGroup|Tabs)\b)"
    # reStructuredText: a code, table or image directive, a literal block's "::"
    r"|^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|literalinclude|doctest|testcode|list-table|"
    r"csv-table|table|image|figure)[ \t]*::|::[ \t]*$", re.M)


_SHOWN = (r"shown|described|mentioned|noted|explained|discussed|seen|demonstrated|illustrated|defined|"
          r"done|configured|listed|outlined|created|introduced|covered|stated|used|written|given")
_REFERENT = (r"example|examples|section|sections|step|steps|snippet|snippets|code|command|commands|query|"
             r"queries|listing|sample|samples|output|cell|cells|figure|table|diagram|paragraph|chapter|"
             r"technique|techniques|method|methods|approach|configuration|setup|pattern|function|"
             r"functions|class|script|instructions|definition|call|request|response|program|tutorial|"
             r"agent|agents|prompt|prompts|chain|pipeline|dataset|tool|tools|result|results")
#: a reference back to text before the sentence, later than its opening
#: words: "Using the same techniques as above, …", "… the previous example …"
_BACK_REF = re.compile(
    r"(?<![\w-])(?:"
    r"as\s+(?:(?:" + _SHOWN + r")\s+)?above"
    r"|as\s+(?:" + _SHOWN + r")\s+(?:earlier|previously|before)"
    r"|as\s+(?:previously|earlier)\s+(?:" + _SHOWN + r")"
    r"|see\s+above"
    r"|(?:the|this|that|these|those|our)\s+(?:previous|preceding|above)\s+(?:" + _REFERENT + r")"
    r"|(?:the|this|that|these|those|our)\s+(?:[\w`'-]+\s+){0,2}?(?:" + _REFERENT + r")\s+above"
    r"|(?:" + _SHOWN + r")\s+(?:above|in\s+the\s+previous\s+(?:" + _REFERENT + r"))"
    r")(?![\w-])", re.IGNORECASE)
#: a count that points back: "…but these three are the best", "both of them",
#: "both imports will be…" (not "both X and Y", nor "both types of …", which
#: name what they mean)
_COUNT_REF = re.compile(
    r"(?<![\w-])(?:"
    r"(?:these|those)\s+(?:two|three|four|five|six|seven|eight|nine|ten)"
    r"|both\s+of\s+(?:these|those|them)"
    r"|both\s+(?![^.:;\n]{0,60}?\band\b)(?:[\w`'-]+\s+)?[\w`'-]*[a-z]s(?!\s+of\b)"
    r")(?![\w-])", re.IGNORECASE)
#: a sentence that opens on a time before the one the chunk speaks of: "Before,
#: y and z would…", "Previously, the flag…" (what changed was shown earlier)
_BACK_OPENER = re.compile(r"(?:before|previously|until\s+now|so\s+far)\s*,\s", re.IGNORECASE)
#: how far into a chunk's first sentence a back reference is looked for
BACK_REF_REACH = 400
#: every match of :data:`_BACK_REF` holds one of these (lower case); none
#: holds an "i", "k" or "s", which case-insensitive matching also finds as
#: "ı", "K" (Kelvin) or "ſ"
_BACK_REF_WORDS = ("above", "earl", "before", "prev", "prece")


def _named_before(text: str, start: int, hit: re.Match) -> bool:
    """Whether what a "both …" or "these three" reference means is named in
    the chunk before it: "two adapters … both adapters", "a, b and c …
    these three" (resolved inside the chunk)."""
    phrase = hit.group().lower().split()
    if phrase[0] == "both" and phrase[-1] not in ("them", "these", "those"):
        noun = phrase[-1].rstrip("s")
        return len(noun) > 2 and re.search(r"\b" + re.escape(noun), text[start : hit.start()], re.I) is not None
    if phrase[0] in ("these", "those") and len(phrase) == 2:
        before = text[start : hit.start()]
        n = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten").index(phrase[1]) + 2
        return len(re.findall(r",|\band\b|\bor\b", before)) >= n - 1 or phrase[1] in before.lower()
    return False


def _may_refer_back(piece: str) -> bool:
    """False when ``piece`` cannot hold a :data:`_BACK_REF` match (none of
    :data:`_BACK_REF_WORDS` in it): most chunk openings, decided without
    running the long case-insensitive alternation at every offset."""
    low = piece.lower()
    return any(w in low for w in _BACK_REF_WORDS)


#: a reference back in Chinese or Japanese, where words are not spaced ("如上图所示" "as
#: shown in the figure above", "上述方法" "the method above", "上記の" "the above"): the
#: phrases that point back and nothing else ("如下所示", "as shown below", is not one;
#: "以上" also means "or more", so it is not either)
_CJK_BACK_REF = re.compile(
    r"如(?:上|前)(?:图|表|文|例|面)?所(?:示|述|列|说)|如前所述|上述|前述|上面(?:的|这|那|所)|前面(?:的|提到|所)"
    r"|上文|前文|上一(?:步|节|章|部分|段|个例子|个示例)|上記|前記|先述|上の(?:図|表|例|コード|手順)")
#: every match of :data:`_CJK_BACK_REF` holds one of these
_CJK_BACK_REF_CHARS = "上前先"


#: a conjunction that opens a sentence and joins it to the one before ("And
#: that's all…", "But these…"): the dangling word is the one after it
_CONJUNCTION = re.compile(r"(?:and|but|so(?![ \t]+that\b)|or|yet)[ \t]+(?=[^\W\d_])", re.IGNORECASE)


#: "That function `get_openapi()` receives…": the demonstrative and a kind of
#: code thing, then the code name of the one it points at
_NAMED = re.compile(
    r"(?:this|that|these|those)\s+(?:function|method|class|module|package|library|crate|variable|"
    r"constant|parameter|argument|option|flag|setting|field|attribute|property|type|decorator|hook|"
    r"endpoint|command|file|directory|key|object|trait|struct|macro|component|model|table|column)s?"
    r"\s+`[^`\n]+`", re.IGNORECASE)


def not_pointing_back(text: str, start: int, end: int, chunk_end: int) -> bool:
    """Whether an opening match of a dangling word is no reference back: an
    expletive "It", the document naming itself, "The previous version", a
    demonstrative followed by the code name it points at, or "This example…"
    with the example (a code block, a table) following in the same chunk."""
    head = text[start : min(chunk_end, start + 200)]
    if (_EXPLETIVE_IT.match(head) or _SELF.match(head) or _SELF_DESCRIBED.match(head)
            or _RELEASE.match(head) or _NAMED.match(head)):
        return True
    if _FORWARD.match(head):
        return _EXHIBIT.search(text, end, min(chunk_end, end + 1500)) is not None
    return False


#: lower-case words that open the rest of a sentence a code block interrupts
#: ("For example:: <code> becomes <code>", "…model: <code> which renders as
#: …"); a lower-case word not here (a name such as `uv`, `npm`) starts a
#: sentence of its own
_CONTINUATIONS = frozenset("""
    which where whereas while when whose whom that and or but nor so then than as because since
    unless until after before if with without instead becomes become gives give returns return
    prints print outputs output produces produce yields yield renders render results result shows
    show creates create generates generate will would can could should may might must is are was
    were has have had to for from in into on of by at you we they it this these those there here
    its their our your the a an such not also both all each
    """.split())
_LOWER_WORD = re.compile(r"[a-z]+(?=[ \t\r\n,;])")


def _continues_after_code(ctx: Context, p: int, chunk_end: int) -> str | None:
    """The opening word of the paragraph at ``p`` (a chunk's first block) when
    it goes on with a sentence that a code block right before it interrupts:
    a lower-case word of :data:`_CONTINUATIONS` directly after a fenced,
    indented or literal code block. Reads only that block and the paragraph
    (the segment before the chunk's and its own: what an edit elsewhere
    leaves alone); in a notebook, inside one cell."""
    text = ctx.text
    m = _LOWER_WORD.match(text, p, chunk_end)
    if m is None or m.group() not in _CONTINUATIONS:
        return None
    k = p - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return None
    block = ctx.structure.leaf_at(k)
    if block is None or block.kind not in ("fence", "code"):
        return None
    cells = getattr(ctx.doc, "notebook", None)
    if cells is not None and cells.to_cell(k)[0] != cells.to_cell(p)[0]:
        return None  # a notebook's code cell, then a Markdown cell: each says its own
    return m.group()


#: an opening that may point at what follows it ("This will instantiate the
#: agent." and the code that does it, "Here is how to …:"); not one that says
#: what the code before it does or gives ("This will print:", "This may take…")
_RESULT = (r"print|prints|output|outputs|show|shows|display|displays|return|returns|produce|produces|"
           r"give|gives|yield|yields|result|results|look|looks|generate|generates|log|logs|render|"
           r"renders|take|takes|fail|fails|raise|raises|throw|throws|cause|causes|work|works|be|"
           r"happen|happens|output|emit|emits|write|writes|lead|leads|make|makes|mean|means|need|needs|"
           r"may|might|could|should|would|also|not|only|still|then|now|again|allow|allows|let|lets")
_CATAPHORIC = re.compile(
    r"(?:this|the\s+following)\s+(?:will|is\s+going\s+to)\s+(?!(?:" + _RESULT + r")\b)[a-z]+"
    r"|(?:here|this)\s+is\s+(?:how|what|an?\s+example|the\s+(?:code|command|commands|snippet|configuration|config|"
    r"file|script|recipe|template|setup))\b"
    r"|here\s+(?:are|is)\b", re.IGNORECASE)
#: what a short opening paragraph may introduce when it points forward
_SHOWN_NEXT = frozenset({"fence", "code", "table", "html_block", "jsx", "explicit"})
#: an opening paragraph up to this long may introduce the block after it
FORWARD_REACH = 240


def _points_forward(ctx: Context, leaf, hit: re.Match, chunk_end: int) -> bool:
    """Whether an opening demonstrative points at what follows it in the
    chunk, not back: its paragraph ends with a colon (a lead-in), or is short
    and directly followed, in the chunk, by the code, table or markup it
    describes ("This will instantiate the agent." and the example)."""
    if not _CATAPHORIC.match(ctx.text, hit.start(), min(chunk_end, hit.start() + 120)):
        return False
    if leaf.end > chunk_end:
        return False
    text = ctx.text
    body = text[hit.start() : leaf.end].rstrip()
    if body.endswith(":"):
        return True
    if len(body) > FORWARD_REACH:
        return False
    nxt = ctx.structure.first_leaf_between(leaf.end, chunk_end)
    return nxt is not None and nxt.kind in _SHOWN_NEXT and not text[leaf.end : nxt.start].strip(" \t\r\n>")


def dangling_reference(ctx: Context, view: ChunkView, first_content: int) -> Issue | None:
    if view.start <= first_content or ctx.doc.kind not in ("markdown", "text"):
        return None  # the document's first chunk has nothing to point back to
    pattern = getattr(ctx, "_dangling", _UNSET)
    if pattern is _UNSET:  # (asked once per validation, not per chunk)
        pattern = ctx._dangling = _dangling_re(tuple(getattr(ctx.settings, "dangling_words", ()) or ()))
    if pattern is None:
        return None
    text = ctx.text
    st = ctx.structure
    f = view.start
    while f < view.end and text[f].isspace():
        f += 1
    if f >= view.end:
        return None
    leaf = st.leaf_at(f)
    if leaf is None:
        # in container markup (a list marker, a quote marker): the next leaf
        nxt = st.first_leaf_between(f, view.end)
        if nxt is None or nxt.kind != "paragraph" or text[f : nxt.start].strip(" \t>-+*0123456789.)"):
            return None
        leaf, p = nxt, nxt.start
    else:
        if leaf.kind != "paragraph":
            return None
        p = f
    m = _MARKUP.match(text, p)
    q = m.end() if m else p
    lead = _CONJUNCTION.match(text, q)  # "And that's all it needs": the word after the "And"
    hit = pattern.match(text, lead.end() if lead else q)
    if hit is not None and (hit.end() > view.end or not_pointing_back(text, hit.start(), hit.end(), view.end)
                            or _points_forward(ctx, leaf, hit, view.end)):
        hit = None
    opening = hit is not None
    if hit is None and p == leaf.start and q == p:
        word = _continues_after_code(ctx, p, view.end)
        if word is not None:
            prev = f"chunk {view.position}" if view.position > 0 else "an earlier chunk"
            return ctx.issue(
                "CS103", f'chunk {view.position + 1} opens with "{word}", which goes on with the '
                f"sentence before the code block in {prev}", p, p + len(word), chunk=view.position,
                hint="keep the code block with the sentence around it", phrase=word)
    if hit is None and lead is None and (hit := _BACK_OPENER.match(text, q)) is not None:
        opening = True  # "Before, y and z would…"
    if hit is None:  # a reference back later in the first sentence: "Using the same techniques as above, …"
        lim = min(leaf.end, view.end, q + BACK_REF_REACH)
        piece = text[q:lim]
        if _may_refer_back(piece):
            hit = _BACK_REF.search(text, q, lim)
        if hit is None and ("both" in piece or "hese" in piece or "hose" in piece
                            or not piece.isascii()):  # (a cheap test first: most openings have neither)
            hit = _COUNT_REF.search(text, q, lim)
            if hit is not None and _named_before(text, q, hit):
                hit = None
        if hit is None and not piece.isascii() and any(c in piece for c in _CJK_BACK_REF_CHARS):
            # (in Chinese or Japanese: at the opening, or later in the first sentence)
            hit = _CJK_BACK_REF.search(text, q, lim)
            opening = hit is not None and hit.start() == q
        if hit is None:
            return None
    sent = None
    if p != leaf.start or not opening:  # (sentences only now: pysbd is the expensive part)
        sent = ctx.sentence_at(leaf, p)
        if sent is None or sent[0] != p:
            return None  # starts mid-sentence: not this rule's business
        if not opening and hit.end() > sent[1]:
            return None  # (past the first sentence: what it points at may be in the chunk)
    start = q if opening and lead is not None else hit.start()
    phrase = text[start : hit.end()]
    prev = f"chunk {view.position}" if view.position > 0 else "an earlier chunk"
    if opening:
        msg = (f'chunk {view.position + 1} opens with "{" ".join(phrase.split())}", which points back '
               f"to text that is not in it (it was in {prev})")
    else:
        msg = (f'chunk {view.position + 1}\'s first sentence says "{" ".join(phrase.split())}", which '
               f"points back to text that is not in it (it was in {prev})")
    return ctx.issue("CS103", msg, start, hit.end(), chunk=view.position,
                     hint="name the thing instead of pointing back to it",
                     phrase=" ".join(phrase.lower().split()))


def no_context(ctx: Context, view: ChunkView) -> Issue | None:
    if ctx.doc.kind != "markdown" or view.heading_path:
        return None
    st = ctx.structure
    if not st.has_headings:
        return None
    if st.has_heading_between(view.start, view.end):
        return None
    path = st.heading_path_at(view.start)
    if not path:
        return None
    s, e = _first_line(ctx.text, view.start, view.end)
    shown = " > ".join(path)
    msg = (f'chunk {view.position + 1} carries no heading path: it sits under "{shown}" '
           f"but no heading travels with it")
    return ctx.issue("CS104", msg, s, e, chunk=view.position,
                     hint="attach the heading path to the chunk's metadata or text",
                     heading_path=list(path))


def _model_sizer(ctx: Context):
    """The sizer that counts the embedding model's tokens: the run's own in token
    units, else (unit chars) a token sizer for the encoding setting."""
    sizer = ctx.sizer
    if sizer is not None and getattr(sizer, "unit", "") == "tokens":
        return sizer
    cached = getattr(ctx, "_model_sizer", None)
    if cached is None:
        from chunkseam.tokens.tiktoken import sizer_for

        settings = ctx.settings
        try:
            cached = sizer_for(settings.with_(unit="tokens"))
        except Exception:  # no tokenizer to be had offline: the limit cannot be checked
            cached = False
        ctx._model_sizer = cached
    return cached or None


def over_model_limit(ctx: Context, view: ChunkView) -> Issue | None:
    from chunkseam.tokens.models import model_limit

    limit = model_limit(ctx.settings)
    if not limit:
        return None
    sizer = _model_sizer(ctx)
    if sizer is None:
        return None
    text = ctx.text[view.start:view.end]
    if len(text) <= limit:  # a token is at least one character
        return None
    special = getattr(sizer, "special_tokens", 0) or 0
    tokens = sizer.count(text) + special
    if tokens <= limit:
        return None
    # where the model stops reading: the end of its first `limit` tokens
    cut = _cut_at(sizer, text, limit - special)
    s, e = _first_line(ctx.text, view.start + cut, view.end)
    if s >= e:
        s, e = _first_line(ctx.text, view.start, view.end)
    model = getattr(ctx.settings, "embedding_model", None) or "the embedding model"
    msg = (f"chunk {view.position + 1} has {tokens} tokens, over the input limit of {model} "
           f"({limit}): the model silently ignores the text from here on")
    return ctx.issue("CS105", msg, s, e, chunk=view.position,
                     hint="lower the chunk size below the model's limit or split this unit",
                     chunk_span=[view.start, view.end], tokens=tokens, limit=limit)


def _cut_at(sizer, text: str, budget: int) -> int:
    """The character offset in ``text`` where its first ``budget`` tokens end
    (found by bisection on counts: works for every sizer)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sizer.count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def decoration_chunk(ctx: Context, view: ChunkView) -> Issue | None:
    text = ctx.text
    s, e = _trimmed(text, view.start, view.end)
    where = decoration_of(ctx, s, e) if e > s else ""
    if not where:
        return None
    return ctx.issue("CS106", f"chunk {view.position + 1} is all decoration — {where}: nothing in it "
                     "answers a question, yet it takes a place in the index", s, e, chunk=view.position,
                     hint="leave the region out of what is indexed, or merge it into a neighbour",
                     region=where)


def chunk_issues(ctx: Context, first_content: int, views: list[ChunkView] | None = None) -> list[Issue]:
    """The issues of each chunk of ``ctx`` (or of ``views``, some of them), in order."""
    from chunkseam.tokens.models import model_limit

    out: list[Issue] = []
    on = ctx.enabled
    # no model limit configured: CS105 has nothing to check in any chunk (asked once)
    limited = "CS105" in on and bool(model_limit(ctx.settings))
    for k, view in enumerate(ctx.chunks if views is None else views):
        if not k % budget.STRIDE:
            budget.check("checking the chunks")
        if "CS101" in on and (i := oversize(ctx, view)):
            out.append(i)
        if "CS102" in on and (i := fragment(ctx, view)):
            out.append(i)
        if "CS103" in on and (i := dangling_reference(ctx, view, first_content)):
            out.append(i)
        if "CS104" in on and (i := no_context(ctx, view)):
            out.append(i)
        if limited and (i := over_model_limit(ctx, view)):
            out.append(i)
        if "CS106" in on and (i := decoration_chunk(ctx, view)):
            out.append(i)
    return out
