"""What a cut costs retrieval: ``chunkseam eval`` and ``chunkseam tune``.

Questions with reference excerpts (:mod:`.questions`) are asked of the chunks
a configuration makes of their documents; the chunks are retrieved with BM25
(and, when one is installed and cached, a dense model: :mod:`.retrieval`),
scored as the published chunking evaluations score them (:mod:`.metrics`),
and set beside what chunkseam says about the cuts that split the excerpts
(:mod:`.run`). :mod:`.report` writes the table in text, JSON, Markdown and a
self-contained HTML page; :mod:`.tune` searches a grid of configurations.
"""
