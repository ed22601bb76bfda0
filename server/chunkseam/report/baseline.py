"""Baselines: adopt chunkseam on a large corpus, then fail only on new issues.

An issue is keyed by the file's path, the rule code and a fingerprint of the
text at the cut (whitespace-normalised), never by line numbers, so an edit
elsewhere in the file does not make old issues look new. The same key may
occur several times in a file; the baseline stores counts, and only issues
beyond the stored count are new.

File format (JSON, stable, sorted, diff-friendly)::

    {"chunkseam-baseline": 1,
     "entries": [{"path": "docs/a.md", "code": "CS002", "fingerprint": "…", "count": 1,
                  "message": "…"}]}

Paths are stored relative to the baseline file's directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Iterable

from chunkseam.report.formats import Record

FORMAT_VERSION = 1
_WS = re.compile(r"\s+")
CONTEXT = 40


class BaselineError(Exception):
    pass


def _norm(s: str) -> str:
    return _WS.sub(" ", s).strip()


def fingerprint(text: str, code: str, start: int, end: int, cut: int | None = None) -> str:
    """A short hash of what is cut: the text on both sides of the cut (or the
    issue's span when it is not about a cut), whitespace-normalised."""
    if cut is not None:
        left = text[max(0, cut - CONTEXT):cut]
        right = text[cut:cut + CONTEXT]
        key = f"{code}\x00{_norm(left)}\x00|\x00{_norm(right)}"
    else:
        span = text[start:end] if end - start <= 400 else text[start:start + 200] + text[end - 200:end]
        key = f"{code}\x00{_norm(span)}\x00{_norm(text[max(0, start - CONTEXT // 2):start])}"
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _key_path(path: str, base: Path) -> str:
    p = Path(path)
    try:
        return Path(os.path.relpath(p.resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive
        return p.resolve().as_posix()


class Baseline:
    def __init__(self, counts: Counter | None = None, base: Path | None = None) -> None:
        self.counts: Counter = counts or Counter()
        self.base = base or Path.cwd()

    @classmethod
    def load(cls, path: str | Path) -> "Baseline":
        p = Path(path)
        from chunkseam.config.confine import refusal

        why = refusal(p)
        if why is not None:
            raise BaselineError(f"{p}: error: {why}")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise BaselineError(f"{p}: error: cannot read baseline: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise BaselineError(f"{p}: error: baseline is not valid JSON: {exc}") from None
        except RecursionError:
            raise BaselineError(f"{p}: error: baseline is not a chunkseam baseline (JSON nested too deeply)") from None
        if not isinstance(data, dict) or data.get("chunkseam-baseline") != FORMAT_VERSION:
            raise BaselineError(f"{p}: error: not a chunkseam baseline (version {FORMAT_VERSION})")
        counts: Counter = Counter()
        for e in data.get("entries", []):
            try:
                counts[(e["path"], e["code"], e["fingerprint"])] += int(e.get("count", 1))
            except (KeyError, TypeError, ValueError):
                raise BaselineError(f"{p}: error: malformed baseline entry {e!r}") from None
        return cls(counts, p.parent)

    def key(self, rec: Record) -> tuple[str, str, str]:
        return (_key_path(rec.path, self.base), rec.code, rec.fingerprint)

    def filter(self, records: list[Record]) -> tuple[list[Record], int]:
        """(new records, number of baselined ones). Consumes counts, so call
        once per run with every record of a file."""
        new: list[Record] = []
        known = 0
        for rec in records:
            k = self.key(rec)
            if self.counts.get(k, 0) > 0:
                self.counts[k] -= 1
                known += 1
            else:
                new.append(rec)
        return new, known

    @staticmethod
    def write(path: str | Path, records: Iterable[Record]) -> int:
        p = Path(path)
        base = p.parent if str(p.parent) else Path(".")
        counts: Counter = Counter()
        messages: dict[tuple[str, str, str], str] = {}
        for rec in records:
            k = (_key_path(rec.path, base), rec.code, rec.fingerprint)
            counts[k] += 1
            messages.setdefault(k, rec.message)
        entries = [
            {"path": k[0], "code": k[1], "fingerprint": k[2], "count": n, "message": messages[k]}
            for k, n in sorted(counts.items())
        ]
        data = {"chunkseam-baseline": FORMAT_VERSION, "entries": entries}
        tmp = p.with_name(p.name + ".tmp")
        try:
            tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            os.replace(tmp, p)
        except OSError as exc:
            raise BaselineError(f"{p}: error: cannot write the baseline: {exc.strerror or exc}") from None
        return sum(counts.values())
