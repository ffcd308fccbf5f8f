"""The sentences of the gate analysis (Sec. 5.2): short Wikipedia sentences drawn with a fixed seed.

Kept apart from the analysis itself so that editing the analysis never re-samples or re-parses.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from paraphrastic.data.tokens import normalise, unescape_ptb

MAX_TOKENS = 15  # footnote 8: "sentences of less than or equal to 15 tokens to ensure more accurate parsing"


def cased_tokens(raw: str) -> list[str]:
    """SimpWiki text ships PTB-tokenised: split on whitespace, map PTB escapes back, keep the case
    (the parser needs it; the GRAN sees the lower-cased form, as in training)."""
    return [unescape_ptb(t) for t in raw.split()]


def sample_sentences(raw_sentences: list[str], excluded: set[tuple[str, ...]], *, n: int,
                     max_tokens: int = MAX_TOKENS, seed: int, origins: list[str] | None = None,
                     training: set[tuple[str, ...]] | None = None) -> tuple[pd.DataFrame, dict]:
    """``n`` distinct sentences of 1..``max_tokens`` tokens, drawn with ``seed``; none in ``excluded``.

    ``excluded`` holds lower-cased token tuples (the model-selection sentences). ``origins`` names the source of
    each raw sentence (a sentence in several counts for the first), and ``training`` holds the training pairs'
    sentences. Returns the sample (columns sentence, text, tokens, origin) and counts of what qualified, per
    origin too, and of the sample, how many are training sentences.
    """
    origins = origins if origins is not None else [""] * len(raw_sentences)
    seen: set[tuple[str, ...]] = set()
    candidates, too_long, held_out = [], 0, 0
    qualified_by_origin: dict[str, int] = {}
    for raw, origin in zip(raw_sentences, origins, strict=True):
        tokens = cased_tokens(raw)
        key = tuple(normalise(tokens))
        if not tokens or key in seen:
            continue
        seen.add(key)
        if len(tokens) > max_tokens:
            too_long += 1
        elif key in excluded:
            held_out += 1
        else:
            candidates.append((tokens, origin, key))
            qualified_by_origin[origin] = qualified_by_origin.get(origin, 0) + 1
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(candidates), size=min(n, len(candidates)), replace=False) if candidates else []
    rows = [{"sentence": i, "text": " ".join(candidates[j][0]), "tokens": candidates[j][0], "origin": candidates[j][1]}
            for i, j in enumerate(chosen)]
    stats = {"distinct_sentences": len(seen), "longer_than_max": too_long, "selection_sentences_excluded": held_out,
             "qualified": len(candidates), "sampled": len(rows), "requested": n, "max_tokens": max_tokens,
             "seed": seed}
    if any(origins):
        sampled_by_origin = {origin: sum(row["origin"] == origin for row in rows) for origin in qualified_by_origin}
        stats["by_origin"] = {origin: {"qualified": qualified_by_origin[origin], "sampled": sampled_by_origin[origin]}
                              for origin in qualified_by_origin}
    if training is not None:
        stats["in_training_pairs"] = sum(candidates[j][2] in training for j in chosen)
    return pd.DataFrame(rows, columns=["sentence", "text", "tokens", "origin"]), stats
