"""Editor settings, merged over the project's config file exactly as the CLI does.

Sources, lowest first: built-in defaults < the nearest config file of the
document (``[tool.chunkseam]`` / ``chunkseam.toml``) < the editor's settings,
handed to :func:`chunkseam.config.loader.resolve` as the "editor" overrides, so a
document shows the same issues in the editor as with ``chunkseam lint``.

The editor's settings are the initialization options until the client first
sends its settings (``workspace/configuration`` or ``didChangeConfiguration``);
from then on what the client sends *replaces* them: a setting the user removed
falls back to its default instead of sticking at its value at start-up. In a
multi-root workspace the settings of each workspace folder (asked for with its
``scopeUri``) apply to the documents inside it.

A few keys belong to the server or to a client and never reach the engine:
``trace`` (log level), ``trusted`` (initialization option only) and client-side
keys such as VS Code's ``server.path`` or ``interpreter``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Mapping

from chunkseam.lsp.log import TRACE_LEVELS, trace_level

#: keys the server consumes itself
SERVER_KEYS = frozenset({"trace", "log_level", "trusted", "settings", "max_diagnostics"})

#: default of ``maxDiagnostics``: VS Code keeps 1,000 diagnostics per file and
#: drops the rest silently; the server stays below and says what it left out
DEFAULT_MAX_DIAGNOSTICS = 1000
#: keys a client may put in the ``chunkseam`` section for its own use; ignored here
CLIENT_KEYS = frozenset({
    "server", "server_path", "interpreter", "python", "path", "executable", "args",
    "bands", "show_bands", "toggle_bands", "chunk_bands", "status_bar", "client",
    "preview", "lenses", "code_lens", "restart",
})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def norm_key(key: str) -> str:
    return _CAMEL.sub("_", key).replace("-", "_").lower()


@dataclass
class SettingProblem:
    """A bad editor setting the server handles itself (the engine's own come
    from :func:`chunkseam.config.loader.resolve` as ``ConfigError``)."""

    key: str
    value: Any
    expected: str
    warning: bool = False

    def __str__(self) -> str:
        return f"editor: {self.key} = {self.value!r}: expected {self.expected}"


@dataclass
class EditorSettings:
    """What the client told us, kept raw; :meth:`overrides` is what the engine sees."""

    init: dict[str, Any] = field(default_factory=dict)
    workspace: dict[str, Any] = field(default_factory=dict)
    trusted: bool = False
    #: bumped whenever the settings change; part of every analysis cache key
    generation: int = 0
    #: the client has sent its settings: they replace the initialization options
    received: bool = False
    #: workspace folder path -> that folder's settings (multi-root workspaces)
    folders: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.workspace or self.folders:
            self.received = True

    @classmethod
    def from_initialization_options(cls, options: Any) -> "EditorSettings":
        """``initializationOptions`` may be ``{"trusted": …, "settings": {…}}``,
        ``{"chunkseam": {…}}`` or the settings themselves at the top level."""
        options = options if isinstance(options, Mapping) else {}
        trusted = options.get("trusted", False) is True
        init: dict[str, Any] = {}
        for key, value in options.items():
            if not isinstance(key, str):
                continue
            if key in ("settings", "chunkseam") and isinstance(value, Mapping):
                init.update(value)
            elif norm_key(key) != "trusted":
                init[key] = value
        return cls(init=init, trusted=trusted)

    def folder_of(self, path: str | None) -> str | None:
        """The innermost workspace folder (of those with their own settings) holding ``path``."""
        if not path or not self.folders:
            return None
        best = None
        p = PurePath(path)
        for folder in self.folders:
            f = PurePath(folder)
            if (p == f or f in p.parents) and (best is None or len(folder) > len(best)):
                best = folder
        return best

    def merged(self, path: str | None = None) -> dict[str, Any]:
        """The editor's settings for a document at ``path`` (None: the window's)."""
        if not self.received:
            return dict(self.init)
        folder = self.folder_of(path)
        return dict(self.folders[folder] if folder is not None else self.workspace)

    def overrides(self, path: str | None = None) -> dict[str, Any]:
        """The engine settings of the editor (server and client keys removed)."""
        return {
            k: v
            for k, v in self.merged(path).items()
            if isinstance(k, str) and norm_key(k) not in SERVER_KEYS and norm_key(k) not in CLIENT_KEYS
        }

    def max_diagnostics(self) -> tuple[int, list[SettingProblem]]:
        """``maxDiagnostics``: the most diagnostics published per document
        (the last of them a summary of what was left out); 0 means no cap."""
        merged = self.merged()
        for key in ("maxDiagnostics", "max_diagnostics", "max-diagnostics"):
            if key not in merged or merged[key] is None:
                continue
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 10**7:
                return DEFAULT_MAX_DIAGNOSTICS, [SettingProblem(key, value, "an integer from 0 (no cap) to 10000000")]
            return value, []
        return DEFAULT_MAX_DIAGNOSTICS, []

    def log_level(self) -> tuple[int | None, list[SettingProblem]]:
        """The server's log level: ``logLevel`` (as the VS Code extension sends
        it) or ``trace`` as a string. ``trace`` as an object is a client's own
        message tracing (VS Code's ``chunkseam.trace.server``) and is ignored."""
        merged = self.merged()
        for key in ("logLevel", "log_level", "log-level", "trace"):
            value = merged.get(key)
            if value is None or isinstance(value, Mapping):
                continue
            level = trace_level(value)
            if level is None:
                return None, [SettingProblem(key, value, "one of " + ", ".join(TRACE_LEVELS))]
            return level, []
        return None, []

    def set_workspace(self, section: Any, folders: Mapping[str, Any] | None = None) -> bool:
        """Replace the editor's settings with what the client sent (the window's
        section, and each workspace folder's); True when they changed."""
        value = dict(section) if isinstance(section, Mapping) else {}
        per_folder = {str(k): dict(v) if isinstance(v, Mapping) else {} for k, v in (folders or {}).items()}
        # a folder whose settings are the window's needs no entry of its own
        per_folder = {k: v for k, v in per_folder.items() if v != value}
        before = (self.workspace, self.folders) if self.received else (self.init, {})
        changed = (value, per_folder) != before
        self.workspace = value
        self.folders = per_folder
        self.received = True
        if changed:
            self.generation += 1
        return changed


def resolve_for(path: str | None, editor: EditorSettings):
    """``chunkseam.config.loader.resolve`` for one document with the editor's overrides.

    Never raises for a bad value: bad keys keep their default and come back in
    ``errors`` (reported once by the server)."""
    from chunkseam.config.loader import resolve

    resolved = resolve(path, editor.overrides(path), strict=False, trusted=editor.trusted,
                       overrides_source="editor")
    resolved.unusable = unusable_config(resolved)  # type: ignore[attr-defined]
    return resolved


#: the settings a status bar always names (the others when they are not defaults)
CORE_KEYS = ("chunker", "size", "overlap", "unit", "encoding")


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_value(v) for v in (sorted(value, key=str) if isinstance(value, (set, frozenset)) else value)]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return str(value)


