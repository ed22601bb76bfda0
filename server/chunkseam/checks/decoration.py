"""Decoration and boilerplate: regions of a document nobody retrieves for an answer.

A cut inside a badge row, an avatar or sponsor wall, a navigation bar, a
table of contents, a contributor roster or a licence is a real cut, but the
chunk it spoils carries no answer: :mod:`chunkseam.checks.impact` reports it
at severity *info* (``loud-decoration = true`` keeps the rule's own).

Decided by structure, never by names: what is left of a block's text once
its markup is taken out (HTML tags, images, link targets), how much of that
is link text, how many images it shows, whether its links point inside the
document; plus the well-known licence texts (their fixed legal sentences)
and LICENSE-like file names. Each block is judged once: the verdict is
cached by the block's kind and text (:data:`_CACHE`), so an edit elsewhere
in a large document reads no block again.
"""

from __future__ import annotations

import os
import re

from chunkseam.core.cache import ByteLRU, text_key

#: verdicts per (kind, text) of a block; a verdict is a short string or ""
_CACHE = ByteLRU("decoration verdicts", 2 * 1024 * 1024)

#: the block kinds a region is judged on (containers and leaves alike)
KINDS = frozenset({"esm", "html_block", "table", "paragraph", "heading", "bullet_list", "ordered_list",
                   "blockquote", "jsx", "explicit", "directive", "fence", "code"})
_LISTS = frozenset({"bullet_list", "ordered_list"})
#: raw markup blocks: one with tags and no word of text is markup only (an embed, a list of anchors)
_RAW = frozenset({"html_block", "jsx", "explicit", "directive"})
#: blocks longer than this are judged on their first and last parts only
_READ = 40_000

#: sentences only the well-known licences say (MIT, Apache-2.0, BSD, GPL/LGPL,
#: MPL, ISC, the Unlicense, CC): words apart by any run of spaces, line breaks,
#: quote markers or comment marks
_W = r"[\s>#*/]+"
_LICENCE = re.compile("|".join(_W.join(p.split()) for p in (
    r"permission is hereby granted, free of charge",
    r"licensed under the apache license",
    r"provided by the copyright holders and contributors [\"“]?as is",
    r"the software is provided [\"“]?as is[\"”]?",
    r"redistribution and use in source and binary forms",
    r"this program is free software(?:;|:|,)? you can redistribute it",
    r"without warranties or conditions of any kind",
    r"permission to use, copy, modify, and(?:/or)? distribute this software",
    r"this is free and unencumbered software released into the public domain",
    r"this source code form is subject to the terms of the mozilla public",
    r"under the terms of the gnu (?:lesser |affero )?general public license",
)), re.IGNORECASE)
#: what every decoration holds one of (markup, a link, an image) ...
_SIGNS = ("<", "](", "][", "![", "]:", ".. _")
#: ... unless it is a licence, which holds one of these words (lower case)
_LICENCE_WORDS = ("warrant", "licen", "permission", "redistribut", "free software", "public domain")


def _licence_words(text: str) -> bool:
    """Whether ``text`` holds a word every licence text of :data:`_LICENCE` holds
    (a substring test on the lower-cased text: much faster than the pattern)."""
    low = text.lower()
    return any(w in low for w in _LICENCE_WORDS)
#: a licence file: LICENSE, LICENCE.md, COPYING, NOTICE, LICENSE-MIT, UNLICENSE …
_LICENCE_FILE = re.compile(r"(?:un)?licen[cs]e(?:[-_.][\w.-]*)?|copying(?:[-_.][\w.-]*)?|notice(?:\.\w+)?",
                           re.IGNORECASE)

