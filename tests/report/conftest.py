"""A small, made-up set of results in the layout the pipeline writes, for the tiny config (params.test.yaml):
every file the report reads, with numbers chosen so that each section's output can be checked by hand.

Transfer jobs: two epochs each. Epoch 2 has the better STS 2016 mean and epoch 1 the better 22-set mean, so
"test" selection reports epoch 2 and "oracle" selection epoch 1. A job's scores grow with its run's place in
the sorted run names (``RUN_STEP`` per place) and a tenth per seed, so a row with several runs selects its
last run. Per set, Pearson is the 22-set mean ± 1 and Spearman half a point below Pearson.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from paraphrastic.configuration.jobs import JobTables
from paraphrastic.provenance import write_result

REPO = Path(__file__).resolve().parents[2]
TRANSFER_SETS = ("sts12.MSRvid", "sts14.images")
SELECTION_SET = "sts16.headlines"
RUN_STEP = 2.0
BASELINE = 30.0


def transfer_scores(place: int, seed: int) -> dict[int, tuple[float, float]]:
    """{epoch: (STS 2016 mean, 22-set mean)} of a transfer job."""
    base = place * RUN_STEP + seed / 10
    return {1: (50.0 + base, 40.0 + base), 2: (52.0 + base, 39.0 + base)}


def per_set(transfer: float, selection: float) -> dict[str, float]:
    return {TRANSFER_SETS[0]: transfer + 1, TRANSFER_SETS[1]: transfer - 1, SELECTION_SET: selection}


def write(path: Path, value) -> None:
    """A file as its stage writes it: a JSON result with its record (the report reads no other)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(value, pd.DataFrame):
        value.to_csv(path, index=False)
    elif isinstance(value, bytes):
        path.write_bytes(value)
    else:
        write_result(path, value, stage=None)


