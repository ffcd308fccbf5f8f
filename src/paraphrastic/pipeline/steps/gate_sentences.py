"""gate-sentences: the Wikipedia sentences the gate analysis parses (short, distinct, none of them a
model-selection sentence), drawn with a fixed seed from the Wikipedia side of the SimpWiki files
(``configuration.params.gate_sentence_files``), with how many are sentences of the training pairs."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import gate_sentence_files, profile, selection_ids
from paraphrastic.data import readers
from paraphrastic.data.corpus import read_as, read_table, write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.gate_sentences import sample_sentences
from paraphrastic.provenance import write_result


def run(config: dict, *, raw, corpus, out, stats) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    settings, files = config["gates"], gate_sentence_files(config)
    raw_sentences, origins = [], []
    for first, second in files:
        pairs = readers.read_aligned_pairs(Path(raw) / first, Path(raw) / second,
                                           fmt=profile(config)["simpwiki"]["format"])
        raw_sentences += [pair.s1 for pair in pairs]
        origins += [first] * len(pairs)
    evaluation = read_table(Path(corpus) / "eval.parquet")
    selection = evaluation[evaluation["dataset"].isin(selection_ids(config))]
    excluded = {tuple(t) for t in selection["tokens1"]} | {tuple(t) for t in selection["tokens2"]}
    # the sample's sentences are read our way (the parser needs brackets, not -LRB-), so the training sentences are
    # too, whichever reading (`data.reading`) the training tables hold
    simpwiki = read_as(read_table(Path(corpus) / "simpwiki.parquet"), "ours")
    training = {tuple(t) for t in simpwiki["tokens1"]} | {tuple(t) for t in simpwiki["tokens2"]}
    frame, counts = sample_sentences(raw_sentences, excluded, n=settings["sentences"],
                                     max_tokens=settings["max_tokens"], seed=settings["seed"], origins=origins,
                                     training=training)
    write_table(frame, None, out, stage="gate_sentences")
    sides = ", ".join(first for first, _ in files)
    write_result(stats, {"source": f"SimpWiki, Wikipedia (normal) side: {sides}", **counts}, stage="gate_sentences")
    print(f"{counts['sampled']} of {counts['qualified']} qualifying sentences (<= {counts['max_tokens']} tokens, "
          f"not in the selection sets; {counts['in_training_pairs']} of them in the training pairs) -> {out}")
