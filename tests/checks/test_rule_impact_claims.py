"""A message that says the unit is whole in another chunk is never loud, and
that chunk really holds the unit: the claim and the severity come from one
verdict. Checked over overlapping windows of a document written for this
test (a fenced example, a list, prose), every window start and overlap."""

from __future__ import annotations

from chunkseam.core.chunk import Chunk
from cutkit import LOUD, issues

PLOVER = (
    "# Plover\n\n"
    "Plover mirrors a package index to a local disk and serves it to the build machines. "
    "It fetches only the versions a lock file names, so a mirror stays small.\n\n"
    "```python\n"
    "import plover\n"
    "from plover.lock import read_lock\n\n"
    "lock = read_lock(\"requirements.lock\")\n"
    "mirror = plover.Mirror(\"/srv/pypi\")\n"
    "for name, version in lock.items():\n"
    "    mirror.fetch(name, version)\n"
    "mirror.serve(port=8080)\n"
    "```\n\n"
    "- Run the mirror on a machine the build agents reach without a proxy.\n"
    "- Rotate the disk when it is nine tenths full; old versions are never deleted.\n\n"
    "The mirror answers the simple index API only (PEP 503), which pip and uv both speak.\n"
)


def _windows(text: str, size: int, overlap: int) -> list[Chunk]:
    out, a, k = [], 0, 0
    while a < len(text):
        b = min(len(text), a + size)
        out.append(Chunk(a, b, k, source=text))
        if b == len(text):
            break
        a, k = b - overlap, k + 1
    return out


def test_a_claim_of_whole_elsewhere_is_never_loud_and_names_a_chunk_holding_the_unit():
    text = PLOVER
    claims = 0
    for size in (90, 140, 200):
        for overlap in (20, 45, 70):
            chunks = _windows(text, size, overlap)
            for i in issues(text, chunks):
                if "whole in chunk" not in i.message:
                    continue
                claims += 1
                assert i.severity not in LOUD, i.message
                k = i.data.get("whole_in")
                if k is not None and i.unit is not None:
                    held = chunks[k]
                    assert f"whole in chunk {k + 1}" in i.message
                    # the chunk holds the unit's text a reader needs (at least past its edges)
                    assert held.start <= max(i.unit[0], i.cut) and held.end >= min(i.unit[1], i.cut)
    assert claims > 0  # the windows do produce such claims: the check is not empty
