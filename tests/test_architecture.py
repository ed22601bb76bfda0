"""The layers of server/ARCHITECTURE.md hold: the import contracts of
pyproject.toml ([tool.importlinter]: layers, no cycle between siblings, private
modules) are kept, no module imports another module's private name, and both
checks fail when such an import is added (on a copy of the package)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "chunkseam"


def lint_imports(server_dir: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` with the project's contracts over the package in ``server_dir``."""
    env = {**os.environ, "PYTHONPATH": str(server_dir)}
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def private_imports(package: Path) -> list[str]:
    """``module:line: what`` for every private name (``_x``, not ``__x__``) of a
    chunkseam module imported or read by another module."""
    found = []
    for f in sorted(package.rglob("*.py")):
        parts = f.relative_to(package.parent).with_suffix("").parts
        mod = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(f.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "chunkseam":
                for a in node.names:
                    if _private(a.name) and node.module != mod:
                        found.append(f"{mod}:{node.lineno}: from {node.module} import {a.name}")
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "chunkseam":
                        aliases[a.asname or a.name.split(".")[0]] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and _private(node.attr)
                    and aliases[node.value.id] != mod):
                found.append(f"{mod}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_the_import_contracts_are_kept() -> None:
    run = lint_imports(ROOT / "server")
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 kept, 0 broken" in run.stdout


def test_no_module_imports_another_modules_private_names() -> None:
    assert private_imports(PACKAGE) == []


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("server")
    shutil.copytree(PACKAGE, where / "chunkseam", ignore=shutil.ignore_patterns("__pycache__"))
    return where


def _add_line(path: Path, line: str) -> str:
    old = path.read_text(encoding="utf-8")
    path.write_text(old + "\n" + line + "\n", encoding="utf-8")
    return old


@pytest.mark.parametrize("module,line,contract", [
    # a lower layer importing a face: the document layer reading the command line
    ("document/text.py", "from chunkseam.cli import common  # noqa", "Faces over the engine"),
    # two sibling packages of one independent layer: checks importing a chunker
    ("checks/cuts.py", "from chunkseam.chunkers import fixed  # noqa", "Faces over the engine"),
    # a cycle inside a package: fixed -> recursive -> fixed
    ("chunkers/recursive.py", "from chunkseam.chunkers import fixed  # noqa", "No import cycle"),
    # a private module imported from outside its package
    ("engine/merge.py", "from chunkseam.integrations import _core  # noqa", "A private module"),
])
def test_a_new_import_across_the_layers_breaks_a_contract(copy: Path, module: str, line: str,
                                                         contract: str) -> None:
    target = copy / "chunkseam" / module
    old = _add_line(target, line)
    try:
        run = lint_imports(copy)
    finally:
        target.write_text(old, encoding="utf-8")
    assert run.returncode != 0
    broken = run.stdout[run.stdout.index("Broken contracts"):]
    assert contract in broken, run.stdout


def test_a_private_name_imported_across_modules_is_found(copy: Path) -> None:
    target = copy / "chunkseam" / "engine" / "compare.py"
    old = _add_line(target, "from chunkseam.chunkers.fixed import _token_byte_lengths  # noqa")
    try:
        found = private_imports(copy / "chunkseam")
    finally:
        target.write_text(old, encoding="utf-8")
    assert found == [f"chunkseam.engine.compare:{old.count(chr(10)) + 2}: "
                     "from chunkseam.chunkers.fixed import _token_byte_lengths"]