_DIRECTIVE_HEAD = re.compile(r"^[ \t]*\.\.[ \t]+[\w:-]+::[^\n]*", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_IMG_TAG = re.compile(r"<(?:img|svg|picture|source|video)\b[^>]*>", re.I)
_SVG = re.compile(r"<svg\b.*?</svg\s*>", re.I | re.S)
_A_OPEN = re.compile(r"<a\b[^>]*>", re.I)
_HREF = re.compile(r"""\bhref\s*=\s*["']?([^"'\s>]*)""", re.I)
#: a one-line reStructuredText directive whose one argument is a name or a path
_PLACEHOLDER = re.compile(r"\.\.[ \t]+([\w:-]+)::[ \t]+[^\s]+")
#: the directives whose argument is text a reader reads (an admonition's title, a rubric)
_TEXT_DIRECTIVES = frozenset("admonition attention caution danger error hint important note tip warning "
                             "seealso rubric topic sidebar versionadded versionchanged deprecated "
                             "centered title".split())
_ESM = "page code (an MDX import/export block)"
_IMAGE_REGION = "an image (a badge or a logo)"
#: a template's data binding: an interpolation ({{ x }}), a Vue directive (v-for=, v-if=) or bound attribute (:href=, @click=)
_BINDING = re.compile(r"\{\{[^{}\n]*\}\}|\s(?:v-[a-z][\w-]*|[:@][a-z][\w.-]*)\s*=\s*[\"']")
_LINKED_IMG = re.compile(r"<a\b[^>]*>\s*(?:<(?!/?a\b)[^<>]*>\s*)*<(?:img|svg|picture)\b", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")
_IMAGE = re.compile(r"!\[[^\[\]\n]*\](?:\([^()\s]*(?:\s+\"[^\"\n]*\")?\)|\[[^\[\]\n]*\])")
_LINK = re.compile(r"\[([^\[\]\n]*)\](?:\(([^()\s]*)(?:\s+\"[^\"\n]*\")?\)|\[([^\[\]\n]*)\])")
_ANCHOR_TEXT = re.compile(r"<a\b[^>]*>(.*?)</a\s*>", re.I | re.S)
_WORD = re.compile(r"[^\W_](?:[\w'’.-]*[^\W_])?")
#: a figure: a count, a version, an amount ("17976", "1.2k", "3,400")
_FIGURE = re.compile(r"\d[\d.,]*[kKmM]?")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z]\w*);")
_CODE = re.compile(r"`[^`\n]*`")
_MARKERS = re.compile(r"^[ \t>]*(?:[-+*]|\d{1,9}[.)])[ \t]+", re.M)
#: a link to a person's page: a site's root with one path segment (``https://github.com/octocat``)
_PROFILE = re.compile(r"https?://[^/\s]+/[@~]?[\w.-]+/?")
#: an autolink (``<https://example.com/x>``): a link whose text is its target
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+)>", re.I)
#: a block of page styling or script: never shown as text
_PAGE_CODE = re.compile(r"\s*<(?:style|script)\b", re.I)
#: a reStructuredText directive that passes markup through to one output format
_RAW_DIRECTIVE = re.compile(r"\s*\.\.[ \t]+raw::", re.I)
#: an image directive (``.. image:: url`` or a substitution ``.. |name| image:: url``) with
#: only the options of a picture (alternative text, link, size, alignment): a badge or a logo;
#: a figure has a caption, text a reader reads, and is not one
_IMAGE_DIRECTIVE = re.compile(r"\s*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?image::[ \t]+\S+[ \t]*"
                              r"(?:\r?\n[ \t]+:(?:alt|target|width|height|scale|align|class|name):[^\r\n]*)*\s*",
                              re.I)
