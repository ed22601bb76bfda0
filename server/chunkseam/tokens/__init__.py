"""tokens."""
