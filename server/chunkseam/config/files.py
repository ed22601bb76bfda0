"""Finding and reading configuration files, and the error they raise.

The nearest ``.chunkseam.toml``, ``chunkseam.toml`` or ``pyproject.toml``
with a ``[tool.chunkseam]`` table, read as bounded regular files and cached by
modification time; :class:`ConfigError` names the file, the key and what was
expected. Kept apart from :mod:`chunkseam.config.loader` (which resolves the
values) so that :mod:`chunkseam.config.confine` can find the project's root
without the resolution.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: file names looked for in each directory, in order of precedence
CONFIG_FILES = (".chunkseam.toml", "chunkseam.toml", "pyproject.toml")


class ConfigError(Exception):
    """A bad configuration value, an unknown key or an unreadable config file.

    ``str()`` reads like ``pyproject.toml: [tool.chunkseam] size = "big":
    expected a positive integer``. ``warning`` is true for notes that do not
    make the configuration invalid (plugins not loaded in an untrusted
    workspace).
    """

    def __init__(
        self,
        file: str | None,
        key: str | None,
        value: Any = None,
        expected: str = "",
        *,
        table: str | None = None,
        message: str | None = None,
        warning: bool = False,
    ) -> None:
        self.file = file
        self.key = key
        self.value = value
        self.expected = expected
        self.table = table
        self.warning = warning
        self._message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        if self._message is not None:
            return f"{where}{self._message}"
        table = f"[{self.table}] " if self.table else ""
        return f"{where}{table}{self.key} = {toml_repr(self.value)}: expected {self.expected}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "key": self.key, "value": jsonable(self.value),
                "expected": self.expected, "message": str(self), "warning": self.warning}


def jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return repr(value)


def toml_repr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "(none)"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_repr(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {toml_repr(v)}" for k, v in value.items()) + " }"
    if isinstance(value, int) and not -10**30 < value < 10**30:
        return f"{'-' if value < 0 else ''}(a {len(str(abs(value)))}-digit number)"
    return str(value)


# --- finding and reading config files -------------------------------------------

file_cache: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
#: the largest config file read (bytes)
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def has_tool_table(path: Path) -> bool:
    try:
        data = load_config_file(path)
    except ConfigError:
        return True  # a broken pyproject.toml is reported, not skipped over
    return bool(data) or has_empty_tool_table(path)


def has_empty_tool_table(path: Path) -> bool:
    try:
        raw = read_toml(path)
    except ConfigError:
        return True
    tool = raw.get("tool")
    return isinstance(tool, dict) and "chunkseam" in tool


def find_config(path: str | Path | None) -> Path | None:
    """The config file that applies to ``path`` (a file or a directory; None =
    the current directory): the nearest ``.chunkseam.toml``, ``chunkseam.toml``
    or ``pyproject.toml`` with a ``[tool.chunkseam]`` table, looking upwards and
    stopping at the repository root (the directory that contains ``.git``)."""
    start = Path(path) if path is not None else Path.cwd()
    try:
        start = start.expanduser().absolute()
    except OSError:
        return None
    directory = start if start.is_dir() else start.parent
    for d in (directory, *directory.parents):
        for name in CONFIG_FILES:
            candidate = d / name
            if candidate.is_file():
                if name == "pyproject.toml" and not has_tool_table(candidate):
                    continue
                return candidate
        if (d / ".git").exists():
            break
    return None


def read_toml(path: Path) -> dict[str, Any]:
    path = Path(path)
    try:
        stat = path.stat()
        key = str(path.absolute())
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = file_cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        import stat as stat_

        if not stat_.S_ISREG(stat.st_mode):  # a FIFO or a device would block or never end
            raise ConfigError(str(path), None, message="not a usable config file: not a regular file")
        if stat.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(str(path), None, message=f"not a usable config file: {stat.st_size:,} bytes "
                              f"(at most {MAX_CONFIG_BYTES:,})")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(str(path), None, message=f"cannot read config file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), None, message=f"not valid TOML: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), None, message=f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(str(path), None, message="not a usable config file: nested too deeply") from None
    file_cache[key] = (stamp, data)
    return data


def load_config_file(path: str | Path) -> dict[str, Any]:
    """The chunkseam table of a config file: ``[tool.chunkseam]`` of a
    ``pyproject.toml``, the top level of ``chunkseam.toml`` (a
    ``[tool.chunkseam]`` table there is accepted too). An empty file gives
    ``{}``; a file that is not TOML raises :class:`ConfigError`."""
    p = Path(path)
    data = read_toml(p)
    if p.name == "pyproject.toml" or (set(data) == {"tool"} and isinstance(data.get("tool"), dict)):
        tool = data.get("tool", {})
        table = tool.get("chunkseam", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            raise ConfigError(str(p), "tool.chunkseam", table, "a table")
        return table
    return data


def table_name(path: Path) -> str | None:
    if path.name == "pyproject.toml":
        return "tool.chunkseam"
    try:
        data = read_toml(path)
    except ConfigError:
        return None
    return "tool.chunkseam" if set(data) == {"tool"} else None
