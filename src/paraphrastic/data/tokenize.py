"""PTB-style tokenisation, lower-casing and the original lookup's hashtag handling.

The original work tokenised with Stanford CoreNLP's PTB tokenizer; SimpWiki and PPDB ship already
tokenised, so they are only split on whitespace. Raw evaluation text goes through NLTK: Punkt
splits sentences (NLTK's Treebank tokenizer only detaches the period that ends its input, and STS
inputs often hold several sentences), then the Treebank tokenizer splits each one. Punkt runs
untrained, from a list of common abbreviations, so no model download is needed.

NLTK is the reference semantics and the output is NLTK's, token for token, but the raw-text path (nearly
all of ``Encoder.encode``'s time with an avg model) gets there about ten times faster (measured by
benchmarks/tokenize_speed.py). Each shortcut is exact:

- Punkt can only break a sentence at a match of its period-context pattern (``.``, ``?`` or ``!``
  followed by punctuation, or by whitespace and another token). Without one, its answer is the whole
  text less trailing whitespace (none if that is empty), which is taken directly; only the ~5% of STS
  sentences with a candidate boundary go through Punkt itself.
- NLTK's own compiled patterns, Punkt's and the Treebank rules', are matched out of the per-call ReDoS
  timeout newer NLTK wraps them in, whose bookkeeping costs more than matching these fixed patterns.
- The Treebank rules run in NLTK's order. A rule is skipped where it cannot match, and so would leave the
  text unchanged: when the text lacks a character every match contains; for the end-anchored rules, when
  the text does not end as every match must; for the case-insensitive contraction rules, when the text is
  ASCII and its lower-cased form holds none of their words (on ASCII text ``re``'s case-insensitive match
  is a match of the lower-cased text). A literal rule is ``str.replace``, the same left-to-right
  non-overlapping substitution, and a replacement template is a function building the same string
  (``regex`` expands a template at the cost of several matches).
- Lower-casing the tokenised text at once equals lower-casing each token: ``str.lower``'s one
  context-dependent rule (final sigma) never looks across whitespace, which is neither cased nor
  case-ignorable.

If the installed NLTK's Treebank rules are not the ones :func:`_treebank_text` encodes, NLTK's Treebank
tokenizer runs as it is. What is not kept is NLTK's timeout, which stops a pathological input after 5 s.
tests/data/test_tokenize.py holds the output to plain NLTK on every sentence the pipeline tokenises from
the data mirror, on tricky and random text, and checks the facts about the patterns and ``str`` the
shortcuts rely on.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from nltk.tokenize import TreebankWordTokenizer
from nltk.tokenize.punkt import PunktLanguageVars, PunktParameters, PunktSentenceTokenizer, PunktToken

from paraphrastic.data.tokens import normalise, unescape_ptb

# Punkt's abbreviation types: lower-case, without the final period.
ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "gov", "sen", "rep", "rev", "capt", "col",
    "lt", "sgt", "co", "corp", "inc", "ltd", "bros", "dept", "univ", "assn", "no", "vol", "vs", "etc", "approx",
    "e.g", "i.e", "a.m", "p.m", "u.s", "u.k", "u.n", "u.s.a", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "fig", "al",
}


# A hashtag's '#': at the start of a whitespace-delimited word, followed by a word character.
HASHTAG = re.compile(r"(?<!\S)#(?=\w)")


@functools.cache
def _format_characters() -> re.Pattern:
    """Unicode's format characters (category Cf: zero-width spaces and joiners, direction marks, the soft hyphen,
    a byte-order mark inside a line): invisible, never part of a word, and inside one they would make it another,
    unknown one. Built on the first text that is not ASCII (a scan of the code points, about 0.1 s)."""
    return re.compile("[" + "".join(re.escape(chr(code)) for code in range(0x110000)
                                    if unicodedata.category(chr(code)) == "Cf") + "]")


def format_characters(text: str) -> list[str]:
    """The format characters ``text`` holds (:func:`tokenize` removes them before anything else), in order."""
    return [] if text.isascii() else _format_characters().findall(text)


def _compiled(pattern):
    """The compiled pattern NLTK matches with, out of the ReDoS-timeout wrapper newer NLTK puts it in."""
    return getattr(pattern, "_rx", pattern)


# Where Punkt may break a sentence, and how it splits the words around one (English, the default).
PERIOD_CONTEXT = _compiled(PunktLanguageVars().period_context_re())
PUNKT_WORD = _compiled(PunktLanguageVars()._word_tokenizer_re())


class _PunktVars(PunktLanguageVars):
    """Punkt's default language variables, their patterns unwrapped."""

    re_boundary_realignment = _compiled(PunktLanguageVars.re_boundary_realignment)

    def period_context_re(self):
        return PERIOD_CONTEXT

    def _word_tokenizer_re(self):
        return PUNKT_WORD


