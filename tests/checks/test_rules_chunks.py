"""CS101–CS104 beyond the doc examples."""

from __future__ import annotations

import re

from cutkit import make_chunks, marked

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.core.settings import DEFAULT_DANGLING_WORDS, Settings
from chunkseam.tokens.tiktoken import CharSizer
from chunkseam.engine.validate import validate


def codes_of(issues, code):
    return [i for i in issues if i.code == code]


def test_oversize_flag_and_token_slack():
    text = "word " * 50
    doc = Document(text)
    flagged = [Chunk(0, len(text), 0, source=text, tokens=50, oversize=True)]
    (i,) = codes_of(validate(doc, flagged, Settings(size=400)), "CS101")
    assert "atomic unit kept whole" in i.message and i.data["chunk_span"] == [0, len(text)]
    slack = [Chunk(0, len(text), 0, source=text, tokens=402)]
    assert codes_of(validate(doc, slack, Settings(size=400)), "CS101") == []
    over = [Chunk(0, len(text), 0, source=text, tokens=403)]
    assert codes_of(validate(doc, over, Settings(size=400)), "CS101")
    chars = [Chunk(0, len(text), 0, source=text, tokens=251)]
    assert codes_of(validate(doc, chars, Settings(size=250, unit="chars")), "CS101")


def test_missing_token_counts_are_measured_with_the_sizer():
    text = "a " * 30
    doc = Document(text)
    chunks = [{"start": 0, "end": len(text)}]
    (i,) = codes_of(validate(doc, chunks, Settings(size=20, unit="chars"), sizer=CharSizer()), "CS101")
    assert i.data["tokens"] == 60


def test_fragment_not_for_a_single_chunk_document():
    text = "Tiny."
    assert codes_of(validate(Document(text), make_chunks(text, [(0, 5)]), Settings()), "CS102") == []
    doc, chunks, _ = marked("A long enough first chunk of text here. ✂Tiny.")
    (i,) = codes_of(validate(doc, chunks, Settings(min_tokens=10, unit="chars")), "CS102")
    assert i.chunk == 1 and i.data == {"chars": 5, "min_chars": 10}  # (the unit of the run, named)


def test_dangling_reference_variants():
    s = Settings(min_tokens=0)
    for opener in ["This", "these", "It's", "As mentioned above,", "See the previous section", "However,"]:
        doc, chunks, _ = marked(f"Set the timeout to 30 seconds.\n\n✂{opener} keeps connections alive.")
        found = codes_of(validate(doc, chunks, s), "CS103")
        assert len(found) == 1, opener
    # inside list markup and emphasis
    doc, chunks, _ = marked("Intro.\n\n✂- **This** one is dangling.\n")
    assert codes_of(validate(doc, chunks, s), "CS103")
    # not a whole word, not the first chunk, not after a heading, not mid-sentence
    for t in ["Intro.\n\n✂Thistle grows here.", "✂This is the first chunk.",
              "Intro.\n\n✂## This heading\n\nText.", "Set it to ✂this value now."]:
        doc, chunks, _ = marked(t)
        assert codes_of(validate(doc, chunks, s), "CS103") == [], t
    # the word list is configurable
    doc, chunks, _ = marked("Intro.\n\n✂Hence it works.")
    assert codes_of(validate(doc, chunks, s), "CS103") == []
    custom = Settings(min_tokens=0, dangling_words=DEFAULT_DANGLING_WORDS + ("hence",))
    assert codes_of(validate(doc, chunks, custom), "CS103")


