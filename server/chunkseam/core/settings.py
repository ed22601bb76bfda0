"""The resolved settings object every front end passes to the engine.

Where the values come from (defaults < project config file < CLI flags <
editor settings) is :mod:`chunkseam.config.loader`'s business; this module only
defines the typed object and its defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

DEFAULT_DANGLING_WORDS = (
    "this", "these", "that", "those", "it", "its", "they", "such",
    "as mentioned above", "as mentioned earlier", "as noted above", "as described above",
    "as shown above", "as shown in the example above", "in the example above", "in the above example",
    "in the previous example", "the example above", "the code above", "see above", "see the previous section", "the above", "the previous",
    "in the previous section", "as discussed", "the former", "the latter", "likewise",
    "similarly", "however", "therefore", "thus", "also", "additionally", "furthermore",
    "moreover", "otherwise", "then",
)

#: code chunked through tree-sitter by the ``code`` strategy (the ``code`` extra)
CODE_INCLUDE = ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx", "*.mts", "*.cts", "*.go",
                "*.rs", "*.java")

DEFAULT_ROUTES = {
    "*.md": "markdown",
    "*.markdown": "markdown",
    "*.mdx": "markdown",
    "*.qmd": "markdown",  # Quarto and R Markdown: Markdown with fenced code chunks
    "*.[Rr]md": "markdown",
    "*.py": "code",
    "*.pyi": "code",
    "*.txt": "sentence",
    "*.rst": "markdown",  # reStructuredText: its own structure (chunkseam.structure.rst), the markdown rules
    "*.ipynb": "markdown",  # notebooks: the view of their cells (chunkseam.document.notebook)
}


@dataclass(frozen=True)
class Settings:
    #: chunker name; ``None`` = route by file type through ``chunkers``
    chunker: str | None = None
    size: int = 400
    overlap: int = 0
    #: what ``overlap`` counts: ``"unit"`` (the size unit: tokens or characters) or
    #: ``"sentences"`` (the next chunk starts that many whole sentences before the cut;
    #: see chunkseam.chunkers.overlap)
    overlap_unit: str = "unit"
    unit: str = "tokens"  # "tokens" | "chars"
    encoding: str = "cl100k_base"
    #: glob -> chunker name (per-file-type routing), merged over DEFAULT_ROUTES
    chunkers: dict[str, str] = field(default_factory=dict)
    #: rule selection by code, code prefix ("CS0") or name; empty = defaults
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: rule code or name -> "error" | "warning" | "info" | "hint" | "off"
    severity: dict[str, str] = field(default_factory=dict)
    #: glob -> rule codes/names ignored for matching files
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include: tuple[str, ...] = ("*.md", "*.markdown", "*.mdx", "*.qmd", "*.[Rr]md", "*.py", "*.txt", "*.rst", "*.ipynb",
                                *CODE_INCLUDE)
    exclude: tuple[str, ...] = ()
    #: the documents' language: sentence rules (pysbd; see chunkseam.structure.sentences.LANGUAGES)
    language: str = "en"
    #: chunks below this many units are fragments (CS102)
    min_tokens: int = 16
    dangling_words: tuple[str, ...] = DEFAULT_DANGLING_WORDS
    #: tokenizer resolution
    tiktoken_file: str | None = None
    allow_network: bool = False
    approximate_tokens: bool = False
    #: the embedding model's input limit in tokens (CS105); 0 = from
    #: ``embedding_model`` when it is a known model, else no limit
    model_max_tokens: int = 0
    embedding_model: str | None = None
    #: extra options passed to the chunker (e.g. separators for recursive)
    chunker_options: dict[str, Any] = field(default_factory=dict)
    #: modules to import that register extra chunkers (third-party code: imported
    #: only when the workspace is trusted, see chunkseam.config.loader)
    plugins: tuple[str, ...] = ()
    #: language server only
    debounce_ms: int = 300
    enable: bool = True
    #: chunks as document symbols (Outline, breadcrumbs) and as folding ranges: off by
    #: default, so that the editor's own headings, functions and folds stay
    chunk_symbols: bool = False
    chunk_folding: bool = False
    #: keep the rule's severity for a cut whose unit is whole in another chunk
    #: (overlap) or that falls in decoration (badges, avatar walls, navigation,
    #: tables of contents, rosters, licence text); off: those are info
    #: (chunkseam.checks.impact)
    loud_overlap: bool = False
    loud_decoration: bool = False
    #: CS101: keep its severity for a chunk over the size only because the
    #: chunker kept an atomic unit whole (off: info up to twice the size)
    loud_kept_whole: bool = False
    #: notebooks: the text outputs of code cells are part of the indexed text (chunkseam.document.notebook)
    notebook_outputs: bool = False
    #: not a configuration key: the directory path patterns (include, exclude,
    #: per-file-ignores, chunkers) are anchored at — the configuration file's
    #: directory, set by chunkseam.config.loader.resolve; None = the current directory
    config_root: str | None = field(default=None, compare=False, metadata={"internal": True})
    #: not a configuration key: an ``hf:`` encoding from an untrusted workspace's
    #: config file, which may only name a model id in the local Hugging Face cache
    #: (never a file of the repository's choosing); set by chunkseam.config.loader.resolve
    hf_model_only: bool = field(default=False, metadata={"internal": True})

    def with_(self, **changes: Any) -> "Settings":
        return replace(self, **changes)

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in fields(cls)]
