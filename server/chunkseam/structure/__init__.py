"""structure: one backend per file kind (block structures chosen through
:mod:`chunkseam.structure.registry`; the code structures in
:mod:`chunkseam.structure.python` and :mod:`chunkseam.structure.treesitter`)."""
