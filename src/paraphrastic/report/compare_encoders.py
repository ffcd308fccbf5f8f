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
from paraphrastic.data import datasets  # noqa: E402
from paraphrastic.evaluation.mteb_sts import MTEB_TASKS, mean_over_tasks  # noqa: E402
from paraphrastic.layout import DataLayout  # noqa: E402
from paraphrastic.provenance import read_result  # noqa: E402
from paraphrastic.report.document import Document, per_dataset_table, sets_scope  # noqa: E402

PLOT = "accuracy_speed.png"
MTEB_MEAN = "MTEB STS ρ"  # the mean Spearman over MTEB's five STS tasks, where an encoder has all five
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


def _points(ax, frame: pd.DataFrame, accuracy: str, threads: int) -> None:
    """Each encoder with an ``accuracy`` as a point: sentences/s from raw text (log axis) against it."""
    frame = frame.dropna(subset=[accuracy])
    for (group, rows), marker in zip(frame.groupby(frame["model"].map(_group), sort=True), "osD^", strict=False):
        ax.scatter(rows["sentences/s"], rows[accuracy], marker=marker, s=60, label=group)
    ax.set_xscale("log")
    low, high = frame["sentences/s"].min(), frame["sentences/s"].max()
    ax.set_xlim(low / 2, high * 6)  # room for the labels right of the fastest points
    ax.set_xlabel(f"sentences per second from raw text, tokenisation included (log scale; CPU, {threads} thread(s))")
    ax.grid(alpha=0.3, which="both")
    return [ax.text(row["sentences/s"], row[accuracy], _short(row["model"]), fontsize=8)
            for _, row in frame.iterrows()]


def _untangle(ax, labels: list) -> None:
    """Move the point labels apart (adjustText) and off the points, each joined to its point by a thin line where it
    had to move away from it: the static encoders sit close together, and their names overprinted."""
    from adjustText import adjust_text

    if labels:
        adjust_text(labels, ax=ax, expand=(1.2, 1.6), force_text=(0.5, 1.0), iter_lim=2000,
                    arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5})


def accuracy_speed_plot(frame: pd.DataFrame, path: Path, threads: int, published: dict[str, float] | None = None):
    """Each encoder as a point: sentences/s from raw text (log axis) against its transfer-set mean; where the
    encoders were scored on MTEB's five STS tasks, a second panel against their mean there, with each published
    model's mean as a line across it (its publication gives no speed on comparable hardware: accuracy only)."""
    mteb = MTEB_MEAN in frame and frame[MTEB_MEAN].notna().any()
    fig, axes = plt.subplots(1, 2 if mteb else 1, figsize=(16 if mteb else 9, 5.5), squeeze=False)
    ax = axes[0][0]
    labels = _points(ax, frame, next(c for c in frame.columns if c.endswith("-set r")), threads)
    ax.set_ylabel("mean Pearson's r × 100 over the transfer sets")
    ax.set_title("Accuracy against encoding speed")
    ax.legend(title="starting point", fontsize=9, title_fontsize=9, loc="lower left")
    fig.tight_layout()  # the layout first: the labels are moved apart in the axes' final size
    _untangle(ax, labels)
    if mteb:
        ax = axes[0][1]
        labels = _points(ax, frame, MTEB_MEAN, threads)
        for name, score in (published or {}).items():
            ax.axhline(score, color="grey", linestyle="--", linewidth=0.8)
            # the published model's name at the left edge, where only MiniLM's point is (every static model is fast)
            ax.annotate(f"{name.split('/')[-1]}: {score:.1f} (published; no speed given)", (0.01, score),
                        xycoords=("axes fraction", "data"), textcoords="offset points", xytext=(0, 3), fontsize=7,
                        color="dimgrey")
        ax.set_ylabel("MTEB STS12–16: mean Spearman's ρ × 100 (each year pooled)")
        ax.set_title("On MTEB's protocol, beside the published static models")
        fig.tight_layout()
        _untangle(ax, labels)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return fig


def _mteb_mean(scores: dict) -> float:
    mean = mean_over_tasks(scores.get("mteb", {}))
    return float("nan") if mean is None else mean