def test_dangling_reference_after_a_joining_conjunction():
    """A sentence that opens with "And", "But", "So" joins the one before:
    the dangling word is the one after it, and the report names both."""
    s = Settings(min_tokens=0)
    intro = "Add a `forward` method with the inference code.\n\n"
    for sentence, phrase in [("And that's all it needs to be used in an agent!", "and that"),
                             ("But this time the URL carries the prefix.", "but this"),
                             ("And then we use it when creating the app.", "and then"),
                             ("so these values are left out of the response.", "so these")]:
        doc, chunks, _ = marked(f"{intro}✂{sentence}")
        (found,) = codes_of(validate(doc, chunks, s), "CS103")
        assert found.data["phrase"] == phrase and f'opens with "{sentence[:len(phrase)]}"' in found.message
        assert doc.text[found.start:found.end].lower() == phrase
    for sentence in ["And it is possible to run it twice.",  # an expletive "it" after the "And"
                     "So that the server restarts, send it a signal.",  # "so that": a purpose, not a pointer
                     "And now for something else entirely.",  # no dangling word after it
                     "Andthis is no word of the list."]:
        doc, chunks, _ = marked(f"{intro}✂{sentence}")
        assert codes_of(validate(doc, chunks, s), "CS103") == [], sentence


def test_a_demonstrative_that_names_its_code_thing_is_no_dangling_reference():
    s = Settings(min_tokens=0)
    intro = "If it does not exist, it is made with a utility function.\n\n"
    for sentence in ["That function `get_openapi()` receives these parameters:",
                     "And that function `get_openapi()` receives these parameters:",
                     "These options `--strict` and `--fix` change the exit code."]:
        doc, chunks, _ = marked(f"{intro}✂{sentence}")
        assert codes_of(validate(doc, chunks, s), "CS103") == [], sentence
    # a verb, not a kind of thing, between the demonstrative and the code: still a pointer back
    for sentence in ["This includes `pydantic.v1`, which is gone in 3.14.",
                     "This function returns `Option<char>` when it may fail."]:
        doc, chunks, _ = marked(f"{intro}✂{sentence}")
        assert len(codes_of(validate(doc, chunks, s), "CS103")) == 1, sentence


def _opening_issue(text: str, path: str | None = None):
    """The CS103 issues of a text cut at ✂ (the chunk after the cut opens there)."""
    doc, chunks, _ = marked(text, path=path)
    return codes_of(validate(doc, chunks, Settings(min_tokens=0)), "CS103")


def test_a_chunk_that_goes_on_with_a_sentence_a_code_block_interrupts():
    """"This expression: <code> is a block…", "For example:: <literal> becomes
    …": the chunk that opens with the rest of the sentence lacks its start."""
    for text, word in [
        ("Intro.\n\nThis expression:\n\n```rust\n{ x + 1 }\n```\n\n✂is a block that evaluates to 4.\n", "is"),
        ("Intro.\n\nFor an `int`:\n\n```python\nitem_id: int\n```\n\n✂or for a more complex `Item` model.\n", "or"),
        ("Intro.\n\nA directory, e.g.:\n\n    ~/.local/share/uv/python/cpython-3.12\n\n✂which is a symbolic link.\n",
         "which"),
    ]:
        (found,) = _opening_issue(text)
        assert found.data["phrase"] == word
        assert f'opens with "{word}", which goes on with the sentence before the code block' in found.message
    rst = ("Title\n=====\n\nIntro.\n\nFor example::\n\n    .. c:alias:: data\n\n✂becomes\n\n"
           "    .. c:var:: int data\n")
    (found,) = _opening_issue(rst, path="domains.rst")
    assert found.data["phrase"] == "becomes"
    for text in [
        # a name in lower case starts a sentence of its own; so does a capital
        "Intro.\n\nRun it:\n\n```console\n$ uv run x.py\n```\n\n✂uv will create an environment.\n",
        "Intro.\n\nRun it:\n\n```console\n$ uv run x.py\n```\n\n✂Which tool runs it is up to you.\n",
        # the code block is in the chunk too (the sentence is whole in it)
        "Intro.\n\n✂The expression:\n\n```rust\n{ x + 1 }\n```\n\nis a block.\n",
        # no code block before it
        "Intro.\n\nA paragraph.\n\n✂or else a second one.\n",
    ]:
        assert _opening_issue(text) == [], text


