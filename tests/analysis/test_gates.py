"""Gate analysis: gate extraction against the model's own forward pass, sampling, aggregation, labels."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.analysis import gates
from paraphrastic.data.batching import pad
from paraphrastic.data.corpus import write_table
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.models.encoders import build_model
from paraphrastic.provenance import read_result, write_result

REPO = Path(__file__).resolve().parents[2]


def toy_gran(tags: str = "none"):
    torch.manual_seed(0)
    vocab = Vocabulary(["<pad>", "<unk>", "<s>", "</s>", "the", "dog", "runs", "fast", "new", "york"])
    model = build_model("gran", torch.randn(len(vocab.words), 6), tags=tags)
    for p in model.parameters():  # away from the initial values, so the gate is not near-constant
        torch.nn.init.normal_(p, std=0.5)
    return model, vocab


@pytest.mark.parametrize("tags", ["none", "both"])
def test_extracted_gates_rebuild_the_models_own_sentence_embedding(tags):
    model, vocab = toy_gran(tags)
    sentences = [["The", "dog", "runs", "fast"], ["New", "York"], ["dog"]]
    norms = gates.token_gate_norms(model, vocab, sentences, tags=tags, batch_size=2)
    assert [len(n) for n in norms] == [4, 2, 1]  # one norm per word, tag positions dropped
    from paraphrastic.data.tokens import normalise
    from paraphrastic.data.vocab import add_tags
    tokens, mask = pad([add_tags(vocab.ids(normalise(s)), tags) for s in sentences])
    model.eval()
    with torch.no_grad():
        x, gate = model.gates(tokens, mask)
        embedding = model(tokens, mask)
        # Eq. 1: the sentence is the mean of x_t ⊙ gate_t, so these gates are the ones the model uses
        rebuilt = ((x * gate) * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
    torch.testing.assert_close(rebuilt, embedding)
    offset = 1 if tags == "both" else 0
    for row, norm in enumerate(norms):
        expected = gate[row, offset : offset + len(norm)].sum(-1).numpy()
        np.testing.assert_allclose(norm, expected, rtol=1e-6)
    assert all(((n > 0) & (n < 6)).all() for n in norms)  # an L1 norm of 6 sigmoids


def hand_made_parse() -> tuple[pd.DataFrame, list[np.ndarray]]:
    # "John 's dog barked" / "She did n't go" with made-up gate norms
    rows = [(0, 1, "John", "NNP", "nmod:poss"), (0, 2, "'s", "POS", "case"), (0, 3, "dog", "NN", "nsubj"),
            (0, 4, "barked", "VBD", "root"), (1, 1, "She", "PRP", "nsubj"), (1, 2, "did", "VBD", "aux"),
            (1, 3, "n't", "RB", "advmod"), (1, 4, "go", "VB", "root")]
    parses = pd.DataFrame(rows, columns=["sentence", "index", "word", "xpos", "deprel"])
    return parses, [np.array([5.0, 1.0, 4.0, 3.0]), np.array([2.0, 1.5, 0.5, 3.5])]


def test_aggregation_on_a_hand_made_parse():
    tokens = gates.token_table(*hand_made_parse())
    assert list(tokens["sd_label"]) == ["poss", "possessive", "nsubj", "root", "nsubj", "aux", "neg", "root"]
    by_label = gates.aggregate(tokens, ["sd_label"], min_count=2)
    assert list(by_label["sd_label"]) == ["root", "nsubj"]  # seen twice; the rest once
    assert by_label.set_index("sd_label").loc["root", "mean"] == pytest.approx(3.25)
    assert by_label.set_index("sd_label").loc["nsubj", "sd"] == pytest.approx(math.sqrt(2))
    by_pos = gates.aggregate(tokens, ["xpos"], min_count=1)
    assert by_pos.iloc[0]["xpos"] == "NNP" and by_pos.set_index("xpos").loc["VBD", "count"] == 2
    conj = gates.aggregate(tokens, ["xpos", "sd_label"], min_count=1)
    assert conj.set_index(["xpos", "sd_label"]).loc[("VBD", "root"), "mean"] == 3.0
    with pytest.raises(ValueError, match="disagree"):
        gates.token_table(hand_made_parse()[0], [np.ones(4)])


def test_ud_labels_map_to_the_papers_stanford_labels():
    assert gates.sd_label("obj", "NN", "ball") == "dobj"
    assert gates.sd_label("compound", "NN", "tax") == "nn"
    assert gates.sd_label("compound", "CD", "million") == "number"
    assert gates.sd_label("nummod", "CD", "3") == "num"
    assert gates.sd_label("case", "IN", "of") == "prep"
    assert gates.sd_label("case", "POS", "'s") == "possessive"
    assert gates.sd_label("xcomp", "JJ", "happy") == "acomp"
    assert gates.sd_label("obl:unmarked", "NN", "day") == "pobj"  # a subtype falls back to its base's label
    assert gates.sd_label("list", "NN", "x") == "list"


def test_rank_agreement_against_the_papers_lists():
    ours = pd.DataFrame({"xpos": list("ABCDEF"), "mean": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    same = gates.rank_agreement(ours, "xpos", ["A", "B"], ["F", "E"])
    assert same == {"top_overlap": 2, "bottom_overlap": 2, "k": 2, "shared_labels": 4, "spearman": 1.0}
    flipped = gates.rank_agreement(ours, "xpos", ["F", "E"], ["A", "Z"])
    assert flipped["top_overlap"] == 0 and flipped["shared_labels"] == 3 and flipped["spearman"] == -1.0


def labelled_tokens(means: dict[str, float], sentences: int, *, noise: float, seed: int) -> pd.DataFrame:
    """Each sentence has one word of every label, with the label's mean norm plus Gaussian noise."""
    rng = np.random.default_rng(seed)
    rows = [{"sentence": s, "xpos": tag, "norm": mean + noise * rng.standard_normal()}
            for s in range(sentences) for tag, mean in means.items()]
    return pd.DataFrame(rows)


