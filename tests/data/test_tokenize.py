"""The tokenizer, held token for token to the plain NLTK pipeline it speeds up (see the module docstring)."""

from __future__ import annotations

import random
import re
import sys
import unicodedata

import pytest
from nltk.tokenize import TreebankWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

from paraphrastic.data import tokenize as tok
from paraphrastic.data.corpus import build_eval_table
from paraphrastic.data.datasets import EVAL_SETS
from paraphrastic.data.siamese_corpus import read_documents
from paraphrastic.data.similarity_tasks import SICK_SPLITS, TRAIN_2012
from paraphrastic.data.tokenize import tokenize


def _reference_tokenizers() -> tuple[PunktSentenceTokenizer, TreebankWordTokenizer]:
    params = PunktParameters()
    params.abbrev_types = set(tok.ABBREVIATIONS)
    return PunktSentenceTokenizer(params), TreebankWordTokenizer()


REFERENCE_SENTENCES, REFERENCE_WORDS = _reference_tokenizers()
REFERENCE_HASHTAG = re.compile(r"(?<!\S)#(?=\w)")


def reference_tokenize(text: str) -> list[str]:
    """The tokenizer as it was before the fast path: NLTK Punkt, then NLTK Treebank on each sentence (of the text
    without its invisible format characters, Unicode's category Cf, and in NFC, the one spelling of each character:
    the text the pipeline tokenises)."""
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    text = REFERENCE_HASHTAG.sub("", unicodedata.normalize("NFC", text))
    tokens = [t for sentence in REFERENCE_SENTENCES.tokenize(text) for t in REFERENCE_WORDS.tokenize(sentence)]
    tokens = [t.lower() for t in tokens]
    return [t[1:] if len(t) > 1 and t.startswith("#") else t for t in tokens]


def assert_tokenized_as_nltk_does(texts, tokenized=None) -> None:
    """``tokenized``: text -> the tokens to check (default: tokenize(text))."""
    tokenized = tokenized or {text: tokenize(text) for text in texts}
    wrong = [(text, expected, tokenized[text]) for text in texts
             if list(tokenized[text]) != (expected := reference_tokenize(text))]
    assert not wrong, f"{len(wrong)} of {len(texts)} texts differ (text, NLTK's tokens, ours), first: {wrong[:5]}"


def test_ptb_tokenization_and_lowercase():
    assert tokenize('He said "don\'t go." Then left.') == \
        ["he", "said", "``", "do", "n't", "go", ".", "''", "then", "left", "."]


def test_hashtags_lose_their_leading_hash():
    assert tokenize("Loving #NBA finals #") == ["loving", "nba", "finals", "#"]


def test_pretokenized_text_is_split_and_unescaped():
    assert tokenize("The `` navigation computer '' -LRB- rate\\/time -RRB- , 3\\*4", pretokenized=True) == \
        ["the", "``", "navigation", "computer", "''", "(", "rate/time", ")", ",", "3*4"]


def test_sentence_internal_periods_split_but_abbreviations_kept():
    assert tokenize("Mr. Smith went to Washington. He left at 5 p.m. today.") == \
        ["mr.", "smith", "went", "to", "washington", ".", "he", "left", "at", "5", "p.m.", "today", "."]
    assert tokenize("The U.S. economy grew 3.5%.") == ["the", "u.s.", "economy", "grew", "3.5", "%", "."]


def test_the_fast_treebank_path_is_on_for_the_installed_nltk():
    assert tok.FAST_TREEBANK, "NLTK's Treebank rules changed: re-derive _treebank_text from them (it is off now)"


