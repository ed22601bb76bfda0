"""The rule registry: ONE reviewed table, code -> rule.

Every check chunkseam can report is listed in :data:`RULES` with a stable
code, a kebab-case name, a default severity, a one-line summary, its family
and its documentation (``server/chunkseam/rules/CODE.md``: what, why, a bad
and a good example). Codes and names are a public interface: never reuse or
rename one; retire a rule by keeping its row.

Families and code ranges:

======  ==========  ======================================================
range   family      what
======  ==========  ======================================================
CS0xx   cut         a cut between two chunks judged against the document
CS1xx   chunk       one chunk on its own (size, context)
CS2xx   code        a cut judged against Python code
CS3xx   input       the chunk list itself is wrong (offsets, empty, gaps)
CS4xx   text-only   chunk dumps without a source (``validate_text_only``)
CS9xx   suppression suppression comments that do nothing or name no rule
======  ==========  ======================================================

Selectors (``select``, ``extend-select``, ``ignore``, ``severity``,
``per-file-ignores`` and suppression comments) name rules by code
(``CS002``), code prefix (``CS0``, ``CS``), kebab-case name
(``mid-sentence``) or ``ALL``; matching is case-insensitive.

:func:`resolve_selection` turns settings into the enabled rules and their
severities for one file, the way ruff does: for each rule the most specific
selector that matches it decides (an exact code or name beats any prefix, a
longer prefix beats a shorter one, ``ALL`` is the least specific); between a
``select``/``extend-select`` and an ``ignore`` selector of equal specificity
the ``ignore`` wins. Without ``select`` every rule is selected but the opt-in
ones (:data:`OPT_IN`: CS104, CS106), which run when any selector names them
(``extend-select = ["CS104"]``, ``select = ["ALL"]`` …). ``per-file-ignores`` then removes rules for files whose path
matches a glob, and ``severity`` re-grades rules (most specific selector
wins; ``"off"`` disables).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from chunkseam.core.issue import SEVERITIES

FAMILIES = {
    "cut": "a cut between two chunks judged against the document",
    "chunk": "one chunk on its own",
    "code": "a cut judged against Python code",
    "input": "the chunk list itself is wrong",
    "text-only": "chunk dumps without a source",
    "suppression": "suppression comments",
}

_RULES_DIR = Path(__file__).resolve().parents[1] / "rules"

#: the project's home; the one source of truth for links to it
REPOSITORY_URL = "https://github.com/chunkseam/chunkseam"
#: where a rule's documentation (server/chunkseam/rules/CODE.md) is published
RULE_DOC_PATH = "server/chunkseam/rules/{code}.md"


def rule_url(code: str) -> str:
    """The web page of a rule's documentation (SARIF ``helpUri``, LSP ``codeDescription``, GitLab, JUnit)."""
    return f"{REPOSITORY_URL}/blob/main/{RULE_DOC_PATH.format(code=code)}"


@dataclass(frozen=True)
class Rule:
    """One rule. ``doc`` is the Markdown help text (what, why, bad, good)."""

    code: str
    name: str
    severity: str
    summary: str
    doc: str
    family: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "summary": self.summary, "family": self.family, "doc": self.doc}


