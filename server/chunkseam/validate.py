"""``from chunkseam.validate import statistics``: the validator's public names,
at the path the library documents (the code is :mod:`chunkseam.engine.validate`)."""

from chunkseam.engine.validate import (  # noqa: F401  (re-exported)
    BROKEN_SEVERITIES,
    Stats,
    statistics,
    total,
    validate,
    validate_text_only,
)

__all__ = ["Stats", "statistics", "total", "validate", "validate_text_only", "BROKEN_SEVERITIES"]