PAPER_ORDER = [f"T{i}" for i in range(8)]  # highest norm first
TOP, BOTTOM = PAPER_ORDER[:4], list(reversed(PAPER_ORDER[4:]))


def test_a_bootstrap_draw_is_the_analysis_of_the_resampled_sentences():
    tokens = labelled_tokens({t: 8.0 - i for i, t in enumerate(PAPER_ORDER)}, 30, noise=3.0, seed=0)
    labels, sums, counts = gates.label_matrices(tokens, "xpos")
    grouped = tokens.groupby("xpos")["norm"].agg(["sum", "size"])
    assert np.allclose(sums.sum(0), grouped.loc[labels, "sum"])
    assert np.allclose(counts.sum(0), grouped.loc[labels, "size"])
    draws = gates.bootstrap_agreement([tokens], "xpos", TOP, BOTTOM, min_count=1, draws=3, seed=5)
    rng = np.random.default_rng(5)  # the same draws by hand: pick the (only) table, resample 30 sentences
    for draw in draws:
        rng.integers(1)
        picked = rng.integers(30, size=30)
        resampled = pd.concat([tokens[tokens["sentence"] == s].assign(sentence=i) for i, s in enumerate(picked)])
        by_hand = gates.rank_agreement(gates.aggregate(resampled, ["xpos"], min_count=1), "xpos", TOP, BOTTOM)
        assert draw == pytest.approx(by_hand)