TRICKY = [
    # abbreviations, initials, ordinals
    "Mr. Smith met Dr. Jones at St. Mary's.", "The U.S. economy grew.", "U.S. closes embassy in Damascus",
    "He works for Acme Inc. in the U.K. He left.", "e.g. this, i.e. that.", "See Fig. 3 and Smith et al. for more.",
    "N. Korea agrees to talks", "Pulitzer-winning poet Tracy K. Smith's Sunday routine:", "It was the 3. time.",
    "He arrived on Jan. 5th. We left.", "Vol. 2 No. 3 is out", "the U.S.A. is big",
    # several sentences in one input
    "This is one. This is two.", "Really? Yes! Fine.", "One.Two. Three", "a dying man . he told them",
    "Children handcuffed! #MS fills #school2prison pipeline .", "First sentence.\nSecond sentence.",
    "Ends here.  ", "  Leading space. And more.  ", "(Sent1.) Sent2.", '"Quoted end." Next one.', "Wait... What?",
    "Hmm.. ok.", "No!!! I promise.", "a. b. c.", ".", "...", "?!", "", "   ", "\t\n",
    # quotes
    '"Hello," she said.', "'Single quoted' words", "He said ''yes'' and ``no''.", 'A "quote" (and "another").',
    "The boys' toys.", "It's 'fine'.", "``Already converted''", '"', "''", "'", "`", '[" x "]', '<"tag">',
    # contractions
    "I can't won't don't shouldn't.", "They'll we're you've I'd she's I'm", "CAN'T WON'T THEY'LL WE'RE",
    "I cannot gimme gonna gotta lemme wanna go", "d'ye know more'n me?", "'Tis the season, 'twas fun",
    "wanna", "Gonna GOTTA LeMMe", "gımme İt", "wanna\tgo", "Cannot.", "she'S", "y'all", "o'clock",
    # ellipses, dashes
    "Wait... what", "so....", "and -- then", "a---b", "x...y...z", "end...", "… unicode ellipsis.",
    # urls, emails, handles, hashtags
    "See http://www.example.com/a.b?c=d&e=f.", "Mail me@example.com now.", "@user: #NBA #1 ## #",
    "www.test.org. Next", "#hashtag", "#", "a#b", "(#tag)", "##double", "#Über cool",
    # numbers with periods, commas, colons
    "It costs $3.88 (roughly 3,36 euros).", "Version 2.0.1 is out.", "At 10:30, we met:", "1,000,000 people,",
    "Pi is 3.14159.", "-3.5 degrees", ".5 of it", "No. 1", "item 1. item 2.", "3.", "a,b", "a:", "a:\n",
    "a,\n", "a,:\n", "a,,\n", "a:,", "5,:",
    # unicode
    "Café résumé naïve.", "ΟΔΟΣ ΣΟΦΙΑΣ.", "Σ", "AΣ b", "İstanbul IS big.", "straße STRASSE", "“Curly” ‘quotes’.",
    "«Guillemets» here.", "中文句子。", "Emoji 😀 test.", "Zero\u200bwidth", "nbsp\u00a0here.", "line\u2028sep",
    "fs\x1csep. Next", "a.\x1c", "a.\x85", "ctrl\x12char", "٣.٥ Arabic-Indic digits, ٣", "a,٣", "K Kelvin",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_text_tokenizes_as_nltk_does(text):
    assert tokenize(text) == reference_tokenize(text)
    # The Treebank rules alone, also on text Punkt would have cut short (trailing whitespace, several sentences).
    assert tok._treebank_text(text).split() == REFERENCE_WORDS.tokenize(text)


def test_an_nltk_with_other_treebank_rules_runs_its_own(monkeypatch):
    monkeypatch.setattr(TreebankWordTokenizer, "DOUBLE_DASHES", (re.compile(r"-{2,}"), r" \g<0> "))
    assert not tok._fast_path_applies()
    monkeypatch.setattr(tok, "FAST_TREEBANK", False)
    assert_tokenized_as_nltk_does(TRICKY)


def test_random_text_tokenizes_as_nltk_does():
    pieces = [*"aZ09'\".,:;?!()[]{}<>-#@$%&/`*_=+", " ", " ", " ", "\t", "\n", "\x1c", "\x85", "\u2028", "\xa0",
              "İ", "ı", "Σ", "ß", "“", "”", "‘", "’", "«", "»", "…", "٣", "\u0301", "K",
              "can", "not", "gon", "na", "n't", "'s", "'ll", "'re", "'t", "is", "was", "wan", "Mr", "Dr.", "U.S", "e.g",
              "http://", "www.", "...", "--", "''", "``", "#tag", "word", "Word", "WORD", "3.5", "1,000"]
    rng = random.Random(0)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(20_000)]
    assert_tokenized_as_nltk_does(texts)
    wrong = [t for t in texts if tok._treebank_text(t).split() != REFERENCE_WORDS.tokenize(t)]
    assert not wrong, f"the Treebank rules split {len(wrong)} texts otherwise, first: {wrong[:5]}"


