"""Error analysis (Sec. 5.1): scaling, the category rule on the paper's Table 7, examples, summary, the stage."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.analysis import error_analysis as ea
from paraphrastic.data.corpus import EVAL_SCHEMA, write_table
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.provenance import read_result, write_result

PAPER_TABLES = Path(__file__).resolve().parents[3] / "shared" / "papers" / "tables"
NAMES = ("avg", "lstmavg")


def pairs_frame(tokens: list[tuple[list[str], list[str]]], gold) -> pd.DataFrame:
    return pd.DataFrame({"dataset": "sts12.toy", "line": range(1, len(tokens) + 1),
                         "s1": [" ".join(a) for a, _ in tokens], "s2": [" ".join(b) for _, b in tokens],
                         "score": np.asarray(gold, dtype=float), "tokens1": [a for a, _ in tokens],
                         "tokens2": [b for _, b in tokens]})


def random_table(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    tokens = [(["a", "b"], ["b", "c", "d"])] * n
    frame = pairs_frame(tokens, rng.uniform(0, 5, n))
    frame["dataset"] = rng.choice(["sts12.x", "sts13.y", "sts14.z"], n)
    return ea.compare(frame, rng.uniform(0, 5, n), rng.uniform(0, 5, n), names=NAMES)


def test_minmax_scaling_uses_each_models_full_range():
    scaled = ea.scale_to_range(np.array([0.2, 0.6, 0.4, 1.0]))
    np.testing.assert_allclose(scaled, [0.0, 2.5, 1.25, 5.0])
    np.testing.assert_allclose(ea.scale_to_range(np.array([-0.5, 0.5]), high=1.0), [0.0, 1.0])


def test_linear_scaling_maps_minus_one_to_one_onto_zero_to_five():
    np.testing.assert_allclose(ea.scale_to_range(np.array([-1.0, 0.0, 0.5, 1.0]), "linear"), [0.0, 2.5, 3.75, 5.0])
    np.testing.assert_allclose(ea.scale_to_range(np.array([0.7, 0.7]), "linear"), [4.25, 4.25])  # constant is fine


def test_bad_scaling_method_and_constant_minmax_input_are_rejected():
    with pytest.raises(ValueError, match="minmax, linear"):
        ea.scale_to_range(np.array([0.1, 0.2]), "zscore")
    with pytest.raises(ValueError, match="no range"):
        ea.scale_to_range(np.array([0.3, 0.3, 0.3]))


def test_category_rule_reproduces_the_papers_table7():
    paper = pd.read_csv(PAPER_TABLES / "wieting2017_table7.csv").sort_values("id")
    frame = pairs_frame([(s1.split(), s2.split()) for s1, s2 in zip(paper["sentence1"], paper["sentence2"],
                                                                      strict=True)], paper["gold"])
    table = ea.compare(frame, paper["avg"].to_numpy(), paper["lstmavg"].to_numpy(), names=NAMES)
    # Sec. 5.1: examples 1-2 avg overestimates, 3-4 avg underestimates, 5-7 LSTMavg overestimates
    assert list(table["category"]) == ["avg overestimates"] * 2 + ["avg underestimates"] * 2 + \
        ["lstmavg overestimates"] * 3
    first = table.iloc[0]
    assert first["error_avg"] == pytest.approx(4.13 - 0.8) and first["error_lstmavg"] == pytest.approx(3.42 - 0.8)
    assert first["gap"] == pytest.approx((4.13 - 0.8) - (3.42 - 0.8))
    assert (table["gap"] >= 0).all()


def test_categories_follow_the_argument_order_of_the_models():
    frame = pairs_frame([(["x"], ["y"])], [0.8])
    swapped = ea.compare(frame, np.array([3.42]), np.array([4.13]), names=("lstmavg", "avg"))
    assert swapped["category"].tolist() == ["avg overestimates"]
    # a tie in |error| counts the second model as the worse one; equal predictions: it "underestimates"
    tie = ea.compare(pairs_frame([(["x"], ["y"])] * 2, [2.0, 2.0]), np.array([3.0, 2.5]), np.array([1.0, 2.5]))
    assert tie["category"].tolist() == ["lstmavg underestimates", "lstmavg underestimates"]


def test_every_pair_gets_exactly_one_of_the_four_categories():
    table = random_table(200)
    assert set(table["category"]) <= set(ea.categories(NAMES))
    assert set(table["category"]) == set(ea.categories(NAMES))  # 200 random pairs reach every category
    worse_first = table["error_avg"].abs() > table["error_lstmavg"].abs()
    assert table.loc[worse_first, "category"].str.startswith("avg ").all()
    assert table.loc[~worse_first, "category"].str.startswith("lstmavg ").all()
    over = table["category"].str.endswith("overestimates")
    worse = np.where(worse_first, table["avg"], table["lstmavg"])
    better = np.where(worse_first, table["lstmavg"], table["avg"])
    assert (worse[over] > better[over]).all() and (worse[~over] <= better[~over]).all()


def test_overlap_and_length_ratio_on_a_hand_example():
    frame = pairs_frame([(["the", "dog", "runs", "the"], ["a", "dog", "runs", "fast", "now"]), ([], [])], [3.0, 1.0])
    table = ea.compare(frame, np.array([1.0, 2.0]), np.array([2.0, 3.0]))
    assert table["overlap"].tolist() == pytest.approx([2 / 6, 1.0])  # {dog, runs} of {the, dog, runs, a, fast, now}
    assert table["length_ratio"].tolist() == pytest.approx([4 / 5, 1.0])
    assert list(table.columns) == ["dataset", "line", "s1", "s2", "gold", "avg", "lstmavg", "error_avg",
                                   "error_lstmavg", "category", "gap", "overlap", "length_ratio"]
    with pytest.raises(ValueError, match="2 pairs"):
        ea.compare(frame, np.array([1.0]), np.array([2.0, 3.0]))


def test_examples_are_the_largest_gaps_per_category_in_a_fixed_order():
    table = random_table(200)
    picked = ea.examples(table, per_category=3)
    assert list(picked.columns) == list(table.columns) and len(picked) == 12
    assert list(picked["category"]) == [c for c in ea.categories(NAMES) for _ in range(3)]
    for category, rows in picked.groupby("category"):
        expected = table[table["category"] == category]["gap"].nlargest(3).to_numpy()
        np.testing.assert_allclose(rows["gap"].to_numpy(), expected)
    tied = table.assign(gap=1.0)  # all tied: (dataset, line) decides, and repeatably
    first = ea.examples(tied, per_category=2)
    head = tied[tied["category"] == "avg overestimates"].sort_values(["dataset", "line"]).head(2)
    assert first.iloc[:2][["dataset", "line"]].values.tolist() == head[["dataset", "line"]].values.tolist()
    assert first.equals(ea.examples(tied.sample(frac=1.0, random_state=1), per_category=2))


def test_summary_counts_add_up_and_is_plain_json():
    table = random_table(120)
    result = ea.summary(table, NAMES)
    json.dumps(result, allow_nan=False)
    counts = [c["pairs"] for c in result["categories"].values()]
    assert list(result["categories"]) == ea.categories(NAMES)
    assert sum(counts) == result["pairs"] == 120 and result["datasets"] == 3
    assert sum(c["share"] for c in result["categories"].values()) == pytest.approx(1.0)
    over = table[table["category"] == "avg overestimates"]
    assert result["categories"]["avg overestimates"]["mean_gap"] == pytest.approx(over["gap"].mean())
    mae = (table["avg"] - table["gold"]).abs().mean()
    assert result["accuracy"]["avg"]["mean_abs_error"] == pytest.approx(mae)
    assert result["accuracy"]["lstmavg"]["pearson"] == pytest.approx(
        100 * np.corrcoef(table["lstmavg"], table["gold"])[0, 1])
    one_sided = ea.summary(table[table["category"] == "avg overestimates"], NAMES)
    assert one_sided["categories"]["lstmavg underestimates"] == {
        "pairs": 0, "share": 0.0, "mean_gap": None, "mean_gold": None, "mean_overlap": None,
        "mean_length_ratio": None}


# ---- the stage, end to end on a tiny data directory -------------------------------------------------

WORDS = ["<pad>", "<unk>", "<s>", "</s>", "a", "man", "dog", "runs", "plays", "guitar", "the", "cat", "sleeps"]


def write_job(root: Path, run: str, seed: int, name: str, embeddings: torch.Tensor, scores: list[float]) -> None:
    torch.manual_seed(seed)
    model = build_model(name, embeddings)
    job = root / "models" / run / f"seed{seed}"
    job.mkdir(parents=True)
    save_model(job / "model.pt", model, name, {}, Vocabulary(WORDS), {})
    history = [{"epoch": i + 1, "selection_pearson": s, "transfer_pearson": 50.0} for i, s in enumerate(scores)]
    (job / "history.json").write_text(json.dumps(history))
    write_result(job / "train.json", {}, stage="train", beside={"history.json": history})  # as trainers write it


def tiny_data_dir(root: Path, groups: list[str]) -> tuple[dict, dict[int, torch.Tensor]]:
    rng = np.random.default_rng(0)
    words = WORDS[4:]
    rows = []
    for k, group in enumerate(groups):
        for i in range(8):
            a = list(rng.choice(words, size=rng.integers(2, 6)))
            b = list(rng.choice(words, size=rng.integers(2, 6)))
            rows.append({"dataset": f"set{k}", "group": group, "line": i + 1, "s1": " ".join(a), "s2": " ".join(b),
                         "score": float(rng.uniform(0, 5)), "tokens1": a, "tokens2": b})
    write_table(pd.DataFrame(rows), EVAL_SCHEMA, root / "corpus" / "eval.parquet")
    torch.manual_seed(0)
    embeddings = {seed: torch.randn(len(WORDS), 6) for seed in (2, 4, 7)}
    # avg-row: seeds 2 and 4 (seed 2, the smallest, is analysed, at its best epoch: 2); lstm-row: seed 7
    write_job(root, "avg-row", 4, "avg", embeddings[4], [60.0, 55.0])
    write_job(root, "avg-row", 2, "avg", embeddings[2], [40.0, 70.0, 65.0])
    write_job(root, "lstm-row", 7, "lstmavg", embeddings[7], [30.0])
    experiments = {"avg-row": {"model": "avg", "seeds": [4, 2]}, "lstm-row": {"model": "lstmavg", "seed": 7}}
    config = {"data_profile": "tiny", "experiments": experiments,
              "error_analysis": {"rows": {"avg": "avg-row", "lstmavg": "lstm-row"}, "scaling": "minmax",
                                 "examples": 2}}
    return config, embeddings


def test_analyse_end_to_end_on_a_tiny_data_dir(tmp_path):
    config, embeddings = tiny_data_dir(tmp_path, ["STS 2012", "STS 2015", "STS 2016", "2014 SICK"])
    result = ea.analyse(config, tmp_path, tmp_path / "out", device="cpu")
    pairs = pd.read_parquet(tmp_path / "out" / "pairs.parquet")
    assert len(pairs) == 16 and sorted(set(pairs["dataset"])) == ["set0", "set1"]  # STS 2016 and SICK left out
    assert {"tokens1", "tokens2"}.isdisjoint(pairs.columns)
    assert pairs["avg"].min() == pytest.approx(0.0) and pairs["avg"].max() == pytest.approx(5.0)
    # the avg column is the smallest seed's model: the mean of its word vectors, by hand
    vocab = Vocabulary(WORDS)
    matrix = embeddings[2].numpy()

    def embed(sentence: str) -> np.ndarray:
        return matrix[vocab.ids(sentence.split())].mean(0)

    cosines = np.array([embed(a) @ embed(b) / np.linalg.norm(embed(a)) / np.linalg.norm(embed(b))
                        for a, b in zip(pairs["s1"], pairs["s2"], strict=True)])
    np.testing.assert_allclose(pairs["avg"], ea.scale_to_range(cosines), atol=1e-4)
    assert pairs["category"].isin(ea.categories(NAMES)).all()

    picked = pd.read_csv(tmp_path / "out" / "examples.csv")
    assert len(picked) <= 8 and list(picked.columns) == list(pairs.columns)
    summary = read_result(tmp_path / "out" / "summary.json")
    assert summary == json.loads(json.dumps(result))
    assert summary["models"] == {"avg": {"row": "avg-row", "run": "avg-row", "seed": 2, "epoch": 2},
                                 "lstmavg": {"row": "lstm-row", "run": "lstm-row", "seed": 7, "epoch": 1}}
    assert summary["scaling"] == "minmax" and summary["sets"] == ["set0", "set1"]
    assert summary["pairs"] == 16 and sum(c["pairs"] for c in summary["categories"].values()) == 16


def test_analyse_without_sts_2012_2015_pairs_is_a_pipeline_error(tmp_path):
    config, _ = tiny_data_dir(tmp_path, ["STS 2016", "2015 Twitter"])
    with pytest.raises(PipelineError, match="STS 2012-2015"):
        ea.analyse(config, tmp_path, tmp_path / "out", device="cpu")
