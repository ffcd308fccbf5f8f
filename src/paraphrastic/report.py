"""The report: our numbers beside the paper's (markdown, and self-contained HTML with plots)."""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: cluster nodes and CI have no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import datasets  # noqa: E402
from .atomic import atomic_path, write_json, write_text  # noqa: E402

PAPER_SIMPWIKI_PAIRS = 167_689  # Sec. 4.1.2
PAPER_PPDB_XL_PAIRS = 1_341_188  # footnote 3


class Document:
    """Blocks rendered twice: as markdown and as HTML."""

    def __init__(self):
        self.blocks: list[tuple[str, object]] = []

    def heading(self, text: str, level: int = 2):
        self.blocks.append((f"h{level}", text))

    def para(self, text: str):
        self.blocks.append(("p", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("ul", items))

    def table(self, frame: pd.DataFrame):
        self.blocks.append(("table", frame))

    def image(self, path: Path, alt: str):
        self.blocks.append(("img", (path, alt)))

    def markdown(self, base: Path) -> str:
        out = []
        for kind, value in self.blocks:
            if kind.startswith("h"):
                out.append("#" * int(kind[1:]) + " " + value)
            elif kind == "p":
                out.append(value)
            elif kind == "ul":
                out.append("\n".join(f"- {item}" for item in value))
            elif kind == "table":
                out.append(value.to_markdown(index=False, floatfmt=".1f", missingval="–"))
            elif kind == "img":
                path, alt = value
                out.append(f"![{alt}]({path.relative_to(base).as_posix()})")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
               "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
               "table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{border:1px solid #ccc;"
               "padding:2px 6px;text-align:right}th{background:#f3f3f3}img{max-width:100%}</style></head><body>"]
        for kind, value in self.blocks:
            if kind.startswith("h"):
                out.append(f"<{kind}>{html.escape(value)}</{kind}>")
            elif kind == "p":
                out.append(f"<p>{html.escape(value)}</p>")
            elif kind == "ul":
                out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in value) + "</ul>")
            elif kind == "table":
                out.append(value.to_html(index=False, float_format=lambda v: f"{v:.1f}", na_rep="–"))
            elif kind == "img":
                path, alt = value
                data = base64.b64encode(path.read_bytes()).decode()
                out.append(f"<img alt='{html.escape(alt)}' src='data:image/png;base64,{data}'>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def _read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def paper_table(config: dict, name: str) -> pd.DataFrame | None:
    path = Path(config["paper_tables"]) / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None


def learning_curves(histories: dict[str, pd.DataFrame], path: Path) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for name, frame in histories.items():
        axes[0].plot(frame["epoch"], frame["loss"], marker="o", label=name)
        axes[1].plot(frame["epoch"], frame["selection_pearson"], marker="o", label=name)
        axes[2].plot(frame["epoch"], frame["transfer_pearson"], marker="o", label=name)
    for ax, title in zip(axes, ("training loss (margin + reg.)", "STS 2016 mean Pearson ×100 (selection)",
                                "22-set mean Pearson ×100"), strict=True):
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=7, loc="best")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def per_dataset_table(results: dict[str, dict], columns: dict[str, str], paper: pd.DataFrame | None,
                      paper_columns: dict[str, str], metric: str = "pearson") -> pd.DataFrame:
    """Table-4 layout: one row per transfer set plus year averages and the 22-set mean."""
    rows = []
    transfer = [s for s in datasets.EVAL_SETS if s.transfer and all(s.id in results[e]["datasets"]
                                                                     for e in columns.values())]

    def paper_value(group, label, column):
        if paper is None or column not in paper:
            return math.nan
        hit = paper[(paper["year_group"] == group) & (paper["dataset"] == label)]
        return float(hit[column].iloc[0]) if len(hit) else math.nan

    groups: dict[str, list] = {}
    for spec in transfer:
        row = {"set": spec.id, "group": spec.group}
        for label, exp in columns.items():
            row[label] = results[exp]["datasets"][spec.id][metric]
        for label, column in paper_columns.items():
            row[label] = paper_value(spec.group, spec.paper_name, column)
        rows.append(row)
        groups.setdefault(spec.group, []).append(row)
        if spec.group.startswith("STS") and (spec is transfer[-1] or transfer[transfer.index(spec) + 1].group
                                              != spec.group):
            avg = {"set": f"{spec.group} Average", "group": spec.group}
            for label in list(columns) + list(paper_columns):
                avg[label] = float(np.mean([r[label] for r in groups[spec.group]]))
            for label, column in paper_columns.items():  # the paper's printed average
                avg[label] = paper_value(spec.group, f"{spec.group} Average", column)
            rows.append(avg)
    plain = [r for r in rows if not r["set"].endswith("Average")]
    mean = {"set": f"mean of the {len(plain)} sets", "group": ""}
    for label in list(columns) + list(paper_columns):
        mean[label] = float(np.nanmean([r[label] for r in plain])) if plain else math.nan
    rows.append(mean)
    return pd.DataFrame(rows)


