"""Shared test helpers: corpus location and tools that CI must have."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the real-world corpus: $CHUNKSEAM_CORPUS, else ../shared/corpus next to the checkout
CORPUS = Path(os.environ.get("CHUNKSEAM_CORPUS") or ROOT.parent / "shared" / "corpus")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


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
