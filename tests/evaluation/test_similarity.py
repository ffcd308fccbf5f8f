import math

import numpy as np
import pytest
from scipy import stats

from paraphrastic.evaluation import similarity


def test_correlations_are_scaled_by_100():
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 5, 50)
    predicted = gold + rng.normal(0, 1, 50)
    predicted[:10] = np.round(predicted[:10])  # ties: Spearman's ranks are averaged, as scipy.stats averages them
    predicted = predicted.astype(np.float32)  # as cosine scores come
    got = similarity.correlations(predicted, gold)
    assert got["pearson"] == pytest.approx(100 * stats.pearsonr(predicted, gold).statistic, rel=1e-12)
    assert got["spearman"] == pytest.approx(100 * stats.spearmanr(predicted, gold).statistic, rel=1e-12)
    assert got["pairs"] == 50
    assert math.isnan(similarity.correlations(np.ones(5), gold[:5])["pearson"])


def test_summarize_means_over_transfer_sets_and_selection():
    results = {"sts12.MSRpar": {"pearson": 40.0, "spearman": 30.0}, "sts13.FNWN": {"pearson": 60.0, "spearman": 50.0},
               "sick.test": {"pearson": 80.0, "spearman": 70.0}, "sts16.headlines": {"pearson": 10.0, "spearman": 0.0}}
    summary = similarity.summarize(results, ["sts16.headlines"])
    assert summary["transfer_sets"] == 3 and summary["transfer_pearson"] == pytest.approx(60.0)
    assert summary["transfer_spearman"] == pytest.approx(50.0)
    assert summary["selection_pearson"] == 10.0
    assert summary["groups"]["STS 2013"] == {"pearson": 60.0, "spearman": 50.0, "sets": 1}


def test_score_sets_encodes_each_sentence_once(workspace):
    import torch

    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.vocab import Vocabulary
    from paraphrastic.models.encoders import build_model

    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    model = build_model("avg", torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy")))
    frame = read_table(workspace["eval"])
    results = similarity.score_sets(model, vocab, frame, batch_size=7)
    assert set(results) == {"sts12.MSRvid", "sts16.headlines"}
    assert results["sts12.MSRvid"]["pairs"] == 24
    # the same scores as a straightforward per-pair computation
    rows = frame[frame["dataset"] == "sts12.MSRvid"]
    a = similarity.encode(model, vocab, list(rows["tokens1"]))
    b = similarity.encode(model, vocab, list(rows["tokens2"]))
    cos = torch.nn.functional.cosine_similarity(a, b).numpy()
    assert results["sts12.MSRvid"]["pearson"] == pytest.approx(similarity.correlations(cos, rows["score"].to_numpy())
                                                               ["pearson"], abs=1e-4)


def test_prepared_sets_score_a_changing_model_as_score_sets_does(workspace):
    """A run prepares the evaluation table once and scores its model at every evaluation point: each score equals
    a fresh score_sets bit for bit, after the model's weights change too; a model of another tag scheme is refused."""
    import torch

    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.vocab import Vocabulary
    from paraphrastic.models.encoders import build_model

    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    frame = read_table(workspace["eval"])
    torch.manual_seed(0)
    model = build_model("gran", embeddings, dropout=0.2)
    model.train()
    prepared = similarity.PreparedSets.for_model(model, vocab, frame, batch_size=7)
    for _ in range(2):
        assert prepared.score(model) == similarity.score_sets(model, vocab, frame, batch_size=7)
        assert model.training  # scored in eval mode, handed back as it came
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.add_(0.01 * torch.randn_like(parameter))
    with pytest.raises(ValueError, match="tags 'both', model takes 'none'"):
        similarity.PreparedSets(vocab, frame, tags="both").score(model)


@pytest.mark.fault("undefined scores")
@pytest.mark.parametrize("gold, message", [([3.0, 3.0, 3.0], "all 3 gold scores are 3"), ([2.0], "1 pair")])
def test_a_set_without_a_defined_correlation_is_an_error_naming_it(gold, message):
    import pandas as pd

    from paraphrastic.errors import PipelineError

    frame = pd.DataFrame({"dataset": ["sts12.MSRvid"] * 3 + ["sts16.headlines"] * len(gold),
                          "score": [1.0, 2.0, 4.0, *gold]})
    with pytest.raises(PipelineError, match=f"evaluation set 'sts16.headlines': {message}, so no correlation"):
        similarity.per_set_correlations(frame, np.arange(len(frame), dtype=float))
