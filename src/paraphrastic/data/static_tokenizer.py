"""The tokenizer a static model ships (beyond the paper): a ``tokenizers.Tokenizer``, so that model2vec and
sentence-transformers, which load the export with it, read text exactly as the project trained and scored it.

The paper's rows read text with NLTK's Treebank tokenizer (:mod:`paraphrastic.data.tokenize`), which no ``tokenizers``
pipeline can express (its quotes depend on context, Punkt decides which periods end a sentence): vectors trained on
its tokens and shipped under another tokenizer lose what the two split differently (contractions, possessives,
hashtags, quotes). The static model's stages therefore read every text, training and evaluation alike, through the
pipeline built here (``word_vectors.tokenizer``), and its vocabulary is the words that pipeline yields, so every row
is one the shipped tokenizer reaches:

- ``bert``: BERT's reading (the teacher's): NFC, lower case, split at whitespace and at every punctuation character.
- ``treebank_like``: the Treebank tokenizer's main splits as regular expressions: a clitic (``n't``, ``'s``, ``'ll``,
  ``'re``, ``'ve``, ``'m``, ``'d``) split from its word (``don't`` -> ``do n't``), punctuation split off except a
  hyphen, period, apostrophe or slash inside a word (``well-known``, ``3.5``, ``o'neill``, ``and/or``), a hashtag's
  ``#`` dropped.

Both undo the escapes of pre-tokenised corpora (``-LRB-``, ``\\/``) and read PTB's quotes (\\`\\` and ``''``) as the
``"`` raw text has. A word the vocabulary lacks is read as greedy WordPiece pieces over the vocabulary (its words
and the teacher's pieces), and is ``<unk>`` where there is no such split. :func:`shipped_tokens` gives the
vocabulary's entries the tokenizer reads a text into, so that the project's own lookup
(:meth:`paraphrastic.data.vocab.Vocabulary.ids`) reads exactly the ids model2vec and sentence-transformers read.
"""

from __future__ import annotations

from pathlib import Path

from paraphrastic.data.tokens import PTB_ESCAPES
from paraphrastic.data.vocab import CONTINUATION, MAX_WORDPIECE_CHARS, UNK
from paraphrastic.errors import PipelineError

TOKENIZERS = ("bert", "treebank_like")
# What each reads text as, in the words a model card uses
DESCRIPTIONS = {
    "treebank_like": "Unicode NFC, lower case, the Treebank tokenizer's splits as regular expressions (\"don't\" "
                     "-> \"do\" \"n't\", punctuation apart but inside a word), a hashtag's # dropped",
    "bert": "Unicode NFC, lower case, BERT's pre-tokenizer (every punctuation character apart)",
}

# Punctuation split off as a token of its own, as the Treebank tokenizer splits it: "..." and "--" whole; a comma or
# colon unless a digit follows ("3,000", "5:30"); a period that ends a word, unless the word is an abbreviation
# such as "u.s."; a hyphen, apostrophe or slash unless it joins two word characters ("well-known", "o'neill",
# "and/or"); any other punctuation character.
PUNCTUATION = r"\.\.\.|--|[:,](?!\d)|(?<!\w\.\w)\.(?!\w)|['/-](?!\w)|(?<!\w)['/-]|[^\w\s'./:,-]"
# A clitic that ends a word but for its punctuation, after a word character (Treebank's
# "([^' ])('[sS]|'[mM]|'[dD]|'ll|...|n't) "): one pattern with PUNCTUATION, as one pass over each word is faster
CLITIC = r"(?<=\w)(?:n't|'s|'m|'d|'ll|'re|'ve)(?=[^\w\s]*$)"
# What may follow a piece inside one word, for WordSplitter.reaches: nothing (the word ends), a letter, a digit
# (PUNCTUATION keeps `,` and `:` before a digit only, `.`, `'`, `/` and `-` before any word character)
WORD_CONTINUES = ("", "a", "1")
HASHTAG = r"(?<!\S)#(?=\w)"


def normalizer(kind: str):
    """Unicode's invisible format characters (category Cf) removed, as the project's tokenizer removes them, then
    NFC, lower case, PTB's escapes and quotes as raw text has them; ``treebank_like`` also drops a hashtag's
    ``#``."""
    from tokenizers import Regex, normalizers

    steps = [normalizers.Replace(Regex(r"\p{Cf}"), ""), normalizers.NFC(), normalizers.Lowercase()]
    steps += [normalizers.Replace(escape.lower(), char) for escape, char in PTB_ESCAPES.items()]
    steps += [normalizers.Replace("\\/", "/"), normalizers.Replace("\\*", "*"),
              normalizers.Replace(Regex("``|''"), '"')]
    if kind == "treebank_like":
        steps.append(normalizers.Replace(Regex(HASHTAG), ""))
    return normalizers.Sequence(steps)


def pre_tokenizer(kind: str):
    """How normalised text is cut into words (see the module docstring)."""
    from tokenizers import Regex, pre_tokenizers

    if kind == "bert":
        return pre_tokenizers.BertPreTokenizer()
    return pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                    pre_tokenizers.Split(Regex(f"{CLITIC}|{PUNCTUATION}"), behavior="isolated")])


def check_kind(kind: str) -> str:
    if kind not in TOKENIZERS:
        raise ValueError(f"word_vectors.tokenizer: {kind!r} is not one of {', '.join(TOKENIZERS)}")
    return kind


