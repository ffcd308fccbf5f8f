"""The report's PWIM section (He & Lin 2016): the three tasks' data, Tables 3, 4, 5, 8 and 9 beside the
paper's (read from ``paper_tables``), and our GRAN beside PWIM.

He & Lin print correlations on the 0-1 scale with four decimals; the report prints every correlation × 100, so
theirs are multiplied by 100 here (two decimals keep all of their digits) and ours keep two decimals too."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from paraphrastic.configuration.jobs import pwim_jobs
from paraphrastic.data.pwim_splits import PAPER_PAIRS
from paraphrastic.data.similarity_tasks import STS2014_TEST
from paraphrastic.evaluation.selection import Selection
from paraphrastic.layout import DataLayout
from paraphrastic.provenance import read_result
from paraphrastic.report.document import Document, capped_scope, format_r, paper_table

TASK_LABELS = {"sick": "SICK 2014", "msrvid": "MSRvid (STS 2012)", "sts2014": "STS 2014"}


# The paper's Table 5 prints two set names differently from the STS 2014 file names.
PAPER_STS2014_NAMES = {"images": "image", "tweet-news": "tweetnews"}


def _pwim_infos(config: dict, data_dir: Path) -> dict[tuple[str, str], dict]:
    models = DataLayout(data_dir).pwim / "models"
    return {(j["task"], j["run"]): read_result(models / j["task"] / j["run"] / "train.json")
            for j in pwim_jobs(config).values()}


def _gran_rows(config: dict, transfer_sel: Selection, supervised_sel) -> tuple[dict | None, dict | None]:
    """(our supervised GRAN row's SICK test scores, our transfer GRAN's per-set Pearson), where present,
    from the report's own selections (``supervised_sel``: an evaluation.selection.SupervisedSelection)."""
    supervised = None
    row = (config["supervised"]["report"].get("table6") or [None])[0]
    if row and (row, "sick") in supervised_sel.chosen:
        scores = {k: supervised_sel.score(row, "sick", f"test_{k}") for k in ("pearson", "spearman", "mse")}
        supervised = {"row": row, **scores}
    transfer = None
    gran_row = config["report"]["table4"].get("gran")
    if gran_row in transfer_sel.chosen:
        transfer = {"row": gran_row, **transfer_sel.first_seed(gran_row)[2]["per_dataset"]}
    return supervised, transfer


