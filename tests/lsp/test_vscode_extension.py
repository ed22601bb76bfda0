"""The VS Code extension (client-vscode/): its own checks, run from pytest.

- ``npm ci`` installs the pinned toolchain (package-lock.json);
- ``npm test``: TypeScript unit tests under Node's test runner;
- ``npm run package``: typecheck, eslint, esbuild bundle, ``vsce package``
  -> ``chunkseam-<version>.vsix``;
- the end-to-end test: the .vsix installed into a fresh code-server (the real
  VS Code workbench), driven by headless Chromium through playwright-core,
  with the server started from this Python (``sys.executable``).

Locally these skip when Node/npm, Chromium or ripgrep are missing; in CI
(``CI=true``) a missing tool fails (see .ci/install-system.sh).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import IN_CI, ROOT, require_tool

EXT = ROOT / "client-vscode"
ARTIFACTS = ROOT / "test-artifacts" / "vscode"
INSTALL_SCRIPT = EXT / "scripts" / "install-code-server.sh"


def _run(cmd: list[str], *, timeout: float, env: dict[str, str] | None = None,
         cwd: Path = EXT) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        out = (proc.stdout + "\n" + proc.stderr).strip()
        pytest.fail(f"{' '.join(cmd)} exited with {proc.returncode}:\n{out[-6000:]}", pytrace=False)
    return proc


def _npm_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"npm_config_fund": "false", "npm_config_audit": "false",
                "npm_config_update_notifier": "false"})
    return env


def _require_node20() -> None:
    require_tool("node")
    require_tool("npm")
    major = subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if major != "20":
        message = f"the extension's toolchain and code-server 4.100.3 need Node 20 (found Node {major})"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def installed() -> Path:
    """client-vscode with ``npm ci`` done."""
    _require_node20()
    _run(["npm", "ci", "--no-fund", "--no-audit"], timeout=900, env=_npm_env())
    assert (EXT / "node_modules" / "vscode-languageclient").is_dir()
    return EXT


@pytest.fixture(scope="module")
def vsix(installed: Path) -> Path:
    """The packaged extension (typecheck + lint + bundle + vsce)."""
    version = json.loads((EXT / "package.json").read_text(encoding="utf-8"))["version"]
    target = EXT / f"chunkseam-{version}.vsix"
    target.unlink(missing_ok=True)
    _run(["npm", "run", "package"], timeout=600, env=_npm_env())
    assert target.is_file(), f"npm run package did not produce {target.name}"
    return target


def test_typescript_unit_tests(installed: Path) -> None:
    env = _npm_env()
    # a Python with chunkseam: the tests that run the probe and the launcher
    # in a folder of shadow modules (chunkseam.py, tiktoken.py, …) need one
    env["CHUNKSEAM_PYTHON"] = sys.executable
    proc = _run(["npm", "test"], timeout=300, env=env)
    out = proc.stdout + proc.stderr
    assert "# fail 0" in out, out[-3000:]
    assert "# skipped 0" in out, "the shadow-module tests were skipped:\n" + out[-3000:]
    passed = [line for line in out.splitlines() if line.startswith("# pass ")]
    assert passed and int(passed[-1].split()[-1]) > 50, out[-3000:]


def test_package_contents(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("extension/package.json"))
    assert "extension/dist/extension.js" in names
    assert not any("node_modules" in n for n in names), "dependencies must be bundled, not shipped"
    assert not any(n.startswith("extension/src/") for n in names), "sources must not be shipped"
    assert manifest["main"] == "./dist/extension.js"
    assert {"onLanguage:markdown", "onLanguage:python", "onLanguage:plaintext",
            "onLanguage:mdx", "onLanguage:javascript", "onLanguage:typescript",
            "onLanguage:typescriptreact", "onLanguage:go", "onLanguage:rust",
            "onLanguage:java"} <= set(manifest["activationEvents"])
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    assert {"chunkseam.showChunk", "chunkseam.previewDocument", "chunkseam.compareStrategies",
            "chunkseam.restartServer", "chunkseam.toggleBands"} <= commands
    props = manifest["contributes"]["configuration"]["properties"]
    for key in ("chunker", "size", "overlap", "unit", "encoding", "select", "ignore", "severity",
                "debounceMs", "enable", "server.path", "interpreter", "trace.server", "bands.enable"):
        assert f"chunkseam.{key}" in props, key
    assert manifest["capabilities"]["untrustedWorkspaces"]["supported"] == "limited"
    colors = {c["id"]: c["defaults"] for c in manifest["contributes"]["colors"]}
    for defaults in colors.values():
        assert {"dark", "light", "highContrast"} <= set(defaults)


#: language ids the server accepts that are not VS Code's ("text": Neovim's
#: filetype; VS Code's is plaintext)
_NOT_VSCODE_LANGUAGE_IDS = {"text"}


def _server_language_ids() -> set[str]:
    """The language ids the server analyses: every id of its tables for which
    it analyses an open document (code needs the grammar: the test extra)."""
    from chunkseam.document.text import _CODE_LANGUAGES, _LANGUAGE_KIND, Document
    from chunkseam.lsp.state import _analysed
    from chunkseam.structure.treesitter import _LANGUAGE_IDS

    candidates = set(_LANGUAGE_KIND) | set(_CODE_LANGUAGES) | set(_LANGUAGE_IDS)
    return {lang for lang in candidates if _analysed(Document("x = 1\n", language_id=lang))}


def test_the_extension_serves_every_language_the_server_analyses() -> None:
    """package.json's onLanguage activation events are the extension's one list
    (selector, bands, status bar and the menus' context key derive from them):
    they must name exactly the languages the server analyses."""
    manifest = json.loads((EXT / "package.json").read_text(encoding="utf-8"))
    events = manifest["activationEvents"]
    client = {e.split(":", 1)[1] for e in events if e.startswith("onLanguage:")}
    server = _server_language_ids() - _NOT_VSCODE_LANGUAGE_IDS
    assert {"markdown", "python", "typescript", "restructuredtext"} <= server
    assert client - server == set(), f"activated for languages the server does not analyse: {sorted(client - server)}"
    assert server - client == set(), f"the server analyses languages the extension ignores: {sorted(server - client)}"
    # notebooks: the types the server synchronizes
    from chunkseam.lsp.notebooks import sync_options

    served = {f.notebook.notebook_type for f in sync_options().notebook_selector}
    assert {e.split(":", 1)[1] for e in events if e.startswith("onNotebook:")} == served
    # the menus test the context key set from that list, never a list of their own
    for menu, items in manifest["contributes"]["menus"].items():
        for item in items:
            when = item.get("when", "")
            assert "editorLangId ==" not in when and "resourceLangId" not in when, (menu, when)
            assert "editorLangId in chunkseam.languages" in when, (menu, when)


def _code_server_dir() -> Path:
    require_tool("chromium")
    require_tool("rg")
    require_tool("pkg-config")
    proc = subprocess.run(["bash", str(INSTALL_SCRIPT)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=900, env=_npm_env())
    if proc.returncode != 0:
        message = f"install-code-server.sh failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
        if proc.returncode == 2 and not IN_CI:  # missing system packages
            pytest.skip(message)
        pytest.fail(message, pytrace=False)
    return Path(proc.stdout.strip().splitlines()[-1])


def test_end_to_end_in_code_server(vsix: Path) -> None:
    """Squiggles, Problems rows, lenses, hover, bands, status bar, chunk view,
    preview and the "Insert paragraph break" quick fix, in the real workbench."""
    cs_dir = _code_server_dir()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = _npm_env()
    env["CHUNKSEAM_PYTHON"] = sys.executable
    proc = subprocess.run(
        ["node", str(EXT / "e2e" / "run-e2e.mjs"), "--vsix", str(vsix), "--python", sys.executable,
         "--code-server-dir", str(cs_dir), "--artifacts", str(ARTIFACTS)],
        cwd=EXT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    log = proc.stderr
    (ARTIFACTS / "e2e.log").write_text(log + "\n" + proc.stdout, encoding="utf-8")
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, f"e2e failed ({summary}); screenshots in {ARTIFACTS}\n{log[-6000:]}"
    assert summary.endswith(" 0 failed") and not summary.startswith("0 passed"), summary
