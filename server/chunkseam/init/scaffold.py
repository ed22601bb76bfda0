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
import re
import stat
import sys
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
    "chunk": (_SEMCHUNK,),
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
    #: why the adapter cannot simulate this pipeline (nothing is written for it)
    refused: list[str] = field(default_factory=list)

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


_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
#: how deep constants are followed through imports of the project's own modules
_IMPORT_DEPTH = 4


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except _LITERAL_ERRORS:
        return False, None


class _Project:
    """The project's own modules, parsed on demand (never imported) to follow
    constants imported from one module into another."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._modules: dict[Path, _Module | None] = {}

    def module_file(self, importer: Path, module: str | None, level: int) -> Path | None:
        """The project file a ``from module import …`` in ``importer`` names, or None."""
        parts = module.split(".") if module else []
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = [self.root, self.root / "src"]
            # an absolute import of the importer's own package from a nested layout
            bases += [p for p in importer.parents if p != self.root and self.root in p.parents][:3]
        for base in bases:
            target = base.joinpath(*parts) if parts else base
            for candidate in (target.with_suffix(".py") if parts else None, target / "__init__.py"):
                if candidate is None:
                    continue
                try:
                    if candidate.is_symlink() or not candidate.is_file():
                        continue
                    real = candidate.resolve()
                except (OSError, RuntimeError, ValueError):
                    continue
                if self.root.resolve() in real.parents:
                    return candidate
        return None

    def module(self, path: Path, depth: int) -> _Module | None:
        if path in self._modules:
            return self._modules[path]
        self._modules[path] = None  # a cycle of imports ends here
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                return None
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        mod = _Module(tree, path=path, project=self, depth=depth)
        self._modules[path] = mod
        return mod


class _Module:
    """What one parsed module tells: its imports and module-level constants
    (literals, and names imported from the project's own modules)."""

    def __init__(self, tree: ast.Module, *, path: Path | None = None,
                 project: _Project | None = None, depth: int = 0) -> None:
        self.imports: dict[str, str] = {}  # local name -> module.path.Name or module
        self.constants: dict[str, Any] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if node.module:
                        self.imports[a.asname or a.name] = f"{node.module}.{a.name}"
                if project is not None and path is not None and depth < _IMPORT_DEPTH:
                    self._import_constants(node, path, project, depth)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                        a.name.split(".")[0]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                if value is None:
                    continue
                known, literal = self.value(value)
                if not known:
                    continue
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.constants[t.id] = literal

    def _import_constants(self, node: ast.ImportFrom, path: Path, project: _Project,
                          depth: int) -> None:
        target = project.module_file(path, node.module, node.level)
        if target is None:
            return
        other = project.module(target, depth + 1)
        if other is None:
            return
        for a in node.names:
            if a.name in other.constants:
                self.constants[a.asname or a.name] = other.constants[a.name]

    def link(self, tree: ast.AST) -> None:
        """Parents of every node, to find the function a call is in."""
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent

    def _default(self, node: ast.Name) -> tuple[bool, Any]:
        """A parameter of an enclosing function with a literal (or constant) default."""
        cur: ast.AST | None = self.parents.get(node)
        while cur is not None:
            if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = cur.args
                positional = [*a.posonlyargs, *a.args]
                pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
                pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                for arg, default in pairs:
                    if arg.arg == node.id:
                        return self.value(default, scope=False)
                names = {x.arg for x in [*positional, *a.kwonlyargs]}
                if node.id in names:
                    return False, None  # a parameter without a default
            cur = self.parents.get(cur)
        return False, None

    def value(self, node: ast.AST, scope: bool = True) -> tuple[bool, Any]:
        """(known, value) of an argument: a literal, a module constant, or a
        parameter's default of the function the call is in."""
        if isinstance(node, ast.Name):
            if scope:
                known, value = self._default(node)
                if known:
                    return True, value
            if node.id in self.constants:
                return True, self.constants[node.id]
            return False, None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [self.value(e, scope) for e in node.elts]
            if all(k for k, _ in items):
                values = [v for _, v in items]
                return True, values if isinstance(node, ast.List) else tuple(values)
            return False, None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Add, ast.Sub,
                                                                ast.FloorDiv)):
            (lk, lv), (rk, rv) = self.value(node.left, scope), self.value(node.right, scope)
            if lk and rk and all(isinstance(v, int) and not isinstance(v, bool)
                                 and abs(v) < 10**12 for v in (lv, rv)):
                try:
                    return True, {ast.Mult: lambda: lv * rv, ast.Add: lambda: lv + rv,
                                  ast.Sub: lambda: lv - rv,
                                  ast.FloorDiv: lambda: lv // rv}[type(node.op)]()
                except ZeroDivisionError:
                    return False, None
            return False, None
        return _literal(node)

    def origin(self, func: ast.AST) -> tuple[str | None, str | None, str | None]:
        """(class name, module it comes from, factory method) of a call's target."""
        method = None
        if isinstance(func, ast.Attribute) and func.attr in (
                "from_tiktoken_encoder", "from_tiktoken_model", "from_huggingface_tokenizer",
                "from_callback", "from_recipe", "from_defaults"):
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
    from chunkseam.tokens.tiktoken import canonical_encoding_name

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


def _short_repr(value: Any, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 1] + "…"


def _tomlable(value: Any, depth: int = 0) -> tuple[bool, Any]:
    """(ok, value as TOML can hold it): tuples become arrays; None, bytes, sets,
    complex numbers, non-string keys and integers beyond 64 bits cannot be written."""
    if depth > 20:
        return False, None
    if isinstance(value, bool) or isinstance(value, (str, float)):
        return True, value
    if isinstance(value, int):
        return (-(2**63) <= value < 2**63), value
    if isinstance(value, (list, tuple)):
        items = [_tomlable(v, depth + 1) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return False, None
        items2 = {k: _tomlable(v, depth + 1) for k, v in value.items()}
        return all(ok for ok, _ in items2.values()), {k: v for k, (_, v) in items2.items()}
    return False, None


def _settings_for(library: str, cls: str, method: str | None, call: ast.Call,
                  mod: _Module) -> tuple[dict[str, Any], list[str], list[str]]:
    notes: list[str] = []
    refused: list[str] = []
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
        for key in ("separators", "separator", "keep_separator", "is_separator_regex",
                    "strip_whitespace", "add_start_index"):
            if key in args:
                known, value = mod.value(args[key])
                if known:
                    options[key] = value
    elif library == "llamaindex":
        args = _args(call, ["separator", "chunk_size", "chunk_overlap"]
                     if cls == "SentenceSplitter" else ["chunk_size", "chunk_overlap"]
                     if method == "from_defaults" or cls != "TokenTextSplitter"
                     else ["chunk_size", "chunk_overlap", "tokenizer"])
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
        for key in ("separator", "paragraph_separator", "backup_separators",
                    "secondary_chunking_regex", "keep_whitespaces"):
            if key in args:
                known, value = mod.value(args[key])
                if known:
                    options[key] = value
                else:
                    notes.append(f"{key} is not a literal or module constant: the library "
                                 "default is assumed")
    elif library == "chonkie":
        if method == "from_recipe":
            args = _args(call, ["name", "lang", "path", "tokenizer", "chunk_size"])
            known, recipe = mod.value(args["name"]) if "name" in args else (True, "default")
            if recipe != "default" or "path" in args:
                notes.append(f"the recipe {recipe!r} is not simulated: chunkseam runs "
                             "RecursiveChunker with its default rules")
        else:
            args = _args(call, ["tokenizer", "chunk_size"])
        if "tokenizer" not in args and "tokenizer_or_token_counter" in args:
            args["tokenizer"] = args["tokenizer_or_token_counter"]  # chonkie < 1.0
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
        if cls == "chunk":  # semchunk.chunk(text, chunk_size, token_counter, overlap=…)
            args = _args(call, ["text", "chunk_size", "token_counter"])
            tok = get(args, "token_counter", None)
        else:
            args = _args(call, ["tokenizer_or_token_counter", "chunk_size"])
            tok = get(args, "tokenizer_or_token_counter", None)
        settings["size"] = get(args, "chunk_size", 512)
        settings["overlap"] = get(args, "overlap", 0) or 0
        if isinstance(settings["overlap"], float) and isinstance(settings["size"], int):
            settings["overlap"] = int(settings["overlap"] * settings["size"]) \
                if settings["overlap"] < 1 else int(settings["overlap"])
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
            if by == "sentence" or get(args, "respect_sentence_boundary", False) is True:
                refused.append("the haystack adapter does not simulate sentence splitting "
                               "(Haystack downloads NLTK data for it at run time)")
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
    for key, value in list(options.items()):
        ok, clean = _tomlable(value)
        if not ok:
            notes.append(f"option {key} = {_short_repr(value)} is not a TOML value: left out")
            options.pop(key)
        else:
            options[key] = clean
    if options:
        settings["chunker-options"] = options
    for key in ("size", "overlap"):
        value = settings.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value > 10**9:
            notes.append(f"{key} {_short_repr(value)} is not a usable integer: left out")
            settings.pop(key, None)
    for key in ("encoding", "unit"):
        if key in settings and not isinstance(settings[key], str):
            settings.pop(key)
    return settings, notes, refused


def _settings_assignments(tree: ast.AST, mod: _Module) -> dict[str, tuple[int, ast.AST]]:
    """LlamaIndex's global ``Settings.chunk_size = …`` / ``Settings.chunk_overlap = …``."""
    out: dict[str, tuple[int, ast.AST]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            if (isinstance(t, ast.Attribute) and t.attr in ("chunk_size", "chunk_overlap")
                    and isinstance(t.value, ast.Name)):
                full = mod.imports.get(t.value.id, "")
                if full.startswith("llama_index") and full.endswith(".Settings"):
                    out[t.attr] = (node.lineno, node.value)
    return out


def _uses(tree: ast.AST, mod: _Module, name: str, prefixes: tuple[str, ...]) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            cls, module, _ = mod.origin(node.func)
            if cls == name and module and any(module == p or module.startswith(p + ".")
                                              for p in prefixes):
                return True
    return False


def find_pipelines(root: str | os.PathLike[str]) -> list[Finding]:
    """Every known splitter construction in the Python files under ``root``."""
    base = Path(root)
    project = _Project(base)
    findings: list[Finding] = []
    reader = False  # a SimpleDirectoryReader feeds LlamaIndex somewhere in the project
    for path in python_files(base):
        mod = project.module(path, 0)
        if mod is None:
            continue
        try:
            source = path.read_text(encoding="utf-8", errors="replace")
            tree = ast.parse(source, filename=str(path))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        mod.link(tree)
        rel = path.relative_to(base).as_posix()
        reader = reader or _uses(tree, mod, "SimpleDirectoryReader", _LLAMA)
        made: dict[str, Finding] = {}  # variable -> the finding of the splitter it holds
        calls: list[ast.Call] = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        for node in calls:
            cls, module, method = mod.origin(node.func)
            if cls is None or cls not in KNOWN:
                continue
            library = _library(cls, module)
            if library is None or (method == "from_defaults" and library != "llamaindex"):
                continue
            settings, notes, refused = _settings_for(library, cls, method, node, mod)
            finding = Finding(rel, node.lineno, _shorten(source, node), library, settings,
                              notes, refused)
            findings.append(finding)
            parent = mod.parents.get(node)
            if isinstance(parent, ast.Assign):
                for t in parent.targets:
                    if isinstance(t, ast.Name):
                        made[t.id] = finding
        for node in calls:  # semchunk: chunker(texts, overlap=…) sets the overlap at call time
            if isinstance(node.func, ast.Name) and node.func.id in made:
                finding = made[node.func.id]
                if finding.library != "semchunk":
                    continue
                for kw in node.keywords:
                    if kw.arg != "overlap":
                        continue
                    known, value = mod.value(kw.value)
                    size = finding.settings.get("size")
                    if known and isinstance(value, float) and 0 < value < 1 and \
                            isinstance(size, int):
                        value = int(value * size)
                    if known and isinstance(value, int) and not isinstance(value, bool) \
                            and 0 <= value < 10**9:
                        finding.settings["overlap"] = value
                        finding.notes.append(f"overlap {value} from the call at line "
                                             f"{node.lineno}")
                    else:
                        finding.notes.append(f"the overlap of the call at line {node.lineno} "
                                             "is not a literal or module constant: left out")
        assigned = _settings_assignments(tree, mod)
        if "chunk_size" in assigned:  # LlamaIndex's default SentenceSplitter, sized globally
            line, value_node = assigned["chunk_size"]
            fake = ast.Call(func=ast.Name("SentenceSplitter"), args=[], keywords=[
                ast.keyword(arg=k, value=v) for k, (_, v) in assigned.items()])
            settings, notes, refused = _settings_for("llamaindex", "SentenceSplitter", None,
                                                     fake, mod)
            findings.append(Finding(rel, line,
                                    f"Settings.chunk_size = {_shorten(source, value_node, 60)}",
                                    "llamaindex", settings, notes, refused))
    if reader:
        for f in findings:
            if f.library == "llamaindex" and \
                    f.settings.get("chunker-options", {}).get("splitter") != "MarkdownNodeParser":
                f.settings.setdefault("chunker-options", {})["reader"] = "SimpleDirectoryReader"
                f.notes.append("documents are read by SimpleDirectoryReader: its file metadata "
                               "is simulated (reader = \"SimpleDirectoryReader\")")
    return findings


def distinct(findings: list[Finding]) -> list[Finding]:
    """One finding per distinct configuration (the first place it occurs)."""
    seen: dict[str, Finding] = {}
    for f in findings:
        seen.setdefault(f.key(), f)
    return list(seen.values())


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\x80-\x9f\u2028\u2029]")


def comment_text(text: str) -> str:
    """``text`` made safe for one TOML comment line: control characters (a file
    name may hold a newline) are written as escapes, never as themselves."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def render(settings: dict[str, Any], comments: list[str], *, table: str | None) -> str:
    """The configuration text (TOML written by tomli-w, every value escaped):
    ``[tool.chunkseam]`` (pyproject) or top-level keys, after the comments."""
    import tomli_w

    data: dict[str, Any] = dict(settings)
    if table:
        for part in reversed(table.split(".")):
            data = {part: data}
    head = "".join(f"# {comment_text(c)}\n" for c in comments)
    return head + tomli_w.dumps(data, multiline_strings=False)


class InitError(Exception):
    """Nothing written: the reason (a file exists already, a choice is needed …)."""


def target_file(root: Path, prefer: str | None) -> tuple[Path, str | None]:
    """Where to write: ``pyproject.toml`` (a ``[tool.chunkseam]`` table) when the
    project has one, else ``chunkseam.toml``; ``prefer`` ("pyproject" or
    "chunkseam.toml") decides instead."""
    pyproject = root / "pyproject.toml"
    if prefer == "chunkseam.toml" or (prefer is None and not os.path.lexists(pyproject)):
        return root / "chunkseam.toml", None
    return pyproject, "tool.chunkseam"


def _safe_target(root: Path, path: Path) -> Path:
    """The file to write for ``path`` in ``root``: a regular file inside the root,
    or none yet. A symbolic link is followed only when it ends at a regular file
    inside the root; one that leaves the root, dangles or ends at anything else
    (a directory, a FIFO, a device) is refused, as is such a file itself."""
    try:
        real_root = root.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise InitError(f"{root}: cannot resolve the project directory ({exc})") from None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise InitError(f"{path}: cannot inspect ({exc.strerror or exc}): nothing written") \
            from None
    if stat.S_ISLNK(st.st_mode):
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise InitError(f"{path} is a symbolic link to a file that does not exist: "
                            "chunkseam init does not create files through links; nothing "
                            "written") from None
        if real_root not in real.parents:
            raise InitError(f"{path} is a symbolic link that leaves the project ({real}): "
                            "chunkseam init writes only to files inside it; nothing written")
        try:
            st = os.stat(real)
        except OSError as exc:
            raise InitError(f"{path}: cannot inspect ({exc.strerror or exc})") from None
        path = real
    if not stat.S_ISREG(st.st_mode):
        raise InitError(f"{path} is not a regular file: nothing written")
    return path


def _read_regular(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InitError(f"{path} is not a regular file: nothing written")
        if st.st_size > 10 * MAX_FILE_BYTES:
            raise InitError(f"{path} is {st.st_size:,} bytes: too large to edit; nothing written")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read()
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InitError(f"{path} is not UTF-8 ({exc}): nothing written") from None


def _write_regular(path: Path, text: str, *, create: bool) -> None:
    """Write ``text`` to ``path`` without following a link planted after the check."""
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= (os.O_CREAT | os.O_EXCL) if create else 0
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        raise InitError(f"{path} appeared while writing: nothing written") from None
    except OSError as exc:
        raise InitError(f"{path}: cannot write ({exc.strerror or exc}): nothing written") \
            from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InitError(f"{path} is not a regular file: nothing written")
        os.ftruncate(fd, 0)
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(text.encode("utf-8"))
    finally:
        os.close(fd)


def check(text: str, settings: dict[str, Any], table: str | None, path: Path) -> None:
    """The text parses as TOML, holds exactly ``settings`` and is valid configuration."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    from chunkseam.config.loader import ConfigError, settings_from_mapping

    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # a bug: never written
        raise InitError(f"the configuration written would not be valid TOML ({exc}): "
                        "nothing written") from None
    got = parsed
    for part in (table.split(".") if table else []):
        got = got.get(part, {})
    if got != settings:
        raise InitError("the configuration would not read back as found: nothing written")
    try:
        settings_from_mapping(got, source=str(path))
    except ConfigError as exc:
        raise InitError(f"the pipeline found gives no valid configuration ({exc}): "
                        "nothing written") from None


def write(root: Path, settings: dict[str, Any], comments: list[str], *, prefer: str | None = None,
          force: bool = False) -> Path:
    """Write the configuration; :class:`InitError` (and nothing written) when the
    target is not a regular file inside ``root`` or already configures chunkseam."""
    path, table = target_file(root, prefer)
    text = render(settings, comments, table=table)
    check(text, settings, table, path)  # valid configuration before anything is written
    target = _safe_target(root, path)
    exists = os.path.lexists(target)
    if table is None:
        if exists and not force:
            raise InitError(f"{path} exists already: use --force to replace it")
        _write_regular(target, text, create=not exists)
        return path
    existing = _read_regular(target) if exists else ""
    if not existing.strip():
        _write_regular(target, text, create=not exists)
        return path
    import tomlkit

    try:
        doc = tomlkit.parse(existing)
    except Exception as exc:  # tomlkit's ParseError and its kin
        raise InitError(f"{path} is not valid TOML ({exc}): nothing written") from None
    tool = doc.get("tool")
    if tool is not None and not isinstance(tool, dict):
        raise InitError(f"{path}: `tool` is not a table: nothing written")
    if tool is not None and "chunkseam" in tool:
        raise InitError(f"{path} has a [tool.chunkseam] table already: edit it, or write "
                        "chunkseam.toml instead with --file chunkseam.toml")
    section = tomlkit.table()
    for c in comments:
        section.add(tomlkit.comment(comment_text(c)))
    for key, value in settings.items():
        section.add(key, value)
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        tool.add("chunkseam", section)
        doc.add(tomlkit.nl())
        doc.add("tool", tool)
    else:
        tool.add("chunkseam", section)
    new = tomlkit.dumps(doc)
    check(new, settings, table, path)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    before, after = tomllib.loads(existing), tomllib.loads(new)
    after.get("tool", {}).pop("chunkseam", None)
    if not after.get("tool") and "tool" not in before:
        after.pop("tool", None)
    if before != after:
        raise InitError(f"{path}: adding [tool.chunkseam] would change its other tables: "
                        "nothing written")
    _write_regular(target, new, create=False)
    return path