def pwim_section(doc: Document, config: dict, data_dir: Path, transfer_sel: Selection, supervised_sel) -> dict:
    """Tables 3, 4, 5, 8 and 9 of He & Lin (2016) with ours beside them; returns the metrics."""
    pw = config["pwim"]
    stats = read_result(DataLayout(data_dir).pwim / "stats.json")
    infos = _pwim_infos(config, data_dir)
    full = "pwim"
    gran_supervised, gran_transfer = _gran_rows(config, transfer_sel, supervised_sel)
    train = pw["train"]

    doc.heading("PWIM (He & Lin 2016): pairwise word interactions, similarity focus and a 19-layer ConvNet",
                scope=capped_scope(config, "pairs per split", pw.get("max_pairs"), train["epochs"]))
    doc.para(f"A BiLSTM ({train['hidden_dim']} units per direction) over frozen word vectors; the 13-channel cube of "
             "cosine, L2 distance and dot product over the bidirectional, forward, backward and summed states (plus "
             "an indicator channel); the similarity focus layer (weight 1 on the word pairs picked greedily by the "
             "summed states' cosine, then by their L2 distance, 0.1 elsewhere); the ConvNet of Table 1 (32×32 or "
             f"48×48 padding); KL loss against Tai et al.'s sparse target, RMSProp {train['learning_rate']}, batch "
             f"{train['batch_size']}, {train['epochs']} epochs; the epoch with the best validation Pearson is "
             "tested. Word vectors: the mirror's 50-d GloVe (the paper: 300-d GloVe for SICK and MSRvid, "
             "PARAGRAM-SL999 for STS 2014).")
    rows = []
    for task, task_stats in stats["tasks"].items():
        paper = PAPER_PAIRS[task]
        for split in ("train", "validation", "test"):
            rows.append({"task": TASK_LABELS[task], "split": split, "pairs (ours)": f"{task_stats['pairs'][split]:,}",
                         "pairs (paper)": f"{paper[split]:,}" if split in paper else "–"})
    doc.table(formatted=True, frame=pd.DataFrame(rows), caption="Pair counts per split.")
    notes = [f"Validation: SICK's trial set; for MSRvid and STS 2014 (the paper names none) "
             f"{pw['validation_fraction']:.0%} of each training set, held out with seed {pw['split_seed']}."]
    if "sts2014" in stats["tasks"] and "removed" in stats["tasks"]["sts2014"]:
        s = stats["tasks"]["sts2014"]
        notes.append(f"STS 2014 training: {s['train_before_length_filter']:,} STS 2012-2013 pairs (the paper: "
                     f"{PAPER_PAIRS['sts2014']['train_before_length_filter']:,}), {s['removed']} removed as longer "
                     f"than {s['removed_longer_than']} tokens under our tokenizer (the paper removed 210).")
    doc.bullets(notes)

    metrics: dict = {}
    if ("sick", full) in infos:
        info = infos[("sick", full)]["test"]
        doc.heading("Table 3: SICK test (r × 100, ρ × 100, MSE)", 3)
        rows = _paper_rows(paper_table(config, "helin2016_table3"), ("pearson_r", "spearman_rho", "mse"))
        rows.append(_ours("PWIM (ours)", info))
        if gran_supervised:
            rows.append(_ours(f"GRAN supervised (ours, {gran_supervised['row']})", gran_supervised))
        doc.table(formatted=True, frame=pd.DataFrame(rows), caption=UNIT_CAPTION + " MSE is not a correlation: "
                  "the mean squared error against the gold relatedness scores (1-5), on the paper's scale.")
        metrics["sick"] = {k: info[k] for k in ("pearson", "spearman", "mse")}
    if ("msrvid", full) in infos:
        info = infos[("msrvid", full)]["test"]
        doc.heading("Table 4: MSRvid test (r × 100)", 3)
        rows = _paper_rows(paper_table(config, "helin2016_table4"), ("pearson_r",))
        rows.append({"model": "PWIM (ours)", "r": hundred(info["pearson"])})
        if gran_transfer and "sts12.MSRvid" in gran_transfer:
            rows.append({"model": f"GRAN transfer, no MSRvid training (ours, {gran_transfer['row']})",
                         "r": hundred(gran_transfer["sts12.MSRvid"])})
        doc.table(formatted=True, frame=pd.DataFrame(rows), caption=UNIT_CAPTION)
        metrics["msrvid"] = {k: info[k] for k in ("pearson", "spearman", "mse")}
    if ("sts2014", full) in infos:
        doc.heading("Table 5: STS 2014 test sets (r × 100)", 3)
        doc.table(formatted=True, frame=_sts2014_table(config, infos[("sts2014", full)]["test"], gran_transfer),
                  caption=UNIT_CAPTION)
        metrics["sts2014"] = {"weighted_mean_pearson": infos[("sts2014", full)]["test"].get("weighted_mean_pearson")}

    ablations = {run: info["test"] for (task, run), info in infos.items() if task == "sick" and run != full}
    if ("sick", full) in infos and ablations:
        doc.heading("Table 8: ablations on SICK (Pearson's r × 100; changes relative to the full model)", 3)
        doc.table(formatted=True, frame=_ablation_table(config, infos[("sick", full)]["test"], ablations),
                  caption=UNIT_CAPTION + " Signed values are changes from the full model, in the same units.")
        metrics["ablations"] = {run: a["pearson"] for run, a in ablations.items()}

    doc.heading("Table 9: parameters and SICK epoch time", 3)
    rows = []
    paper = paper_table(config, "helin2016_table9")
    if paper is not None:
        for _, row in paper.iterrows():
            rows.append({"model": f"{row['model']} (paper)", "parameters": f"{row['parameters_million']:.1f} M",
                         "s per epoch": f"{row['timing_s']:.0f}", "setting": "one CPU thread (Xeon E5-2680)"})
    for (task, run), info in infos.items():
        if task == "sick":
            setting = f"{info['threads']} thread(s), {info['device']}, batch {info['settings']['batch_size']}"
            rows.append({"model": f"{run} (ours)", "parameters": f"{info['parameters'] / 1e6:.2f} M",
                         "s per epoch": f"{info['mean_epoch_seconds']:.0f}", "setting": setting})
    doc.table(formatted=True, frame=pd.DataFrame(rows), caption="Parameter counts and seconds; no correlations.")
    sick = infos.get(("sick", full))
    if sick:
        doc.para(f"Ours is the mean training time of an epoch over the {sick['pairs']['train']:,} SICK training pairs "
                 "(scoring excluded), 50-d vectors against the paper's 300-d; the paper gives no batch size.")

    doc.heading("PWIM jobs", 3)
    doc.table(formatted=True, frame=pd.DataFrame([
        {"task": TASK_LABELS[task], "run": run, "padding": info["settings"]["padding"],
         "selected epoch": info["selected_epoch"], "validation r": format_r(info["validation"]["pearson"]),
         "test r": format_r(info["test"]["pearson"]), "test ρ": format_r(info["test"]["spearman"]),
         "test MSE": f"{info['test']['mse']:.4f}", "s per epoch": f"{info['mean_epoch_seconds']:.0f}"}
        for (task, run), info in infos.items()]),
              caption="r and ρ × 100 (one decimal, as elsewhere in the report); MSE on the gold scale; seconds.")
    doc.bullets(_pwim_findings(config, infos, gran_supervised))
    return metrics


