"""Raw-text tokenisation speed, NLTK's pipeline against ours: python benchmarks/tokenize_speed.py [--quick]

Times, in one process and on the same sentences (every distinct sentence of the STS 2012-2016 test sets,
read from the data mirror as the pipeline reads them), (a) the tokenizer as it was, NLTK's Punkt sentence
splitter then NLTK's Treebank tokenizer on each sentence, with the hashtag rule and lower-casing, and (b)
paraphrastic.data.tokenize.tokenize, which must give the same tokens faster. Both are pure Python on one
thread. Each pass tokenises every sentence once; the passes of (a) and (b) alternate, after a warm-up, and
each one's best of --repeats counts. Prints a Markdown table: sentences/s of each, the speed-up, and whether
the two agreed on every sentence (the benchmark fails if they did not), and writes it to --out (.md and .json;
benchmarks/results/tokenize_speed by default, the "tokenize speed" block of docs/performance.md). --quick: 500
sentences, one pass.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
import unicodedata
from pathlib import Path

import nltk
from nltk.tokenize import TreebankWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

from paraphrastic.data.corpus import build_eval_table
from paraphrastic.data.datasets import EVAL_SETS
from paraphrastic.data.tokenize import ABBREVIATIONS, tokenize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from measured import commit, publish  # noqa: E402

STS_TEST_SETS = [s for s in EVAL_SETS if s.group.startswith("STS 20")]


def nltk_tokenizer():
    """The tokenizer before its fast path: Punkt, then Treebank on each sentence, hashtags, lower-casing, on the NFC
    form of the text (the one spelling of each character that both tokenise, as tests/data/test_tokenize.py's
    reference does)."""
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    sentences, words = PunktSentenceTokenizer(params), TreebankWordTokenizer()
    hashtag = re.compile(r"(?<!\S)#(?=\w)")

    def nltk_tokenize(text: str) -> list[str]:
        text = hashtag.sub("", unicodedata.normalize("NFC", text))
        tokens = [t.lower() for sentence in sentences.tokenize(text) for t in words.tokenize(sentence)]
        return [t[1:] if len(t) > 1 and t.startswith("#") else t for t in tokens]

    return nltk_tokenize


def sts_sentences(mirror: Path) -> list[str]:
    frame = build_eval_table(STS_TEST_SETS, mirror)
    return sorted(set(frame["s1"]) | set(frame["s2"]))


def best_seconds(tokenizers: dict, sentences: list[str], repeats: int) -> dict[str, float]:
    """Each tokenizer's fastest pass over ``sentences``; the passes alternate so that a busy moment on the
    machine does not fall on one tokenizer's passes only."""
    for tokenizer in tokenizers.values():
        for text in sentences[:200]:
            tokenizer(text)
    best = dict.fromkeys(tokenizers, float("inf"))
    for _ in range(repeats):
        for name, tokenizer in tokenizers.items():
            start = time.perf_counter()
            for text in sentences:
                tokenizer(text)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def markdown(count: int, seconds: dict[str, float], repeats: int, agreed: int) -> str:
    lines = [f"Raw-text tokenisation of {count:,} distinct STS 2012-2016 test sentences, one thread, best of "
             f"{repeats} pass(es) (Python {platform.python_version()}, NLTK {nltk.__version__}, "
             f"{platform.machine()}).", "",
             "| tokenizer | seconds | sentences/s |", "|---|---:|---:|"]
    for name, value in seconds.items():
        lines.append(f"| {name} | {value:.3f} | {count / value:,.0f} |")
    old, new = seconds.values()
    lines += ["", f"Speed-up: {old / new:.1f}x. Same tokens on {agreed:,} of {count:,} sentences."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=REPO.parent / "shared" / "data",
                        help="the data mirror (its sts/ folder holds the STS releases)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 500 sentences, one pass")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "tokenize_speed",
                        help="where the table (.md) and its numbers (.json) go")
    args = parser.parse_args(argv)
    sentences = sts_sentences(args.mirror)
    repeats = args.repeats
    if args.quick:
        sentences, repeats = sentences[::max(1, len(sentences) // 500)][:500], 1
    reference = nltk_tokenizer()
    agreed = sum(reference(text) == tokenize(text) for text in sentences)
    seconds = best_seconds({"NLTK Punkt + Treebank (before)": reference, "paraphrastic tokenize (now)": tokenize},
                           sentences, repeats)
    table = markdown(len(sentences), seconds, repeats, agreed)
    publish(args.out, {"commit": commit(), "sentences": len(sentences), "repeats": repeats, "seconds": seconds,
                       "agreed": agreed}, table)
    return 0 if agreed == len(sentences) else 1


if __name__ == "__main__":
    sys.exit(main())