#: a line that only defines a link's target: a Markdown reference definition
#: (``[label]: https://… "title"``; not a footnote, ``[^1]: …``) or a reStructuredText
#: hyperlink target (``.. _label: https://…``): a label and one URL
#: (a reStructuredText target may be internal, an anchor with no URL: ``.. _routing-options:``)
_TARGET_LINE = re.compile(r"[ \t>]*(?:\[(?!\^)[^\]\n]+\]:[ \t]+\S+|\.\.[ \t]+_(?:`[^`\n]+`|[^:\n]+):(?:[ \t]+\S+)?)"
                          r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*""")
#: a data URL's head (``data:image/svg+xml;…,`` ``data:image/png;base64,``)
_DATA_URL = re.compile(r"data:[\w.+-]+/[\w.+-]+[;,]", re.I)
#: how far back on a line the data URL around a cut is looked for
_DATA_BACK = 1 << 16
_LINE_LINK = re.compile(r"\]\(|\]\[|<a\b", re.I)


def licence_file(path: str | None) -> bool:
    """Whether ``path`` names a licence file (LICENSE, COPYING.md, NOTICE …)."""
    if not path:
        return False
    return _LICENCE_FILE.fullmatch(os.path.basename(path.replace("\\", "/"))) is not None


def region(kind: str, text: str) -> str:
    """What a block of ``kind`` with ``text`` is when it is decoration — a
    few words for a message ("a badge row", "a table of contents", "licence
    text" …) — or "" when it is content. Cached by kind and text."""
    if kind not in KINDS:
        return ""
    if kind == "esm":  # an MDX import/export block: the page's own code (components, data), never shown as text
        return _ESM
    if kind in ("explicit", "directive") and _PLACEHOLDER.fullmatch(text.strip()) \
            and _PLACEHOLDER.fullmatch(text.strip()).group(1).lower() not in _TEXT_DIRECTIVES:
        # ".. automethod:: Environment.parse", ".. include:: x.rst": a one-line directive whose one
        # argument is a name or a path: what it shows is generated, it has no text of its own
        return "a directive with no text of its own (generated content)"
    if kind in ("explicit", "directive") and "image::" in text and _IMAGE_DIRECTIVE.fullmatch(text):
        return _IMAGE_REGION
    if not any(sig in text for sig in _SIGNS) and not _licence_words(text):
        return ""  # no markup, no link, no licence word: content (decided without the cache)
    key = (kind, text_key(text))
    got = _CACHE.get(key)
    if got is None:
        got = _CACHE.put(key, _judge(kind, text), 64)
    return got


def _judge(kind: str, text: str) -> str:
    if len(text) > _READ:
        text = text[: _READ // 2] + "\n" + text[-_READ // 2 :]
    if _licence_words(text) and _LICENCE.search(text):  # (the long alternation only where a licence word is)
        return "licence text"
    if kind in ("fence", "code"):
        return ""
    if kind in _RAW and len(_BINDING.findall(text)) >= 2:
        # a template that renders the page from data ({{ author.name }}, v-for=, :href=): markup, not text
        return "page code (a template bound to data)"
    if kind in _RAW and _PAGE_CODE.match(text):
        # <style> … </style>, <script> … </script>: the page's styling or behaviour, never read
        return "page code (a style sheet or script)"
    body = _COMMENT.sub(" ", text)
    if kind in _RAW and "<!--" in text and not body.strip():
        return "an HTML comment (not shown on the page)"
    if kind in ("explicit", "directive") and _RAW_DIRECTIVE.match(text):
        # ".. raw:: html": markup passed through to one output format (a rendered
        # console, coloured spans): what it shows is rendered elsewhere from the source
        return "raw output markup (a raw directive)"
    if ("]:" in text or ".. _" in text) and text.strip() \
            and all(_TARGET_LINE.fullmatch(ln) for ln in text.splitlines() if ln.strip()):
        return "link targets (URLs only)"
    if kind in ("explicit", "directive"):  # the directive's own head (".. raw:: html") is not text
        body = _DIRECTIVE_HEAD.sub(" ", body, count=1)
    if kind == "table":
        body = re.sub(r"^[ \t]*\|?[ \t:|-]*-[ \t:|-]*$", " ", body, flags=re.M)  # the delimiter row
    images = len(_IMG_TAG.findall(body))
    # images that are a link's whole text: logos, avatars, badges (``<a …><img …></a>``, ``[![…](…)](…)``)
    linked = len(_LINKED_IMG.findall(body)) + body.count("[![")
    body = _SVG.sub(" img ", body)
    images += len(_IMAGE.findall(body))
    body = _IMAGE.sub(" ", body)
    # links: their text counts as link text, their targets not at all
    targets: list[str] = []
    link_words = 0
    links = 0

    def _md_link(m: re.Match) -> str:
        nonlocal link_words, links
        links += 1
        targets.append(m.group(2) or "")
        link_words += len(_WORD.findall(_TAG.sub(" ", m.group(1))))  # (an <img> as a link's text: no words)
        return " "

    body = _LINK.sub(_md_link, body)

    def _html_link(m: re.Match) -> str:
        nonlocal link_words, links
        links += 1
        h = _HREF.search(m.group(0))
        targets.append(h.group(1) if h else "")
        inner = _TAG.sub(" ", m.group(1))
        link_words += len(_WORD.findall(_ENTITY.sub(" ", inner)))
        return " "

    body = _ANCHOR_TEXT.sub(_html_link, body)

    def _autolink(m: re.Match) -> str:
        nonlocal links
        links += 1
        targets.append(m.group(1))
        return " "

    body = _AUTOLINK.sub(_autolink, body)
    images += len(re.findall(r"\bimg\b", body)) if "<svg" in text.lower() else 0
    body = _TAG.sub(" ", body)
    body = _ENTITY.sub(" ", body)
    body = _CODE.sub(" code ", body)
    body = _MARKERS.sub(" ", body)
    found = _WORD.findall(body)
    words = len(found)  # words outside links and markup
    lines = [ln for ln in text.splitlines() if ln.strip(" \t>|-")]
    n = len(lines)
    if images >= 2 and words <= 2 + images // 4 and link_words <= 4 * max(images, links):
        return "a badge row" if n <= 3 or images <= 8 else "an image wall (badges, logos or avatars)"
    if images >= 1 and words == 0 and link_words <= 3 * images:
        return "an image's markup"
    if kind in _RAW and words == 0 and link_words == 0 and _TAG.search(text):
        return "markup with no text (an embed, anchors)"
    if links >= 3 and words <= max(2, links // 3) and link_words <= 5 * links:
        inside = sum(1 for t in targets if t.startswith("#"))
        if inside * 5 >= links * 3:
            return "a table of contents"
        return "a navigation bar or link list" if kind not in ("table",) else "a table of links"
    if n >= 5 and links >= 0.8 * n and words <= 12 * n and link_words <= 3 * links:
        with_link = sum(1 for ln in lines if _LINE_LINK.search(ln))
        people = sum(1 for t in targets if _PROFILE.fullmatch(t))
        # a list of people, with a few words of each one's part when most links are
        # people's pages ("- **Ada** ([@ada](https://host/ada)) - maintainer of the parser");
        # not a table (a table of models linking to their makers' pages is content)
        if with_link >= 0.8 * n and people * 5 >= links * 3 and (words <= 3 * n or (people * 5 >= links * 4 and kind in _LISTS)):
            return "a roster of names and links"
    # (a figure beside each logo or avatar — a star or download count — is no text)
    if kind == "table" and images >= 3 and words - sum(1 for w in found if _FIGURE.fullmatch(w)) <= images:
        return "a table of logos or avatars"
    if kind in _RAW and linked >= 3 and linked * 2 >= images and words <= 20 * linked:
        # a wall of linked logos with a line of text each (a sponsor table, "Gold sponsors" headings)
        return "a sponsor or logo wall"
    return ""


#: the words of the placeholder text every layout tool fills examples with ("Lorem ipsum
#: dolor sit amet …"): a fixed text like the licences', recognised by its vocabulary
_LOREM = frozenset("""a ac accumsan adipiscing aenean aliquam aliquet amet ante arcu at auctor augue bibendum
blandit commodo condimentum congue consectetur consequat convallis cras curabitur cursus dapibus diam
dictum dictumst dignissim dolor donec dui duis efficitur egestas eget eleifend elementum elit enim erat
eros est et etiam eu euismod ex facilisi facilisis fames faucibus felis fermentum feugiat finibus
fringilla fusce gravida habitant habitasse hac hendrerit iaculis id imperdiet in integer interdum ipsum
justo lacinia lacus laoreet lectus leo libero ligula lobortis lorem luctus maecenas magna malesuada
massa mattis mauris maximus metus mi molestie mollis morbi nam nec neque netus nibh nisi nisl non nulla
nullam nunc odio orci ornare pellentesque pharetra phasellus placerat platea porta porttitor posuere
potenti praesent pretium proin pulvinar purus quam quis quisque rhoncus risus rutrum sagittis sapien
scelerisque sed sem semper senectus sit sodales sollicitudin suscipit suspendisse tellus tempor tempus
tincidunt tortor tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit
venenatis vestibulum vitae vivamus viverra volutpat vulputate""".split())
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _placeholder(line: str) -> bool:
    """Whether a line is placeholder text: three words or more, all of them
    the placeholder's (list markers and punctuation aside)."""
    n = 0
    for m in _LATIN_WORD.finditer(line):
        if m.group().lower() not in _LOREM:
            return False  # (most lines stop at their first word)
        n += 1
    return n >= 3


def inline(text: str, at: int) -> str:
    """What the text right around offset ``at`` is when it is markup nobody
    reads, whatever block holds it (a code block too): inline image data (a
    data URL such as ``url('data:image/svg+xml;…')``, whose path numbers a
    chunker cuts anywhere), a line that only defines a link's target, or a
    line of placeholder text ("Lorem ipsum dolor sit amet …"). ""
    otherwise. Reads the cut's line only, at most :data:`_DATA_BACK`
    characters back (see :func:`inline_span`)."""
    return inline_span(text, at)[0]


def inline_span(text: str, at: int) -> tuple[str, int, int]:
    """:func:`inline` with the span of text it read, ``(what, lo, hi)``."""
    if not 0 < at < len(text):
        return "", at, at
    floor = max(0, at - _DATA_BACK)
    bol = text.rfind("\n", floor, at) + 1 or floor
    eol = text.find("\n", at)
    eol = len(text) if eol < 0 else eol
    k = text.rfind("data:", bol, at)
    if k >= 0:
        m = _DATA_URL.match(text, k)
        if m is not None and m.end() <= at:
            opener = text[k - 1] if k > 0 else ""
            close = {"'": "'", '"': '"', "(": ")"}.get(opener)
            if close is not None:
                inside = text.find(close, m.end(), at) < 0 and text.find(close, at, eol) >= 0
            else:
                inside = not any(ch.isspace() for ch in text[m.end() : at])
            if inside:
                return "inline image data (a data URL)", bol, eol + 1
    if at - bol <= 4096 and eol - at <= 4096 and ("]:" in text[bol:eol] or ".. _" in text[bol:eol]) \
            and _TARGET_LINE.fullmatch(text, bol, eol) and text[bol:at].strip():
        internal = text[bol:eol].rstrip().endswith(":")  # (an anchor: ``.. _label:``)
        return ("a link target (an anchor)" if internal else "a link target definition (a URL)"), bol, eol + 1
    if at - bol <= 4096 and eol - at <= 4096 and _placeholder(text[bol:eol]):
        return "placeholder text (lorem ipsum)", bol, eol + 1
    return "", bol, eol + 1


#: a whole data URL: its head and what follows up to a quote, a bracket or a space
#: (an SVG's quoted attributes inside a single-quoted one are part of it)
_DATA_URL_WHOLE = re.compile(r"""(?<=')data:[\w.+-]+/[\w.+-]+[;,][^'\n]*|(?<=")data:[\w.+-]+/[\w.+-]+[;,][^"\n]*"""
                             r"""|data:[\w.+-]+/[\w.+-]+[;,][^\s'"()<>]*""", re.I)


def data_url_chars(text: str, s: int, e: int) -> int:
    """How many characters of ``text[s:e]`` are data URLs (inline image data)."""
    if text.find("data:", s, e) < 0:
        return 0
    return sum(len(m.group()) for m in _DATA_URL_WHOLE.finditer(text, s, e))


def clear() -> None:
    _CACHE.clear()
