"""The version: written in this one place (pyproject.toml reads it; the tests
check that the VS Code client's package.json says the same)."""

__version__ = "0.1.0"