def test_a_notebook_code_cell_then_a_lower_case_markdown_cell_is_two_things(tmp_path):
    """In a notebook a code cell ends what it says; the Markdown cell after it
    (however it is written) starts anew — but a fence inside one Markdown cell
    is read like any document's."""
    import json

    from chunkseam.document.text import load

    def notebook(*cells):
        out = [{"cell_type": kind, "metadata": {}, "source": src,
                **({"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, src in cells]
        path = tmp_path / f"n{len(list(tmp_path.iterdir()))}.ipynb"
        path.write_text(json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        return load(str(path))

    def issues_after(doc, marker):
        at = doc.text.index(marker)
        chunks = make_chunks(doc.text, [(0, at), (at, len(doc.text))])
        return codes_of(validate(doc, chunks, Settings(min_tokens=0)), "CS103")

    doc = notebook(("markdown", "# Title\n\nLoad the results."), ("code", "results = query()"),
                   ("markdown", "we display the questions with their answers"))
    assert issues_after(doc, "we display") == []
    doc = notebook(("markdown", "# Title\n\nThis expression:\n\n```rust\n{ x + 1 }\n```\n\nis a block."))
    assert [i.data["phrase"] for i in issues_after(doc, "is a block")] == ["is"]


def test_dangling_reference_later_in_the_first_sentence():
    s = Settings(min_tokens=0)
    intro = "Set the timeout to 30 seconds.\n\n```python\nclient.get(url, timeout=30)\n```\n\n"
    for sentence, phrase in [
        ("Using the same techniques as above, you can return JSON.", "as above"),
        ("Providing the credentials in a tuple is the same as the `HTTPBasicAuth` example above.",
         "the `httpbasicauth` example above"),
        ("For example, we didn't set our user agent in the previous example.", "the previous example"),
        ("To define your models, subclass the class created by the code above.", "the code above"),
        ("When the proxies are not overridden as shown above, the environment is used.", "as shown above"),
        ("The questions generated by the previous agent can have many flaws.", "the previous agent"),
    ]:
        doc, chunks, _ = marked(f"{intro}✂{sentence} More text follows here.")
        found = codes_of(validate(doc, chunks, s), "CS103")
        assert len(found) == 1 and found[0].data["phrase"] == phrase, (sentence, found)
        assert "first sentence" in found[0].message
    for t in [
        # past the first sentence: what it points at may be in the chunk itself
        f"{intro}✂The client retries three times. Then it fails as shown above.",
        # no reference back: a version, a number, a forward pointer
        f"{intro}✂The previous version of the API had no timeout at all.",
        f"{intro}✂Values above 100 are rejected as invalid input.",
        f"{intro}✂Keep the timeout as low as possible; see below for details.",
        # mid-sentence (CS002's business) and the first chunk
        f"{intro}Set it ✂as shown above for every request.",
        "✂Using the same techniques as above, you can return JSON.",
    ]:
        doc, chunks, _ = marked(t)
        assert codes_of(validate(doc, chunks, s), "CS103") == [], t


def test_dangling_reference_in_chinese_and_japanese():
    """Text without spaces between words: the back references of Chinese and
    Japanese, at a chunk's opening or later in its first sentence; not a
    pointer forward, not past the first sentence, not the first chunk."""
    s = Settings(min_tokens=0)
    intro = "评估结果见下图。\n\n<img src=\"results.png\">\n\n"
    for sentence, phrase, opening in [
        ("如上图所示，这些调整对性能的影响各不相同。后面还有更多内容。", "如上图所示", True),
        ("上述方法在小数据集上效果最好。后面还有更多内容。", "上述", True),
        ("如果上述说明不够，你可以更改系统提示。后面还有更多内容。", "上述", False),
        ("上記の設定で、検索の精度が上がります。続きがあります。", "上記", True),
    ]:
        doc, chunks, _ = marked(f"{intro}✂{sentence}")
        found = codes_of(validate(doc, chunks, s), "CS103")
        assert len(found) == 1 and found[0].data["phrase"] == phrase, (sentence, found)
        assert ("opens with" in found[0].message) is opening, found[0].message
    for t in [
        f"{intro}✂如下所示，这些调整对性能的影响各不相同。",  # a pointer forward
        f"{intro}✂需要 Python 3.8 以上的版本。",  # "以上": "or more"
        f"{intro}✂这些调整对性能的影响各不相同。如上图所示，效果很好。",  # past the first sentence
        "✂如上图所示，这些调整对性能的影响各不相同。",  # the first chunk
    ]:
        doc, chunks, _ = marked(t)
        assert codes_of(validate(doc, chunks, s), "CS103") == [], t


def test_no_context_respects_the_chunk_heading_path():
    text = "# Database\n\nThe pool holds ten connections. Set the timeout to 30 seconds."
    doc = Document(text)
    cut = text.index("Set")
    bare = make_chunks(text, [(0, cut), (cut, len(text))])
    # CS104 is opt-in: off by default, on when selected
    assert codes_of(validate(doc, bare, Settings(min_tokens=0)), "CS104") == []
    on = Settings(min_tokens=0, extend_select=("CS104",))
    (i,) = codes_of(validate(doc, bare, on), "CS104")
    assert i.chunk == 1 and i.data["heading_path"] == ["Database"]
    carried = [bare[0], Chunk(cut, len(text), 1, source=text, tokens=10, heading_path=("Database",))]
    assert codes_of(validate(doc, carried, on), "CS104") == []
    # a document without headings has no context to lose
    plain = "No headings. Just text here."
    assert codes_of(validate(Document(plain), make_chunks(plain, [(0, 13), (13, 28)]),
                             on), "CS104") == []


def test_decoration_chunk_is_opt_in_and_names_the_region(corpus_dir, capsys):
    """CS106 on a real README: the chunks that are a logo/sponsor header or a link
    list are reported (with what they are) only when the rule is selected; the
    chunks of prose and code are not."""
    import json

    from clikit import run

    readme = corpus_dir / "markdown" / "readmes" / "vuejs-core-README.md"
    rc, out, _ = run(capsys, "lint", str(readme), "--no-cache", "--format", "json")
    assert "CS106" not in out
    rc, out, _ = run(capsys, "lint", str(readme), "--no-cache", "--format", "json",
                     "--extend-select", "CS106")
    found = [i for i in json.loads(out)["issues"] if i["code"] == "CS106"]
    assert found, out
    for issue in found:
        assert issue["severity"] == "info"
        assert issue["message"].startswith(f"chunk {issue['chunk'] + 1} is all decoration — ")
        assert issue["data"]["region"] in issue["message"]
    spans = {c["index"]: (c["start"], c["end"])
             for c in json.loads(run(capsys, "chunks", str(readme), "--format", "json")[1])}
    text = readme.read_text(encoding="utf-8")
    flagged = [text[slice(*spans[i["chunk"]])] for i in found]
    # the badge header and the "Stay In Touch" link list, not the paragraphs of prose around them
    assert flagged[0].startswith("# vuejs/core [![npm]")
    assert any("- [Bluesky](" in f for f in flagged)
    for sentence in ("Issues not conforming to the guidelines", "read the [Contributing Guide]"):
        assert sentence in text and not any(sentence in f for f in flagged)


def test_decoration_chunk_not_on_content():
    prose = ("# Retries\n\nThe client retries failed requests three times before it gives up. "
             "Each attempt waits twice as long as the one before.\n\n"
             "See [the guide](guide.md) for the settings.\n")
    doc = Document(prose)
    chunks = [{"start": 0, "end": prose.index("See")}, {"start": prose.index("See"), "end": len(prose)}]
    on = Settings(min_tokens=0, extend_select=("CS106",))
    assert codes_of(validate(doc, chunks, on), "CS106") == []
    badges = ("[![CI](https://img.shields.io/badge/ci-passing-green.svg)](https://ci.example.com/x) "
              "[![PyPI](https://img.shields.io/badge/pypi-1.2-blue.svg)](https://pypi.org/project/x)\n\n")
    doc = Document(badges + prose)
    chunks = [{"start": 0, "end": len(badges)}, {"start": len(badges), "end": len(badges + prose)}]
    (i,) = codes_of(validate(doc, chunks, on), "CS106")
    assert i.chunk == 0 and "badge" in i.data["region"]
    assert codes_of(validate(doc, chunks, Settings(min_tokens=0)), "CS106") == []
