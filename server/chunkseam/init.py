"""``chunkseam init``: the project's configuration from the chunking pipeline it has.

The repository's Python files are read *statically*: parsed with :mod:`ast`,
never imported or run. Constructions of known splitters are found —
``RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)``,
``X.from_tiktoken_encoder(...)``, LlamaIndex's ``SentenceSplitter(...)``,
chonkie's ``RecursiveChunker(...)``, semchunk's ``chunkerify(...)``,
semantic-text-splitter's ``MarkdownSplitter(...)``, Haystack's
``DocumentSplitter(...)`` … — with their literal or module-constant
arguments (``CHUNK_SIZE = 1000`` at the top of the module), and turned into
the settings of the matching chunkseam adapter. Each finding says where it
was (``file:line``). Arguments that are not literals keep the library's
default and are listed as such.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: directories never walked
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "node_modules", "__pycache__",
             "site-packages", "build", "dist", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
             ".ruff_cache", ".eggs"}
MAX_FILES = 5000
MAX_FILE_BYTES = 1_000_000

_LANGCHAIN = ("langchain_text_splitters", "langchain.text_splitter", "langchain_text_splitter")
_LLAMA = ("llama_index",)
_CHONKIE = ("chonkie",)
_SEMCHUNK = ("semchunk",)
_STS = ("semantic_text_splitter",)
_HAYSTACK = ("haystack",)

#: class name -> candidate libraries (module prefixes) in order of likelihood
KNOWN: dict[str, tuple[tuple[str, ...], ...]] = {
    "RecursiveCharacterTextSplitter": (_LANGCHAIN,),
    "CharacterTextSplitter": (_LANGCHAIN,),
    "MarkdownTextSplitter": (_LANGCHAIN,),
    "PythonCodeTextSplitter": (_LANGCHAIN,),
    "LatexTextSplitter": (_LANGCHAIN,),
    "TokenTextSplitter": (_LANGCHAIN, _LLAMA),
    "SentenceSplitter": (_LLAMA,),
    "MarkdownNodeParser": (_LLAMA,),
    "RecursiveChunker": (_CHONKIE,),
    "SentenceChunker": (_CHONKIE,),
    "TokenChunker": (_CHONKIE,),
    "chunkerify": (_SEMCHUNK,),
    "MarkdownSplitter": (_STS,),
    "TextSplitter": (_STS,),
    "DocumentSplitter": (_HAYSTACK,),
    "RecursiveDocumentSplitter": (_HAYSTACK,),
}
ADAPTER = {_LANGCHAIN: "langchain", _LLAMA: "llamaindex", _CHONKIE: "chonkie",
           _SEMCHUNK: "semchunk", _STS: "text-splitter", _HAYSTACK: "haystack"}

#: the short list offered when no pipeline is found: name -> (description, settings)
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "langchain": ("LangChain RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)",
                  {"chunker": "langchain", "size": 1000, "overlap": 200, "unit": "chars"}),
    "llamaindex": ("LlamaIndex SentenceSplitter() (1024 tokens, overlap 200)",
                   {"chunker": "llamaindex", "size": 1024, "overlap": 200, "unit": "tokens"}),
    "chonkie": ("chonkie RecursiveChunker() (2048 characters)",
                {"chunker": "chonkie", "size": 2048, "overlap": 0, "unit": "chars"}),
    "semchunk": ("semchunk chunkerify('cl100k_base', 512)",
                 {"chunker": "semchunk", "size": 512, "overlap": 0, "unit": "tokens"}),
    "text-splitter": ("semantic-text-splitter MarkdownSplitter(1000) (characters)",
                      {"chunker": "text-splitter", "size": 1000, "overlap": 0, "unit": "chars"}),
    "haystack": ("Haystack DocumentSplitter() (200 words)",
                 {"chunker": "haystack", "size": 200, "overlap": 0, "unit": "tokens",
                  "chunker-options": {"split_by": "word"}}),
    "chunkseam": ("chunkseam's own chunkers by file type (markdown, code, sentence), 400 tokens",
                  {}),
}


@dataclass
class Finding:
    """One splitter construction found in the code."""

    file: str
    line: int
    call: str  # the construction, as written (shortened)
    library: str  # adapter name
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def key(self) -> str:
        import json

        return json.dumps(self.settings, sort_keys=True)


def python_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                p = Path(dirpath) / name
                if p.is_symlink() or not p.is_file():
                    continue
                out.append(p)
                if len(out) >= MAX_FILES:
                    return out
    return out


class _Module:
    """What one parsed module tells: its imports and module-level constants."""

    def __init__(self, tree: ast.Module) -> None:
        self.imports: dict[str, str] = {}  # local name -> module.path.Name or module
        self.constants: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                        a.name.split(".")[0]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                if value is None:
                    continue
                try:
                    literal = ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.constants[t.id] = literal

    def value(self, node: ast.AST) -> tuple[bool, Any]:
        """(known, value) of an argument: a literal or a module constant."""
        if isinstance(node, ast.Name) and node.id in self.constants:
            return True, self.constants[node.id]
        try:
            return True, ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False, None

    def origin(self, func: ast.AST) -> tuple[str | None, str | None, str | None]:
        """(class name, module it comes from, factory method) of a call's target."""
        method = None
        if isinstance(func, ast.Attribute) and func.attr in (
                "from_tiktoken_encoder", "from_tiktoken_model", "from_huggingface_tokenizer",
                "from_callback", "from_recipe"):
            method = func.attr
            func = func.value
        if isinstance(func, ast.Name):
            full = self.imports.get(func.id)
            return func.id, full.rsplit(".", 1)[0] if full and "." in full else full, method
        if isinstance(func, ast.Attribute):
            base = func.value
            parts = []
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                root = self.imports.get(base.id, base.id)
                return func.attr, ".".join([root, *reversed(parts)]), method
            return func.attr, None, method
        return None, None, method