def setting_layers(resolved: Any) -> list[dict[str, Any]]:
    """``config --show`` for an editor: each setting that matters, its value and
    the layer it came from — ``source`` is ``"default"``, the config file's path
    or ``"editor"`` (the client knows which of its own layers: user, workspace,
    folder); ``overrides`` names the config file whose value an editor setting
    replaced (CI, which reads only the file, does not see that value)."""
    from chunkseam.config.loader import describe

    overridden = getattr(resolved, "overridden", {}) or {}
    out = []
    for key, value, source in describe(resolved):
        if key not in CORE_KEYS and source == "default":
            continue
        item: dict[str, Any] = {"key": key, "value": _json_value(value), "source": source}
        if key in overridden:
            item["overrides"] = overridden[key]
        out.append(item)
    return out


def unusable_config(resolved: Any) -> str | None:
    """Why the document's config file cannot be used at all (not TOML, not
    readable, ``[tool.chunkseam]`` not a table), else None. Such a document is
    not analysed: defaults in place of the project's settings would be a silent
    lie (the file's errors are shown on the file and in the status bar)."""
    file = getattr(resolved, "config_file", None)
    if file is None:
        return None
    for err in getattr(resolved, "errors", []):
        if (not getattr(err, "warning", False) and getattr(err, "file", None) == str(file)
                and getattr(err, "key", None) in (None, "tool.chunkseam")):
            return str(err)
    return None


def describe_error(err: Any) -> str:
    """One line for ``window/showMessage`` naming the key and what was expected."""
    text = str(err)
    key = getattr(err, "key", None)
    expected = getattr(err, "expected", None)
    if key and expected and "expected" not in text:
        text = f"{text} (setting {key!r}: expected {expected})"
    return f"chunkseam: {text}"
