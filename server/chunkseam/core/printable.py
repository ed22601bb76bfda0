"""Names as a terminal or a CI log may print them."""

from __future__ import annotations

_CONTROL = None


def printable(text: str) -> str:
    """``text`` with control characters (newlines, carriage returns, escape sequences,
    C1 controls, the Unicode line separators) written as escapes: a file name never
    starts a line of its own in a terminal or a CI log."""
    global _CONTROL
    if _CONTROL is None:
        import re

        _CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return _CONTROL.sub(lambda m: named.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