# code, name, default severity, family, summary — THE table. Review changes here.
_TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    # cuts, judged against the Markdown / text source
    ("CS001", "mid-word", "error", "cut",
     "the cut falls inside a word, a number, an identifier or a URL"),
    ("CS002", "mid-sentence", "warning", "cut",
     "the cut falls inside a sentence (or a heading)"),
    ("CS003", "split-code-fence", "error", "cut",
     "the cut falls inside a fenced or indented code block"),
    ("CS004", "split-table", "warning", "cut",
     "the cut falls inside a table: the rows after it lose their header"),
    ("CS005", "split-list-item", "warning", "cut",
     "the cut falls inside one list item (not between two items)"),
    ("CS006", "split-brackets", "warning", "cut",
     "the cut falls inside a bracket pair, a link, an inline HTML tag or an inline code span"),
    ("CS007", "orphan-heading", "warning", "cut",
     "a chunk ends with a heading (or a lead-in such as \"like so:\") whose body starts the next chunk"),
    ("CS008", "split-raw-block", "warning", "cut",
     "the cut falls inside front matter or an HTML block"),
    # per chunk
    ("CS101", "oversize", "warning", "chunk",
     "the chunk is over the size budget"),
    ("CS102", "fragment", "info", "chunk",
     "the chunk is below `min-tokens`: too small to mean anything alone"),
    ("CS103", "dangling-reference", "info", "chunk",
     "the chunk opens by pointing back (\"This\", \"As mentioned above\" …)"),
    ("CS104", "no-context", "hint", "chunk",
     "the chunk carries no heading path although its document has headings"),
    ("CS105", "over-model-limit", "warning", "chunk",
     "the chunk is longer than the embedding model's input limit: the rest is cut off silently"),
    ("CS106", "decoration-chunk", "info", "chunk",
     "the chunk is all decoration (badges, a sponsor wall, a table of contents, licence text)"),
    # code files
    ("CS201", "split-definition", "warning", "code",
     "the cut falls inside a function or class (not between two members of a class)"),
    ("CS202", "split-string", "warning", "code",
     "the cut falls inside a string literal or docstring"),
    # the chunk list itself
    ("CS301", "offset-mismatch", "error", "input",
     "the chunk's offsets do not point at its text (or point at the wrong copy of it)"),
    ("CS302", "invalid-span", "error", "input",
     "the chunk's offsets are outside the document or reversed"),
    ("CS303", "empty-chunk", "warning", "input",
     "the chunk is empty or holds only whitespace"),
    ("CS304", "uncovered-text", "warning", "input",
     "text between or around the chunks is in no chunk"),
    # text-only mode (chunk dumps without source)
    ("CS401", "no-sentence-end", "warning", "text-only",
     "the chunk's last paragraph stops without ending its sentence"),
    ("CS402", "no-sentence-start", "warning", "text-only",
     "the chunk's first paragraph starts in the middle of a sentence"),
    ("CS403", "unbalanced-brackets", "warning", "text-only",
     "a bracket opened at the chunk's end or closed at its start has no partner"),
    ("CS404", "broken-fence", "error", "text-only",
     "the chunk opens or ends inside a fenced code block"),
    ("CS405", "broken-table", "warning", "text-only",
     "the chunk opens with table rows that have no header, or ends with a header and no rows"),
    # suppressions
    ("CS900", "unused-suppression", "info", "suppression",
     "a suppression comment that suppresses nothing"),
    ("CS901", "unknown-suppression", "info", "suppression",
     "a suppression comment names no known rule"),
)


def _load_doc(code: str, summary: str) -> str:
    path = _RULES_DIR / f"{code}.md"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return summary


def _build() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    names: set[str] = set()
    for code, name, severity, family, summary in _TABLE:
        assert code not in rules, f"duplicate rule code {code}"
        assert name not in names, f"duplicate rule name {name}"
        assert severity in SEVERITIES, (code, severity)
        assert family in FAMILIES, (code, family)
        names.add(name)
        rules[code] = Rule(code, name, severity, summary, _load_doc(code, summary), family)
    return rules


#: code -> Rule, in code order
RULES: dict[str, Rule] = _build()
_BY_NAME: dict[str, Rule] = {r.name: r for r in RULES.values()}


# -- lookups --------------------------------------------------------------------------


def get_rule(key: str) -> Rule | None:
    """The rule with this code or kebab-case name (case-insensitive), or None."""
    if not isinstance(key, str):
        return None
    k = key.strip()
    return RULES.get(k.upper()) or _BY_NAME.get(k.lower())


@lru_cache(maxsize=512)
def match_selector(selector: str) -> tuple[tuple[str, ...], int]:
    """(codes matched, specificity) of one selector; specificity -1 = unknown."""
    s = selector.strip()
    if not s:
        return (), -1
    if s.upper() == "ALL":
        return tuple(RULES), 0
    rule = get_rule(s)
    if rule is not None:
        return (rule.code,), 100
    up = s.upper()
    codes = tuple(c for c in RULES if c.startswith(up))
    if codes:
        return codes, len(up)
    return (), -1


def match(selector: str) -> list[Rule]:
    """Rules a selector names: a code, a code prefix, a name or ``ALL``."""
    return [RULES[c] for c in match_selector(selector)[0]]


def is_known(selector: str) -> bool:
    return match_selector(selector)[1] >= 0


def suggest(selector: str) -> str | None:
    """The known code or name closest to an unknown ``selector`` ("did you mean"), or None."""
    import difflib

    s = selector.strip()
    if not s:
        return None
    up = s.upper()
    # a code with a digit too many or too few: CS0002 -> CS002, CS02 -> CS002
    digits = up[len(up.rstrip("0123456789")):]
    letters = up[: len(up) - len(digits)]
    if letters and digits:
        for code in RULES:
            if code.startswith(letters) and code[len(letters):].isdigit() \
                    and int(code[len(letters):]) == int(digits):
                return code
    codes = difflib.get_close_matches(up, list(RULES), n=1, cutoff=0.6)
    names = difflib.get_close_matches(s.lower(), list(_BY_NAME), n=1, cutoff=0.6)
    if s[:1].isalpha() and s[:1].islower() or "-" in s:
        return (names or codes or [None])[0]
    return (codes or names or [None])[0]


def describe_unknown(selector: str) -> str:
    """``unknown rule selector 'CS0002' (did you mean 'CS002'?)``."""
    hint = suggest(selector)
    tail = f" (did you mean {hint!r}?)" if hint else " (see `chunkseam rule` for the list)"
    return f"unknown rule selector {selector.strip()!r}{tail}"


