"""Editor settings, merged over the project's config file exactly as the CLI does.

Sources, lowest first: built-in defaults < the nearest config file of the
document (``[tool.chunkseam]`` / ``chunkseam.toml``) < initialization options
< ``workspace/configuration`` (section ``chunkseam``). The last two are the
"editor" overrides handed to :func:`chunkseam.config.resolve`, so a document
shows the same issues in the editor as with ``chunkseam lint``.

A few keys belong to the server or to a client and never reach the engine:
``trace`` (log level), ``trusted`` (initialization option only) and client-side
keys such as VS Code's ``server.path`` or ``interpreter``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .log import TRACE_LEVELS, trace_level

#: keys the server consumes itself
SERVER_KEYS = frozenset({"trace", "log_level", "trusted", "settings"})
#: keys a client may put in the ``chunkseam`` section for its own use; ignored here
CLIENT_KEYS = frozenset({
    "server", "server_path", "interpreter", "python", "path", "executable", "args",
    "bands", "show_bands", "toggle_bands", "chunk_bands", "status_bar", "client",
    "preview", "lenses", "code_lens", "restart",
})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _norm(key: str) -> str:
    return _CAMEL.sub("_", key).replace("-", "_").lower()


@dataclass
class SettingProblem:
    """A bad editor setting the server handles itself (the engine's own come
    from :func:`chunkseam.config.resolve` as ``ConfigError``)."""

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
            elif _norm(key) != "trusted":
                init[key] = value
        return cls(init=init, trusted=trusted)

    def merged(self) -> dict[str, Any]:
        out = dict(self.init)
        out.update(self.workspace)
        return out

    def overrides(self) -> dict[str, Any]:
        """The engine settings of the editor (server and client keys removed)."""
        return {
            k: v
            for k, v in self.merged().items()
            if isinstance(k, str) and _norm(k) not in SERVER_KEYS and _norm(k) not in CLIENT_KEYS
        }

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

    def set_workspace(self, section: Any) -> bool:
        """Replace the ``workspace/configuration`` values; True when they changed."""
        value = dict(section) if isinstance(section, Mapping) else {}
        if value == self.workspace:
            return False
        self.workspace = value
        self.generation += 1
        return True


def resolve_for(path: str | None, editor: EditorSettings):
    """``chunkseam.config.resolve`` for one document with the editor's overrides.

    Never raises for a bad value: bad keys keep their default and come back in
    ``errors`` (reported once by the server)."""
    from ..config import resolve

    return resolve(path, editor.overrides(), strict=False, trusted=editor.trusted,
                   overrides_source="editor")


def describe_error(err: Any) -> str:
    """One line for ``window/showMessage`` naming the key and what was expected."""
    text = str(err)
    key = getattr(err, "key", None)
    expected = getattr(err, "expected", None)
    if key and expected and "expected" not in text:
        text = f"{text} (setting {key!r}: expected {expected})"
    return f"chunkseam: {text}"
