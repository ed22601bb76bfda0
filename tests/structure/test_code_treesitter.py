"""Code in JavaScript, TypeScript, Go, Rust and Java through tree-sitter (the
``code`` extra): structure with exact character spans, the ``code`` strategy
by definitions, CS201/CS202 per language, and the fallback without the extra."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from clikit import run as cli_run
from conftest import corpus_files
from cutkit import marked

from chunkseam.structure import treesitter as tsstructure
from chunkseam.chunkers import get, route
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import get_sizer
from chunkseam.structure.treesitter import code_language, ts_structure
from chunkseam.engine.validate import validate

pytest.importorskip("tree_sitter")

CODE = get("code")
TOK = get_sizer("tokens", "cl100k_base")
CHARS = get_sizer("chars")
S = Settings(min_tokens=0)

#: language, corpus folder, suffix
CORPUS = [("ts", "code/ts", "*.ts"), ("go", "code/go", "*.go"), ("rust", "code/rust", "*.rs"),
          ("java", "code/java", "*.java")]


def check_chunks(doc, chunks, size, sizer=TOK):
    text = doc.text
    ps = ts_structure(doc)
    assert ps is not None and ps.ok, (doc.path, ps and ps.error)
    units = list(ps.module)
    for d in ps.definitions:
        units.extend(d.body)
    prev_end = 0
    for i, c in enumerate(chunks):
        assert c.index == i and c.strategy == "code" and not c.meta.get("fallback")
        assert 0 <= c.start < c.end <= len(text) and c.start >= prev_end
        # nothing but whitespace is left between chunks (covering)
        assert not text[prev_end : c.start].strip(), (doc.path, text[prev_end : c.start][:80])
        prev_end = c.end
        assert c.tokens == sizer.count(c.text) and c.oversize == (c.tokens > size)
        for cut in (c.start, c.end):
            d = ps.split_definition(cut)
            assert d is None, (doc.path, ps.label_of(d), d.qualname, text[cut - 40 : cut + 40])
            assert ps.string_at(cut) is None, (doc.path, text[cut - 40 : cut + 40])
        if c.oversize:  # one unit, maybe with its container's header glued before it
            assert any(u.end >= c.end - 1 and u.start >= c.start for u in units) or (
                "\n" not in c.text.strip()), (doc.path, c.text[:120])
    assert not text[prev_end:].strip()


@pytest.mark.parametrize("language,folder,pattern", CORPUS)
def test_corpus_chunks_never_cut_a_definition_or_a_string(language, folder, pattern):
    files = corpus_files(folder.split("/")[0], f"{folder.split('/')[1]}/**/{pattern}")
    assert files
    files = files[:: max(1, len(files) // 12)]  # a bounded sample across the set
    total = 0
    for size in (128, 400):
        for path in files:
            doc = Document.from_path(path)
            assert code_language(doc) == language
            assert route(doc) == "code"
            chunks = CODE.chunk(doc, TOK, size=size)
            check_chunks(doc, chunks, size)
            total += len(chunks)
    assert total > 2 * len(files)


JS = """\
import { x } from "./x";
import y from "y";

/** Adds. */
export function add(a, b) {
  return a + b;
}

@sealed
class Router {
  // the routes
  routes = [];

  /** Adds a route. */
  add(path) {
    this.routes.push(path);
  }

  find(path) {
    return this.routes.find((r) => r === path);
  }
}

