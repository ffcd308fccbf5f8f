"""The report's comparison with what a user would pick instead: all-MiniLM-L6-v2 on the same sets and scorer,
beside Table 4's models (and their twins on distilled word vectors) and the untrained averaged vectors, with the
encoding speed of each from raw text, and the picture of accuracy against speed."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: cluster nodes and CI have no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from paraphrastic.atomic import atomic_path  # noqa: E402
from paraphrastic.layout import DataLayout
from paraphrastic.report.document import Document, per_dataset_table, read_json, sets_scope  # noqa: E402

PLOT = "accuracy_speed.png"
UNTRAINED = {"pretrained": "initial vectors, averaged (pretrained)",
             "distilled": "initial vectors, averaged (distilled)",
             "sentence_distilled": "initial vectors, averaged (sentence_distilled)"}


def _group(label: str) -> str:
    """Which vectors an encoder of the comparison starts from, for the plot's colours."""
    if label.startswith("all-MiniLM"):
        return "all-MiniLM-L6-v2 (sentence-transformers)"
    if "sentence_distilled" in label:
        return "sentence-distilled vectors"
    return "distilled vectors" if "distilled" in label else "pretrained vectors"


def _short(label: str) -> str:
    """A point's name on the plot: the model without its row ("gran, distilled (ours, t3-...)" -> "gran, distilled")."""
    return label.split(" (ours")[0].replace("initial vectors, averaged", "untrained avg")


def accuracy_speed_plot(frame: pd.DataFrame, path: Path, threads: int):
    """Each encoder as a point: sentences/s from raw text (log axis) against its transfer-set mean."""
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for (group, rows), marker in zip(frame.groupby(frame["model"].map(_group), sort=True), "osD^", strict=False):
        ax.scatter(rows["sentences/s"], rows["22-set r"], marker=marker, s=60, label=group)
    placed: list[tuple[float, float]] = []
    for _, row in frame.sort_values("22-set r", ascending=False).iterrows():
        x, y = row["sentences/s"], row["22-set r"]
        # a label close below another point's goes under its own point, so the two do not overprint
        crowded = any(abs(y - py) < 1.5 and 0.5 < x / px < 2 for px, py in placed)
        ax.annotate(_short(row["model"]), (x, y), textcoords="offset points", xytext=(7, -11 if crowded else 4),
                    fontsize=8)
        placed.append((x, y))
    ax.set_xscale("log")
    low, high = frame["sentences/s"].min(), frame["sentences/s"].max()
    ax.set_xlim(low / 2, high * 6)  # room for the labels right of the fastest points
    ax.set_xlabel(f"sentences per second from raw text, tokenisation included (log scale; CPU, {threads} thread(s))")
    ax.set_ylabel("mean Pearson's r × 100 over the transfer sets")
    ax.set_title("Accuracy against encoding speed")
    ax.grid(alpha=0.3, which="both")
    ax.legend(title="starting point", fontsize=9, title_fontsize=9, loc="lower left")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return fig


