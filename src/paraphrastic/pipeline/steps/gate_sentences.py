"""gate-sentences: the Wikipedia sentences the gate analysis parses (short, distinct, none of them a
model-selection sentence), drawn with a fixed seed."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import atomic_path, write_json
from paraphrastic.data.corpus import read_table
from paraphrastic.data.gate_sentences import sample_sentences
from paraphrastic.experiments.config import selection_ids


def run(config: dict, *, corpus, out, stats) -> None:
    settings = config["gates"]
    simpwiki = read_table(Path(corpus) / "simpwiki.parquet")
    evaluation = read_table(Path(corpus) / "eval.parquet")
    selection = evaluation[evaluation["dataset"].isin(selection_ids(config))]
    excluded = {tuple(t) for t in selection["tokens1"]} | {tuple(t) for t in selection["tokens2"]}
    frame, counts = sample_sentences(simpwiki["s1"].tolist(), excluded, n=settings["sentences"],
                                     max_tokens=settings["max_tokens"], seed=settings["seed"])
    with atomic_path(out) as tmp:
        frame.to_parquet(tmp, index=False)
    write_json(stats, {"source": "SimpWiki, Wikipedia (normal) side", **counts})
    print(f"{counts['sampled']} of {counts['qualified']} qualifying sentences (<= {counts['max_tokens']} tokens, "
          f"not in the selection sets) -> {out}")
