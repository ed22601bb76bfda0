"""The public API: plain split_text strings are located like `audit` does; the API is typed
(mypy --strict on a user's script); one place for the version."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chunkseam
from chunkseam import Settings

ROOT = Path(__file__).resolve().parents[2]
TEXT = ("# Guide\n\nRestart the service. Then check the logs.\n\n"
        "Restart the service. Then check the logs.\n")


def test_plain_strings_are_located_like_audit_does() -> None:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    doc = chunkseam.load(TEXT)
    texts = RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=0).split_text(TEXT)
    assert texts.count("Restart the service. Then") == 2  # repeated text: a search would misplace it
    got = chunkseam.validate(doc, texts, Settings(min_tokens=0))
    codes = [i.code for i in got]
    assert "CS302" not in codes and "CS304" not in codes and "CS301" not in codes
    # the same issues as for chunks with true offsets
    spans, at = [], 0
    for t in texts:
        at = TEXT.index(t, at)
        spans.append({"start": at, "end": at + len(t), "text": t})
        at += len(t)
    want = chunkseam.validate(doc, spans, Settings(min_tokens=0))
    assert [(i.code, i.start, i.end, i.chunk) for i in got] == [(i.code, i.start, i.end, i.chunk) for i in want]
    assert [i.chunk for i in got if i.code == "CS002"] == [1, 3]  # the second copy is chunk 4, not 2


def test_strings_not_in_the_document_get_the_text_only_checks() -> None:
    got = chunkseam.validate(chunkseam.load(TEXT), ["nothing like the document and no end", "x"])
    assert {i.code for i in got} <= {"CS401", "CS402", "CS403", "CS404", "CS405"} and got


USER_SCRIPT = '''
from __future__ import annotations

import chunkseam
from chunkseam import Chunk, Document, Issue, Settings


def main(path: str) -> int:
    doc: Document = chunkseam.load(path)
    chunks: list[Chunk] = chunkseam.chunk(doc, "recursive", size=256, overlap=32)
    issues: list[Issue] = chunkseam.validate(doc, chunks, Settings(min_tokens=0))
    more: list[Issue] = chunkseam.validate(doc, [c.text for c in chunks])
    for i in issues + more:
        print(i.code, i.severity, i.message, i.start, i.end, i.chunk)
    print(chunkseam.__version__)
    return len(issues)
'''

MISUSE = '''
import chunkseam

n: int = chunkseam.validate(chunkseam.load("# T\\n\\nText.\\n"), ["# T", "Text."])
chunkseam.chunk("# T\\n", size="big")
'''


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / name).write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_mypy_strict_on_a_user_script(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    ok = mypy(tmp_path, "user.py", USER_SCRIPT)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # the types are real: misuse is caught
    bad = mypy(tmp_path, "bad.py", MISUSE)
    assert bad.returncode == 1
    assert 'expression has type "list[Issue]", variable has type "int"' in bad.stdout
    assert 'Argument "size" to "chunk" has incompatible type "str"; expected "int"' in bad.stdout


def test_one_place_for_the_version() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "chunkseam.core.version.__version__"}
    from importlib.metadata import version

    assert version("chunkseam") == chunkseam.__version__
    package = json.loads((ROOT / "client-vscode" / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == chunkseam.__version__, "bump client-vscode/package.json with __version__"
    minimum = re.search(r'MIN_SERVER_VERSION = "([^"]+)"',
                        (ROOT / "client-vscode" / "src" / "version.ts").read_text(encoding="utf-8")).group(1)

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v)[:3])

    assert key(minimum) <= key(chunkseam.__version__), "the client cannot need a server newer than this one"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[?{re.escape(chunkseam.__version__)}\]?", changelog, flags=re.M)


def test_metadata_classifiers_and_bounds() -> None:
    from importlib.metadata import metadata, version

    from packaging.requirements import Requirement

    meta = metadata("chunkseam")
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert f"Programming Language :: Python :: {sys.version_info.major}.{sys.version_info.minor}" in classifiers
    assert (ROOT / "server" / "chunkseam" / "py.typed").is_file()
    requires = {Requirement(r).name: Requirement(r) for r in meta.get_all("Requires-Dist") or []}
    # bounded where chunkseam uses the library's internals; the installed (newest allowed) release is tested
    for name in ("pygls", "tiktoken"):
        spec = requires[name].specifier
        assert any(s.operator == "<" for s in spec), name
        assert version(name) in spec
    assert "treesitter" not in (meta.get_all("Provides-Extra") or [])


def test_the_internals_chunkseam_relies_on_are_there() -> None:
    import pygls.io_
    import pygls.protocol.json_rpc
    import tiktoken.load

    assert hasattr(pygls.io_, "StdoutWriter") and hasattr(pygls.protocol.json_rpc, "RPCRequest")
    for name in ("read_file_cached", "load_tiktoken_bpe", "data_gym_to_mergeable_bpe_ranks"):
        assert callable(getattr(tiktoken.load, name)), name


def test_readme_examples_name_files_that_exist() -> None:
    checked = 0
    for doc in ("README.md", "docs/cli.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        for block in re.findall(r"```(?:console|sh|python)\n(.*?)```", text, flags=re.S):
            for path in re.findall(r"(?<![\w/.-])examples/[\w./-]*", block):
                assert (ROOT / path.rstrip(".")).exists(), f"{doc}: {path}"
                checked += 1
    assert checked >= 8


def test_the_readme_audit_example_runs(capsys, monkeypatch) -> None:
    from clikit import run

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    rc, out, err = run(capsys, "audit", "examples/index-dump.jsonl", "--source-root", "examples/")
    assert rc == 1 and "source-aware" in out and " CS004 " in out, err