def write_run(folder: Path, history: list[dict], info: dict) -> None:
    """A training job's history.json and train.json, whose record holds the history's digest, as trainers write
    them."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "history.json").write_text(json.dumps(history))
    write_result(folder / "train.json", info, stage=None, beside={"history.json": history})


def scores(pearson: float) -> dict:
    return {"pearson": pearson, "spearman": pearson - 0.5, "pairs": 100}


def run_places(tables: JobTables) -> dict[str, int]:
    """Each run's place: by name, the runs on the distilled vectors (``<row>-distilled``) after all the others, and
    those on the sentence-distilled ones (``<row>-sentence_distilled``) last."""
    def on(vectors: str) -> list[str]:
        return sorted(run for run, settings in tables.runs.items() if settings.get("word_vectors") == vectors)

    distilled, sentence_distilled = on("distilled"), on("sentence_distilled")
    others = sorted(run for run in tables.runs if run not in distilled + sentence_distilled)
    return {run: i for i, run in enumerate(others + distilled + sentence_distilled)}


DISTILLED_BASELINE = 60.0
SENTENCE_DISTILLED_BASELINE = 62.5


def transfer_files(data: Path, tables: JobTables) -> None:
    places = run_places(tables)
    for job in tables.jobs.values():
        run, seed = job["run"], job["seed"]
        history = []
        for epoch, (selection, transfer) in transfer_scores(places[run], seed).items():
            pearson = per_set(transfer, selection)
            history.append({"epoch": epoch, "loss": 1.0 / epoch, "train_seconds": 1.0, "pairs_per_second": 100.0,
                            "selection_pearson": selection, "transfer_pearson": transfer, "per_dataset": pearson,
                            "per_dataset_spearman": {k: v - 0.5 for k, v in pearson.items()}})
        folder = data / "models" / run / f"seed{seed}"
        write_run(folder, history, {"train_seconds_total": 2.0, "wall_seconds_this_call": 3.0, "device": "cpu"})
    for name, value in (("baseline", BASELINE), ("baseline_distilled", DISTILLED_BASELINE),
                        ("baseline_sentence_distilled", SENTENCE_DISTILLED_BASELINE)):
        write_result(data / f"results/{name}.json",
                     {"summary": {"transfer_pearson": value, "transfer_spearman": value,
                                  "selection_pearson": value + 5},
                      "datasets": {k: scores(v) for k, v in per_set(value, value + 5).items()}}, stage=name)


NO_SKIPS = {"lines": 0, "by_kind": {}, "first": {}}


def data_files(data: Path) -> None:
    write(data / "corpus/train_stats.json",
          {"simpwiki": {"pairs": 2000, "tokens": 50000, "mean_sentence_tokens": 12.5, "skipped_lines": NO_SKIPS},
           "ppdb": {"pairs": 2000, "tokens": 8000, "mean_sentence_tokens": 2.0,
                    "skipped_lines": {"lines": 3, "by_kind": {"blank": 1, "with 3 fields, not 2": 2},
                                      "first": {"blank": ["ppdb.txt:7"],
                                                "with 3 fields, not 2": ["ppdb.txt:2", "ppdb.txt:9"]}}}})
    write(data / "corpus/match_summary.json",
          {"direction": "simpwiki_sampled_to_ppdb", "seed": 1,
           "full": {"simpwiki": {"pairs": 2000, "tokens": 50000}, "ppdb": {"pairs": 2000, "tokens": 8000}},
           "matched": {"simpwiki": {"pairs": 320, "tokens": 8010}, "ppdb": {"pairs": 2000, "tokens": 8000}}})
    write(data / "vocab/coverage.json",
          {"words": 1234, "dim": 50, "embeddings": "embeddings/glove.6B.50d.txt.gz", "skipped_lines": NO_SKIPS,
           "coverage": {"simpwiki": {"token_coverage": 0.95, "type_coverage": 0.8},
                        "eval": {"token_coverage": 0.99, "type_coverage": 0.9}}})
    write(data / "distilled/coverage.json",
          {"words": 2004, "dim": 16, "teacher": "all-MiniLM-L6-v2", "dims": 16, "sif_coefficient": 1e-4,
           "max_words": 2000, "seconds": 3.5, "device": "cpu",
           "coverage": {"simpwiki": {"token_coverage": 0.9, "type_coverage": 0.5},
                        "eval": {"token_coverage": 0.8, "type_coverage": 0.4}}})
    write(data / "sentence_distilled/targets.json",
          {"texts": 700, "dim": 384, "teacher": "all-MiniLM-L6-v2", "seconds": 12.0, "texts_per_second": 58.3,
           "device": "cpu", "sources": {name: {"texts": n, "repeated": 1, "evaluation_sentences_excluded": 0}
                                        for name, n in (("simpwiki", 300), ("ppdb", 250), ("treebank", 150))}})
    write(data / "sentence_distilled/training.json",
          {"settings": {"target_dims": 16, "epochs": 2, "batch_size": 64, "learning_rate": 1e-3, "held_out": 0.05,
                        "seed": 1},
           "texts": 700, "held_out_texts": 35, "target_variance": 0.27, "selected_epoch": 2,
           "selection_pearson": 65.0, "transfer_pearson": SENTENCE_DISTILLED_BASELINE, "history": []})


def reference_files(data: Path, config: dict) -> None:
    ours = {label: {"row": row, "run": "r", "seed": 1, "epoch": 2, "sentences": 500, "sentences_per_second": 5000.0,
                    "summary": {"transfer_pearson": 50.0, "transfer_spearman": 49.0, "selection_pearson": 55.0},
                    "per_dataset": {k: scores(v) for k, v in per_set(50.0, 55.0).items()}}
            for label, row in config["report"]["table4"].items()}
    untrained = {source: {"sentences": 600, "sentences_per_second": speed, "tokenized_sentences_per_second": 4 * speed,
                          "summary": {"transfer_pearson": r, "transfer_spearman": r - 1, "selection_pearson": r + 5},
                          "per_dataset": {k: scores(v) for k, v in per_set(r, r + 5).items()}}
                 for source, r, speed in (("pretrained", BASELINE, 20000.0),
                                          ("distilled", DISTILLED_BASELINE, 15000.0))}
    write_result(data / "results/encoders.json",
                 {"threads": 1, "device": "cpu", "speed_passes": 5, "ours": ours, "untrained": untrained,
                  "reference": {"model": "all-MiniLM-L6-v2", "sentences": 600, "sentences_per_second": 100.0,
                                "summary": {"transfer_pearson": 75.0, "transfer_spearman": 74.0,
                                            "selection_pearson": 80.0},
                                "per_dataset": {k: scores(v) for k, v in per_set(75.0, 80.0).items()}}},
                 stage="compare_encoders")


def gate_files(data: Path, config: dict) -> None:
    analysis = data / "gates/analysis"
    write(analysis / "summary.json",
          {"model": {"row": config["gates"]["gran_row"], "run": config["gates"]["gran_row"], "seed": 1,
                     "oracle_epoch": 1, "transfer_pearson": 40.0, "runs_in_row": 1},
           "gate_dim": 50, "sentences": 200, "tokens": 2000, "min_count": 3, "min_pair_count": 2,
           "agreement": {"pos": {"top_overlap": 4, "bottom_overlap": 3, "k": 10, "shared_labels": 12, "spearman": 0.5},
                         "label": {"top_overlap": 2, "bottom_overlap": 1, "k": 10, "shared_labels": 9,
                                   "spearman": 0.25}},
           "mean_norm": 20.0, "label_mapping": {"obj": "dobj"}})
    write(analysis / "by_pos.csv", pd.DataFrame({"xpos": ["NNP", "NN", "DT"], "mean": [30.0, 25.0, 10.0],
                                                 "sd": [1.0, 1.0, 1.0], "count": [50, 60, 70]}))
    write(analysis / "by_label.csv", pd.DataFrame({"sd_label": ["nn", "amod", "det"], "mean": [29.0, 24.0, 9.0],
                                                   "sd": [1.0, 1.0, 1.0], "count": [40, 30, 70]}))
    write(analysis / "by_pos_label.csv",
          pd.DataFrame({"xpos": ["JJ", "JJ", "VBG"], "sd_label": ["amod", "acomp", "amod"], "mean": [24.0, 20.0, 22.0],
                        "sd": [1.0, 1.0, 1.0], "count": [30, 4, 5]}))
    write(analysis / "norms_by_pos.png", b"\x89PNG\r\n\x1a\n made-up plot")
    write(data / "gates/sentences.json", {"source": "SimpWiki, Wikipedia (normal) side", "qualified": 900,
                                          "max_tokens": 15, "longer_than_max": 1100, "seed": 1, "sampled": 200,
                                          "by_origin": {"v2/normal": {"qualified": 600, "sampled": 130},
                                                        "v1/normal.tuning.txt": {"qualified": 300, "sampled": 70}},
                                          "in_training_pairs": 128})
    stanza = {"source": "trained offline on UD EWT", "stanza_version": "1.10.1", "train_sentences": 100,
              "budget": {"tagger_steps": 4, "tagger_batch_size": 100, "parser_steps": 4, "parser_batch_size": 2000,
                         "eval_interval": 4}, "word_vectors": "glove.6B.50d.txt.gz", "threads": 2,
              "curves": {"tagger": [{"step": 2, "seconds": 30.0, "dev_score": 60.0, "upos": 65.0, "xpos": 62.0},
                                    {"step": 4, "seconds": 90.0, "dev_score": 70.0, "upos": 75.0, "xpos": 72.0}],
                         "parser": [{"step": 4, "seconds": 120.0, "dev_score": 40.0}]},
              "dev": {"sentences": 50, "upos": 80.0, "xpos": 78.0, "uas": 60.0, "las": 50.0}}
    write(data / "stanza/scores.json", stanza)
    compared = {**stanza, "word_vectors": None,
                "curves": {"tagger": [{"step": 4, "seconds": 80.0, "dev_score": 50.0}],
                           "parser": [{"step": 4, "seconds": 100.0, "dev_score": 30.0}]},
                "dev": {"sentences": 50, "upos": 70.0, "xpos": 68.0, "uas": 50.0, "las": 40.0}}
    write(data / "stanza_compared/scores.json", compared)
    # the parser comparison (with `extended`, which the tiny config sets)
    write(data / "gates/compared.json",
          {"agreement": {"pos": {"top_overlap": 3, "bottom_overlap": 3, "k": 10, "shared_labels": 12,
                                 "spearman": 0.375},
                         "label": {"top_overlap": 1, "bottom_overlap": 2, "k": 10, "shared_labels": 8,
                                   "spearman": 0.125}},
           "with_analysis_parser": {"words": 2000, "xpos": 90.0, "sd_label": 80.0, "head": 75.0,
                                    "head_and_deprel": 70.0},
           "parser": compared})


def supervised_score(place: int, seed: int, epoch: int) -> tuple[float, float]:
    """(validation, test) Pearson of a supervised job's epoch: epoch 2 validates better, epoch 1 tests better."""
    base = place * RUN_STEP + seed / 10
    return (60.0 + base + epoch, 70.0 + base - epoch)