def test_intervals_collapse_without_noise_and_widen_with_seeds_that_disagree():
    means = {t: 8.0 - i for i, t in enumerate(PAPER_ORDER)}
    exact = gates.bootstrap_agreement([labelled_tokens(means, 40, noise=0.0, seed=0)], "xpos", TOP, BOTTOM,
                                      min_count=1, draws=50, seed=1)
    assert gates.interval(exact) == {"spearman": [1.0, 1.0], "top_overlap": [4.0, 4.0], "bottom_overlap": [4.0, 4.0]}
    first = labelled_tokens(means, 40, noise=0.5, seed=0)
    reversed_seed = labelled_tokens({t: -m for t, m in means.items()}, 40, noise=0.5, seed=1)
    alone = gates.agreement_with_noise({1: first}, 1, "xpos", TOP, BOTTOM, min_count=1, draws=200, seed=1)
    both = gates.agreement_with_noise({1: first, 2: reversed_seed}, 1, "xpos", TOP, BOTTOM, min_count=1, draws=200,
                                      seed=1)
    assert alone["spearman"] == both["spearman"] == pytest.approx(1.0)  # the point: the first seed, all sentences
    assert set(alone["interval"]) == {"sentences"} and both["per_seed"]["2"]["spearman"] == pytest.approx(-1.0)
    low, high = both["interval"]["sentences_and_seeds"]["spearman"]
    assert low == pytest.approx(-1.0) and high == pytest.approx(1.0)
    assert both["interval"]["sentences"] == alone["interval"]["sentences"]


def test_min_count_applies_to_each_resample():
    tokens = labelled_tokens({"T0": 2.0, "T1": 1.0}, 10, noise=0.0, seed=0)
    rare = pd.DataFrame([{"sentence": 0, "xpos": "T2", "norm": 9.0}])  # one word, in sentence 0 only
    draws = gates.bootstrap_agreement([pd.concat([tokens, rare])], "xpos", ["T2", "T0"], ["T1"], min_count=2,
                                      draws=40, seed=0)
    rng = np.random.default_rng(0)
    for draw in draws:  # T2 counts only in the resamples that drew sentence 0 at least twice
        rng.integers(1)
        twice = (rng.integers(10, size=10) == 0).sum() >= 2
        assert draw["shared_labels"] == (3 if twice else 2)
    assert {d["shared_labels"] for d in draws} == {2, 3}


GATE_SENTENCES = [["a", "man", "runs"], ["the", "dog", "plays", "guitar"], ["a", "cat", "runs"],
                  ["the", "man", "plays"]]
GATE_TAGS = {"a": ("DT", "det"), "man": ("NN", "nsubj"), "dog": ("NN", "obj"), "runs": ("VBZ", "root"),
             "plays": ("VBZ", "root"), "guitar": ("NN", "obj"), "the": ("DT", "det"), "cat": ("NN", "nsubj")}


def write_parses(path, tags: dict, sentences=GATE_SENTENCES, heads=0):
    write_table(pd.DataFrame([{"sentence": s, "index": i + 1, "word": w, "lemma": w, "upos": "X", "xpos": tags[w][0],
                               "head": heads, "deprel": tags[w][1]} for s, words in enumerate(sentences)
                              for i, w in enumerate(words)]), None, path, stage="parse")
    return path


def gate_stage_inputs(folder):
    """Two seeds of a GRAN row and the stage's config (seed 1 is analysed, seed 2 repeats the agreement)."""
    from tests.analysis.test_error_analysis import WORDS, write_job

    torch.manual_seed(0)
    for seed in (1, 2):
        write_job(folder, "gran-row", seed, "gran", torch.randn(len(WORDS), 6), [50.0])
    return {"data_profile": "tiny", "experiments": {"gran-row": {"model": "gran"}}, "seeds": 1, "seed": 1,
            "train": {}, "paper_tables": str(REPO.parent / "shared/papers/tables"),
            "gates": {"gran_row": "gran-row", "seeds": 2, "min_count": 1, "min_pair_count": 1, "batch_size": 2,
                      "bootstrap": 30, "seed": 1}}