def test_every_mirror_evaluation_sentence_tokenizes_as_nltk_does(mirror):
    """Every sentence the pipeline tokenises from raw text: the evaluation and selection sets (STS 2012-2016,
    SICK 2014 test, Twitter PIT 2015 test), SICK's train and trial splits and the STS 2012 train sets (the
    supervised and PWIM tables), read and tokenised by the pipeline's own build_eval_table."""
    frame = build_eval_table([*EVAL_SETS, SICK_SPLITS["train"], SICK_SPLITS["validation"], *TRAIN_2012], mirror)
    assert len(frame) == 26_427  # 52,854 sentences
    pipeline_tokens = dict(zip(frame["s1"], frame["tokens1"], strict=True))
    pipeline_tokens.update(zip(frame["s2"], frame["tokens2"], strict=True))
    assert len(pipeline_tokens) > 32_000  # distinct sentences
    assert_tokenized_as_nltk_does(list(pipeline_tokens), pipeline_tokens)


def test_every_mirror_treebank_sentence_tokenizes_as_nltk_does(mirror):
    """The Siamese CBOW corpus: the UD English Web Treebank's sentence texts."""
    folder = mirror / "ud-english-ewt"
    texts = {text for path in sorted(folder.glob("*.conllu*"))
             for _, sentences in read_documents(path) for _, text in sentences}
    assert len(texts) > 15_000
    assert_tokenized_as_nltk_does(sorted(texts))


# The facts about NLTK's patterns and Python's strings that _treebank_text's skipping relies on.

@pytest.fixture(scope="module")
def every_character() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


def test_single_character_rules_match_only_their_characters(every_character):
    assert "".join(tok.SYMBOL.findall(every_character)) == "#$%&;@"
    assert "".join(tok.QUESTION_EXCLAMATION.findall(every_character)) == "!?"
    assert "".join(tok.BRACKET.findall(every_character)) == "()<>[]{}"


def test_the_final_period_rule_s_whitespace_is_str_whitespace(every_character):
    whitespace = re.compile(r"\s") if isinstance(tok.FINAL_PERIOD, re.Pattern) else \
        pytest.importorskip("regex").compile(r"\s", tok.FINAL_PERIOD.flags)
    assert all(c.isspace() for c in whitespace.findall(every_character))
    assert tok.FINAL_PERIOD.search("a. \t") and not tok.FINAL_PERIOD.search("a.x ")


def test_end_of_text_is_the_end_or_before_a_final_newline():
    for end in ["", "\n"]:
        assert tok.FINAL_COLON_COMMA.search("a:" + end)
    for other in ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", " ", "\n\n", "\r\n"]:
        assert not tok.FINAL_COLON_COMMA.search("a:" + other), repr(other)


def test_case_insensitive_contractions_match_ascii_by_lower_case():
    ascii_chars = [chr(c) for c in range(128)]
    for letter in set("cannotd'yegimmegonnagottalemmemore'nwanna"):
        assert {c for c in ascii_chars if re.fullmatch(re.escape(letter), c, re.IGNORECASE)} == \
            {letter, letter.upper()}
    assert tokenize("gımme") == reference_tokenize("gımme") == ["gım", "me"]


def test_lower_casing_never_looks_across_whitespace():
    for space in (chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()):
        # A final sigma is one after a cased letter and before none, case-ignorable characters skipped.
        assert ("AΣ" + space + "B").lower() == "aς" + space + "b", repr(space)
        assert ("A" + space + "Σ").lower() == "a" + space + "σ", repr(space)
