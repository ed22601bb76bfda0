"""Boundary checks, one module per family, and the rule registry.

* :mod:`.registry` — the one table of rules (code -> :class:`~.registry.Rule`),
  lookups and :func:`~.registry.resolve_selection`;
* :mod:`.base` — the cut, the context, words, sentences, bracket spans;
* :mod:`.cuts` — CS001–CS008 against Markdown / plain text;
* :mod:`.code` — CS201/CS202 against Python;
* :mod:`.chunks` — CS101–CS105 per chunk;
* :mod:`.inputs` — CS301–CS304, reading the chunk list and making the cuts;
* :mod:`.textonly` — CS401–CS405 for chunk dumps without a source;
* :mod:`.suppress` — suppression comments and CS900/CS901.

:func:`chunkseam.engine.validate.validate` runs them in that order.
"""

from chunkseam.checks.registry import RULES, Rule, get_rule, resolve_selection

__all__ = ["RULES", "Rule", "get_rule", "resolve_selection"]