def supervised_files(data: Path, tables: JobTables) -> None:
    places = {run: i for i, run in enumerate(sorted(tables.supervised_runs))}
    for job in tables.supervised_jobs.values():
        history = []
        for epoch in (1, 2):
            validation, test = supervised_score(places[job["run"]], job["seed"], epoch)
            history.append({"epoch": epoch, "loss": 0.5, "train_seconds": 1.0, "validation_pearson": validation,
                            "test_pearson": test, "test_spearman": test - 1, "test_mse": 0.5})
        folder = data / "supervised/models" / ("universal" if job["init"] else "") / job["task"] / job["run"]
        write_run(folder / f"seed{job['seed']}", history, {"train_seconds_total": 4.0, "wall_seconds_this_call": 5.0})
    splits = {"train": 120, "validation": 120, "test": 120}
    write(data / "supervised/stats.json",
          {"sts": {"splits": splits, "paper": {"train": 4481, "validation": 1207, "test": 6060},
                   "sets": list(TRANSFER_SETS)},
           "sick": {"splits": splits, "paper": {"train": 4500, "validation": 500, "test": 4927}}})


def error_files(data: Path, config: dict) -> None:
    names = list(config["error_analysis"]["rows"])
    categories = {f"{a} {where} {b}": {"pairs": 10 * (i + 1), "share": 0.1 * (i + 1), "mean_gap": 1.0,
                                       "mean_gold": 2.5, "mean_overlap": 0.4, "mean_length_ratio": None}
                  for i, (a, b, where) in enumerate([(names[0], names[1], "above"), (names[1], names[0], "below")])}
    write(data / "error_analysis/summary.json",
          {"pairs": 30, "datasets": 2, "scaling": "minmax", "categories": categories,
           "models": {name: {"row": row, "run": row, "seed": 1, "epoch": 2}
                      for name, row in config["error_analysis"]["rows"].items()},
           "accuracy": {name: {"pearson": 50.0 + i, "mean_abs_error": 1.0} for i, name in enumerate(names)},
           "model_correlation": 90.0})
    write(data / "error_analysis/examples.csv",
          pd.DataFrame({"category": list(categories), "s1": ["a man plays", "a dog runs"],
                        "s2": ["a man is playing", "a cat sleeps"], names[1]: [4.0, 1.0], names[0]: [3.0, 2.0],
                        "gold": [4.5, 0.5]}))


