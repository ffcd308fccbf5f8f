"""Gate analysis: gate extraction against the model's own forward pass, sampling, aggregation, labels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.analysis import gates
from paraphrastic.data.batching import pad
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.models.encoders import build_model


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
    from paraphrastic.data.tokenize import normalise
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