UNIT_CAPTION = ("Correlations × 100; He & Lin print them on the 0-1 scale (their 0.5000 reads 50.00 here), so two "
                "decimals keep their every digit.")


def hundred(value) -> str:
    """A correlation already × 100, with two decimals (the paper's four on the 0-1 scale); "–" when missing."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.2f}"


def _paper_rows(frame: pd.DataFrame | None, columns: tuple[str, ...]) -> list[dict]:
    names = {"pearson_r": "r", "spearman_rho": "ρ", "mse": "MSE"}
    if frame is None:
        return []
    rows = []
    for _, row in frame.iterrows():
        entry = {"model": f"{row['model']} (paper)"}
        for column in columns:
            value = row[column]
            entry[names[column]] = "–" if pd.isna(value) else (f"{value:.4f}" if column == "mse" else
                                                                hundred(100 * value))
        rows.append(entry)
    return rows


def _ours(label: str, scores: dict) -> dict:
    """Ours: r and ρ × 100 (two decimals, beside the paper's), MSE on the gold scale."""
    return {"model": label, "r": hundred(scores["pearson"]), "ρ": hundred(scores["spearman"]),
            "MSE": f"{scores['mse']:.4f}"}


def _sts2014_table(config: dict, test: dict, gran_transfer: dict | None) -> pd.DataFrame:
    paper = paper_table(config, "helin2016_table5")
    by_name = {} if paper is None else {row["dataset"]: row for _, row in paper.iterrows()}
    per_set = test.get("per_set", {})
    rows = []
    for spec in STS2014_TEST:
        if spec.id not in per_set:
            continue
        name = spec.id.split(".", 1)[1]
        found = by_name.get(PAPER_STS2014_NAMES.get(name, name))
        row = {"set": name}
        for column, label in (("rank3_system", "3rd"), ("rank2_system", "2nd"), ("rank1_system", "1st"),
                              ("this_work", "PWIM (paper)")):
            row[label] = hundred(100 * found[column]) if found is not None else "–"
        row["PWIM (ours)"] = hundred(per_set[spec.id]["pearson"])
        if gran_transfer:
            row["GRAN transfer (ours)"] = hundred(gran_transfer.get(spec.id, math.nan))
        rows.append(row)
    found = by_name.get("Wt. Mean")
    mean = {"set": "Wt. Mean"}
    for column, label in (("rank3_system", "3rd"), ("rank2_system", "2nd"), ("rank1_system", "1st"),
                          ("this_work", "PWIM (paper)")):
        mean[label] = hundred(100 * found[column]) if found is not None else "–"
    mean["PWIM (ours)"] = hundred(test.get("weighted_mean_pearson", math.nan))
    if gran_transfer:
        # the transfer GRAN is scored only on the sets `evaluation.sets` includes: a mean needs all of them
        pairs = {spec.id: per_set[spec.id]["pairs"] for spec in STS2014_TEST if spec.id in per_set}
        scored = all(k in gran_transfer for k in pairs)
        weighted = np.average([gran_transfer[k] for k in pairs], weights=list(pairs.values())) if scored and pairs \
            else None
        mean["GRAN transfer (ours)"] = "–" if weighted is None else hundred(weighted)
    rows.append(mean)
    return pd.DataFrame(rows)


ABLATION_LABELS = {"Remove context modeling (Sec. 4)": {"context": False},
                   "Remove entire focus layer (Sec. 6)": {"focus": False}}


def _ablation_table(config: dict, full: dict, ablations: dict) -> pd.DataFrame:
    paper = paper_table(config, "helin2016_table8")
    paper = None if paper is None else paper[paper["dataset"] == "SICK"]
    runs = config["pwim"]["runs"]
    rows = []
    for _, row in (paper.iterrows() if paper is not None else []):
        config_row = row["configuration"]
        entry = {"configuration": config_row, "paper": hundred(100 * row["value"]) if config_row == "Full Model"
                 else f"{100 * row['value']:+.2f}"}
        if config_row == "Full Model":
            entry["ours"] = hundred(full["pearson"])
        else:
            wanted = ABLATION_LABELS.get(config_row)
            run = next((r for r in ablations if wanted and all((runs[r] or {}).get(k) == v for k, v in wanted.items())),
                       None)
            entry["ours"] = (f"{ablations[run]['pearson'] - full['pearson']:+.2f} ({run})" if run
                             else "not run")
        rows.append(entry)
    return pd.DataFrame(rows)


def _pwim_findings(config: dict, infos: dict, gran_supervised: dict | None) -> list[str]:
    lines = []
    paper = paper_table(config, "helin2016_table3")
    if ("sick", "pwim") in infos and paper is not None:
        ours = infos[("sick", "pwim")]["test"]["pearson"]
        theirs = 100 * float(paper.loc[paper["model"] == "This work", "pearson_r"].iloc[0])
        lines.append(f"SICK: our PWIM reaches r × 100 = {ours:.2f} against the paper's {theirs:.2f} "
                     f"({ours - theirs:+.2f}), "
                     "with 50-d instead of 300-d vectors and a short CPU schedule.")
        if gran_supervised:
            gap = ours - gran_supervised["pearson"]
            lines.append(f"On SICK, PWIM is {abs(gap):.2f} points {'above' if gap > 0 else 'below'} our supervised "
                         f"GRAN ({gran_supervised['row']}, r × 100 = {gran_supervised['pearson']:.2f}).")
        for (task, run), info in infos.items():
            if task == "sick" and run != "pwim":
                delta = info["test"]["pearson"] - infos[("sick", "pwim")]["test"]["pearson"]
                lines.append(f"Ablation {run}: {delta:+.2f} Pearson's r × 100 on SICK test.")
    if ("sick", "pwim") in infos:
        paper9 = paper_table(config, "helin2016_table9")
        if paper9 is not None:
            theirs = float(paper9.loc[paper9["model"] == "This work", "timing_s"].iloc[0])
            ours = infos[("sick", "pwim")]["mean_epoch_seconds"]
            lines.append(f"A SICK epoch takes {ours:.0f} s here against the paper's {theirs:.0f} s "
                         f"({theirs / ours:.1f}× faster; different CPU, batch size and vector size).")
    return lines