def reference_section(doc: Document, data_dir: Path, out_dir: Path | None = None) -> dict:
    """all-MiniLM-L6-v2 beside the Table 4 models and the untrained vectors: same sets, same scorer; encoding speed
    on the CPU, and (with ``out_dir``) the accuracy-speed plot. Returns the metrics.json entry (22-set r and
    sentences/s per model; empty without the stage's file)."""
    path = DataLayout(data_dir).results / "encoders.json"
    heading = "What a user would pick instead: all-MiniLM-L6-v2 on the same sets"
    if not path.exists():
        doc.heading(heading)
        doc.para(f"`{path}` is missing: run the `compare_encoders` stage.")
        return {}
    found = read_json(path)
    ref, ours = found["reference"], found["ours"]
    encoders = {f"{label} (ours, {o['row']})": o for label, o in ours.items()}
    encoders.update({UNTRAINED[source]: u for source, u in found.get("untrained", {}).items()})
    scope = sets_scope(ref["per_dataset"])
    doc.heading(heading, scope=f" ({', '.join(scope)})" if scope else "")
    summary = [{"model": ref["model"], "22-set r": ref["summary"]["transfer_pearson"],
                "22-set ρ": ref["summary"]["transfer_spearman"], "STS 2016 r": ref["summary"]["selection_pearson"],
                "sentences/s": ref["sentences_per_second"], "sentences/s from tokens": float("nan"),
                "speed vs MiniLM": 1.0}]
    for label, o in encoders.items():
        summary.append({"model": label, "22-set r": o["summary"]["transfer_pearson"],
                        "22-set ρ": o["summary"]["transfer_spearman"], "STS 2016 r": o["summary"]["selection_pearson"],
                        "sentences/s": o["sentences_per_second"],
                        "sentences/s from tokens": o.get("tokenized_sentences_per_second", float("nan")),
                        "speed vs MiniLM": o["sentences_per_second"] / ref["sentences_per_second"]})
    frame = pd.DataFrame(summary)
    trained = frame.iloc[1 : 1 + len(ours)]
    doc.para(f"Cosine similarity scored exactly as for our models (Pearson/Spearman × 100 per set). Encoding "
             f"speed: every distinct raw sentence of the {len(ref['per_dataset'])} sets ({ref['sentences']:,}) "
             f"through each encoder's `encode`, as a user calls it, on the CPU with {found['threads']} thread(s) "
             "after a warm-up: MiniLM's time includes its WordPiece tokenisation and ours our Treebank "
             "tokenisation (\"from tokens\" times our model alone, on the pipeline's tokens). MiniLM was trained on "
             "over a billion sentence pairs, among them Simple Wikipedia pairs (text like our SimpWiki training "
             "data), with 384-d outputs from a 6-layer transformer; our models are Table 4's STS-2016-selected "
             "runs (first seed), on the pretrained and, where trained, the distilled word vectors.")
    doc.table(frame, caption="r, ρ: means over the transfer sets × 100 (STS 2016: over its sets); sentences/s "
              "and the speed ratio are not correlations.")
    if len(trained):
        best = trained["22-set r"].idxmax()
        gap = frame.loc[best, "22-set r"] - frame.loc[0, "22-set r"]
        doc.bullets([
            f"Accuracy: our best, {frame.loc[best, 'model']}, is {abs(gap):.1f} points "
            f"{'above' if gap > 0 else 'below'} MiniLM on the 22-set mean.",
            f"Speed: our trained models encode {trained['speed vs MiniLM'].min():.1f}× to "
            f"{trained['speed vs MiniLM'].max():.1f}× as many raw sentences per second as MiniLM on the same CPU "
            "threads."])
    if out_dir is not None:
        accuracy_speed_plot(frame, out_dir / PLOT, found["threads"])
        doc.heading("Accuracy against speed", 3)
        doc.image(out_dir / PLOT, f"A scatter plot of {len(frame)} encoders: sentences encoded per second from raw "
                  "text on a logarithmic horizontal axis against the mean Pearson's r × 100 over the transfer sets, "
                  "coloured by starting point (pretrained, distilled or sentence-distilled vectors, all-MiniLM-L6-v2); "
                  "each point "
                  "is labelled with its model.")
    results = {ref["model"]: {"datasets": ref["per_dataset"]}}
    results.update({label: {"datasets": o["per_dataset"]} for label, o in encoders.items()})
    doc.heading("Per set, Pearson's r × 100", 3)
    doc.table(per_dataset_table(results, {k: k for k in results}, None, {}), caption="Pearson's r × 100.")
    # metrics.json's names: Table 4's labels (as before the distilled rows), and the untrained vectors by source
    named = [(ref["model"], ref), *ours.items(),
             *((f"initial vectors ({source})", u) for source, u in found.get("untrained", {}).items())]
    return {name: {"transfer_pearson": r["summary"]["transfer_pearson"],
                   "sentences_per_second": r["sentences_per_second"]} for name, r in named}
