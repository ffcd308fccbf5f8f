"""The gate analysis's sentences: seeded, short, distinct, none of them a model-selection sentence."""

from __future__ import annotations

from paraphrastic.data import gate_sentences


def test_sample_is_seeded_short_distinct_and_excludes_selection_sentences():
    raw = ["The dog runs .", "the dog runs .", "A -LRB- long -RRB- one " + "x " * 20, "Cats sleep .", "Held out .",
           "New York is big ."]
    excluded = {("held", "out", ".")}
    frame, stats = gate_sentences.sample_sentences(raw, excluded, n=10, max_tokens=15, seed=3)
    assert stats == {"distinct_sentences": 5, "longer_than_max": 1, "selection_sentences_excluded": 1,
                     "qualified": 3, "sampled": 3, "requested": 10, "max_tokens": 15, "seed": 3}
    assert sorted(frame["text"]) == ["Cats sleep .", "New York is big .", "The dog runs ."]
    assert frame.iloc[0]["tokens"] == frame.iloc[0]["text"].split()  # case kept for the parser
    first, _ = gate_sentences.sample_sentences(raw, excluded, n=2, max_tokens=15, seed=3)
    again, _ = gate_sentences.sample_sentences(raw, excluded, n=2, max_tokens=15, seed=3)
    assert len(first) == 2 and list(first["text"]) == list(again["text"])
    assert gate_sentences.cased_tokens("-LRB- a\\/b -RRB-") == ["(", "a/b", ")"]


def test_sources_and_training_sentences_are_counted():
    raw = ["The dog runs .", "Cats sleep .", "the DOG runs .", "Birds fly .", "Fish swim ."]
    origins = ["v2", "v2", "v1", "v1", "v1"]
    training = {("the", "dog", "runs", "."), ("birds", "fly", ".")}
    frame, stats = gate_sentences.sample_sentences(raw, set(), n=3, max_tokens=15, seed=0, origins=origins,
                                                   training=training)
    # "the DOG runs ." is the v2 sentence again: it counts for v2, where it came first
    assert {o: c["qualified"] for o, c in stats["by_origin"].items()} == {"v2": 2, "v1": 2}
    assert sum(c["sampled"] for c in stats["by_origin"].values()) == 3 == len(frame)
    assert stats["in_training_pairs"] == sum(t in ("The dog runs .", "Birds fly .") for t in frame["text"])
    assert set(frame["origin"]) <= {"v2", "v1"}
    _, everything = gate_sentences.sample_sentences(raw, set(), n=10, max_tokens=15, seed=0, origins=origins,
                                                    training=training)
    assert everything["in_training_pairs"] == 2
