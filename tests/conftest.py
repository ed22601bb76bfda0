"""Shared test helpers: corpus location and tools that CI must have."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the real-world corpus: $CHUNKSEAM_CORPUS, else ../shared/corpus next to the checkout
CORPUS = Path(os.environ.get("CHUNKSEAM_CORPUS") or ROOT.parent / "shared" / "corpus")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# The persistent lint cache never touches the user's cache directory from the tests, and is
# off unless a test turns it on (tests/lint/test_scale.py does, with its own directory).
os.environ["CHUNKSEAM_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="chunkseam-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["CHUNKSEAM_NO_CACHE"] = "1"

# Property tests: in CI the same examples on every run (a run's result depends on the code, not
# on a random seed; an example that once failed is pinned with @example), no example database,
# and no failure because a loaded machine generated data slowly. Elsewhere they explore at random.
from hypothesis import HealthCheck, settings as _hypothesis  # noqa: E402

_hypothesis.register_profile("ci", derandomize=True, database=None,
                             suppress_health_check=[HealthCheck.too_slow])
_hypothesis.register_profile("explore", suppress_health_check=[HealthCheck.too_slow])
_hypothesis.load_profile("ci" if IN_CI else "explore")


def require_tool(name: str) -> str:
    """Path of an executable; skip locally when missing, fail in CI."""
    path = shutil.which(name)
    if path:
        return path
    if IN_CI:
        pytest.fail(f"{name} is required in CI but not installed (see .ci/install-system.sh)")
    pytest.skip(f"{name} not installed")


def corpus_files(kind: str = "markdown", pattern: str = "*.md") -> list[Path]:
    base = CORPUS / kind
    if not base.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {base}")
        pytest.skip(f"corpus not found at {base}")
    return sorted(base.rglob(pattern))


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


#: a text on which semantic-text-splitter 0.33's MarkdownSplitter (24 characters, overlap 4)
#: panics in its Rust code (found by tests/engine/test_properties.py)
PANICKING_TEXT = "     'c')\n    def m(self):\ndef k(): return '''multi\nclass D: z = 3"


def text_splitter_panics() -> str:
    """:data:`PANICKING_TEXT`, once the installed semantic-text-splitter is seen to panic on it
    (skipped when the library is missing or no longer does)."""
    pytest.importorskip("semantic_text_splitter")
    from semantic_text_splitter import MarkdownSplitter

    try:
        MarkdownSplitter(24, 4).chunk_indices(PANICKING_TEXT)
    except BaseException:  # noqa: BLE001 - the panic (pyo3's PanicException)
        return PANICKING_TEXT
    pytest.skip("this semantic-text-splitter no longer panics on the text")


#: the slow end-to-end and corpus-wide test files, marked ``e2e``: the real language
#: server over stdio, the VS Code workbench and Neovim, pre-commit and the Action, Dask,
#: the libraries run differentially over the corpus, the judged sets, memory and scale.
#: ``pytest -m "not e2e" -n auto`` is the quick run while developing; CI runs them all.
E2E_FILES = frozenset({
    "test_action.py", "test_precommit.py", "test_hostile_cli.py", "test_hostile_round3.py",
    "test_cli_bad_input.py", "test_cli_lint.py",
    "test_vscode_extension.py", "test_neovim.py", "test_lsp_workbench.py", "test_e2e_fixtures.py",
    "test_collector.py", "test_threads.py", "test_one_location.py", "test_hostile_workspace.py",
    "test_incremental.py", "test_incremental_diagnostics.py", "test_incremental_impact.py",
    "test_langchain_differential.py", "test_pipeline_differential.py", "test_budget_loops.py",
    "test_judged.py", "test_labelled.py", "test_actionable.py", "test_properties.py",
    "test_parsers_bounded.py", "test_pathological.py", "test_memory.py", "test_memory_bounded.py",
    "test_scale.py", "test_dask_lint.py", "test_docs_integrations.py", "test_integrations_splitters.py",
    "test_integrations_pipelines.py", "test_untrusted_options.py", "test_audit.py", "test_eval.py",
    "test_architecture.py", "test_api_typing.py", "test_init.py", "test_config.py",
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        if path.name in E2E_FILES or path.parent.name == "lsp":
            item.add_marker(pytest.mark.e2e)