class _PunktToken(PunktToken):
    """Punkt's token, its patterns unwrapped."""

    __slots__ = ()
    _RE_ELLIPSIS, _RE_NUMERIC, _RE_INITIAL, _RE_ALPHA = (_compiled(p) for p in (
        PunktToken._RE_ELLIPSIS, PunktToken._RE_NUMERIC, PunktToken._RE_INITIAL, PunktToken._RE_ALPHA))


def _punkt() -> PunktSentenceTokenizer:
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params, lang_vars=_PunktVars(), token_cls=_PunktToken)


SENTENCES = _punkt()
WORDS = TreebankWordTokenizer()

# The Treebank rules (pattern source, replacement) in the order NLTK applies them, as _treebank_text encodes them.
TREEBANK_RULES = (
    (r"^\"", r"``"),
    (r"(``)", r" \1 "),
    (r"([ \(\[{<])(\"|\'{2})", r"\1 `` "),
    (r"([:,])([^\d])", r" \1 \2"),
    (r"([:,])$", r" \1 "),
    (r"\.\.\.", r" ... "),
    (r"[;@#$%&]", r" \g<0> "),
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', r"\1 \2\3 "),
    (r"[?!]", r" \g<0> "),
    (r"([^'])' ", r"\1 ' "),
    (r"[\]\[\(\)\{\}\<\>]", r" \g<0> "),
    (r"--", r" -- "),
    (r"''", " '' "),
    (r'"', " '' "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
)
# NLTK's MacIntyre contraction rules (``re`` patterns, replaced by r" \1 \2 "): the first eight split a word
# (can|not, d|'ye, ...) that _may_hold_contraction looks for, the last two 't|is and 't|was.
CONTRACTION_RULES = (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b", r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b", r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b",
)


def _nltk_rules() -> tuple[list, list]:
    tb = TreebankWordTokenizer
    rules = [*tb.STARTING_QUOTES, *tb.PUNCTUATION, tb.PARENS_BRACKETS, tb.DOUBLE_DASHES, *tb.ENDING_QUOTES]
    return rules, [*tb.CONTRACTIONS2, *tb.CONTRACTIONS3]


def _fast_path_applies() -> bool:
    try:
        rules, contractions = _nltk_rules()
    except AttributeError:  # an NLTK that keeps its rules elsewhere
        return False
    return (tuple((p.pattern, replacement) for p, replacement in rules) == TREEBANK_RULES
            and tuple(p.pattern for p in contractions) == CONTRACTION_RULES
            and all(isinstance(p, re.Pattern) for p in contractions))


FAST_TREEBANK = _fast_path_applies()
if FAST_TREEBANK:
    _rules, _contractions = _nltk_rules()
    OPENING_QUOTE, COLON_COMMA, FINAL_COLON_COMMA = (_compiled(_rules[i][0]) for i in (2, 3, 4))
    SYMBOL, FINAL_PERIOD, QUESTION_EXCLAMATION, QUOTE_SPACE = (_compiled(_rules[i][0]) for i in (6, 7, 8, 9))
    BRACKET, CLITIC, CLITIC_LONG = (_compiled(_rules[i][0]) for i in (10, 14, 15))
    MACINTYRE, T_IS_WAS = _contractions[:8], _contractions[8:]
    del _rules, _contractions

# Characters a final-period match can end its non-whitespace with: NLTK's \s is a subset of str.isspace.
PERIOD_OR_CLOSER = (".", "]", ")", "}", ">", '"', "'")
# What `([:,])$` can match: "$" is the end or the place before a final newline.
FINAL_COLON_OR_COMMA = (":", ",", ":\n", ",\n")


# The rules' replacement templates, as functions: regex expands a template at a cost of several matches.
# Every group of these patterns takes part in every match, so no m[i] is None.
def _padded(m) -> str:  # " \g<0> "
    return f" {m[0]} "


def _opening_quote(m) -> str:  # r"\1 `` "
    return f"{m[1]} `` "


def _colon_comma(m) -> str:  # r" \1 \2"
    return f" {m[1]} {m[2]}"


def _final_colon_comma(m) -> str:  # r" \1 "
    return f" {m[1]} "


def _final_period(m) -> str:  # r"\1 \2\3 "
    return f"{m[1]} {m[2]}{m[3]} "


def _quote_space(m) -> str:  # r"\1 ' "
    return f"{m[1]} ' "


def _split_pair(m) -> str:  # r"\1 \2 "
    return f"{m[1]} {m[2]} "


def _may_hold_contraction(text: str) -> bool:
    """False only where no MacIntyre rule of the eight can match: on ASCII text ``re``'s case-insensitive
    match is a match of the lower-cased text (elsewhere, e.g. 'ı' and 'İ' match 'i', so those are tried)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return ("cannot" in lowered or "d'ye" in lowered or "gimme" in lowered or "gonna" in lowered
            or "gotta" in lowered or "lemme" in lowered or "more'n" in lowered or "wanna" in lowered)


def _treebank_text(text: str) -> str:
    """``WORDS.tokenize(text)`` before its final split: NLTK's Treebank rules in NLTK's order, each one
    skipped where no match of it is possible."""
    if text.startswith('"'):
        text = "``" + text[1:]
    if "``" in text:
        text = text.replace("``", " `` ")
    if '"' in text or "''" in text:
        text = OPENING_QUOTE.sub(_opening_quote, text)
    if ":" in text or "," in text:
        text = COLON_COMMA.sub(_colon_comma, text)
        if text.endswith(FINAL_COLON_OR_COMMA):
            text = FINAL_COLON_COMMA.sub(_final_colon_comma, text)
    if "..." in text:
        text = text.replace("...", " ... ")
    if ";" in text or "@" in text or "#" in text or "$" in text or "%" in text or "&" in text:
        text = SYMBOL.sub(_padded, text)
    if "." in text and text.rstrip().endswith(PERIOD_OR_CLOSER):
        text = FINAL_PERIOD.sub(_final_period, text)
    if "?" in text or "!" in text:
        text = QUESTION_EXCLAMATION.sub(_padded, text)
    if "' " in text:
        text = QUOTE_SPACE.sub(_quote_space, text)
    if "(" in text or ")" in text or "[" in text or "]" in text or "{" in text or "}" in text or "<" in text \
            or ">" in text:
        text = BRACKET.sub(_padded, text)
    if "--" in text:
        text = text.replace("--", " -- ")
    text = " " + text + " "
    if "''" in text:
        text = text.replace("''", " '' ")
    if '"' in text:
        text = text.replace('"', " '' ")
    if "'" in text:
        text = CLITIC.sub(_split_pair, text)
        text = CLITIC_LONG.sub(_split_pair, text)
    if _may_hold_contraction(text):
        for pattern in MACINTYRE:
            text = pattern.sub(r" \1 \2 ", text)
    if "'" in text:
        for pattern in T_IS_WAS:
            text = pattern.sub(r" \1 \2 ", text)
    return text


def _sentences(text: str) -> list[str]:
    """``SENTENCES.tokenize(text)``, without running Punkt when it has no candidate boundary to decide on."""
    ends = text.count(".") + text.count("?") + text.count("!")
    # A candidate is a match of PERIOD_CONTEXT: one of .?! with at least one character after it.
    if ends == 0 or (ends == 1 and text[-1] in ".?!") or PERIOD_CONTEXT.search(text) is None:
        # Punkt's one slice: from the start to the end of text.rstrip(), kept when not empty.
        text = text.rstrip()
        return [text] if text else []
    return SENTENCES.tokenize(text)


def tokenize(text: str, *, pretokenized: bool = False) -> list[str]:
    if not text.isascii():  # no invisible format character, then one spelling of each character (NFC): "é"
        # composed or as "e" + a combining accent
        text = unicodedata.normalize("NFC", _format_characters().sub("", text))
    if pretokenized:
        return normalise([unescape_ptb(t) for t in text.split()])
    if "#" in text:
        text = HASHTAG.sub("", text)  # the Treebank rules would split '#' off as a token of its own
    if not FAST_TREEBANK:
        return normalise([token for sentence in _sentences(text) for token in WORDS.tokenize(sentence)])
    tokens = " ".join(_treebank_text(sentence) for sentence in _sentences(text)).lower().split()
    if "#" in text:
        # Never true of a token today (the Treebank rules pad every '#'), kept so normalise's rule holds regardless.
        tokens = [token[1:] if len(token) > 1 and token.startswith("#") else token for token in tokens]
    return tokens