const greet = (name) => `héllo ${name} 🎉`;
"""


def test_js_structure_with_decorators_doc_comments_and_arrow_functions():
    doc = Document(JS, path="src/router.js")
    ps = ts_structure(doc)
    assert ps.ok
    kinds = [(u.kind, JS[u.start : u.end].split("\n")[0]) for u in ps.module]
    assert kinds == [("import", 'import { x } from "./x";'), ("import", 'import y from "y";'),
                     ("function", "/** Adds. */"), ("class", "@sealed"),
                     ("function", "const greet = (name) => `héllo ${name} 🎉`;")]
    router = next(d for d in ps.definitions if d.name == "Router")
    assert router.kind == "class" and ps.label_of(router) == "class"
    members = [JS[u.start : u.end].strip().split("\n")[0] for u in router.body]
    assert members == ["// the routes", "/** Adds a route. */", "find(path) {"]
    # the closing brace of the class goes with its last member
    assert JS[router.body[-1].start : router.body[-1].end].endswith("}\n}")
    find = next(d for d in ps.definitions if d.name == "find")
    assert find.qualname == ("Router", "find") and ps.label_of(find) == "method"


def test_byte_offsets_become_character_offsets_with_cjk_and_emoji():
    src = ('// 日本語のコメント 🎉🎉\n'
           'fn main() {\n    let s = "héllo 世界 👩‍👩‍👧";\n    let r = r#"raw 🎉"#;\n}\n\n'
           '/// 説明\nstruct 点 { x: i32 }\n')
    ps = ts_structure(src, "rust")
    assert ps.ok
    assert [src[s.start : s.end] for s in ps.strings] == ['"héllo 世界 👩‍👩‍👧"', 'r#"raw 🎉"#']
    names = {d.name: src[d.start : d.end] for d in ps.definitions}
    assert names["点"] == "/// 説明\nstruct 点 { x: i32 }"
    assert names["main"].startswith("// 日本語のコメント 🎉🎉\nfn main()")
    assert names["main"].endswith("}")
    java = 'class Ä {\n  String s = "ü€😀";\n  void m() {}\n}\n'
    pj = ts_structure(java, "java")
    assert [java[s.start : s.end] for s in pj.strings] == ['"ü€😀"']
    assert java[pj.definitions[-1].start : pj.definitions[-1].end] == "  void m() {}"


def test_a_big_container_is_split_between_members_and_named():
    methods = "\n\n".join(
        f"    /// Method {i}.\n    fn m{i}(&self) -> u32 {{\n        let v = {i} * 2;\n"
        f"        v + {i}\n    }}" for i in range(12))
    src = f"use std::fmt;\n\nstruct S;\n\nimpl S {{\n{methods}\n}}\n\nfn tail() {{}}\n"
    doc = Document(src, path="lib.rs")
    chunks = CODE.chunk(doc, TOK, size=60)
    check_chunks(doc, chunks, 60)
    assert chunks[0].text == "use std::fmt;"
    assert chunks[1].text == "struct S;" and chunks[1].heading_path == ("S",)
    impl = [c for c in chunks[2:] if c.heading_path and c.heading_path[0] == "S"]
    assert len(impl) > 2 and impl[0].text.startswith("impl S {")
    assert any(c.text.rstrip().endswith("}\n}") for c in impl)
    assert chunks[-1].heading_path == ("tail",)


def test_go_header_is_package_and_imports():
    src = ('package main\n\nimport (\n\t"fmt"\n)\n\n// Hello says hello.\n'
           'func Hello() {\n\tfmt.Println("hi")\n}\n\n'
           'type T struct{ A int }\n\nfunc (t T) M() int { return t.A }\n')
    doc = Document(src, path="main.go")
    chunks = CODE.chunk(doc, CHARS, size=50)
    check_chunks(doc, chunks, 50, CHARS)
    assert chunks[0].text == 'package main\n\nimport (\n\t"fmt"\n)'
    assert chunks[1].heading_path == ("Hello",) and chunks[1].text.startswith("// Hello")


BAD_CUTS = [
    ("a.js", "function f(a) {\n  const x = 1;\n✂  return x;\n}\n", "CS201", "inside function f"),
    ("a.ts", "interface Opts {\n✂  a: string;\n  b: number;\n}\n", "CS201",
     "inside interface Opts"),
    ("a.tsx", "class C {\n  m() {\n    return 1;\n✂  }\n}\n", "CS201", "inside method C.m"),
    ("a.go", "func F() {\n\tx := 1\n✂\t_ = x\n}\n", "CS201", "inside function F"),
    ("a.rs", "impl Foo {\n    fn a(&self) {\n        one();\n✂        two();\n    }\n}\n",
     "CS201", "inside method Foo::a"),
    ("A.java", "class A {\n  void m() {\n    int a = 1;\n✂    a++;\n  }\n}\n", "CS201",
     "inside method A.m"),
    # file-level bindings are definitions: their initialiser, their doc comment
    ("a.ts", "export const KEY = Symbol(\n  `key`,\n✂);\n", "CS201", "inside constant KEY"),
    ("a.ts", "/**\n * The key.\n */\n✂export const KEY = Symbol('key');\n", "CS201", "inside constant KEY"),
    ("a.js", "let handlers = {\n  a: f(\n    1,\n✂    2),\n};\n", "CS201", "inside variable handlers"),
    ("a.ts", "const o = {\n  m() {\n    one()\n✂    two()\n  },\n};\n", "CS201", "inside method o.m"),
    ("a.ts", "/** Options. */\n✂export type Opts = { a: string };\n", "CS201", "inside type Opts"),
    ("a.js", "export default {\n  name: 'x',\n  data: [\n    1,\n✂    2],\n};\n", "CS201",
     "inside export default"),
    ("a.go", "const (\n\tA = iota\n✂\tB\n)\n", "CS201", "inside constant block (A … B)"),
    ("a.go", "// mu guards m.\n✂var mu sync.Mutex\n", "CS201", "inside variable mu"),
    ("a.rs", "/// The limit.\n✂const LIMIT: usize = 3;\n", "CS201", "inside const LIMIT"),
    ("a.js", 'const s = "one two ✂three";\n', "CS202", "inside a string literal"),
    ("a.ts", "const s = `one ${x} ✂three`;\n", "CS202", "inside a template string"),
    ("a.go", "var s = `raw\n✂string`\n", "CS202", "inside a string literal"),
    ("a.rs", 'fn f() { let s = "a b ✂c"; }\n', "CS202", "inside a string literal"),
    ("A.java", 'class A { String s = """\n  text\n✂  block"""; }\n', "CS202",
     "inside a string literal"),
]


@pytest.mark.parametrize("path,marked_text,code,message", BAD_CUTS)
def test_a_bad_cut_is_reported_per_language(path, marked_text, code, message):
    doc, chunks, _ = marked(marked_text, kind="code", path=path)
    issues = [i for i in validate(doc, chunks, S) if i.cut is not None]
    assert [i.code for i in issues] == [code], [(i.code, i.message) for i in issues]
    assert message in issues[0].message


def test_cuts_between_members_and_between_definitions_are_clean():
    for path, text in [
        ("a.rs", "impl Foo {\n    fn a(&self) {}\n✂\n    fn b(&self) {}\n}\n"),
        ("A.java", "class A {\n  void m() {}\n✂  void n() {}\n}\n"),
        ("a.go", "func F() {}\n✂\nfunc G() {}\n"),
        ("a.ts", "export class A {}\n✂export class B {}\n"),
        # between two bindings, and between a binding and a function
        ("a.ts", "export const A = Symbol('a');\n✂export const B = {\n  b: 1,\n};\n"),
        ("a.go", "var x = 1\n\n✂func F() {}\n"),
        # a big object or array literal is divided between its entries, as a class between members
        ("a.ts", "export const errors = {\n  a: `one`,\n✂  b: `two`,\n  m() {},\n};\n"),
        ("a.js", "export default {\n  name: 'x',\n✂  data: 1,\n};\n"),
        ("a.js", "const A = [\n  'a',\n✂  'b',\n];\n"),
    ]:
        doc, chunks, _ = marked(text, kind="code", path=path)
        assert [i.code for i in validate(doc, chunks, S) if i.cut is not None] == [], path


def test_names_are_written_the_language_s_way():
    cases = [
        ("a.go", "type Mux struct{}\n\nfunc (mx *Mux) Serve() {\n\tx := 1\n✂\t_ = x\n}\n",
         "inside method (*Mux).Serve"),
        ("a.go", "type T struct{}\n\nfunc (t T) Get() {\n\tx := 1\n✂\t_ = x\n}\n", "inside method T.Get"),
        ("a.rs", "impl Visitor for Seq {\n    fn visit(&self) {\n        one();\n✂        two();\n    }\n}\n",
         "inside method <Seq as Visitor>::visit"),
        ("a.rs", "mod m {\n    fn f() {\n        one();\n✂        two();\n    }\n}\n", "inside function m::f"),
    ]
    for path, text, words in cases:
        doc, chunks, _ = marked(text, kind="code", path=path)
        (issue,) = [i for i in validate(doc, chunks, S) if i.code == "CS201"]
        assert words in issue.message, (path, issue.message)


def test_a_cut_in_the_indentation_before_a_member_is_between_members():
    for path, text in [
        ("A.java", "class A {\n  void m() {}\n\n  ✂/** Doc. */\n  void n() {}\n}\n"),
        ("a.rs", "impl Foo {\n    fn a(&self) {}\n\n    ✂fn b(&self) {}\n}\n"),
        ("a.ts", "class C {\n  m() {}\n\n  ✂n() {}\n}\n"),
    ]:
        doc, chunks, _ = marked(text, kind="code", path=path)
        assert [i.code for i in validate(doc, chunks, S) if i.cut is not None] == [], path


def test_oversize_names_the_definition_kept_whole():
    body = "".join(f"\tx{i} := compute({i})\n" for i in range(40))
    doc = Document(f"package p\n\nfunc Small() {{}}\n\nfunc Big() {{\n{body}}}\n", path="a.go")
    chunks = CODE.chunk(doc, TOK, size=60)
    s = Settings(chunker="code", size=60, unit="tokens", min_tokens=0)
    got = [i.message for i in validate(doc, chunks, s, sizer=TOK) if i.code == "CS101"]
    assert len(got) == 1 and "(function Big kept whole)" in got[0], got


def test_impl_block_message_names_the_trait():
    doc, chunks, _ = marked("impl Display for Foo {\n✂    fn fmt(&self) {}\n}\n", kind="code",
                            path="a.rs")
    (issue,) = [i for i in validate(doc, chunks, S) if i.code == "CS201"]
    assert "inside impl block Display for Foo" in issue.message


def test_a_syntax_error_falls_back_and_says_where():
    doc = Document("function ok() { return 1 }\n\nfunction bad( {\n", path="x.js")
    chunks = CODE.chunk(doc, TOK, size=20)
    assert chunks and chunks[0].meta["fallback"] == "recursive (js separators)"
    assert "syntax error" in chunks[0].meta["reason"] and "line 3" in chunks[0].meta["reason"]


def test_without_the_extra_the_recursive_fallback_stays_and_says_so(monkeypatch):
    monkeypatch.setattr(tsstructure, "_LANGUAGES", {})
    monkeypatch.setattr(tsstructure._LOCAL, "parsers", {})
    monkeypatch.setitem(sys.modules, "tree_sitter_go", None)  # import fails
    doc = Document("package p\n\nfunc F() {}\n", path="p.go")
    chunks = CODE.chunk(doc, TOK, size=20)
    expected = get("recursive").chunk(doc, TOK, size=20, language="go")
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in expected]
    assert chunks[0].meta["fallback"] == "recursive (go separators)"
    assert "chunkseam[code]" in chunks[0].meta["reason"]
    assert "tree-sitter-go" in chunks[0].meta["reason"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from(list("fn class{}()\"'`;/*\n\t 日🎉#[]@<>=")) | st.characters(),
                    max_size=200),
       path=st.sampled_from(["a.js", "a.ts", "a.tsx", "a.go", "a.rs", "A.java"]),
       size=st.integers(min_value=4, max_value=60))
def test_any_input_gives_valid_spans_and_no_exception(text, path, size):
    doc = Document(text, path=path)
    chunks = CODE.chunk(doc, CHARS, size=size)
    prev = 0
    for c in chunks:
        assert prev <= c.start < c.end <= len(text)
        prev = c.end
    issues = validate(doc, chunks, S)
    for i in issues:
        assert 0 <= i.start <= i.end <= len(text)
    assert CODE.chunk(doc, CHARS, size=size) == chunks  # deterministic


def test_cli_lint_reports_a_split_method_and_the_code_strategy_does_not(tmp_path, capsys):
    body = "\n".join(f"    int v{i} = compute({i});" for i in range(20))
    src = f"class Big {{\n  void run() {{\n{body}\n  }}\n}}\n"
    path = tmp_path / "Big.java"
    path.write_text(src)
    rc, out, _ = cli_run(capsys, "lint", "--chunker", "fixed", "--unit", "chars", "--size", "200",
                         str(path))
    assert rc == 1 and "CS201 [split-definition]" in out and "inside method Big.run" in out
    rc, out, _ = cli_run(capsys, "lint", "--chunker", "code", "--size", "60", str(path))
    assert "CS201" not in out and "CS202" not in out, out


def test_lint_of_a_directory_picks_up_code_files(tmp_path, capsys):
    for name in ("main.go", "lib.rs", "App.java", "a.ts", "b.tsx", "c.js", "d.mjs"):
        (tmp_path / name).write_text("// a file\n")
    (tmp_path / "data.bin").write_text("x\n")
    rc, out, _ = cli_run(capsys, "lint", "--format", "json", str(tmp_path))
    assert rc == 0, out
    files = {Path(f["path"]).name for f in json.loads(out)["files"]}
    assert files == {"main.go", "lib.rs", "App.java", "a.ts", "b.tsx", "c.js", "d.mjs"}


def test_suppression_comments_in_code():
    text = "function f(a) { // chunkseam: ignore[CS201]\n  const x = 1;\n✂  return x;\n}\n"
    doc, chunks, _ = marked(text, kind="code", path="a.js")
    assert [i.code for i in validate(doc, chunks, S)] == []
    text = "fn f() {\n    let s = \"a b ✂c\";\n}\n"
    doc, chunks, _ = marked(text, kind="code", path="a.rs")
    assert [i.code for i in validate(doc, chunks, S)] == ["CS202"]
    doc, chunks, _ = marked("/* chunkseam: ignore-file[CS202] */\n" + text, kind="code",
                            path="a.rs")
    assert [i.code for i in validate(doc, chunks, S)] == []
    # the same words inside a string suppress nothing
    text = 'func F() {\n\ts := "// chunkseam: ignore[CS201]"\n✂\t_ = s\n}\n'
    doc, chunks, _ = marked(text, kind="code", path="a.go")
    assert [i.code for i in validate(doc, chunks, S) if i.cut is not None] == ["CS201"]


@pytest.mark.parametrize("language,folder,pattern", CORPUS)
def test_llamaindex_code_splitter_cuts_through_definitions_are_reported(language, folder,
                                                                        pattern):
    """Differential: LlamaIndex's CodeSplitter (its grammar passed in as a
    parser, nothing downloaded) cuts big definitions; chunkseam reports each of
    those cuts, and its own ``code`` chunks of the same files cut none that fits."""
    from llama_index.core.node_parser import CodeSplitter

    from cutkit import make_chunks

    files = corpus_files(folder.split("/")[0], f"{folder.split('/')[1]}/**/{pattern}")
    files = files[:: max(1, len(files) // 4)][:4]
    splitter = CodeSplitter(language=language, parser=tsstructure._parser(language),
                            max_chars=800, chunk_lines=20)
    reported = split = 0
    for path in files:
        doc = Document.from_path(path)
        text = doc.text
        spans, at = [], 0
        for piece in splitter.split_text(text):
            start = text.find(piece, at)
            assert start >= 0, (path, piece[:60])
            spans.append((start, start + len(piece)))
            at = start + len(piece)
        ps = ts_structure(doc)
        issues = validate(doc, make_chunks(text, spans), S)
        by_cut = {i.cut: i.code for i in issues if i.cut is not None}
        for (_, end), _nxt in zip(spans, spans[1:]):
            if ps.split_definition(end) is not None:
                split += 1
                # the cut is reported: split-definition, or a more specific verdict
                assert by_cut.get(end) in ("CS201", "CS202", "CS001"), (path, text[end - 40 : end + 40])
                reported += by_cut.get(end) == "CS201"
        ours = CODE.chunk(doc, CHARS, size=800)
        for c in ours:
            assert ps.split_definition(c.end) is None
    print(f"{language}: {split} LlamaIndex cuts split a definition, {reported} reported as CS201")
    assert split and reported, "LlamaIndex's splitter cuts through definitions in this sample"


def test_threads_parse_with_their_own_parsers():
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"fn f{i}() {{ let s = \"{'日' * i}\"; }}\n" * 50 for i in range(8)]
    expected = [[(d.start, d.end) for d in ts_structure(t, "rust").definitions] for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: [(d.start, d.end) for d in
                                       ts_structure(t, "rust").definitions], texts * 4))
    assert got == expected * 4


def test_cli_chunks_says_when_it_falls_back(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.go"
    path.write_text("package p\n\nfunc F() {}\n")
    rc, out, _ = cli_run(capsys, "chunks", str(path))
    assert rc == 0 and "fell back" not in out
    monkeypatch.setattr(tsstructure, "_LANGUAGES", {})
    monkeypatch.setattr(tsstructure._LOCAL, "parsers", {})
    monkeypatch.setitem(sys.modules, "tree_sitter_go", None)
    rc, out, _ = cli_run(capsys, "chunks", str(path))
    assert rc == 0
    assert "fell back to recursive (go separators): tree-sitter or tree-sitter-go is not installed" in out
    assert "chunkseam[code]" in out


def test_the_tree_walk_finds_the_strings_and_comments_the_query_finds(monkeypatch):
    import tree_sitter

    samples = {lang: corpus_files(folder.split("/")[0], f"{folder.split('/')[1]}/**/{pattern}")[:3]
               for lang, folder, pattern in CORPUS}
    by_query = {}
    for lang, files in samples.items():
        for f in files:
            ps = ts_structure(f.read_text(encoding="utf-8"), lang)
            by_query[f] = (ps.strings, ps.comments)
    assert sum(len(s) for s, _ in by_query.values()) > 20
    assert sum(len(c) for _, c in by_query.values()) > 20
    monkeypatch.setattr(tsstructure, "_QUERIES", {})
    monkeypatch.setattr(tree_sitter, "Query", None)  # calling it fails: the walk takes over
    for lang, files in samples.items():
        for f in files:
            ps = ts_structure(f.read_text(encoding="utf-8"), lang)
            assert (ps.strings, ps.comments) == by_query[f], f