def siamese_files(data: Path, config: dict) -> None:
    sets = {k: scores(v) for k, v in per_set(30.0, 30.0).items() if k != SELECTION_SET}
    write(data / "siamese/corpus/stats.json", {"documents": 20, "sentences": 400, "tokens": 6000,
                                               "sentences_with_a_neighbour": 390, "pretrained_dim": 50})
    for i, (run, spec) in enumerate(config["siamese_cbow"]["runs"].items()):
        final = {k: scores(v["pearson"] + 10 + i) for k, v in sets.items()}
        summary = {"per_dataset": final, "mean_pearson": 40.0 + i, "mean_spearman": 39.5 + i}
        timing = {"pairs": 1500, "seconds": 0.5, "seconds_per_pair": 0.5 / 1500}
        write_run(data / f"siamese/models/{run}",
                  [{"epoch": e, "loss": 1.2 - e / 10, "mean_pearson": 38.0 + e + i} for e in (1, 2)],
                  {"settings": {"init": spec["init"], "init_std": 0.01}, "vocabulary": 900, "centre_sentences": 390,
                   "threads": 1, "train_seconds_total": 6.0, "timing": timing,
                   "initial": {"per_dataset": sets, "mean_pearson": 30.0, "mean_spearman": 29.5}, "final": summary})
    write(data / "siamese/word2vec/results.json",
          {"corpus_tokens": 6000, "architectures": {
              arch: {"final": {"per_dataset": sets, "mean_pearson": 35.0, "mean_spearman": 34.5},
                     "timing": {"pairs": 1500, "seconds": 0.4, "seconds_per_pair": 0.4 / 1500}}
              for arch in ("cbow", "skipgram")}})


