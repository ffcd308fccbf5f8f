"""The report's comparison with what a user would pick instead: all-MiniLM-L6-v2 on the same sets and
scorer, and the encoding speed of it and of Table 4's models."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from paraphrastic.report.document import Document, per_dataset_table, read_json, sets_scope


def reference_section(doc: Document, data_dir: Path) -> dict:
    """all-MiniLM-L6-v2 beside the Table 4 models: same sets, same scorer; encoding speed on the CPU.
    Returns the metrics.json entry (22-set r and sentences/s per model; empty without the stage's file)."""
    path = data_dir / "results" / "encoders.json"
    heading = "What a user would pick instead: all-MiniLM-L6-v2 on the same sets"
    if not path.exists():
        doc.heading(heading)
        doc.para(f"`{path}` is missing: run the `compare_encoders` stage.")
        return {}
    found = read_json(path)
    ref, ours = found["reference"], found["ours"]
    scope = sets_scope(ref["per_dataset"])
    doc.heading(heading, scope=f" ({', '.join(scope)})" if scope else "")
    summary = [{"model": ref["model"], "22-set r": ref["summary"]["transfer_pearson"],
                "22-set ρ": ref["summary"]["transfer_spearman"], "STS 2016 r": ref["summary"]["selection_pearson"],
                "sentences/s": ref["sentences_per_second"], "speed vs MiniLM": 1.0}]
    for label, o in ours.items():
        summary.append({"model": f"{label} (ours, {o['row']})", "22-set r": o["summary"]["transfer_pearson"],
                        "22-set ρ": o["summary"]["transfer_spearman"], "STS 2016 r": o["summary"]["selection_pearson"],
                        "sentences/s": o["sentences_per_second"],
                        "speed vs MiniLM": o["sentences_per_second"] / ref["sentences_per_second"]})
    frame = pd.DataFrame(summary)
    ours_sentences = next(iter(ours.values()))["sentences"] if ours else 0
    best = frame.iloc[1:]["22-set r"].idxmax() if len(frame) > 1 else None
    doc.para(f"Cosine similarity scored exactly as for our models (Pearson/Spearman × 100 per set). Encoding "
             f"speed: every distinct sentence of the {len(ref['per_dataset'])} sets ({ref['sentences']:,} raw "
             f"sentences for MiniLM, {ours_sentences:,} distinct token sequences for ours) on the CPU with "
             f"{found['threads']} thread(s), after a warm-up; MiniLM's time includes its own WordPiece "
             "tokenisation, ours starts from the pipeline's tokens. MiniLM was trained on over a billion sentence "
             "pairs, among them Simple Wikipedia pairs (text like our SimpWiki training data), with 384-d "
             "outputs from a 6-layer transformer; our models are Table 4's STS-2016-selected runs (first seed).")
    doc.table(frame, caption="r, ρ: means over the transfer sets × 100 (STS 2016: over its sets); sentences/s "
              "and the speed ratio are not correlations.")
    if best is not None:
        fastest = frame.iloc[1:]["speed vs MiniLM"]
        gap = frame.loc[best, "22-set r"] - frame.loc[0, "22-set r"]
        doc.bullets([
            f"Accuracy: our best, {frame.loc[best, 'model']}, is {abs(gap):.1f} points "
            f"{'above' if gap > 0 else 'below'} MiniLM on the 22-set mean.",
            f"Speed: our models encode {fastest.min():.1f}× to {fastest.max():.1f}× as many sentences per second "
            "as MiniLM on the same CPU threads."])
    results = {ref["model"]: {"datasets": ref["per_dataset"]}}
    results.update({f"{label} (ours)": {"datasets": o["per_dataset"]} for label, o in ours.items()})
    doc.heading("Per set, Pearson's r × 100", 3)
    doc.table(per_dataset_table(results, {k: k for k in results}, None, {}), caption="Pearson's r × 100.")
    return {name: {"transfer_pearson": r["summary"]["transfer_pearson"],
                   "sentences_per_second": r["sentences_per_second"]}
            for name, r in [(ref["model"], ref), *ours.items()]}
