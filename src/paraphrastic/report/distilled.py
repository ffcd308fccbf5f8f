"""The report's section beyond the paper: word vectors distilled from a sentence transformer, and the table rows
trained again on them (``word_vectors.distilled_rows``), beside the same rows on the pretrained vectors and the
paper's numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from paraphrastic.configuration.grids import distilled_rows, distilled_twin
from paraphrastic.data.vocab import SPECIAL
from paraphrastic.evaluation.selection import Selection
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document, paper_rows, paper_table, per_dataset_table

HEADING = "Beyond the paper: word vectors distilled from a sentence transformer"


def _paper_score(config: dict, row: str, label: dict) -> tuple[str, float]:
    """(the paper's table, its STS-2016-selected 22-set mean) for a row of Tables 1-4."""
    report = config["report"]
    for data_name, cols in report["table1"].items():
        for model, row_id in cols.items():
            if row_id == row:
                found = paper_rows(paper_table(config, "wieting2017_table1"), training_data=data_name)
                return "1", math.nan if found is None or model not in found else float(found[model])
    for table, match in (("2", {"model": label["model"], "regularization": label["regularization"]}),
                         ("3", {"model": label["model"]})):
        if row in (report.get(f"table{table}") or []):
            found = paper_rows(paper_table(config, f"wieting2017_table{table}"), **match)
            return table, math.nan if found is None else float(found["sts2016"])
    for model, row_id in report["table4"].items():  # the mean of the paper's 22 per-set numbers
        paper = paper_table(config, "wieting2017_table4")
        if row_id == row and paper is not None and model in paper:
            sets = paper[~paper["dataset"].str.endswith("Average")]
            return "4", float(sets[model].mean())
    return "", math.nan


def _vector_names(data_dir: Path) -> tuple[str, str, dict]:
    layout = DataLayout(data_dir)
    pretrained = read_result(layout.vocab / "coverage.json")
    distilled = read_result(layout.distilled / "coverage.json")
    return (f"{Path(pretrained['embeddings']).name}, {pretrained['dim']}-d",
            f"{distilled['teacher']}, {distilled['dim']}-d", distilled)


def _override(config: dict) -> str:
    """", except that …" for the search axes ``word_vectors.distilled_thinning`` keeps otherwise for the twins."""
    axes = (config["word_vectors"].get("distilled_thinning") or {}).get(config["data_profile"]) or {}
    if not axes:
        return ""
    kept = "; ".join(f"{axis} ∈ {{{', '.join(f'{v:g}' if isinstance(v, float) else str(v) for v in values)}}}"
                     for axis, values in axes.items())
    return f", except that their search keeps {kept} (`word_vectors.distilled_thinning`)"


def _sentence_distillation(doc: Document, data_dir: Path) -> None:
    layout = DataLayout(data_dir)
    training = read_result(layout.sentence_distilled / "training.json")
    targets = read_result(layout.sentence_distilled / "targets.json")
    settings = training["settings"]
    sources = ", ".join(f"{name} {count['texts']:,}" for name, count in targets["sources"].items())
    if settings.get("target_dims") is None:
        goal = f"approaches the teacher's {targets['dim']}-d embedding"
    else:
        goal = (f"approaches the teacher's embedding reduced by PCA to {settings['target_dims']} dimensions "
                f"({100 * training['target_variance']:.1f}% of its variance)")
    loss = "one minus the cosine" if settings.get("loss") == "cosine" else "the squared error"
    kept = ("the map folded into every vector (a sentence's mean of the kept vectors is its mapped mean)"
            if settings.get("map") == "folded" else "the map dropped, as Tokenlearn")
    steps = []
    if settings.get("post_processing") == "whiten":
        steps.append("whitened (ZCA fit on the training texts' sentence vectors)")
    if settings.get("output_dims") is not None:
        steps.append(f"reduced by PCA to {settings['output_dims']} dimensions (fit on the training texts)")
    after = f", then {' and '.join(steps)}" if steps else ""
    decay = settings.get("weight_decay", 0.01)
    doc.para(f"Then trained at the sentence level (Model2Vec's Tokenlearn): {targets['texts']:,} distinct unlabelled "
             f"texts the mirror holds ({sources}; no evaluation sentence), each embedded by {targets['teacher']} in "
             f"{targets['seconds']:,.0f} s ({targets['device']}); the vectors trained so that a text's mean word "
             f"vector, mapped linearly, {goal}, minimising {loss}, {settings['epochs']} epochs of AdamW (learning "
             f"rate {settings['learning_rate']:g}, weight decay {decay:g}); kept with {kept}{after}; the epoch kept "
             f"is the best on STS 2016 under avg (epoch {training['selected_epoch']}; the loss on "
             f"{training['held_out_texts']:,} held-out texts is in data/sentence_distilled/training.json).")


def _covered(info: dict) -> str:
    """How the evaluation sets' tokens are read: with a vector of their own, as the teacher's pieces (with
    ``subwords``), or as ``<unk>``."""
    coverage = (info.get("coverage") or {}).get("eval") or {}
    if "token_coverage" not in coverage:
        return ""
    own = 100 * coverage["token_coverage"]
    if "token_coverage_with_pieces" not in coverage:
        return f"; {own:.1f}% of the evaluation sets' tokens have a vector, the others are `<unk>`"
    pieced = 100 * coverage["token_coverage_with_pieces"]
    return (f", with the WordPiece pieces of the teacher's tokenizer (`subwords`), as model2vec reads text: a word "
            "without a vector is cut at punctuation and read as its pieces, as BERT's tokenizer splits a word; "
            f"{own:.1f}% of the evaluation sets' tokens have a vector of "
            f"their own, {pieced - own:.1f}% more are read as pieces and {100 - pieced:.2f}% are `<unk>`")


def distilled_section(doc: Document, config: dict, data_dir: Path, sel: Selection,
                      baselines: dict) -> tuple[dict, dict]:
    """The side-by-side tables; returns metrics.json's entries (the untrained distilled vectors' score, and the
    sentence-distilled ones')."""
    pretrained_name, distilled_name, info = _vector_names(data_dir)
    doc.heading(HEADING)
    if info.get("evaluation_words"):
        vocabulary = ("every word of our training corpora and of the evaluation sets (`evaluation_words`: the scores "
                      "below come from vectors distilled for the test vocabulary, which the published static models "
                      "never saw)")
    else:
        vocabulary = f"every word of our training corpora, none taken from the evaluation sets{_covered(info)}"
    pieces = info.get("pieces", 0)
    words = info["words"] - len(SPECIAL) - pieces - (1 if info.get("subwords") else 0)  # the marker row
    counts = f"{words:,} words and {pieces:,} of the teacher's pieces" if info.get("subwords") else f"{words:,} words"
    doc.para(f"Word vectors for {vocabulary} ({counts}), distilled from "
             f"{info['teacher']} with model2vec's method in {info['seconds']:,.0f} s ({info['device']}): the "
             "teacher's mean-pooled output for each word (and piece) alone, PCA to "
             f"{info['dim']} dimensions and Zipf weighting (coefficient {info['sif_coefficient']}), by our training "
             "corpora's word frequencies (the pieces ranked after the words). The rows below are trained again from "
             "them with their settings"
             f"{_override(config)} (λ_w regularises back to the distilled vectors, as the paper's runs to "
             f"PARAGRAM-SL999), beside the same rows on the pretrained vectors ({pretrained_name}) and the paper's "
             "number. Model selection stays on STS 2016.")
    _sentence_distillation(doc, data_dir)
    untrained = {kind: baselines[kind]["summary"]["transfer_pearson"] for kind in baselines}
    rows = [{"table": "", "row": "initial vectors, averaged (untrained)", "pretrained (ours)": untrained["pretrained"],
             "distilled (ours)": untrained["distilled"], "sentence-distilled (ours)": untrained["sentence_distilled"],
             "paper": math.nan}]
    twins = [row for row in distilled_rows(config) if distilled_twin(row) in sel.rows]
    sentence_twins = [row for row in distilled_rows(config, "sentence_distilled")
                      if distilled_twin(row, "sentence_distilled") in sel.rows]
    for row in dict.fromkeys(twins + sentence_twins):
        label = sel.labels[row]
        table, paper = _paper_score(config, row, label)
        name = ", ".join(filter(None, [label["model"], label["regularization"]]))
        rows.append({"table": table, "row": f"{name} ({row})", "pretrained (ours)": sel.score(row),
                     "distilled (ours)": sel.score(distilled_twin(row)) if row in twins else math.nan,
                     "sentence-distilled (ours)": sel.score(distilled_twin(row, "sentence_distilled"))
                     if row in sentence_twins else math.nan, "paper": paper})
    doc.table(pd.DataFrame(rows), caption=f"Mean Pearson's r × 100 over the transfer sets, STS 2016 model selection "
              f"(mean over seeds). pretrained: {pretrained_name}; distilled: {distilled_name}; sentence-distilled: "
              "those trained further on the teacher's sentence embeddings; paper: Wieting & Gimpel (2017), "
              "PARAGRAM-SL999 300-d and the full data.")
    table4 = [row for row in config["report"]["table4"].values() if row in twins]
    if table4:
        doc.heading("Table 4's rows on both vectors, per set", 3)
        results = {"baseline": baselines["pretrained"], "baseline_distilled": baselines["distilled"]}
        columns = {"initial (pretrained)": "baseline", "initial (distilled)": "baseline_distilled"}
        for row in table4:
            results[row], results[distilled_twin(row)] = sel.as_results(row), sel.as_results(distilled_twin(row))
            model = sel.labels[row]["model"]
            columns[f"{model} (pretrained)"], columns[f"{model} (distilled)"] = row, distilled_twin(row)
        doc.table(per_dataset_table(results, columns, None, {}), caption="Pearson's r × 100, STS 2016 selection.")
    return tuple({"test": untrained[kind], "oracle": untrained[kind]} for kind in ("distilled", "sentence_distilled"))
