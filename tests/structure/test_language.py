"""The `language` setting: sentences split with the rules of the document's language (pysbd),
one case per language family pysbd supports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkseam.config import loader as config

from chunkseam.structure import sentences
from clikit import run

# (family, language, text, sentences in that language, differs from English)
CASES = [
    ("Germanic", "de", "Die Sitzung beginnt am 3. Oktober um 9 Uhr. Bitte seien Sie pünktlich.", 2, True),
    ("Romance", "it", "Il sig. Rossi è arrivato. È in ritardo.", 2, True),
    ("Romance", "fr", "M. Dupont est arrivé. Il est en retard.", 2, False),
    ("West Slavic", "sk", "Stretnutie je o 10. hod. ráno. Príďte načas.", 2, True),
    ("Cyrillic", "ru", "Встреча в 10 ч. утра. Приходите вовремя.", 2, True),
    ("Cyrillic", "bg", "Срещата е в 10 ч. сутринта. Елате навреме.", 2, True),
    ("Greek", "el", "Αυτή είναι μια πρόταση. Είναι αυτή άλλη πρόταση; Ναι.", 3, True),
    ("Armenian", "hy", "Սա նախադասություն է։ Սա մեկ այլ նախադասություն է։", 2, True),
    ("Indic (Devanagari)", "hi", "यह एक वाक्य है। यह दूसरा वाक्य है।", 2, True),
    ("Arabic script", "ar", "هذه جملة. هل هذه جملة أخرى؟ نعم.", 3, True),
    ("Arabic script", "ur", "یہ ایک جملہ ہے۔ یہ دوسرا جملہ ہے۔", 2, True),
    ("Ethiopic", "am", "ይህ አረፍተ ነገር ነው። ይህ ሌላ ነው።", 2, True),
    ("Burmese", "my", "ဒါက စာကြောင်းတစ်ကြောင်းဖြစ်တယ်။ ဒါက နောက်တစ်ကြောင်းဖြစ်တယ်။", 2, True),
    ("CJK", "ja", "これはペンです。それは本です。", 2, False),
    ("CJK", "zh", "今天天气很好。我们去公园吧！", 2, False),
]


@pytest.mark.parametrize("family, lang, text, n, differs", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_sentences_in_the_documents_language(family, lang, text, n, differs) -> None:
    spans = sentences.segment(text, language=lang)
    assert len(spans) == n, [text[a:b] for a, b in spans]
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "")
    with sentences.language(lang):  # the pipeline's way: the current language
        assert sentences.segment(text) == spans
    assert (sentences.segment(text, language="en") != spans) is differs


def test_every_pysbd_language_is_accepted_and_others_are_not() -> None:
    import pysbd.languages

    assert set(sentences.LANGUAGES) == set(pysbd.languages.LANGUAGE_CODES)
    for lang in sentences.LANGUAGES:
        s, _ = config.settings_from_mapping({"language": lang.upper()}, source="t")
        assert s.language == lang
    with pytest.raises(config.ConfigError, match="language"):
        config.settings_from_mapping({"language": "klingon"}, source="t")


def test_language_setting_drives_the_sentence_chunker_and_the_checks(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "de.txt").write_text(
        "Die Sitzung beginnt am 3. Oktober um 9 Uhr im großen Saal. Bitte seien Sie pünktlich.\n",
        encoding="utf-8")
    rc, out, _ = run(capsys, "chunks", "de.txt", "--size", "12", "--format", "json")
    assert rc == 0 and len(json.loads(out)) == 3  # English rules end a sentence at "3."
    (tmp_path / "chunkseam.toml").write_text('language = "de"\n', encoding="utf-8")
    rc, out, _ = run(capsys, "chunks", "de.txt", "--size", "12", "--format", "json")
    assert rc == 0 and [c["text"].split()[-1] for c in json.loads(out)] == ["Saal.", "pünktlich."]
    # the checks too: a cut after "3." is mid-sentence in German, a sentence end in English
    opts = ["--chunker", "fixed", "--unit", "chars", "--size", "25", "--select", "CS002", "--format", "json"]
    rc, out, _ = run(capsys, "lint", "de.txt", *opts)
    cuts_de = {i["cut"] for i in json.loads(out)["issues"]}
    rc, out, _ = run(capsys, "lint", "de.txt", *opts, "--language", "en")
    cuts_en = {i["cut"] for i in json.loads(out)["issues"]}
    assert 25 in cuts_de and 25 not in cuts_en
