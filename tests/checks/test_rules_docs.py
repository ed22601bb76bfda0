"""Every rule's documented bad example triggers it and its good example does not.

The examples live in ``server/chunkseam/rules/CODE.md`` as fences tagged
``markdown bad`` / ``python good`` …, with ✂ marking the cuts and options such
as ``size=45 unit=chars`` or ``textonly``: the help a user reads is the test.
"""

from __future__ import annotations

import pytest
from cutkit import doc_examples, marked, spans_from_cuts, unmark

from chunkseam.checks.registry import RULES
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import CharSizer, get_sizer
from chunkseam.engine.validate import validate, validate_text_only

#: rules whose examples are pipeline code (tested in test_rules_input.py)
CODE_EXAMPLES = {"CS301", "CS302", "CS304"}

_CODE_SUFFIX = {"js": ".js", "ts": ".ts", "go": ".go", "rust": ".rs", "java": ".java"}

CASES = [(code, n, ex) for code, rule in sorted(RULES.items())
         for n, ex in enumerate(doc_examples(rule.doc))]


def test_every_rule_has_a_tagged_bad_and_good_example():
    for code in RULES:
        if code in CODE_EXAMPLES:
            continue
        verdicts = {ex["verdict"] for c, _, ex in CASES if c == code}
        assert verdicts == {"bad", "good"}, code


def _issues(ex, code):
    opts = ex["opts"]
    # the rule under test is selected, as a user reading its doc would (opt-in rules too)
    s = Settings(**{k: v for k, v in opts.items() if k in ("size", "unit", "min_tokens", "model_max_tokens")},
                 extend_select=(code,))
    if opts.get("textonly"):
        text, cuts = unmark(ex["body"])
        return validate_text_only([text[a:b] for a, b in spans_from_cuts(len(text), cuts)], s)
    sizer = CharSizer() if s.unit == "chars" else get_sizer("tokens", s.encoding)
    lang = ex["lang"]
    code = _CODE_SUFFIX.get(lang)  # tree-sitter languages (the code extra)
    doc, chunks, _ = marked(ex["body"], kind="python" if lang == "python" else
                            "code" if code else "markdown",
                            path="example.mdx" if lang == "mdx" else "example.rst" if lang == "rst"
                            else f"example{code}" if code else None, sizer=sizer)
    return validate(doc, chunks, s, sizer=sizer)


@pytest.mark.parametrize("code,n,ex", CASES, ids=[f"{c}-{n}-{e['verdict']}" for c, n, e in CASES])
def test_doc_example(code, n, ex):
    got = [i.code for i in _issues(ex, code)]
    if ex["verdict"] == "bad":
        assert code in got, (ex["body"], got)
    else:
        assert code not in got, (ex["body"], got)