def pwim_files(data: Path, tables: JobTables) -> None:
    write(data / "pwim/stats.json",
          {"tasks": {"sick": {"pairs": {"train": 40, "validation": 40, "test": 40},
                              "paper": {"train": 4500, "validation": 500, "test": 4927}},
                     "sts2014": {"pairs": {"train": 36, "validation": 4, "test": 40},
                                 "paper": {"train": 7382, "train_before_length_filter": 7592, "test": 3750},
                                 "train_before_length_filter": 40, "removed_longer_than": 48, "removed": 0}}})
    for i, job in enumerate(tables.pwim_jobs.values()):
        test = {"pearson": 60.0 - 5 * i, "spearman": 58.0, "mse": 0.4}
        if job["task"] == "sts2014":
            test.update(per_set={"sts14.images": scores(61.0)}, weighted_mean_pearson=61.0)
        write(data / f"pwim/models/{job['task']}/{job['run']}/train.json",
              {"selected_epoch": 2, "settings": {"padding": 32, "batch_size": 10}, "threads": 1, "device": "cpu",
               "parameters": 1_700_000, "mean_epoch_seconds": 12.0, "pairs": {"train": 40},
               "validation": {"pearson": 55.0}, "test": test})


@pytest.fixture
def paper_tables() -> Path:
    path = REPO.parent / "shared" / "papers" / "tables"
    if not (path / "wieting2017_table1.csv").is_file():
        pytest.skip(f"the papers' tables are not at {path}")
    return path


@pytest.fixture
def results(tmp_path, paper_tables) -> tuple[dict, Path]:
    """(the tiny config, a data folder holding every result the report reads)."""
    config = yaml.safe_load((REPO / "params.test.yaml").read_text())
    config["paper_tables"] = str(paper_tables)
    # the numbers below are chosen for one seed of the gate analysis's row (its repetition on more seeds, which
    # gates.seeds asks for, is tested in tests/analysis/test_gates.py and the report's gate tests)
    config["gates"]["seeds"] = None
    data = tmp_path / "data"
    tables = JobTables.of(config)
    transfer_files(data, tables)
    data_files(data)
    reference_files(data, config)
    gate_files(data, config)
    supervised_files(data, tables)
    error_files(data, config)
    siamese_files(data, config)
    pwim_files(data, tables)
    return config, data


def table_after(doc, heading: str) -> pd.DataFrame:
    """The first table after the heading that starts with ``heading``."""
    blocks = doc.blocks
    start = next(i for i, (kind, value) in enumerate(blocks) if kind.startswith("h") and value.startswith(heading))
    return next(value[0] for kind, value in blocks[start:] if kind == "table")


def texts(doc) -> str:
    """Every paragraph and bullet of the document, as one string."""
    out = []
    for kind, value in doc.blocks:
        if kind == "p":
            out.append(value)
        elif kind == "ul":
            out += value
    return "\n".join(out)


def mean(values) -> float:
    return float(np.mean(values))