class WordSplitter:
    """Text as ``kind``'s normalizer and pre-tokenizer cut it: the words a vocabulary is built from."""

    def __init__(self, kind: str):
        self.normalizer, self.pre_tokenizer = normalizer(check_kind(kind)), pre_tokenizer(kind)

    def __call__(self, text: str) -> list[str]:
        return [word for word, _ in self.pre_tokenizer.pre_tokenize_str(self.normalizer.normalize_str(text))]

    def reaches(self, piece: str) -> bool:
        """Whether a teacher's WordPiece ``piece`` is one this tokenizer can read: a whole-word piece is a word it
        cuts text into or the start of one, or follows a word (a clitic: ``'s``); a ``##`` piece's rest can follow a
        word character inside a word, at its end or before a letter or digit (``##,`` in ``1,500``, ``##.`` in
        ``u.s.a``, ``##'`` in ``o'brien``). Pieces it never reaches (``km²`` and ``##²`` where ``²`` is cut apart)
        are no rows of a static model's vocabulary."""
        if piece.startswith(CONTINUATION):
            rest = piece[len(CONTINUATION):]
            return any(self(word) == [word] for word in (f"a{rest}{after}" for after in WORD_CONTINUES))
        return (any(self(word) == [word] for word in (f"{piece}{after}" for after in WORD_CONTINUES))
                or self("a" + piece)[-1:] == [piece])

    def read(self, frame):
        """A pair table (s1, s2, tokens1, tokens2) with its tokens cut again from its text."""
        return frame.assign(tokens1=[self(text) for text in frame["s1"]], tokens2=[self(text) for text in frame["s2"]])


def build_tokenizer(kind: str, index: dict[str, int]):
    """The shipped tokenizer over a vocabulary (``word -> id``): ``kind``'s normalizer and pre-tokenizer, then
    WordPiece over the vocabulary (a word it holds is its row; another is split into the ``##`` pieces it holds)."""
    from tokenizers import Tokenizer, models

    tokenizer = Tokenizer(models.WordPiece(vocab=dict(index), unk_token=UNK, continuing_subword_prefix=CONTINUATION,
                                           max_input_chars_per_word=MAX_WORDPIECE_CHARS))
    tokenizer.normalizer = normalizer(check_kind(kind))
    tokenizer.pre_tokenizer = pre_tokenizer(kind)
    return tokenizer


TOKENIZER_FILE = "tokenizer.json"  # beside a vector folder's vocab.txt: the tokenizer its words are read with
# The folder's record that holds the tokenizer's sha256 (key TOKENIZER_SHA256): distill's, then distill_sentences'
RECORDS = ("coverage.json", "training.json")
TOKENIZER_SHA256 = "tokenizer_sha256"


def save_tokenizer(folder, kind: str, index: dict[str, int]) -> None:
    """``folder``/tokenizer.json: the shipped tokenizer over the folder's vocabulary, written atomically."""
    from paraphrastic.atomic import write_text

    write_text(Path(folder) / TOKENIZER_FILE, build_tokenizer(kind, index).to_str())


def load_tokenizer(folder):
    """The tokenizer ``folder``'s words are read with, or None where it has none (the paper's vocabularies, read
    by the Treebank tokenizer). The folder's record (:data:`RECORDS`) holds its sha256: a tokenizer.json edited or
    copied from another folder is an error naming both files."""
    import json

    from tokenizers import Tokenizer

    from paraphrastic.atomic import sha256_file

    path = Path(folder) / TOKENIZER_FILE
    if not path.is_file():
        return None
    for name in RECORDS:
        record = Path(folder) / name
        if record.is_file():
            expected = json.loads(record.read_text(encoding="utf-8")).get(TOKENIZER_SHA256)
            if expected is not None and expected != sha256_file(path):
                raise PipelineError(f"{path}: not the tokenizer {record} was written with (its sha256 differs): "
                                    "edited or copied from elsewhere; rerun the stage that writes the folder")
    try:
        return Tokenizer.from_str(path.read_text(encoding="utf-8"))
    except Exception as exc:  # the library raises its own exception types for a malformed file
        raise PipelineError(f"{path}: not a tokenizer the `tokenizers` library reads ({exc}); rerun distill") from None


def shipped_tokens(tokenizer, texts) -> list[list[str]]:
    """Each text as the shipped tokenizer reads it: the vocabulary's entries (words, ``##`` pieces, ``<unk>``), so
    that :meth:`paraphrastic.data.vocab.Vocabulary.ids` gives exactly the ids model2vec and sentence-transformers
    read."""
    return [encoding.tokens for encoding in tokenizer.encode_batch(list(texts), add_special_tokens=False)]


def read_with(frame, tokenizer):
    """A pair table (s1, s2, tokens1, tokens2) with its tokens read again from its text by ``tokenizer``."""
    return frame.assign(tokens1=shipped_tokens(tokenizer, frame["s1"]), tokens2=shipped_tokens(tokenizer, frame["s2"]))


def recorded_tokenizer(path, payload: dict, vocab):
    """The tokenizer a model file records (key ``tokenizer``: its JSON, as a static model's file holds it), or None
    (the Treebank tokenizer's models); one that is not readable, or is over another vocabulary, is an error naming
    ``path``."""
    from tokenizers import Tokenizer

    recorded = payload.get("tokenizer")
    if recorded is None:
        return None
    try:
        tokenizer = Tokenizer.from_str(recorded)
    except Exception as exc:  # TypeError for a non-str, the library's own exception for malformed JSON
        raise PipelineError(f"{path}: its tokenizer is not one the `tokenizers` library reads ({exc})") from None
    if tokenizer.get_vocab() != vocab.index:
        raise PipelineError(f"{path}: its tokenizer's vocabulary is not the model's ({len(tokenizer.get_vocab())} "
                            f"entries beside {len(vocab)} words); write the model again")
    return tokenizer