def _mteb_section(doc: Document, measured: dict[str, dict], published: dict[str, dict]) -> dict[str, float]:
    """MTEB's STS tasks for every measured encoder that has any, beside the published models' scores; returns the
    published models' five-task means (for the plot)."""
    rows = [{"encoder": name, **{task: o["mteb"][task]["spearman"] for task in MTEB_TASKS if task in o["mteb"]},
             "mean": _mteb_mean(o), "how": "measured here"} for name, o in measured.items() if o.get("mteb")]
    if not rows:
        return {}
    rows += [{"encoder": model, **{task: s["spearman"] for task, s in scores.items()},
              "mean": mean_over_tasks(scores) or float("nan"), "how": "published"}
             for model, scores in published.items()]
    doc.heading("On MTEB's STS protocol, beside the published static models", 3)
    doc.para("MTEB scores STS12–STS16 each as one set: every test pair of the year pooled (STS13 without its SMT "
             "pairs), cosine similarity, Spearman's ρ × 100, the protocol the published static models report. Ours "
             "are measured here on the same sentences as above; the published scores are carried from the public "
             "MTEB results repository (each with its file there, `workflow/published/mteb_sts.csv`), as those "
             "models cannot be downloaded here. all-MiniLM-L6-v2 is both: the protocol's calibration.")
    doc.table(pd.DataFrame(rows).reindex(columns=["encoder", *MTEB_TASKS, "mean", "how"]),
              caption="Spearman's ρ × 100; mean: over the five tasks, where an encoder has all five.")
    return {model: mean for model, scores in published.items()
            if (mean := mean_over_tasks(scores)) is not None and model.split("/")[-1] not in measured}


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
    found = read_result(path)
    ref, ours = found["reference"], found["ours"]
    encoders = {f"{label} (ours, {o['row']})": o for label, o in ours.items()}
    encoders.update({UNTRAINED[source]: u for source, u in found.get("untrained", {}).items()})
    scope = sets_scope(ref["per_dataset"])
    doc.heading(heading, scope=f" ({', '.join(scope)})" if scope else "")
    sets = f"{datasets.transfer_count(ref['per_dataset'])}-set"  # the paper's 22, unless the config scores fewer
    summary = [{"model": ref["model"], f"{sets} r": ref["summary"]["transfer_pearson"],
                f"{sets} ρ": ref["summary"]["transfer_spearman"], "STS 2016 r": ref["summary"]["selection_pearson"],
                MTEB_MEAN: _mteb_mean(ref), "sentences/s": ref["sentences_per_second"],
                "sentences/s from tokens": float("nan"), "speed vs MiniLM": 1.0}]
    for label, o in encoders.items():
        summary.append({"model": label, f"{sets} r": o["summary"]["transfer_pearson"],
                        f"{sets} ρ": o["summary"]["transfer_spearman"], "STS 2016 r": o["summary"]["selection_pearson"],
                        MTEB_MEAN: _mteb_mean(o), "sentences/s": o["sentences_per_second"],
                        "sentences/s from tokens": o.get("tokenized_sentences_per_second", float("nan")),
                        "speed vs MiniLM": o["sentences_per_second"] / ref["sentences_per_second"]})
    frame = pd.DataFrame(summary)
    if frame[MTEB_MEAN].isna().all():  # a profile evaluating on no whole year of STS 2012-2016
        frame = frame.drop(columns=MTEB_MEAN)
    trained = frame.iloc[1 : 1 + len(ours)]
    doc.para(f"Cosine similarity scored exactly as for our models (Pearson/Spearman × 100 per set). Encoding "
             f"speed: every distinct raw sentence of the {len(ref['per_dataset'])} sets ({ref['sentences']:,}) "
             f"through each encoder's `encode`, as a user calls it, on the CPU with {found['threads']} thread(s) "
             f"after a warm-up, ours the fastest of {found['speed_passes']} passes (MiniLM's one pass takes "
             "minutes): MiniLM's time includes its WordPiece tokenisation and ours our Treebank "
             "tokenisation, or for the untrained distilled vectors the static model's tokenizer, which reads their "
             "sets' text as the static model's export does (\"from tokens\" times our model alone, on the "
             "pipeline's tokens). MiniLM was trained on "
             "over a billion sentence pairs, among them Simple Wikipedia pairs (text like our SimpWiki training "
             "data), with 384-d outputs from a 6-layer transformer; our models are Table 4's STS-2016-selected "
             "runs (first seed), on the pretrained and, where trained, the distilled word vectors.")
    doc.table(frame, caption="r, ρ: means over the transfer sets × 100 (STS 2016: over its sets"
              + ("; MTEB STS ρ: over MTEB's five STS tasks, below" if MTEB_MEAN in frame else "")
              + "); sentences/s and the speed ratio are not correlations.")
    if len(trained):
        best = trained[f"{sets} r"].idxmax()
        gap = frame.loc[best, f"{sets} r"] - frame.loc[0, f"{sets} r"]
        doc.bullets([
            f"Accuracy: our best, {frame.loc[best, 'model']}, is {abs(gap):.1f} points "
            f"{'above' if gap > 0 else 'below'} MiniLM on the {sets} mean.",
            f"Speed: our trained models encode {trained['speed vs MiniLM'].min():.1f}× to "
            f"{trained['speed vs MiniLM'].max():.1f}× as many raw sentences per second as MiniLM on the same CPU "
            "threads."])
    published = _mteb_section(doc, {ref["model"]: ref, **encoders}, found.get("published", {}))
    if out_dir is not None:
        accuracy_speed_plot(frame, out_dir / PLOT, found["threads"], published)
        doc.heading("Accuracy against speed", 3)
        doc.image(out_dir / PLOT, f"A scatter plot of {len(frame)} encoders: sentences encoded per second from raw "
                  "text on a logarithmic horizontal axis against the mean Pearson's r × 100 over the transfer sets, "
                  "coloured by starting point (pretrained, distilled or sentence-distilled vectors, all-MiniLM-L6-v2); "
                  "each point is labelled with its model"
                  + ("; beside it, the same encoders against their mean Spearman's ρ over MTEB's five STS tasks, "
                     f"with the {len(published)} published models' means as dashed lines (accuracy only: no "
                     "speed on comparable hardware is published)" if MTEB_MEAN in frame else "") + ".")
    results = {ref["model"]: {"datasets": ref["per_dataset"]}}
    results.update({label: {"datasets": o["per_dataset"]} for label, o in encoders.items()})
    doc.heading("Per set, Pearson's r × 100", 3)
    doc.table(per_dataset_table(results, {k: k for k in results}, None, {}), caption="Pearson's r × 100.")
    # metrics.json's names: Table 4's labels (as before the distilled rows), and the untrained vectors by source
    named = [(ref["model"], ref), *ours.items(),
             *((f"initial vectors ({source})", u) for source, u in found.get("untrained", {}).items())]
    return {name: {"transfer_pearson": r["summary"]["transfer_pearson"],
                   "sentences_per_second": r["sentences_per_second"],
                   **({"mteb_sts_spearman": mean} if (mean := mean_over_tasks(r.get("mteb", {}))) is not None else {})}
            for name, r in named}
