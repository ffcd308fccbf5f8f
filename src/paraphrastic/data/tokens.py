"""What a token becomes before its word vector is looked up: PTB escapes of pre-tokenised corpora undone, lower
case, a hashtag's ``#`` dropped. Apart from :mod:`paraphrastic.data.tokenize`, which imports NLTK (about a second
of start-up with what it loads), for the stages that read tokens but tokenise no text."""

from __future__ import annotations

import re
import string

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


# How a pre-tokenised training pair's text becomes tokens (`data.reading`): ours (:func:`unescape_ptb`, then
# :func:`normalise`, after NFC) or the authors' code's, which reads its files as Python 2 byte strings.
READINGS = ("ours", "authors")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_ASCII_WHITESPACE = re.compile("[ \t\n\r\x0b\x0c]+")  # what Python 2's str.split() splits bytes on


def authors_tokens(text: str) -> list[str]:
    """A pre-tokenised sentence as the authors' code reads it (``example.populate_embeddings``:
    ``phrase.lower().split()`` on Python 2 byte strings): split on ASCII whitespace only and only ASCII letters
    lower-cased; PTB escapes (``-LRB-`` becomes ``-lrb-``), ``\\/``, other characters (``Ã``, a no-break space) and a
    hashtag's ``#`` are kept as they are."""
    return [token for token in _ASCII_WHITESPACE.split(text.translate(_ASCII_LOWER)) if token]