def findings(config: dict, results: dict) -> list[str]:
    """Statements computed from this run's numbers: gains over the initial vectors and the paper's orderings."""
    def mean(exp):
        return results[exp]["summary"]["transfer_pearson"]

    base = mean("baseline")
    lines = [f"{e}: {mean(e):.1f} on the 22-set mean, {mean(e) - base:+.1f} against the averaged initial "
             f"vectors ({base:.1f})." for e in config["experiments"]]

    def order(claim: str, low: str | None, high: str | None):
        if low and high:
            holds = mean(low) < mean(high)
            lines.append(f"{claim}: {'holds' if holds else 'does not hold'} here "
                         f"({low} {mean(low):.1f} vs {high} {mean(high):.1f}).")

    for data_name, cols in config["report"]["table1"].items():
        order(f"Paper: LSTM < LSTMavg ({data_name})", cols.get("lstm"), cols.get("lstmavg"))
        order(f"Paper: LSTMavg < avg without regularization ({data_name})", cols.get("lstmavg"), cols.get("avg"))
    t1 = config["report"]["table1"]
    for model in ("avg", "lstm", "lstmavg"):
        order(f"Paper: {model} trained on PPDB < on SimpWiki (token-matched)", t1.get("PPDB", {}).get(model),
              t1.get("SimpWiki", {}).get(model))
    t4 = config["report"]["table4"]
    order("Paper: LSTMavg < GRAN", t4.get("lstmavg"), t4.get("gran"))
    return lines


