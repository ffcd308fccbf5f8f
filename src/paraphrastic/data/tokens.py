"""What a token becomes before its word vector is looked up: PTB escapes of pre-tokenised corpora undone, lower
case, a hashtag's ``#`` dropped. Apart from :mod:`paraphrastic.data.tokenize`, which imports NLTK (about a second
of start-up with what it loads), for the stages that read tokens but tokenise no text."""

from __future__ import annotations

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
