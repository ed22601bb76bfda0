"""``chunkseam init``: how pipelines are really written, the TOML it writes, and
where it may write.

Every pattern is a small project in a temporary directory, read statically
(never imported); the CLI is the real one. The property test generates
splitter calls with arbitrary literal arguments: ``init`` never stops with a
traceback and what it writes is TOML that parses and holds the values found.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import tomllib
from pathlib import Path

import pytest
from chunkseam.init import scaffold as init
from chunkseam.config.loader import load_config_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    return repo


def run_init(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunkseam", "init", *args], capture_output=True,
                          text=True, check=False)


def only(repo: Path) -> init.Finding:
    found = init.find_pipelines(repo)
    assert len(found) == 1, found
    return found[0]


def test_separators_with_newlines_are_written_as_toml(tmp_path):
    repo = project(tmp_path, {"ingest.py": '''
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=500, chunk_overlap=50, separators=["\\n\\n", "\\n", " ", ""])
        '''})
    dry = run_init(str(repo), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    body = dry.stdout[dry.stdout.index(f"# {repo / 'chunkseam.toml'}"):]  # what it would write
    assert tomllib.loads(body)["chunker-options"]["separators"] == ["\n\n", "\n", " ", ""]
    out = run_init(str(repo))
    assert out.returncode == 0, out.stderr
    assert load_config_file(repo / "chunkseam.toml") == {
        "chunker": "langchain", "size": 500, "overlap": 50, "unit": "chars",
        "chunker-options": {"separators": ["\n\n", "\n", " ", ""]}}


def test_appending_to_pyproject_keeps_its_comments_and_layout(tmp_path):
    original = ('# the project\n[project]\nname = "demo"  # its name\n\n'
                '[tool.ruff]\nline-length = 100\n')
    repo = project(tmp_path, {"pyproject.toml": original, "a.py": '''
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        s = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=80)
        '''})
    out = run_init(str(repo))
    assert out.returncode == 0, out.stderr
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(original)
    data = tomllib.loads(text)
    assert data["tool"]["ruff"] == {"line-length": 100}
    assert data["tool"]["chunkseam"]["size"] == 800


def test_semchunk_overlap_given_at_call_time(tmp_path):
    f = only(project(tmp_path, {"index.py": '''
        import semchunk
        chunker = semchunk.chunkerify("cl100k_base", 256)
        chunks = chunker(texts, overlap=30)
        '''}))
    assert f.settings["size"] == 256 and f.settings["overlap"] == 30
    assert any("overlap 30 from the call at line 4" in n for n in f.notes)


def test_semchunk_chunk_function_is_found(tmp_path):
    f = only(project(tmp_path, {"index.py": '''
        import semchunk
        def split(text, counter):
            return semchunk.chunk(text, chunk_size=300, token_counter=counter, overlap=20)
        '''}))
    assert f.library == "semchunk"
    assert (f.settings["size"], f.settings["overlap"]) == (300, 20)


def test_llamaindex_token_splitter_separator_is_kept(tmp_path):
    f = only(project(tmp_path, {"p.py": '''
        from llama_index.core.node_parser import TokenTextSplitter
        s = TokenTextSplitter(chunk_size=256, chunk_overlap=10, separator="\\n")
        '''}))
    assert f.settings["chunker-options"] == {"splitter": "TokenTextSplitter", "separator": "\n"}


def test_llamaindex_from_defaults_and_global_settings(tmp_path):
    f = only(project(tmp_path, {"p.py": '''
        from llama_index.core.node_parser import SentenceSplitter
        parser = SentenceSplitter.from_defaults(chunk_size=300, chunk_overlap=30)
        '''}))
    assert (f.library, f.settings["size"], f.settings["overlap"]) == ("llamaindex", 300, 30)
    g = only(project(tmp_path / "g", {"p.py": '''
        from llama_index.core import Settings
        Settings.chunk_size = 512
        Settings.chunk_overlap = 20
        '''}))
    assert (g.library, g.line, g.settings["size"], g.settings["overlap"]) == \
        ("llamaindex", 3, 512, 20)
    assert "Settings.chunk_size = 512" in g.call


def test_llamaindex_reader_is_found(tmp_path):
    f = only(project(tmp_path, {"ingest.py": '''
        from llama_index.core import SimpleDirectoryReader
        from llama_index.core.ingestion import IngestionPipeline
        from llama_index.core.node_parser import SentenceSplitter
        docs = SimpleDirectoryReader("docs").load_data()
        pipeline = IngestionPipeline(transformations=[SentenceSplitter(chunk_size=128,
                                                                       chunk_overlap=16)])
        '''}))
    assert f.settings["chunker-options"] == {"reader": "SimpleDirectoryReader"}


def test_chonkie_old_tokenizer_keyword_and_recipes(tmp_path):
    f = only(project(tmp_path, {"c.py": '''
        from chonkie import TokenChunker
        c = TokenChunker(tokenizer_or_token_counter="gpt-4o", chunk_size=300, chunk_overlap=30)
        '''}))
    assert (f.settings["unit"], f.settings["encoding"]) == ("tokens", "gpt-4o")
    g = only(project(tmp_path / "g", {"c.py": '''
        from chonkie import RecursiveChunker
        c = RecursiveChunker.from_recipe("markdown", lang="en")
        '''}))
    assert g.settings["unit"] == "chars" and "encoding" not in g.settings
    assert any("recipe 'markdown' is not simulated" in n for n in g.notes)


def test_haystack_sentence_split_is_refused_at_init(tmp_path):
    repo = project(tmp_path, {"h.py": '''
        from haystack.components.preprocessors import DocumentSplitter
        s = DocumentSplitter(split_by="sentence", split_length=3)
        '''})
    out = run_init(str(repo))
    assert out.returncode == 2
    assert "cannot simulate this pipeline" in out.stderr and "NLTK" in out.stderr
    assert not (repo / "chunkseam.toml").exists()


def test_values_through_defaults_and_imported_constants(tmp_path):
    repo = project(tmp_path, {
        "app/__init__.py": "",
        "app/config.py": "CHUNK_SIZE = 700\nOVERLAP = 70\nSEPS = ['\\n\\n', '\\n']\n",
        "app/consts.py": "from .config import CHUNK_SIZE as SIZE\n",
        "app/ingest.py": '''
            from langchain_text_splitters import RecursiveCharacterTextSplitter
            from app.config import OVERLAP, SEPS
            from .consts import SIZE

            def make(size=SIZE, overlap=OVERLAP):
                return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap,
                                                      separators=SEPS)
            '''})
    f = only(repo)
    assert (f.settings["size"], f.settings["overlap"]) == (700, 70)
    assert f.settings["chunker-options"]["separators"] == ["\n\n", "\n"]
    assert not any("not a literal" in n for n in f.notes)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")
def test_writes_never_leave_the_project_through_links(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    theirs = other / "pyproject.toml"
    theirs.write_text('[project]\nname = "theirs"\n', encoding="utf-8")
    repo = project(tmp_path, {"a.py": '''
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        s = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=80)
        '''})
    (repo / "pyproject.toml").symlink_to(theirs)
    out = run_init(str(repo))
    assert out.returncode == 2 and "leaves the project" in out.stderr
    assert theirs.read_text(encoding="utf-8") == '[project]\nname = "theirs"\n'
    (repo / "pyproject.toml").unlink()
    planted = tmp_path / "planted.toml"
    (repo / "chunkseam.toml").symlink_to(planted)  # dangling
    out = run_init(str(repo), "--force")
    assert out.returncode == 2 and "does not exist" in out.stderr
    assert not planted.exists()
    (repo / "chunkseam.toml").unlink()
    os.mkfifo(repo / "chunkseam.toml")
    out = run_init(str(repo), "--force")
    assert out.returncode == 2 and "not a regular file" in out.stderr
    (repo / "chunkseam.toml").unlink()
    inside = repo / "config" / "chunkseam.toml"  # a link inside the project is followed
    inside.parent.mkdir()
    inside.write_text("", encoding="utf-8")
    (repo / "chunkseam.toml").symlink_to(inside)
    out = run_init(str(repo), "--force")
    assert out.returncode == 0, out.stderr
    assert load_config_file(inside)["size"] == 800


def test_a_file_name_cannot_inject_settings(tmp_path):
    name = 'x\nplugins = ["evil"]\nallow-network = true\n[tool.x]\n#.py'
    repo = project(tmp_path, {name: '''
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        s = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=80)
        '''})
    out = run_init(str(repo))
    assert out.returncode == 0, out.stderr
    data = tomllib.loads((repo / "chunkseam.toml").read_text(encoding="utf-8"))
    assert data == {"chunker": "langchain", "size": 800, "overlap": 80, "unit": "chars"}
    assert "\\n" in (repo / "chunkseam.toml").read_text(encoding="utf-8")  # named, escaped


# --- property: any splitter call gives valid TOML or a clear refusal ----------------------------

_CALLS = [
    ("from langchain_text_splitters import RecursiveCharacterTextSplitter",
     "RecursiveCharacterTextSplitter", ["chunk_size", "chunk_overlap", "separators",
                                        "keep_separator", "is_separator_regex"]),
    ("from langchain_text_splitters import CharacterTextSplitter", "CharacterTextSplitter",
     ["chunk_size", "chunk_overlap", "separator", "strip_whitespace"]),
    ("from llama_index.core.node_parser import SentenceSplitter", "SentenceSplitter",
     ["chunk_size", "chunk_overlap", "separator", "paragraph_separator"]),
    ("from llama_index.core.node_parser import TokenTextSplitter", "TokenTextSplitter",
     ["chunk_size", "chunk_overlap", "separator", "backup_separators"]),
    ("from chonkie import TokenChunker", "TokenChunker", ["tokenizer", "chunk_size",
                                                          "chunk_overlap"]),
    ("import semchunk", "semchunk.chunkerify", ["tokenizer_or_token_counter", "chunk_size"]),
    ("from semantic_text_splitter import MarkdownSplitter", "MarkdownSplitter",
     ["capacity", "overlap", "trim"]),
    ("from haystack.components.preprocessors import DocumentSplitter", "DocumentSplitter",
     ["split_by", "split_length", "split_overlap"]),
]

_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
            | st.floats(allow_nan=True) | st.text(max_size=8) | st.binary(max_size=4))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=3), inner,
                                                                   max_size=2), max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(_CALLS), data=st.data(),
       file_name=st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=12))
def test_any_splitter_call_gives_valid_toml_or_a_clear_refusal(which, data, file_name):
    imports, callee, keys = which
    chosen = data.draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))
    args = ", ".join(f"{k}={data.draw(_values)!r}" for k in chosen)
    source = f"{imports}\nsplitter = {callee}({args})\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        try:
            (root / f"{file_name}.py").write_text(source, encoding="utf-8")
        except (OSError, UnicodeEncodeError, ValueError):
            (root / "p.py").write_text(source, encoding="utf-8")
        found = init.find_pipelines(root)
        assert len(found) == 1, source
        f = found[0]
        comments = [f"written by `chunkseam init` from {f.where}: {f.call}",
                    *(f"note: {n}" for n in f.notes)]
        try:
            path = init.write(root, f.settings, comments)
        except init.InitError as exc:
            assert str(exc) and "nothing written" in str(exc)
            assert not (root / "chunkseam.toml").exists()
            return
        written = tomllib.loads(path.read_text(encoding="utf-8"))
        assert written == f.settings  # the values round-trip, no key added
