"""init."""
