"""The language of a code document, by its kind, language id or suffix."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from chunkseam.document.text import Document

#: file suffix -> language (``python``, a tree-sitter grammar or a
#: recursive-separator language name)
SUFFIX_LANGUAGE = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js",
    ".ts": "ts", ".tsx": "ts", ".mts": "ts", ".cts": "ts",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".cc": "cpp", ".cxx": "cpp",
    ".hh": "cpp", ".rb": "ruby", ".rst": "rst",
}


def language_of(doc: Document, option: Any = None) -> str | None:
    """``python``, a recursive-separator language name, or None (default separators)."""
    if option:
        return str(option).lower()
    if doc.kind == "python" or (doc.language_id or "").lower() == "python":
        return "python"
    if doc.path:
        lang = SUFFIX_LANGUAGE.get(PurePath(doc.path).suffix.lower())
        if lang:
            return lang
    return None