def unknown_selectors(settings: Any) -> list[str]:
    """Selectors in ``settings`` that name no rule."""
    seen: list[str] = []
    groups: list[Iterable[str]] = [
        getattr(settings, "select", ()) or (),
        getattr(settings, "extend_select", ()) or (),
        getattr(settings, "ignore", ()) or (),
        (getattr(settings, "severity", {}) or {}).keys(),
    ]
    for rules in (getattr(settings, "per_file_ignores", {}) or {}).values():
        groups.append(rules)
    for group in groups:
        for sel in group:
            if not is_known(sel) and sel not in seen:
                seen.append(sel)
    return seen


def path_matches(path: str | None, pattern: str, base: str | None = None) -> bool:
    """Whether a file path matches a per-file-ignores glob: gitignore-style,
    anchored at ``base`` (the configuration file's directory; None = the
    current directory), like every path pattern of the configuration (see
    :mod:`chunkseam.core.globs`): ``docs/legacy/`` covers ``BASE/docs/legacy/**``,
    ``*.md`` and ``CHANGELOG.md`` match at any depth."""
    from chunkseam.core import globs
    return globs.matches(path, pattern, base)


def _decide(code: str, selected: list[tuple[int, bool]]) -> bool | None:
    """Given (specificity, is_select) votes, the most specific wins; ignore wins ties."""
    if not selected:
        return None
    best = max(s for s, _ in selected)
    votes = [is_sel for s, is_sel in selected if s == best]
    return all(votes)


#: rules that run only when selected explicitly (by code, prefix, name or
#: ``ALL``), like ruff's non-default rules: real findings, but too frequent
#: under window chunkers to be on by default
OPT_IN = frozenset({"CS104", "CS106"})


def resolve_selection(settings: Any = None, path: str | None = None) -> dict[str, str]:
    """Enabled rules and their effective severity for a file at ``path``.

    Returns ``{code: severity}``; a rule absent from the result is off.
    """
    select = tuple(getattr(settings, "select", ()) or ())
    extend = tuple(getattr(settings, "extend_select", ()) or ())
    ignore = tuple(getattr(settings, "ignore", ()) or ())
    severity = dict(getattr(settings, "severity", {}) or {})
    per_file = dict(getattr(settings, "per_file_ignores", {}) or {})
    return dict(_resolve(select, extend, ignore, tuple(sorted(severity.items())),
                         _file_ignores(per_file, path, getattr(settings, "config_root", None))))


def _file_ignores(per_file: dict[str, Iterable[str]], path: str | None, base: str | None = None) -> tuple[str, ...]:
    out: list[str] = []
    if path:
        for pattern, rules in per_file.items():
            if path_matches(path, pattern, base):
                out.extend(rules)
    return tuple(out)


@lru_cache(maxsize=256)
def _resolve(select: tuple[str, ...], extend: tuple[str, ...], ignore: tuple[str, ...],
             severity: tuple[tuple[str, str], ...], file_ignores: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    votes: dict[str, list[tuple[int, bool]]] = {c: [] for c in RULES}
    if not select:
        # the default selection: every rule but the opt-in ones, at the lowest
        # specificity (as "ALL" would be), so any explicit selector overrides it
        spec_all = match_selector("ALL")[1]
        for c in RULES:
            if c not in OPT_IN:
                votes[c].append((spec_all, True))
    for sel in select + extend:
        codes, spec = match_selector(sel)
        for c in codes:
            votes[c].append((spec, True))
    for sel in ignore:
        codes, spec = match_selector(sel)
        for c in codes:
            votes[c].append((spec, False))
    enabled = [c for c in RULES if _decide(c, votes[c])]
    for sel in file_ignores:
        drop = set(match_selector(sel)[0])
        enabled = [c for c in enabled if c not in drop]
    levels: dict[str, tuple[int, str]] = {}
    for sel, level in severity:
        codes, spec = match_selector(sel)
        level = str(level).lower()
        if level not in SEVERITIES and level != "off":
            continue
        for c in codes:
            if c not in levels or spec >= levels[c][0]:
                levels[c] = (spec, level)
    out: list[tuple[str, str]] = []
    for c in enabled:
        level = levels.get(c, (0, RULES[c].severity))[1]
        if level == "off":
            continue
        out.append((c, level))
    return tuple(out)


def expand(selectors: Iterable[str]) -> tuple[set[str], list[str]]:
    """(codes named by ``selectors``, selectors that name nothing)."""
    codes: set[str] = set()
    unknown: list[str] = []
    for sel in selectors:
        found, spec = match_selector(sel)
        if spec < 0:
            unknown.append(sel)
        codes.update(found)
    return codes, unknown
