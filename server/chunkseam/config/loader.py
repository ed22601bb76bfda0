"""Configuration: built-in defaults < project config file < command line / editor.

One resolution for every front end (CLI, pre-commit, language server):

* the nearest ``.chunkseam.toml`` / ``chunkseam.toml`` (top-level keys) or
  ``pyproject.toml`` with a ``[tool.chunkseam]`` table, looking from the file's
  directory upwards and stopping at the repository root (the directory that
  contains ``.git``);
* then the overrides (command-line flags, or the editor's settings).

Keys are kebab-case in files; snake_case and camelCase (VS Code) are accepted
too. A bad value is a :class:`ConfigError` naming the file, the key, the value
and what was expected; unknown keys are errors, never silently ignored.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from chunkseam.core.issue import SEVERITIES
from chunkseam.core.settings import Settings
from chunkseam.config.files import (  # noqa: F401  (re-exported: the package's names)
    CONFIG_FILES,
    ConfigError,
    find_config,
    load_config_file,
    table_name,
    toml_repr,
)

__all__ = [
    "CONFIG_FILES",
    "ConfigError",
    "Resolved",
    "find_config",
    "load_config_file",
    "normalize_key",
    "resolve",
    "settings_from_mapping",
]

BUILTIN_CHUNKERS = ("fixed", "recursive", "sentence", "markdown", "code")
LEVELS = tuple(SEVERITIES) + ("off",)


# --- keys ----------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalize_key(key: str) -> str:
    """``extend-select`` / ``extend_select`` / ``extendSelect`` -> ``extend_select``."""
    return _CAMEL.sub("_", key).replace("-", "_").lower()


def kebab(name: str) -> str:
    return name.replace("_", "-")


_FIELDS = {f.name for f in fields(Settings) if not f.metadata.get("internal")}
KNOWN_KEYS = tuple(kebab(f.name) for f in fields(Settings) if not f.metadata.get("internal"))


# --- value checks ----------------------------------------------------------------
# Each takes the raw value and returns the converted value or raises _Bad(expected).


class _Bad(Exception):
    def __init__(self, expected: str, problem: str | None = None) -> None:
        self.expected = expected
        #: what is wrong, when more precise than "expected …" (an unknown rule selector)
        self.problem = problem


def _int(minimum: int, what: str, maximum: int | None = None) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, str) and v.strip().isdigit() and len(v.strip()) <= 30:
                v = int(v.strip())  # "400" from an editor text box
            else:
                raise _Bad(what)
        if v < minimum or (maximum is not None and v > maximum):
            raise _Bad(what)
        return v

    return check


#: the largest embedding-model limit accepted (models take thousands to millions of tokens;
#: a larger number is a mistake, and a huge one overflowed the report's arithmetic)
MAX_MODEL_TOKENS = 1_000_000_000

#: the longest debounce accepted (a minute): larger values are a mistake, and
#: a huge one would overflow the event loop's timer
MAX_DEBOUNCE_MS = 60_000


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise _Bad("true or false")


def _str_list(what: str = "a list of strings") -> Callable[[Any], tuple[str, ...]]:
    def check(v: Any) -> tuple[str, ...]:
        if isinstance(v, str):
            v = [p for p in (s.strip() for s in v.split(",")) if p]
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
            raise _Bad(what)
        return tuple(v)

    return check


_RULE_SELECTOR = re.compile(r"^(ALL|[A-Z]{1,4}[0-9]{0,4}|[a-z][a-z0-9]*(-[a-z0-9]+)*)$")


_SELECTORS_EXPECTED = 'a list of rule codes, code prefixes or names (e.g. ["CS002", "CS1", "mid-word"])'


def _known_selector(item: str) -> None:
    """An unknown rule selector is a configuration error, never a silent no-op (like ruff)."""
    from chunkseam.checks import registry

    if not registry.is_known(item):
        raise _Bad(_SELECTORS_EXPECTED, registry.describe_unknown(item))


def _rule_list(v: Any) -> tuple[str, ...]:
    items = _str_list(_SELECTORS_EXPECTED)(v)
    for item in items:
        if not _RULE_SELECTOR.match(item.strip()):
            raise _Bad(_SELECTORS_EXPECTED)
        _known_selector(item)
    return tuple(i.strip() for i in items)


def _language(v: Any) -> str:
    from chunkseam.structure.sentences import LANGUAGES

    if not isinstance(v, str) or v.strip().lower() not in LANGUAGES:
        raise _Bad("a language code for sentence splitting: one of " + ", ".join(LANGUAGES))
    return v.strip().lower()


def _chunker(v: Any) -> str | None:
    if v is None or v == "" or v == "auto":
        return None
    if not isinstance(v, str) or not re.match(r"^[A-Za-z_][\w.-]*$", v):
        raise _Bad("a chunker name (" + ", ".join(BUILTIN_CHUNKERS) + ") or \"auto\"")
    return v


def _unit(v: Any) -> str:
    if v not in ("tokens", "chars"):
        raise _Bad('"tokens" or "chars"')
    return v


def _overlap_unit(v: Any) -> str:
    if v not in ("unit", "sentences"):
        raise _Bad('"unit" (overlap counted in the size unit) or "sentences"')
    return v


def _encoding(v: Any) -> str:
    what = ("a tiktoken encoding name ({}), a model name tiktoken knows (gpt-4o, "
            "text-embedding-3-small …) or a Hugging Face tokenizer "
            "(\"hf:path/to/tokenizer.json\" or \"hf:ORG/MODEL\")")
    from chunkseam.tokens.tiktoken import list_encoding_names

    known = list_encoding_names()  # imports tiktoken safely from any thread
    if not isinstance(v, str):
        raise _Bad(what.format(", ".join(known)))
    if v.startswith("hf:"):
        from chunkseam.tokens.hf import check_name

        try:
            return check_name(v)
        except ValueError:
            raise _Bad(what.format(", ".join(known))) from None
    if v in known:
        return v
    from chunkseam.tokens.tiktoken import canonical_encoding_name

    try:
        canonical_encoding_name(v)
    except ValueError:
        raise _Bad(what.format(", ".join(known))) from None
    return v.strip()


def _hf_relative_path(ref: str) -> bool:
    """An ``hf:`` reference that is a relative file path (not a model id, not absolute)."""
    p = Path(os.path.expanduser(ref))
    if p.is_absolute():
        return False
    return ref.endswith(".json") or ref.startswith(".") or ref.count("/") != 1


def _glob_list(v: Any) -> tuple[str, ...]:
    items = _str_list("a list of glob patterns")(v)
    for item in items:
        _check_glob(item)
    return items


def _check_glob(pattern: str) -> None:
    from chunkseam.core.globs import glob_problem

    problem = glob_problem(pattern)
    if problem is not None:
        raise _Bad(problem)


#: bounds of ``dangling-words``: every chunk start is matched against all of them
MAX_DANGLING_WORDS = 1_000
MAX_DANGLING_CHARS = 100


def _dangling_words(v: Any) -> tuple[str, ...]:
    what = (f"a list of at most {MAX_DANGLING_WORDS:,} words or phrases of at most "
            f"{MAX_DANGLING_CHARS} characters")
    items = _str_list(what)(v)
    if len(items) > MAX_DANGLING_WORDS or any(len(w) > MAX_DANGLING_CHARS for w in items):
        raise _Bad(what)
    return items


def _embedding_model(v: Any) -> str | None:
    if v is None or v == "":
        return None
    if not isinstance(v, str) or not re.match(r"^[\w./:-]+$", v):
        raise _Bad("an embedding model name (e.g. \"text-embedding-3-small\", "
                   "\"BAAI/bge-small-en-v1.5\")")
    return v


def _routes(v: Any) -> dict[str, str]:
    what = 'a table of glob = chunker name (e.g. "*.md" = "markdown")'
    if not isinstance(v, Mapping) or not all(
        isinstance(k, str) and isinstance(x, str) and x for k, x in v.items()
    ):
        raise _Bad(what)
    for k in v:
        _check_glob(k)
    return dict(v)


def _severity(v: Any) -> dict[str, str]:
    what = "a table of rule = level, level one of " + ", ".join(LEVELS)
    if not isinstance(v, Mapping):
        raise _Bad(what)
    out = {}
    for k, level in v.items():
        if not isinstance(k, str) or not isinstance(level, str) or level.lower() not in LEVELS:
            raise _Bad(what)
        _known_selector(k)
        out[k] = level.lower()
    return out


def _per_file_ignores(v: Any) -> dict[str, tuple[str, ...]]:
    what = 'a table of glob = list of rule codes (e.g. "docs/legacy/*" = ["CS002"])'
    if not isinstance(v, Mapping):
        raise _Bad(what)
    out = {}
    for k, rules in v.items():
        if not isinstance(k, str):
            raise _Bad(what)
        _check_glob(k)
        try:
            out[k] = _rule_list(rules)
        except _Bad as bad:
            raise _Bad(what, bad.problem) from None
    return out


def _table(v: Any) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise _Bad("a table")
    return {normalize_key(k) if isinstance(k, str) else k: x for k, x in v.items()}


def _optional_path(v: Any) -> str | None:
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise _Bad("a file path")
    return v


def _module_list(v: Any) -> tuple[str, ...]:
    what = "a list of importable module names"
    items = _str_list(what)(v)
    for m in items:
        if not re.match(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$", m):
            raise _Bad(what)
    return items


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "chunker": _chunker,
    "size": _int(1, "a positive integer"),
    "overlap": _int(0, "a non-negative integer"),
    "overlap_unit": _overlap_unit,
    "unit": _unit,
    "encoding": _encoding,
    "chunkers": _routes,
    "select": _rule_list,
    "extend_select": _rule_list,
    "ignore": _rule_list,
    "severity": _severity,
    "per_file_ignores": _per_file_ignores,
    "include": _glob_list,
    "exclude": _glob_list,
    "language": _language,
    "min_tokens": _int(0, "a non-negative integer"),
    "dangling_words": _dangling_words,
    "tiktoken_file": _optional_path,
    "allow_network": _bool,
    "approximate_tokens": _bool,
    "model_max_tokens": _int(0, f"a whole number of tokens from 0 (no limit) to {MAX_MODEL_TOKENS:,}",
                             MAX_MODEL_TOKENS),
    "embedding_model": _embedding_model,
    "chunker_options": _table,
    "plugins": _module_list,
    "debounce_ms": _int(0, f"a whole number of milliseconds from 0 to {MAX_DEBOUNCE_MS}",
                        MAX_DEBOUNCE_MS),
    "enable": _bool,
    "chunk_symbols": _bool,
    "chunk_folding": _bool,
    "notebook_outputs": _bool,
    "loud_overlap": _bool,
    "loud_decoration": _bool,
    "loud_kept_whole": _bool,
}
assert set(_CHECKS) <= _FIELDS, set(_CHECKS) - _FIELDS


def settings_from_mapping(
    mapping: Mapping[str, Any] | None,
    *,
    source: str,
    base: Settings = Settings(),
    strict: bool = True,
    table: str | None = None,
    relative_to: Path | None = None,
) -> tuple[Settings, list[ConfigError]]:
    """``base`` updated with the values of ``mapping`` (kebab-, snake- or camelCase keys).

    ``source`` names where the mapping came from (a file path, "command line",
    "editor"); it is the ``file`` of every error. With ``strict`` the first
    error is raised; otherwise bad keys keep ``base``'s value and the errors
    are returned. ``relative_to`` resolves a relative ``tiktoken-file``.
    """
    errors: list[ConfigError] = []
    changes: dict[str, Any] = {}
    for raw_key, value in (mapping or {}).items():
        if not isinstance(raw_key, str):
            err = ConfigError(source, str(raw_key), value, "a string key", table=table)
            if strict:
                raise err
            errors.append(err)
            continue
        name = normalize_key(raw_key)
        check = _CHECKS.get(name)
        if check is None:
            err = ConfigError(source, raw_key, value,
                              "one of the known keys: " + ", ".join(KNOWN_KEYS), table=table,
                              message=f"{'[' + table + '] ' if table else ''}unknown key {raw_key!r}"
                              f" (known keys: {', '.join(KNOWN_KEYS)})")
            err.expected = "one of the known keys: " + ", ".join(KNOWN_KEYS)
            if strict:
                raise err
            errors.append(err)
            continue
        try:
            converted = check(value)
        except _Bad as bad:
            err = ConfigError(source, raw_key, value, bad.expected, table=table,
                              message=None if bad.problem is None else
                              f"{'[' + table + '] ' if table else ''}{raw_key} = {toml_repr(value)}: "
                              f"{bad.problem}")
            if strict:
                raise err from None
            errors.append(err)
            continue
        if (name == "encoding" and converted.startswith("hf:") and relative_to is not None
                and _hf_relative_path(converted[3:])):
            converted = "hf:" + str(relative_to / os.path.expanduser(converted[3:]))
        if name == "tiktoken_file" and converted and relative_to is not None:
            p = Path(os.path.expanduser(converted))
            converted = str(p if p.is_absolute() else (relative_to / p))
        changes[name] = converted
    settings = replace(base, **changes) if changes else base
    # cross-field check: an overlap must be smaller than the chunk size
    if (settings.overlap >= settings.size and settings.overlap_unit != "sentences"
            and ("overlap" in changes or "size" in changes)):
        key = "overlap" if "overlap" in changes else "size"
        raw = next((k for k in (mapping or {}) if isinstance(k, str) and normalize_key(k) == key), key)
        err = ConfigError(source, raw, getattr(settings, key),
                          f"overlap ({settings.overlap}) smaller than size ({settings.size})",
                          table=table)
        if strict:
            raise err
        errors.append(err)
        settings = replace(settings, **{key: getattr(base, key)})
        if settings.overlap >= settings.size:
            settings = replace(settings, overlap=0)
    return settings, errors


# --- resolution ------------------------------------------------------------------


@dataclass
class Resolved:
    settings: Settings
    #: kebab-case key -> "default" | config file path | "command line" | "editor"
    sources: dict[str, str]
    config_file: Path | None
    errors: list[ConfigError] = field(default_factory=list)
    #: kebab-case key -> the config file whose value an override (command line,
    #: editor) replaced: what CI, which reads only the file, will not see
    overridden: dict[str, str] = field(default_factory=dict)


_loaded_plugins: set[str] = set()


def _load_plugins(settings: Settings, file: str | None, trusted: bool) -> list[ConfigError]:
    errors: list[ConfigError] = []
    if not settings.plugins:
        return errors
    if not trusted:
        errors.append(ConfigError(
            file, "plugins", list(settings.plugins), "a trusted workspace",
            message="plugins " + ", ".join(settings.plugins)
            + " were not loaded because the workspace is not trusted",
            warning=True,
        ))
        return errors
    for module in settings.plugins:
        if module in _loaded_plugins:
            continue
        try:
            importlib.import_module(module)
        except Exception as exc:  # a plugin's own error must not take the tool down
            errors.append(ConfigError(file, "plugins", module, "an importable module",
                                      message=f"plugin {module!r} could not be imported: {exc}"))
            continue
        _loaded_plugins.add(module)
    return errors


def _from_file(source: str | None, overrides_source: str) -> bool:
    return source not in (None, "default", overrides_source)


def _untrusted_file_settings(settings: Settings, sources: dict[str, str],
                             overrides_source: str) -> tuple[Settings, list[ConfigError]]:
    """In an untrusted workspace, a config file may not make chunkseam read a
    file of its choosing (``tiktoken-file``: a FIFO, a device, a huge or
    compressed file) nor run regular expressions of its choosing (regex
    ``separators``, which can backtrack for hours); the editor's own settings
    may. The values are dropped with a warning naming the file and the key."""
    errors: list[ConfigError] = []
    source = sources.get("tiktoken-file")
    if settings.tiktoken_file and _from_file(source, overrides_source):
        errors.append(ConfigError(
            source, "tiktoken-file", settings.tiktoken_file, "a trusted workspace",
            message=f"tiktoken-file = {toml_repr(settings.tiktoken_file)} was not used because "
                    "the workspace is not trusted (set it in the editor's settings instead)",
            warning=True))
        settings = replace(settings, tiktoken_file=None)
        sources["tiktoken-file"] = "default"
    source = sources.get("chunker-options")
    options = settings.chunker_options or {}
    if options.get("is_separator_regex") and options.get("separators") and _from_file(source, overrides_source):
        errors.append(ConfigError(
            source, "chunker-options.separators", list(options["separators"]), "a trusted workspace",
            message="regular expression separators (chunker-options.is-separator-regex = true) "
                    "were not used because the workspace is not trusted; literal separators are "
                    "(set is-separator-regex = false, or trust the workspace)",
            warning=True))
        settings = replace(settings, chunker_options={
            k: v for k, v in options.items() if k not in ("separators", "is_separator_regex")})
    if _from_file(source, overrides_source) and settings.chunker_options:
        settings, dropped = _untrusted_chunker_options(settings, source)
        errors.extend(dropped)
    source = sources.get("allow-network")
    if settings.allow_network and _from_file(source, overrides_source):
        errors.append(ConfigError(
            source, "allow-network", True, "a trusted workspace",
            message="allow-network = true was not used because the workspace is not trusted: "
                    "its config file cannot make chunkseam download tokenizers (set it in the "
                    "editor's settings instead)", warning=True))
        settings = replace(settings, allow_network=False)
        sources["allow-network"] = "default"
    source = sources.get("encoding")
    if settings.encoding.startswith("hf:") and _from_file(source, overrides_source):
        from chunkseam.tokens.hf import is_model_id

        if is_model_id(settings.encoding[3:]):  # only from the local Hugging Face cache
            settings = replace(settings, hf_model_only=True)
        else:
            errors.append(ConfigError(
                source, "encoding", settings.encoding, "a trusted workspace",
                message=f"encoding = {toml_repr(settings.encoding)} was not used because the "
                        "workspace is not trusted: a tokenizer file of the repository's choosing "
                        "is not read (a model id from the local Hugging Face cache is, e.g. "
                        '"hf:BAAI/bge-small-en-v1.5"; or set it in the editor\'s settings)',
                warning=True))
            settings = replace(settings, encoding=Settings().encoding)
            sources["encoding"] = "default"
    return settings, errors


def _untrusted_chunker_options(settings: Settings, source: str | None) -> tuple[Settings, list[ConfigError]]:
    """Drop the ``chunker-options`` an untrusted workspace's config file may not
    set (each chunker says which, and why: a regular expression a library runs
    with Python's ``re``, a splitter that imports another library or loads a
    model), with one warning per chunker. Every registered chunker is asked,
    not only the configured one: the options reach any strategy a document is
    run with (``chunkseam/compare`` runs several)."""
    from chunkseam import chunkers

    options = dict(settings.chunker_options)
    errors: list[ConfigError] = []
    for name in chunkers.names():
        try:
            chunker = chunkers.get(name)
        except KeyError:
            continue
        check = getattr(chunker, "untrusted_options", None)
        refused = check(options) if callable(check) else {}
        if not refused:
            continue
        shown = ", ".join(f"{kebab(k)} = {toml_repr(options[k])}" for k in refused)
        reasons = "; ".join(dict.fromkeys(refused.values()))
        errors.append(ConfigError(
            source, "chunker-options." + kebab(next(iter(refused))), {k: options[k] for k in refused},
            "a trusted workspace",
            message=f"chunker-options {shown} {'was' if len(refused) == 1 else 'were'} not used "
                    f"for the {name} chunker because the "
                    f"workspace is not trusted: {reasons} (set {'it' if len(refused) == 1 else 'them'} in "
                    "the editor's settings, or trust the workspace)", warning=True))
        for k in refused:
            options.pop(k, None)
    return replace(settings, chunker_options=options), errors


def _check_chunker_names(settings: Settings, sources: dict[str, str]) -> list[ConfigError]:
    from chunkseam import chunkers

    known = set(chunkers.names()) | set(BUILTIN_CHUNKERS)
    errors = []
    expected = "a registered chunker: " + ", ".join(sorted(known))
    if settings.chunker and settings.chunker not in known:
        errors.append(ConfigError(sources.get("chunker"), "chunker", settings.chunker, expected))
    for glob, name in settings.chunkers.items():
        if name not in known:
            errors.append(ConfigError(sources.get("chunkers"), f"chunkers.{glob!r}", name, expected))
    # a library-backed chunker whose library is not installed: one configuration error, not one per file
    named = [("chunker", settings.chunker)] if settings.chunker else []
    named += [(f"chunkers.{glob!r}", n) for glob, n in settings.chunkers.items()]
    for key, name in named:
        why = chunkers.unavailable(name) if name in known else None
        if why:
            src = sources.get("chunkers" if key != "chunker" else "chunker")
            errors.append(ConfigError(src, key, name, "an installed chunker",
                                      message=f"{key} = {toml_repr(name)}: {why}"))
    return errors


def resolve(
    path: str | Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    strict: bool = True,
    trusted: bool = True,
    overrides_source: str = "command line",
    config_file: str | Path | None = None,
    isolated: bool = False,
) -> Resolved:
    """Settings for ``path``: defaults < nearest config file < ``overrides``.

    ``overrides`` are labelled ``overrides_source`` in ``sources`` ("command
    line" for the CLI, "editor" for the language server). Plugins are imported
    only when ``trusted``. With ``strict`` the first error is raised,
    otherwise bad values are skipped and returned in ``errors`` (plugin
    warnings are always returned, never raised). ``config_file`` names the
    config file to use instead of looking for the nearest one. ``isolated`` (``--isolated``,
    as ruff has): no configuration file at all, neither the project's nor the user's;
    defaults and ``overrides`` only.
    """
    errors: list[ConfigError] = []
    sources = {k: "default" for k in KNOWN_KEYS}
    overridden: dict[str, str] = {}
    settings = Settings()
    user_level = False
    if isolated:
        config_file = None
    elif config_file is not None:
        config_file = Path(config_file)
    else:
        config_file = find_config(path)
        if config_file is not None:
            from chunkseam.config.confine import refusal

            why = refusal(config_file)
            if why is not None:  # a config file linked out of the repository: not read, no value echoed
                err = ConfigError(str(config_file), None, message=f"not a usable config file: {why}")
                if strict:
                    raise err
                errors.append(err)
                config_file = None
        if config_file is None:  # like ruff: the user-level file when the project has none
            config_file = user_config_file()
            user_level = config_file is not None
    if config_file is not None:
        for one, table in _extend_chain(config_file, strict, errors):
            file_label = str(one)
            settings, errs = settings_from_mapping(
                table, source=file_label, base=settings, strict=strict,
                table=table_name(one), relative_to=one.parent,
            )
            errors.extend(errs)
            bad = {normalize_key(e.key) for e in errs if e.key}
            for k in table:
                if isinstance(k, str) and normalize_key(k) in _FIELDS and normalize_key(k) not in bad:
                    sources[kebab(normalize_key(k))] = file_label
        if not user_level:  # path patterns are anchored at the configuration file's directory
            settings = replace(settings, config_root=str(config_file.absolute().parent))
    if overrides:
        clean = {k: v for k, v in overrides.items() if v is not None}
        settings, errs = settings_from_mapping(
            clean, source=overrides_source, base=settings, strict=strict,
            relative_to=Path.cwd(),
        )
        errors.extend(errs)
        bad = {normalize_key(e.key) for e in errs if e.key}
        for k in clean:
            if normalize_key(k) in _FIELDS and normalize_key(k) not in bad:
                key = kebab(normalize_key(k))
                if sources.get(key, "default") not in ("default", overrides_source):
                    overridden[key] = sources[key]
                sources[key] = overrides_source
    errors.extend(_load_plugins(settings, sources.get("plugins"), trusted))
    if not trusted and not user_level:  # the user's own file is as trusted as the editor's settings
        settings, untrusted = _untrusted_file_settings(settings, sources, overrides_source)
        errors.extend(untrusted)
    if trusted:  # third-party chunkers of the entry-point group chunkseam.chunkers
        from chunkseam.chunkers.adapters.common import load_entry_points

        load_entry_points(True)
    for err in _check_chunker_names(settings, sources):
        if strict:
            raise err
        errors.append(err)
        if err.key == "chunker":
            settings = replace(settings, chunker=None)
            sources["chunker"] = "default"
    return Resolved(settings, sources, config_file, errors, overridden)


#: keys of a configuration file that are not settings
FILE_ONLY_KEYS = ("extend",)
_MAX_EXTEND = 16


def user_config_file() -> Path | None:
    """The user-level configuration file (``chunkseam.toml`` in the platform's user
    config directory, e.g. ``~/.config/chunkseam/`` on Linux), when it exists."""
    try:
        import platformdirs

        candidate = Path(platformdirs.user_config_dir("chunkseam", appauthor=False)) / "chunkseam.toml"
        return candidate if candidate.is_file() else None
    except Exception:  # no home directory …: no user configuration
        return None


def _extend_outside(extending: Path, target: Path) -> str | None:
    """Why a repository's config file may not extend ``target``, or None: the target must
    be inside the repository root (after resolving links) and outside ``.git``. A file
    outside the repository (the user-level one, a ``--config`` elsewhere) is the user's
    own and may extend any file."""
    from chunkseam.config.confine import VCS_DIRS, project_root

    try:
        root = os.path.realpath(project_root())
        here = os.path.realpath(extending)
        real = os.path.realpath(target)
    except (OSError, ValueError):
        return "a path that cannot be resolved"

    def inside(path: str) -> bool:
        return path == root or path.startswith(root.rstrip(os.sep) + os.sep)

    if not inside(here):
        return None
    if not inside(real):
        return f"outside the repository root {root}"
    if any(part in VCS_DIRS for part in Path(os.path.relpath(real, root)).parts):
        return "inside a version-control directory"
    return None


def _extend_chain(config_file: Path, strict: bool, errors: list[ConfigError]) -> list[tuple[Path, dict[str, Any]]]:
    """``config_file`` and the files it extends (``extend = "../chunkseam.toml"``,
    relative to the extending file), the most basic first, without ``extend``."""
    chain: list[tuple[Path, dict[str, Any]]] = []
    seen: set[Path] = set()
    current: Path | None = config_file
    while current is not None:
        try:
            table = dict(load_config_file(current))
        except ConfigError as exc:
            if strict:
                raise
            errors.append(exc)
            table = {}
        target = table.pop("extend", None)
        chain.append((current, table))
        seen.add(current.resolve())
        current = None
        if target is None:
            break
        err = None
        if not isinstance(target, str) or not target.strip():
            err = ConfigError(str(chain[-1][0]), "extend", target, "a path to a configuration file",
                              table=table_name(chain[-1][0]))
        else:
            p = Path(os.path.expanduser(target))
            p = Path(os.path.normpath(p if p.is_absolute() else chain[-1][0].parent / p))
            outside = _extend_outside(chain[-1][0], p)
            if outside is not None:  # nothing of the target is read, so nothing of it is echoed
                err = ConfigError(str(chain[-1][0]), "extend", target, "a configuration file inside the repository",
                                  message=f"extend = {toml_repr(target)}: {outside}; not read",
                                  table=table_name(chain[-1][0]))
            elif not p.is_file():
                err = ConfigError(str(chain[-1][0]), "extend", target,
                                  "a path to an existing configuration file (relative to this one)",
                                  table=table_name(chain[-1][0]))
            elif p.resolve() in seen or len(chain) >= _MAX_EXTEND:
                err = ConfigError(str(chain[-1][0]), "extend", target, "no cycle",
                                  message=f"extend = {toml_repr(target)}: the extend chain loops back "
                                          f"(or is longer than {_MAX_EXTEND} files)")
            else:
                current = p
        if err is not None:
            if strict:
                raise err
            errors.append(err)
    return list(reversed(chain))


def describe(resolved: Resolved) -> list[tuple[str, Any, str]]:
    """(kebab key, value, source) for every setting, for ``config --show``."""
    out = []
    for f in fields(Settings):
        if f.metadata.get("internal"):
            continue
        out.append((kebab(f.name), getattr(resolved.settings, f.name), resolved.sources.get(kebab(f.name), "default")))
    return out