def build_report(config: dict, *, data_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    experiments = list(config["experiments"])
    results = {e: _read_json(data_dir / "results" / f"{e}.json") for e in experiments}
    results["baseline"] = _read_json(data_dir / "results" / "baseline.json")
    trains = {e: _read_json(data_dir / "models" / e / "train.json") for e in experiments}
    histories = {e: pd.read_csv(data_dir / "models" / e / "history.csv") for e in experiments}
    train_stats = _read_json(data_dir / "corpus" / "train_stats.json")
    match = _read_json(data_dir / "corpus" / "match_summary.json")
    vocab = _read_json(data_dir / "vocab" / "coverage.json")
    profile_name = config["data_profile"]

    doc = Document()
    doc.heading("Paraphrastic sentence embeddings: transfer results", 1)
    doc.para(f"Wieting & Gimpel (ACL 2017), Sections 3 and 4.1, reproduced with data profile `{profile_name}`. "
             "All numbers are Pearson's r × 100 (Spearman where stated), computed by this run; the paper's "
             f"numbers are read from `{config['paper_tables']}`.")

    doc.heading("Data deviations from the paper")
    sw, pp = train_stats["simpwiki"], train_stats["ppdb"]
    deviations = []
    if profile_name == "offline":
        deviations += [
            f"SimpWiki: {sw['pairs']:,} pairs ({sw['tokens']:,} tokens), the v2 validation slice of the mirror, "
            f"i.e. {100 * sw['pairs'] / PAPER_SIMPWIKI_PAIRS:.0f}% of the paper's {PAPER_SIMPWIKI_PAIRS:,} pairs"
            + (" plus the v1 tuning/test pairs" if config["data"]["simpwiki_extra"] else "") + ".",
            f"PPDB: the {pp['pairs']:,} human-scored pairs of Pavlick et al. (2015) ({pp['tokens']:,} tokens) "
            f"instead of PPDB XL ({PAPER_PPDB_XL_PAIRS:,} phrase pairs); every pair is used, whatever its score.",
            f"Word vectors: `{vocab['embeddings']}` ({vocab['dim']}-d) instead of 300-d PARAGRAM-SL999, "
            "so every model is "
            f"{vocab['dim']}-d and starts from vectors not tuned for paraphrase.",
        ]
    if match["direction"] == "simpwiki_sampled_to_ppdb":
        deviations.append(
            f"Token matching ran the other way: PPDB has fewer tokens ({match['full']['ppdb']['tokens']:,}) than "
            f"SimpWiki ({match['full']['simpwiki']['tokens']:,}), so Table 1 compares all of PPDB with a "
            f"{match['matched']['simpwiki']['pairs']:,}-pair SimpWiki sample "
            f"({match['matched']['simpwiki']['tokens']:,} tokens, seed {match['seed']}); "
            "Table 4 uses all SimpWiki pairs.")
    else:
        deviations.append(
            f"Token-matched PPDB sample: {match['matched']['ppdb']['pairs']:,} pairs "
            f"({match['matched']['ppdb']['tokens']:,} tokens) against SimpWiki's "
            f"{match['full']['simpwiki']['tokens']:,}.")
    deviations += [
        "Tokenisation: NLTK's Treebank (PTB-style) tokenizer and lower-casing instead of Stanford CoreNLP; "
        "SimpWiki and PPDB ship tokenised and are only split on whitespace; a leading # is stripped from hashtags.",
        "Hyperparameters: one setting per model (margin "
        f"{config['train']['margin']}, λ_w {config['train']['lambda_w']}, λ_c {config['train']['lambda_c']}), "
        "not the paper's margin × λ_w grid; the epoch is selected on the STS 2016 mean as in the paper.",
        "GRAN epochs are not given in the paper; it is trained for as many epochs as the LSTM.",
        "Twitter: the 972 test pairs with the expert's graded 0–5 score; STS 2013 SMT comes from the copy "
        "distributed to 2013 participants (the public archive omits it).",
    ]
    doc.bullets(deviations)

    doc.heading("Data")
    rows = [{"corpus": name, "pairs": s["pairs"], "tokens": s["tokens"],
             "mean tokens/sentence": s["mean_sentence_tokens"]} for name, s in train_stats.items()]
    rows += [{"corpus": f"{name} (token-matched)", "pairs": s["pairs"], "tokens": s["tokens"],
              "mean tokens/sentence": s["tokens"] / max(2 * s["pairs"], 1)} for name, s in match["matched"].items()]
    doc.table(pd.DataFrame(rows))
    doc.para(f"Vocabulary: {vocab['words']:,} words with a pretrained vector (plus <pad>, <unk>). Coverage: " +
             "; ".join(f"{name} {100 * c['token_coverage']:.1f}% of tokens, {100 * c['type_coverage']:.1f}% of types"
                       for name, c in vocab["coverage"].items()) + ".")

    table1_cfg = config["report"]["table1"]
    if table1_cfg:
        doc.heading("Table 1: training data (STS 2016 model selection, 22-set mean)")
        paper1 = paper_table(config, "wieting2017_table1")
        rows = []
        for data_name, cols in table1_cfg.items():
            row = {"training data": data_name}
            for model, exp in cols.items():
                row[f"{model} (ours)"] = results[exp]["summary"]["transfer_pearson"]
                if paper1 is not None and model in paper1:
                    hit = paper1[paper1["training_data"] == data_name]
                    row[f"{model} (paper)"] = float(hit[model].iloc[0]) if len(hit) else math.nan
            rows.append(row)
        doc.table(pd.DataFrame(rows))

    table4_cfg = config["report"]["table4"]
    if table4_cfg:
        doc.heading("Table 4: per-dataset results (STS 2016 model selection)")
        paper4 = paper_table(config, "wieting2017_table4")
        columns = {f"{m} (ours)": e for m, e in table4_cfg.items()}
        columns["initial vectors (ours)"] = "baseline"
        paper_cols = {f"{m} (paper)": m for m in table4_cfg}
        doc.table(per_dataset_table(results, columns, paper4, paper_cols))
        doc.heading("Table 4, Spearman's ρ × 100", 3)
        doc.table(per_dataset_table(results, columns, None, {}, metric="spearman"))

    doc.heading("Model selection on STS 2016")
    rows = []
    for e in experiments:
        t, s = trains[e], results[e]["summary"]
        rows.append({"experiment": e, "model": t["settings"]["model"], "train set": t["settings"]["train_set"],
                     "pairs": t["train_pairs"], "epochs": t["settings"]["epochs"],
                     "selected epoch": t["selected_epoch"],
                     "STS16": s["selection_pearson"], "22-set r": s["transfer_pearson"],
                     "22-set ρ": s["transfer_spearman"], "train s": t["train_seconds_total"],
                     "device": t["device"]})
    b = results["baseline"]["summary"]
    rows.append({"experiment": "baseline", "model": "avg (untrained)", "train set": "–", "pairs": 0, "epochs": 0,
                 "selected epoch": 0, "STS16": b["selection_pearson"], "22-set r": b["transfer_pearson"],
                 "22-set ρ": b["transfer_spearman"], "train s": 0.0, "device": "–"})
    doc.table(pd.DataFrame(rows))

    plot = out_dir / "learning_curves.png"
    learning_curves(histories, plot)
    doc.heading("Learning curves")
    doc.image(plot, "loss, STS 2016 and 22-set mean per epoch")

    doc.heading("Findings from this run")
    doc.bullets(findings(config, results))

    all_cols = {e: e for e in ["baseline"] + experiments}
    doc.heading("All experiments, every set (Pearson × 100)")
    sets = [s for s in datasets.EVAL_SETS if all(s.id in results[e]["datasets"] for e in all_cols)]
    frame = pd.DataFrame([{"set": s.id, **{e: results[e]["datasets"][s.id]["pearson"] for e in all_cols}}
                          for s in sets])
    doc.table(frame)

    markdown = doc.markdown(out_dir)
    write_text(out_dir / "report.md", markdown)
    write_text(out_dir / "report.html", doc.html("Paraphrastic sentence embeddings report"))
    metrics = {e: {"transfer_pearson": results[e]["summary"]["transfer_pearson"],
                   "transfer_spearman": results[e]["summary"]["transfer_spearman"],
                   "sts16_pearson": results[e]["summary"]["selection_pearson"]} for e in all_cols}
    write_json(out_dir / "metrics.json", metrics)
    return out_dir / "report.md"