def test_the_stage_repeats_the_agreement_on_each_seed_of_the_analysed_run(tmp_path):
    config = gate_stage_inputs(tmp_path)
    sentences = GATE_SENTENCES
    summary = gates.analyse(config, data_dir=tmp_path, parses_path=write_parses(tmp_path / "parses.parquet", GATE_TAGS),
                            out_dir=tmp_path / "out", device="cpu")
    assert "compared_parser" not in summary
    assert summary["model"]["seeds"] == [1, 2] and summary["model"]["seed"] == 1
    assert summary["bootstrap"] == {"draws": 30, "level": 0.95, "seed": 1}
    for name in ("pos", "label"):
        agreement = summary["agreement"][name]
        assert set(agreement["per_seed"]) == {"1", "2"} and set(agreement["interval"]) == {"sentences",
                                                                                         "sentences_and_seeds"}
        point = {k: v for k, v in agreement.items() if k not in ("per_seed", "interval")}
        assert point == pytest.approx(agreement["per_seed"]["1"], nan_ok=True)  # the point is seed 1's
    # the tables are the first seed's gates
    from paraphrastic.models.files import load_model

    model, vocab, _ = load_model(tmp_path / "models/gran-row/seed1/model.pt", "cpu")
    expected = np.concatenate(gates.token_gate_norms(model, vocab, sentences))
    assert np.allclose(pd.read_parquet(tmp_path / "out/tokens.parquet")["norm"], expected)


def test_the_compared_parses_group_the_same_gates_by_their_own_tags(tmp_path):
    config = gate_stage_inputs(tmp_path)
    ours = write_parses(tmp_path / "parses.parquet", GATE_TAGS)
    # the compared parser tags every noun a proper noun and calls every object a subject
    other_tags = {w: ("NNP", "nsubj") if x == "NN" else (x, d) for w, (x, d) in GATE_TAGS.items()}
    other = write_parses(tmp_path / "other.parquet", other_tags, heads=1)
    gates.analyse(config, data_dir=tmp_path, parses_path=ours, out_dir=tmp_path / "out", device="cpu")
    models = tmp_path / "stanza_compared" / "scores.json"
    write_result(models, {"source": "trained offline", "dev": {"xpos": 90.0, "las": 80.0}}, stage="stanza_models")
    compared = gates.compare_parsers(config, data_dir=tmp_path, parses_path=ours, compared_parses_path=other,
                                     compared_models=models, out=tmp_path / "compared.json", device="cpu")
    assert read_result(tmp_path / "compared.json")["with_analysis_parser"] == compared["with_analysis_parser"]
    assert compared["parser"] == {"source": "trained offline", "dev": {"xpos": 90.0, "las": 80.0}}
    nouns = sum(GATE_TAGS[w][0] == "NN" for s in GATE_SENTENCES for w in s)
    objects = sum(GATE_TAGS[w][1] == "obj" for s in GATE_SENTENCES for w in s)
    words = sum(map(len, GATE_SENTENCES))
    assert compared["with_analysis_parser"] == pytest.approx(
        {"words": words, "xpos": 100 * (words - nouns) / words, "sd_label": 100 * (words - objects) / words,
         "head": 0.0, "head_and_deprel": 0.0})
    # its agreement is computed from the same gate norms grouped by the other tags: NNP gets the nouns' mean
    tokens = pd.read_parquet(tmp_path / "out/tokens.parquet")
    assert set(compared["agreement"]) == {"pos", "label"}
    assert compared["agreement"]["pos"]["per_seed"].keys() == {"1", "2"}
    relabelled = tokens.assign(xpos=tokens["xpos"].replace("NN", "NNP"))
    paper = gates.paper_lists(config)
    expected = gates.rank_agreement(gates.aggregate(relabelled, ["xpos"], min_count=1), "xpos", paper["pos_top"],
                                    paper["pos_bottom"])
    point = {k: v for k, v in compared["agreement"]["pos"].items() if k not in ("per_seed", "interval")}
    assert point == pytest.approx(expected, nan_ok=True)


def test_compared_parses_of_other_sentences_are_refused(tmp_path):
    config = gate_stage_inputs(tmp_path)
    ours = write_parses(tmp_path / "parses.parquet", GATE_TAGS)
    other = write_parses(tmp_path / "other.parquet", GATE_TAGS, sentences=GATE_SENTENCES[:3])
    with pytest.raises(PipelineError, match="other.parquet: not the sentences of"):
        gates.compare_parsers(config, data_dir=tmp_path, parses_path=ours, compared_parses_path=other,
                              compared_models=tmp_path / "unread.json", out=tmp_path / "compared.json", device="cpu")
    assert not (tmp_path / "compared.json").exists()