def _library(name: str, module: str | None) -> str | None:
    candidates = KNOWN.get(name)
    if not candidates:
        return None
    for prefixes in candidates:  # only names imported from the library itself count
        if module and any(module == p or module.startswith(p + ".") for p in prefixes):
            return ADAPTER[prefixes]
    return None


def _shorten(source: str, node: ast.AST, n: int = 100) -> str:
    text = ast.get_source_segment(source, node) or ""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _encoding_of(value: Any) -> str | None:
    """A tiktoken encoding or model name as chunkseam accepts it (None if not)."""
    if not isinstance(value, str):
        return None
    from .tokens import canonical_encoding_name

    try:
        canonical_encoding_name(value)
    except ValueError:
        return None
    return value


def _args(call: ast.Call, names: list[str]) -> dict[str, ast.AST]:
    out = {k.arg: k.value for k in call.keywords if k.arg}
    for name, arg in zip(names, call.args):
        out.setdefault(name, arg)
    return out


def _settings_for(library: str, cls: str, method: str | None, call: ast.Call,
                  mod: _Module) -> tuple[dict[str, Any], list[str]]:
    notes: list[str] = []
    settings: dict[str, Any] = {"chunker": library}
    options: dict[str, Any] = {}

    def get(args: dict[str, ast.AST], key: str, default: Any) -> Any:
        if key not in args:
            return default
        known, value = mod.value(args[key])
        if not known:
            notes.append(f"{key} is not a literal or module constant: the library default "
                         f"{default!r} is assumed")
            return default
        return value

    if library == "langchain":
        args = _args(call, ["chunk_size", "chunk_overlap"] if method is None else [])
        settings["size"] = get(args, "chunk_size", 4000)
        settings["overlap"] = get(args, "chunk_overlap", 200)
        if method == "from_tiktoken_encoder" or cls == "TokenTextSplitter":
            settings["unit"] = "tokens"
            enc = get(args, "model_name", None) or get(args, "encoding_name", "gpt2")
            settings["encoding"] = _encoding_of(enc) or "cl100k_base"
        else:
            settings["unit"] = "chars"
        if cls != "RecursiveCharacterTextSplitter":
            options["splitter"] = cls
        for key in ("separators", "keep_separator", "is_separator_regex", "strip_whitespace"):
            if key in args:
                known, value = mod.value(args[key])
                if known:
                    options[key] = value
    elif library == "llamaindex":
        args = _args(call, ["separator", "chunk_size", "chunk_overlap"]
                     if cls == "SentenceSplitter" else ["chunk_size", "chunk_overlap"])
        if cls == "MarkdownNodeParser":
            settings.update(size=1024, overlap=0, unit="tokens")
        else:
            settings["size"] = get(args, "chunk_size", 1024)
            settings["overlap"] = get(args, "chunk_overlap", 200 if cls == "SentenceSplitter" else 20)
            settings["unit"] = "tokens"
            settings["encoding"] = "cl100k_base"  # LlamaIndex's default tokenizer
        if "tokenizer" in args:
            notes.append("a custom tokenizer is used: set `encoding` to match it")
        if cls != "SentenceSplitter":
            options["splitter"] = cls
    elif library == "chonkie":
        args = _args(call, ["tokenizer", "chunk_size"])
        tok = get(args, "tokenizer", "character")
        settings["size"] = get(args, "chunk_size", 2048)
        settings["overlap"] = get(args, "chunk_overlap", 0) if cls != "RecursiveChunker" else 0
        if isinstance(settings["overlap"], float):
            settings["overlap"] = int(settings["overlap"] * settings["size"])
        if tok == "character":
            settings["unit"] = "chars"
        else:
            settings["unit"] = "tokens"
            enc = _encoding_of(tok)
            settings["encoding"] = enc or "cl100k_base"
            if enc is None:
                notes.append(f"tokenizer {tok!r}: set `encoding` to a matching tokenizer "
                             "(hf:… for a Hugging Face one)")
        if cls != "RecursiveChunker":
            options["splitter"] = cls
    elif library == "semchunk":
        args = _args(call, ["tokenizer_or_token_counter", "chunk_size"])
        tok = get(args, "tokenizer_or_token_counter", None)
        settings["size"] = get(args, "chunk_size", 512)
        settings["overlap"] = 0
        settings["unit"] = "tokens"
        enc = _encoding_of(tok)
        settings["encoding"] = enc or "cl100k_base"
        if enc is None:
            notes.append("the tokenizer is not a tiktoken name: set `encoding` to match it "
                         "(hf:… for a Hugging Face one)")
    elif library == "text-splitter":
        names = (["capacity", "overlap", "trim"] if method in (None, "from_callback")
                 else ["model" if method == "from_tiktoken_model" else "tokenizer", "capacity",
                       "overlap", "trim"])
        if method == "from_callback":
            names = ["callback", *names]
        args = _args(call, names)
        capacity = get(args, "capacity", 1000)
        if isinstance(capacity, (tuple, list)) and capacity:
            capacity = capacity[-1]
        settings["size"] = capacity
        settings["overlap"] = get(args, "overlap", 0)
        if method == "from_tiktoken_model":
            settings["unit"] = "tokens"
            settings["encoding"] = _encoding_of(get(args, "model", "gpt-4")) or "cl100k_base"
        elif method is None:
            settings["unit"] = "chars"
        else:
            settings["unit"] = "tokens"
            notes.append("a custom tokenizer is used: set `encoding` to match it")
        options["splitter"] = cls
        trim = get(args, "trim", True)
        if trim is not True:
            options["trim"] = trim
    elif library == "haystack":
        if cls == "DocumentSplitter":
            args = _args(call, ["split_by", "split_length", "split_overlap"])
            by = get(args, "split_by", "word")
            options["split_by"] = by
            if by == "token":
                settings["encoding"] = _encoding_of(get(args, "tokenizer_encoding", "o200k_base")) \
                    or "o200k_base"
        else:
            args = _args(call, [])
            options["splitter"] = cls
            options["split_unit"] = get(args, "split_unit", "word")
            seps = get(args, "separators", None)
            if seps:
                options["separators"] = seps
        settings["size"] = get(args, "split_length", 200)
        settings["overlap"] = get(args, "split_overlap", 0)
        settings["unit"] = "chars" if options.get("split_unit") == "char" else "tokens"
    if options:
        settings["chunker-options"] = options
    for key in ("size", "overlap"):
        if not isinstance(settings.get(key), int) or isinstance(settings.get(key), bool):
            notes.append(f"{key} {settings.get(key)!r} is not an integer: left out")
            settings.pop(key, None)
    return settings, notes


