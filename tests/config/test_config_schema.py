"""chunkseam.schema.json (for editors with TOML schema support) matches what `config` accepts."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jsonschema
import pytest

from chunkseam.config import loader as config
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "chunkseam.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)

#: one accepted value per key (every key `config` accepts must be here)
VALID = {
    "chunker": "recursive",
    "size": 512,
    "overlap": 64,
    "overlap-unit": "sentences",
    "unit": "chars",
    "encoding": "o200k_base",
    "chunkers": {"*.md": "markdown", "docs/api/**": "recursive"},
    "select": ["CS0", "mid-word", "ALL"],
    "extend-select": ["CS104"],
    "ignore": "CS102, CS103",
    "severity": {"CS002": "error", "CS1": "off"},
    "per-file-ignores": {"changelog/*.md": ["CS102"]},
    "include": ["*.md", "*.rst"],
    "exclude": ["build/", "docs/legacy/**"],
    "min-tokens": 0,
    "language": "de",
    "dangling-words": ["this", "as noted above"],
    "tiktoken-file": "tokenizers/cl100k_base.tiktoken",
    "allow-network": False,
    "approximate-tokens": True,
    "chunker-options": {"separators": ["\n\n", "\n", " "]},
    "plugins": ["mypkg.chunkers"],
    "debounce-ms": 150,
    "enable": True,
    "model-max-tokens": 8191,
    "embedding-model": "text-embedding-3-small",
    "chunk-symbols": True,
    "chunk-folding": False,
    "notebook-outputs": True,
    "loud-overlap": True,
    "loud-decoration": False,
    "loud-kept-whole": True,
    "extend": "../chunkseam.toml",
}

#: values `config` rejects that the schema rejects too
INVALID = {
    "size": [0, "big", True],
    "overlap": [-1, 1.5],
    "unit": ["bytes"],
    "overlap-unit": ["tokens", 2],
    "chunkers": [["*.md"], {"*.md": 3}],
    "select": [["CS 2"], [3]],
    "severity": [{"CS002": "loud"}],
    "per-file-ignores": [{"a/*": [1]}],
    "include": [[1]],
    "min-tokens": [-3],
    "language": ["klingon", 3],
    "allow-network": ["yes"],
    "approximate-tokens": [1],
    "chunker-options": [[1, 2]],
    "plugins": [["not a module"]],
    "debounce-ms": [-1],
    "enable": ["true"],
    "model-max-tokens": [-1],
    "embedding-model": ["has space"],
    "chunk-symbols": ["yes"],
    "notebook-outputs": ["true", 1],
    "loud-overlap": ["yes"],
    "loud-decoration": [1],
    "loud-kept-whole": ["false"],
    "chunker": ["has space", 3],
}


def accepted_keys() -> set[str]:
    return {config.kebab(k) for k in config._CHECKS} | set(config.FILE_ONLY_KEYS)


def test_the_schema_names_every_key_config_accepts_and_no_other() -> None:
    assert set(SCHEMA["properties"]) == accepted_keys()
    assert SCHEMA["additionalProperties"] is False
    assert set(VALID) == accepted_keys(), "add a sample value for the new key"


@pytest.mark.parametrize("key", sorted(VALID))
def test_a_valid_value_passes_both(key: str, tmp_path: Path) -> None:
    table = {key: VALID[key]}
    if key == "overlap":
        table["size"] = 400
    VALIDATOR.validate(table)
    if key in config.FILE_ONLY_KEYS:  # read from a file, not a settings mapping
        (tmp_path / "chunkseam.toml").write_text("size = 10\n")
        (tmp_path / "sub").mkdir()
        (tmp_path / "sub" / "chunkseam.toml").write_text(f'{key} = "{VALID[key]}"\n')
        assert config.resolve(tmp_path / "sub" / "x.md").settings.size == 10
        return
    config.settings_from_mapping(table, source="test")


@pytest.mark.parametrize("key, value", [(k, v) for k, vs in sorted(INVALID.items()) for v in vs])
def test_an_invalid_value_fails_both(key: str, value) -> None:
    assert list(VALIDATOR.iter_errors({key: value})), (key, value)
    with pytest.raises(config.ConfigError):
        config.settings_from_mapping({key: value}, source="test")


def test_unknown_keys_fail_both() -> None:
    assert list(VALIDATOR.iter_errors({"chunk-size": 400}))
    with pytest.raises(config.ConfigError):
        config.settings_from_mapping({"chunk-size": 400}, source="test")


def test_the_documented_examples_are_valid() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    checked = 0
    for block in blocks:
        data = tomllib.loads(block)
        table = data.get("tool", {}).get("chunkseam", data if "tool" not in data else None)
        if table is None:
            continue
        VALIDATOR.validate(table)
        checked += 1
    assert checked >= 1
