"""PTB-style tokenisation, lower-casing and the original lookup's hashtag handling.

The original work tokenised with Stanford CoreNLP's PTB tokenizer; SimpWiki and PPDB ship already
tokenised, so they are only split on whitespace. Raw evaluation text goes through NLTK: Punkt
splits sentences (NLTK's Treebank tokenizer only detaches the period that ends its input, and STS
inputs often hold several sentences), then the Treebank tokenizer splits each one. Punkt runs
untrained, from a list of common abbreviations, so no model download is needed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from nltk.tokenize import TreebankWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

# Punkt's abbreviation types: lower-case, without the final period.
ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "gov", "sen", "rep", "rev", "capt", "col",
    "lt", "sgt", "co", "corp", "inc", "ltd", "bros", "dept", "univ", "assn", "no", "vol", "vs", "etc", "approx",
    "e.g", "i.e", "a.m", "p.m", "u.s", "u.k", "u.n", "u.s.a", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "fig", "al",
}


# A hashtag's '#': at the start of a whitespace-delimited word, followed by a word character.
HASHTAG = re.compile(r"(?<!\S)#(?=\w)")


@lru_cache(maxsize=1)
def _tokenizers() -> tuple[PunktSentenceTokenizer, TreebankWordTokenizer]:
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params), TreebankWordTokenizer()


# PTB escapes in pre-tokenised corpora (SimpWiki): the word vectors know the characters, not the escapes,
# and the evaluation text (tokenised here) never contains escapes.
PTB_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


def unescape_ptb(token: str) -> str:
    return PTB_ESCAPES.get(token.upper(), token).replace("\\/", "/").replace("\\*", "*")


def normalise(tokens: list[str]) -> list[str]:
    """Lower-case and strip one leading ``#`` from hashtags (``#nba`` -> ``nba``), as Wieting's lookup did."""
    out = []
    for token in tokens:
        token = token.lower()
        if len(token) > 1 and token.startswith("#"):
            token = token[1:]
        out.append(token)
    return out


def tokenize(text: str, *, pretokenized: bool = False) -> list[str]:
    if pretokenized:
        return normalise([unescape_ptb(t) for t in text.split()])
    sentences, words = _tokenizers()
    text = HASHTAG.sub("", text)  # the Treebank rules would split '#' off as a token of its own
    return normalise([token for sentence in sentences.tokenize(text) for token in words.tokenize(sentence)])
