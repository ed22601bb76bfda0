"""config.py: defaults < config file < overrides, errors that name file/key/value/expected."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunkseam.config import loader as config
from chunkseam.config.loader import ConfigError, find_config, load_config_file, resolve, settings_from_mapping
from chunkseam.core.settings import Settings


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_defaults_when_no_config(repo: Path) -> None:
    f = write(repo / "doc.md", "# x\n")
    r = resolve(f)
    assert r.settings == Settings()
    assert r.config_file is None
    assert set(r.sources.values()) == {"default"}
    assert "extend-select" in r.sources and "size" in r.sources


def test_pyproject_table_then_overrides(repo: Path) -> None:
    write(repo / "pyproject.toml", """
[project]
name = "x"

[tool.chunkseam]
size = 256
overlap = 32
unit = "chars"
chunker = "recursive"
select = ["CS0", "fragment"]
severity = { CS002 = "error", "mid-word" = "off" }
per-file-ignores = { "legacy/*.md" = ["CS002"] }
min-tokens = 8

[tool.chunkseam.chunkers]
"*.txt" = "fixed"
""")
    f = write(repo / "docs" / "a.md", "# a\n")
    r = resolve(f, {"size": 300})
    s = r.settings
    assert (s.size, s.overlap, s.unit, s.chunker) == (300, 32, "chars", "recursive")
    assert s.select == ("CS0", "fragment")
    assert s.severity == {"CS002": "error", "mid-word": "off"}
    assert s.per_file_ignores == {"legacy/*.md": ("CS002",)}
    assert s.chunkers == {"*.txt": "fixed"}
    assert s.min_tokens == 8
    assert r.config_file == repo / "pyproject.toml"
    assert r.sources["size"] == "command line"
    assert r.sources["overlap"] == str(repo / "pyproject.toml")
    assert r.sources["encoding"] == "default"


def test_nearest_file_wins_and_dot_file_precedence(repo: Path) -> None:
    write(repo / "pyproject.toml", "[tool.chunkseam]\nsize = 100\n")
    write(repo / "docs" / "chunkseam.toml", "size = 200\n")
    write(repo / "docs" / "api" / ".chunkseam.toml", "size = 300\n")
    write(repo / "docs" / "api" / "chunkseam.toml", "size = 999\n")
    assert resolve(repo / "x.md").settings.size == 100
    assert resolve(repo / "docs" / "x.md").settings.size == 200
    assert resolve(repo / "docs" / "api" / "x.md").settings.size == 300
    assert find_config(repo / "docs" / "api") == repo / "docs" / "api" / ".chunkseam.toml"


def test_pyproject_without_table_is_skipped(repo: Path) -> None:
    write(repo / "pyproject.toml", "[tool.chunkseam]\nsize = 123\n")
    write(repo / "sub" / "pyproject.toml", "[project]\nname = 'sub'\n")
    assert find_config(repo / "sub" / "x.md") == repo / "pyproject.toml"
    assert resolve(repo / "sub" / "x.md").settings.size == 123


def test_search_stops_at_repository_root(tmp_path: Path) -> None:
    write(tmp_path / "chunkseam.toml", "size = 77\n")  # outside the repository
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    f = write(repo / "docs" / "a.md", "x")
    assert find_config(f) is None
    assert resolve(f).settings.size == 400


def test_tool_table_accepted_in_chunkseam_toml(repo: Path) -> None:
    write(repo / "chunkseam.toml", "[tool.chunkseam]\nsize = 64\n")
    assert resolve(repo / "a.md").settings.size == 64


@pytest.mark.parametrize("key", ["extend-select", "extend_select", "extendSelect"])
def test_key_spellings(key: str) -> None:
    s, errors = settings_from_mapping({key: ["CS103"]}, source="editor")
    assert s.extend_select == ("CS103",) and errors == []


def test_camel_case_editor_settings() -> None:
    s, errors = settings_from_mapping(
        {"minTokens": 5, "perFileIgnores": {"*.md": ["CS1"]}, "debounceMs": 50, "allowNetwork": True,
         "approximateTokens": True, "chunkerOptions": {"keepSeparator": True}},
        source="editor")
    assert errors == []
    assert (s.min_tokens, s.debounce_ms, s.allow_network, s.approximate_tokens) == (5, 50, True, True)
    assert s.per_file_ignores == {"*.md": ("CS1",)}
    assert s.chunker_options == {"keep_separator": True}


def test_bad_value_message_names_file_key_value_expected(repo: Path) -> None:
    write(repo / "pyproject.toml", '[tool.chunkseam]\nsize = "big"\n')
    with pytest.raises(ConfigError) as info:
        resolve(repo / "a.md")
    err = info.value
    assert err.file == str(repo / "pyproject.toml")
    assert (err.key, err.value) == ("size", "big")
    assert "positive integer" in err.expected
    assert str(err) == f'{repo / "pyproject.toml"}: [tool.chunkseam] size = "big": expected a positive integer'


@pytest.mark.parametrize("mapping, key", [
    ({"size": 0}, "size"),
    ({"size": True}, "size"),
    ({"overlap": -1}, "overlap"),
    ({"unit": "words"}, "unit"),
    ({"encoding": "nonexistent_base"}, "encoding"),
    ({"select": "CS 002!"}, "select"),
    ({"severity": {"CS002": "fatal"}}, "severity"),
    ({"per-file-ignores": {"*.md": 3}}, "per-file-ignores"),
    ({"include": [1, 2]}, "include"),
    ({"allow-network": "yes"}, "allow-network"),
    ({"chunkers": {"*.md": 5}}, "chunkers"),
    ({"chunker-options": []}, "chunker-options"),
    ({"plugins": ["not a module"]}, "plugins"),
    ({"size": 100, "overlap": 100}, "overlap"),
])
def test_bad_values(mapping: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        settings_from_mapping(mapping, source="chunkseam.toml")
    assert info.value.key == key
    assert info.value.file == "chunkseam.toml"
    assert "expected" in str(info.value)


def test_unknown_key_is_an_error_not_ignored() -> None:
    with pytest.raises(ConfigError) as info:
        settings_from_mapping({"chunk-size": 3}, source="chunkseam.toml")
    assert info.value.key == "chunk-size"
    assert info.value.expected.startswith("one of the known keys")
    assert "unknown key" in str(info.value) and "chunk-size" in str(info.value)


def test_non_strict_keeps_base_value_and_returns_errors() -> None:
    base = Settings(size=300)
    s, errors = settings_from_mapping({"size": "big", "unit": "chars", "bogus": 1}, source="editor",
                                      base=base, strict=False)
    assert s.size == 300 and s.unit == "chars"
    assert sorted(e.key for e in errors) == ["bogus", "size"]
    assert all(e.file == "editor" for e in errors)


def test_resolve_non_strict_reports_and_uses_defaults(repo: Path) -> None:
    write(repo / "chunkseam.toml", 'size = -4\nunit = "chars"\n')
    r = resolve(repo / "a.md", strict=False)
    assert r.settings.size == 400 and r.settings.unit == "chars"
    assert [e.key for e in r.errors] == ["size"]
    assert r.sources["size"] == "default"
    assert r.sources["unit"] == str(repo / "chunkseam.toml")


def test_editor_overrides_are_labelled(repo: Path) -> None:
    r = resolve(repo / "a.md", {"minTokens": 3}, overrides_source="editor")
    assert r.sources["min-tokens"] == "editor" and r.settings.min_tokens == 3


def test_empty_config_file_gives_defaults(repo: Path) -> None:
    write(repo / "chunkseam.toml", "")
    assert load_config_file(repo / "chunkseam.toml") == {}
    r = resolve(repo / "a.md")
    assert r.config_file == repo / "chunkseam.toml"
    assert r.settings == Settings()


def test_not_toml_is_a_config_error_naming_the_file(repo: Path) -> None:
    write(repo / "chunkseam.toml", "size = = 3\n[[[\n")
    with pytest.raises(ConfigError) as info:
        load_config_file(repo / "chunkseam.toml")
    assert info.value.file == str(repo / "chunkseam.toml")
    assert "not valid TOML" in str(info.value)
    r = resolve(repo / "a.md", strict=False)
    assert r.settings == Settings() and len(r.errors) == 1


def test_config_file_cache_follows_mtime(repo: Path) -> None:
    f = write(repo / "chunkseam.toml", "size = 10\n")
    assert resolve(repo / "a.md").settings.size == 10
    write(f, "size = 20\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert resolve(repo / "a.md").settings.size == 20


def test_relative_tiktoken_file_resolved_against_config_dir(repo: Path) -> None:
    write(repo / "docs" / "chunkseam.toml", 'tiktoken-file = "enc/cl100k_base.tiktoken"\n')
    r = resolve(repo / "docs" / "a.md")
    assert r.settings.tiktoken_file == str(repo / "docs" / "enc" / "cl100k_base.tiktoken")


def test_plugins_only_imported_when_trusted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin_dir = repo / "plug"
    write(plugin_dir / "cs_test_plugin_marker.py", "import builtins\nbuiltins._cs_plugin_loaded = True\n")
    monkeypatch.syspath_prepend(str(plugin_dir))
    write(repo / "chunkseam.toml", 'plugins = ["cs_test_plugin_marker"]\n')
    import builtins

    monkeypatch.delattr(builtins, "_cs_plugin_loaded", raising=False)
    r = resolve(repo / "a.md", trusted=False)
    assert not hasattr(builtins, "_cs_plugin_loaded")
    assert len(r.errors) == 1 and r.errors[0].warning and "not trusted" in str(r.errors[0])
    r = resolve(repo / "a.md", trusted=True)
    assert getattr(builtins, "_cs_plugin_loaded", False) is True
    assert r.errors == []
    sys.modules.pop("cs_test_plugin_marker", None)
    config._loaded_plugins.discard("cs_test_plugin_marker")


def test_unknown_chunker_name_is_reported(repo: Path) -> None:
    write(repo / "chunkseam.toml", 'chunker = "semantic-magic"\n')
    with pytest.raises(ConfigError) as info:
        resolve(repo / "a.md")
    assert info.value.key == "chunker" and "registered chunker" in info.value.expected


# --- through the command line ---------------------------------------------------------------------


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunkseam.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "NO_COLOR": "1"})


def test_config_show_prints_values_and_sources(repo: Path) -> None:
    write(repo / "pyproject.toml", "[tool.chunkseam]\nsize = 256\n")
    write(repo / "a.md", "# a\n")
    p = run("config", "--show", "a.md", "--overlap", "16", cwd=repo)
    assert p.returncode == 0, p.stderr
    lines = {l.split("=")[0].strip(): l for l in p.stdout.splitlines() if "=" in l and not l.startswith("#")}
    assert "256" in lines["size"] and lines["size"].rstrip().endswith(str(repo / "pyproject.toml"))
    assert "16" in lines["overlap"] and lines["overlap"].rstrip().endswith("# command line")
    assert lines["unit"].rstrip().endswith("# default")
    assert f"config file: {repo / 'pyproject.toml'}" in p.stdout


def test_config_show_json(repo: Path) -> None:
    import json

    write(repo / "chunkseam.toml", "min-tokens = 4\n")
    p = run("config", "--show", "--format", "json", cwd=repo)
    data = json.loads(p.stdout)
    assert data["settings"]["min-tokens"] == {"value": 4, "source": str(repo / "chunkseam.toml")}


def test_cli_bad_config_exits_2_with_message(repo: Path) -> None:
    write(repo / "pyproject.toml", '[tool.chunkseam]\nsize = "big"\n')
    write(repo / "a.md", "# a\n\ntext\n")
    p = run("lint", "a.md", cwd=repo)
    assert p.returncode == 2
    assert 'pyproject.toml: [tool.chunkseam] size = "big": expected a positive integer' in p.stderr


def test_cli_unknown_key_exits_2(repo: Path) -> None:
    write(repo / "chunkseam.toml", "colour = true\n")
    write(repo / "a.md", "# a\n")
    p = run("lint", "a.md", cwd=repo)
    assert p.returncode == 2 and "unknown key 'colour'" in p.stderr


def test_cli_empty_config_file_is_fine(repo: Path) -> None:
    write(repo / "chunkseam.toml", "")
    write(repo / "a.md", "# Title\n\nOne short paragraph.\n")
    p = run("lint", "a.md", "--chunker", "recursive", "--select", "CS001", cwd=repo)
    assert p.returncode == 0, p.stderr
    assert "in 1 file" in p.stdout


def test_cli_non_toml_config_exits_2(repo: Path) -> None:
    write(repo / ".chunkseam.toml", "this is not toml\n")
    write(repo / "a.md", "# a\n")
    p = run("lint", "a.md", cwd=repo)
    assert p.returncode == 2
    assert ".chunkseam.toml: not valid TOML" in p.stderr


def test_cli_explicit_config_file(repo: Path) -> None:
    write(repo / "other.toml", "size = 42\n")
    write(repo / "a.md", "# a\n")
    p = run("config", "--show", "a.md", "--config", "other.toml", cwd=repo)
    assert p.returncode == 0, p.stderr
    assert any(l.startswith("size") and "42" in l and "other.toml" in l for l in p.stdout.splitlines())