def find_pipelines(root: str | os.PathLike[str]) -> list[Finding]:
    """Every known splitter construction in the Python files under ``root``."""
    base = Path(root)
    findings: list[Finding] = []
    for path in python_files(base):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            source = path.read_text(encoding="utf-8", errors="replace")
            tree = ast.parse(source, filename=str(path))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        mod = _Module(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            cls, module, method = mod.origin(node.func)
            if cls is None or cls not in KNOWN:
                continue
            library = _library(cls, module)
            if library is None:
                continue
            settings, notes = _settings_for(library, cls, method, node, mod)
            rel = path.relative_to(base).as_posix()
            findings.append(Finding(rel, node.lineno, _shorten(source, node), library, settings,
                                    notes))
    return findings


def distinct(findings: list[Finding]) -> list[Finding]:
    """One finding per distinct configuration (the first place it occurs)."""
    seen: dict[str, Finding] = {}
    for f in findings:
        seen.setdefault(f.key(), f)
    return list(seen.values())


def _toml_value(value: Any) -> str:
    from .config import _toml_repr

    return _toml_repr(value)


def render(settings: dict[str, Any], comments: list[str], *, table: str | None) -> str:
    """The configuration text: ``[tool.chunkseam]`` (pyproject) or top-level keys."""
    lines = [f"# {c}" for c in comments]
    if table:
        lines.append(f"[{table}]")
    options = settings.get("chunker-options")
    for key, value in settings.items():
        if key == "chunker-options":
            continue
        lines.append(f"{key} = {_toml_value(value)}")
    if options:
        lines.append("")
        lines.append(f"[{table + '.' if table else ''}chunker-options]")
        for key, value in options.items():
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


class InitError(Exception):
    """Nothing written: the reason (a file exists already, a choice is needed …)."""


def target_file(root: Path, prefer: str | None) -> tuple[Path, str | None]:
    """Where to write: ``pyproject.toml`` (a ``[tool.chunkseam]`` table) when the
    project has one, else ``chunkseam.toml``; ``prefer`` ("pyproject" or
    "chunkseam.toml") decides instead."""
    pyproject = root / "pyproject.toml"
    if prefer == "chunkseam.toml" or (prefer is None and not pyproject.is_file()):
        return root / "chunkseam.toml", None
    return pyproject, "tool.chunkseam"


def write(root: Path, settings: dict[str, Any], comments: list[str], *, prefer: str | None = None,
          force: bool = False) -> Path:
    path, table = target_file(root, prefer)
    text = render(settings, comments, table=table)
    # the result must be valid configuration before anything is written
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from .config import settings_from_mapping

    parsed = tomllib.loads(text)
    settings_from_mapping(parsed["tool"]["chunkseam"] if table else parsed, source=str(path))
    if table is None:
        if path.exists() and not force:
            raise InitError(f"{path} exists already: use --force to replace it")
        path.write_text(text, encoding="utf-8")
        return path
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    if existing:
        try:
            data = tomllib.loads(existing)
        except tomllib.TOMLDecodeError as exc:
            raise InitError(f"{path} is not valid TOML ({exc}): nothing written") from None
        if "chunkseam" in (data.get("tool") or {}):
            raise InitError(f"{path} has a [tool.chunkseam] table already: edit it, or write "
                            "chunkseam.toml instead with --file chunkseam.toml")
    sep = "" if not existing or existing.endswith("\n\n") else ("\n" if existing.endswith("\n")
                                                                 else "\n\n")
    path.write_text(existing + sep + text, encoding="utf-8")
    return path
