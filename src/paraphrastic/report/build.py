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

from paraphrastic.atomic import atomic_path, write_json, write_text  # noqa: E402
from paraphrastic.data import datasets  # noqa: E402
from paraphrastic.evaluation.selection import Selection, SupervisedSelection  # noqa: E402
from paraphrastic.experiments import grids  # noqa: E402

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

    def table(self, frame: pd.DataFrame, *, formatted: bool = False):
        """``formatted``: the cells are already text (e.g. four decimals) and are printed as they are."""
        self.blocks.append(("table", (frame, formatted)))

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
                frame, formatted = value
                out.append(frame.to_markdown(index=False, floatfmt=".1f", missingval="–", disable_numparse=formatted))
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
                out.append(value[0].to_html(index=False, float_format=lambda v: f"{v:.1f}", na_rep="–"))
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
    """Table-4 layout: one row per transfer set plus year averages and the 22-set mean.

    ``results[key]["datasets"][set id][metric]``; ``columns`` maps a column label to a key.
    """
    rows = []
    transfer = [s for s in datasets.EVAL_SETS if s.transfer and all(s.id in results[e]["datasets"]
                                                                     for e in columns.values())]

    def paper_value(group, label, column):
        if paper is None or column not in paper:
            return math.nan
        hit = paper[(paper["year_group"] == group) & (paper["dataset"] == label)]
        return float(hit[column].iloc[0]) if len(hit) else math.nan

    groups: dict[str, list] = {}
    for index, spec in enumerate(transfer):
        row = {"set": spec.id, "group": spec.group}
        for label, key in columns.items():
            row[label] = results[key]["datasets"][spec.id][metric]
        for label, column in paper_columns.items():
            row[label] = paper_value(spec.group, spec.paper_name, column)
        rows.append(row)
        groups.setdefault(spec.group, []).append(row)
        last_of_group = index == len(transfer) - 1 or transfer[index + 1].group != spec.group
        if spec.group.startswith("STS") and last_of_group:
            avg = {"set": f"{spec.group} Average", "group": spec.group}
            for label in columns:
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


def reference_section(doc: Document, data_dir: Path) -> dict:
    """all-MiniLM-L6-v2 beside the Table 4 models: same sets, same scorer; encoding speed on the CPU.
    Returns the metrics.json entry (22-set r and sentences/s per model; empty without the stage's file)."""
    path = data_dir / "results" / "encoders.json"
    doc.heading("What a user would pick instead: all-MiniLM-L6-v2 on the same sets")
    if not path.exists():
        doc.para(f"`{path}` is missing: run the `compare_encoders` stage.")
        return {}
    found = _read_json(path)
    ref, ours = found["reference"], found["ours"]
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
    doc.table(frame)
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
    doc.table(per_dataset_table(results, {k: k for k in results}, None, {}))
    return {name: {"transfer_pearson": r["summary"]["transfer_pearson"],
                   "sentences_per_second": r["sentences_per_second"]}
            for name, r in [(ref["model"], ref), *ours.items()]}


def paper_rows(frame: pd.DataFrame | None, **match) -> pd.Series | None:
    if frame is None:
        return None
    hit = frame
    for column, value in match.items():
        hit = hit[hit[column] == value]
    return hit.iloc[0] if len(hit) else None


def grid_table(sel: Selection, row_ids: list[str], paper: pd.DataFrame | None, *, with_regularization: bool):
    rows = []
    for row in row_ids:
        label = sel.labels[row]
        entry = {"model": label["model"]}
        match = {"model": label["model"]}
        if with_regularization:
            entry["regularization"] = label["regularization"]
            match["regularization"] = label["regularization"]
        found = paper_rows(paper, **match)
        entry.update({"runs": len(sel.rows[row]), "seeds": len(sel.scores(row)),
                      "oracle (ours)": sel.shown(row, "oracle"), "STS 2016 (ours)": sel.shown(row, "test"),
                      "oracle (paper)": math.nan if found is None else float(found["oracle"]),
                      "STS 2016 (paper)": math.nan if found is None else float(found["sts2016"])})
        rows.append(entry)
    return pd.DataFrame(rows)


def findings(config: dict, sel: Selection, baseline: float) -> list[str]:
    """Statements computed from this run's numbers: gains over the initial vectors and the paper's orderings."""
    lines = []
    t4 = config["report"]["table4"]
    for column, row in t4.items():
        lines.append(f"{column} ({row}): {sel.score(row):.1f} on the 22-set mean, {sel.score(row) - baseline:+.1f} "
                     f"against the averaged initial vectors ({baseline:.1f}).")

    def order(claim: str, low: str | None, high: str | None, strict: bool = True):
        if low in sel.chosen and high in sel.chosen:
            a, b = sel.score(low), sel.score(high)
            holds = a < b if strict else a <= b
            spread = ""
            if len(sel.scores(low)) > 1 or len(sel.scores(high)) > 1:
                # with replicas, say whether the gap exceeds the seed-to-seed spread
                sd = max(np.nan_to_num(sel.sd(low)), np.nan_to_num(sel.sd(high)))
                spread = f"; the gap is {abs(b - a) / sd:.1f} seed sd" if sd > 0 else ""
            lines.append(f"{claim}: {'holds' if holds else 'does not hold'} here "
                         f"({low} {sel.shown(low)} vs {high} {sel.shown(high)}{spread}).")

    for data_name, cols in config["report"]["table1"].items():
        order(f"Paper: LSTM < LSTMavg ({data_name})", cols.get("lstm"), cols.get("lstmavg"))
    t1 = config["report"]["table1"]
    for model in ("avg", "lstm", "lstmavg"):
        order(f"Paper: {model} trained on PPDB < on SimpWiki (token-matched)", t1.get("PPDB", {}).get(model),
              t1.get("SimpWiki", {}).get(model))
    order("Paper: avg ≤ regularised LSTMavg", t4.get("avg"), t4.get("lstmavg"), strict=False)
    order("Paper: LSTMavg ≤ GRAN", t4.get("lstmavg"), t4.get("gran"), strict=False)
    return lines


def gate_section(doc: Document, config: dict, data_dir: Path, out_dir: Path) -> None:
    """Tables 9-11: the GRAN gate analysis beside the paper's lists."""
    import shutil

    from paraphrastic.analysis.gates import paper_lists

    analysis = data_dir / "gates" / "analysis"
    summary = _read_json(analysis / "summary.json")
    sentences = _read_json(data_dir / "gates" / "sentences.json")
    stanza = _read_json(data_dir / "stanza" / "scores.json")
    by_pos = pd.read_csv(analysis / "by_pos.csv")
    by_label = pd.read_csv(analysis / "by_label.csv")
    by_pair = pd.read_csv(analysis / "by_pos_label.csv", keep_default_na=False)
    model, dim, dev = summary["model"], summary["gate_dim"], stanza["dev"]
    doc.heading("Tables 9-11: GRAN gate analysis (Sec. 5.2)")
    doc.para(
        f"{summary['sentences']:,} sentences from {sentences['source']} ({sentences['qualified']:,} qualified: "
        f"≤ {sentences['max_tokens']} tokens, distinct, not among the model-selection sentences; "
        f"{sentences['longer_than_max']:,} were longer; seed {sentences['seed']}), {summary['tokens']:,} words. "
        f"Model: run {model['run']} (seed {model['seed']}), the oracle choice of row {model['row']} "
        f"({model['runs_in_row']} runs), at its STS-2016-selected epoch (model.pt). "
        f"Gates have {dim} dimensions, so an L1 norm lies in (0, {dim}); the paper's 300-d gates give norms "
        f"up to 300, so the tables also show ours × 300/{dim}.")
    source = stanza["source"]
    if "budget" in stanza:
        b = stanza["budget"]
        source += (f" ({stanza['train_sentences']:,} training sentences, no pretrained word vectors; tagger "
                   f"{b['tagger_steps']:,} steps of batch {b['tagger_batch_size']}, parser {b['parser_steps']:,} steps "
                   f"of batch {b['parser_batch_size']}, best dev checkpoint every {b['eval_interval']} steps)")
    doc.para(f"Tagging and parsing: Stanza {stanza['stanza_version']}, models {source}. On UD EWT dev "
             f"({dev['sentences']:,} sentences, gold words): UPOS {dev['upos']:.1f}, XPOS {dev['xpos']:.1f}, "
             f"UAS {dev['uas']:.1f}, LAS {dev['las']:.1f}. The paper used the Stanford parser.")
    paper = paper_lists(config)
    scale = 300 / dim

    def listing(frame, key, top, k=10):
        ordered = frame.sort_values("mean", ascending=not top).head(k)
        return [f"{label} ({mean:.1f})" for label, mean in zip(ordered[key], ordered["mean"], strict=True)]

    rows = []
    for kind, frame, key in (("POS", by_pos, "xpos"), ("Dep. label", by_label, "sd_label")):
        for which, top in (("top 10", True), ("bottom 10", False)):
            ours = listing(frame, key, top)
            theirs = [] if paper is None else paper[("pos" if kind == "POS" else "label") + ("_top" if top else
                                                                                             "_bottom")]
            for i in range(10):
                rows.append({"list": f"{kind} {which}", "rank": i + 1, "ours (mean L1)": ours[i] if i < len(ours)
                             else "", "paper": theirs[i] if i < len(theirs) else ""})
    doc.para("Table 9: highest and lowest mean gate L1 norm (top lists highest first, bottom lists lowest first). "
             f"Labels seen fewer than {summary['min_count']} times are left out.")
    doc.table(pd.DataFrame(rows))
    agreement = summary.get("agreement")
    if agreement:
        doc.bullets([f"{name}: {a['top_overlap']}/{a['k']} of the paper's top 10 and {a['bottom_overlap']}/{a['k']} "
                     f"of its bottom 10 are in ours; Spearman ρ over the {a['shared_labels']} of its 20 labels we "
                     f"observe: {a['spearman']:.2f}" for name, a in (("POS tags", agreement["pos"]),
                                                                     ("Dependency labels", agreement["label"]))])
    for number, tag, key in ((10, "JJ", "table10"), (11, "VBG", "table11")):
        ours = by_pair[by_pair["xpos"] == tag].sort_values("mean", ascending=False)
        table = pd.DataFrame({"label": ours["sd_label"], "count": ours["count"], "mean L1 (ours)": ours["mean"],
                              f"× 300/{dim}": ours["mean"] * scale})
        if paper is not None:
            table = table.merge(paper[key].rename(columns={"dep_label": "label", "weight": "paper"}), on="label",
                                how="outer")
        # labels only one side has: shown as "–", counts as integers
        table = table.astype(object).where(table.notna(), "–")
        table["count"] = [c if c == "–" else f"{int(c):,}" for c in table["count"]]
        for column in table.columns[2:]:
            table[column] = [v if v == "–" else f"{v:.1f}" for v in table[column]]
        listed = "" if paper is None else f"; the paper lists {len(paper[key])}"
        doc.para(f"Table {number}: mean gate L1 norm of words tagged {tag}, by dependency label "
                 f"(labels seen at least {summary['min_pair_count']} times{listed}).")
        doc.table(table)
    mapping = ", ".join(f"{ud}→{sd}" for ud, sd in summary["label_mapping"].items())
    doc.para("UD labels are mapped to the paper's Stanford Dependencies where one exists: case→prep (possessive "
             "on 's), a negating advmod→neg, compound on a number→number, an adjectival xcomp→acomp, and "
             f"{mapping}; other UD subtypes count as their base relation. The mapping is approximate: UD attaches "
             "prepositions and copulas differently, so prep/pobj/cop are not the same arcs as the paper's.")
    with atomic_path(out_dir / "gate_norms_by_pos.png") as tmp:
        shutil.copyfile(analysis / "norms_by_pos.png", tmp)
    doc.image(out_dir / "gate_norms_by_pos.png", "mean gate L1 norm by POS tag")


def full_grid_size(config: dict) -> int:
    unthinned = dict(config, grid_thinning={})
    return len(grids.expand(unthinned)[0])


def build_report(config: dict, *, data_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    sel = Selection(config, data_dir)
    baseline_results = _read_json(data_dir / "results" / "baseline.json")
    baseline = baseline_results["summary"]["transfer_pearson"]
    train_stats = _read_json(data_dir / "corpus" / "train_stats.json")
    match = _read_json(data_dir / "corpus" / "match_summary.json")
    vocab = _read_json(data_dir / "vocab" / "coverage.json")
    profile_name = config["data_profile"]
    keep = (config.get("grid_thinning") or {}).get(profile_name) or {}

    doc = Document()
    doc.heading("Paraphrastic sentence embeddings: transfer, supervised and analysis results", 1)
    doc.para(f"Wieting & Gimpel (ACL 2017), Sections 3-5, reproduced with data profile `{profile_name}`: "
             f"{len(sel.runs)} training runs ({len(sel.histories)} jobs, one per run and seed) in "
             f"{len(sel.rows)} table rows. All numbers are Pearson's r × 100 "
             "(Spearman where stated), computed by this run; the paper's numbers are read from "
             f"`{config['paper_tables']}`. \"STS 2016\" is the paper's \"test\" model selection (best mean over "
             "the 5 STS 2016 sets, over every run and epoch of a row); \"oracle\" selects on the 22-set mean.")

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
            f"so every model is {vocab['dim']}-d and starts from vectors not tuned for paraphrase.",
        ]
    if match["direction"] == "simpwiki_sampled_to_ppdb":
        deviations.append(
            f"Token matching ran the other way: PPDB has fewer tokens ({match['full']['ppdb']['tokens']:,}) than "
            f"SimpWiki ({match['full']['simpwiki']['tokens']:,}), so Table 1 compares all of PPDB with a "
            f"{match['matched']['simpwiki']['pairs']:,}-pair SimpWiki sample "
            f"({match['matched']['simpwiki']['tokens']:,} tokens, seed {match['seed']}); "
            "Tables 2-4 use all SimpWiki pairs.")
    else:
        deviations.append(
            f"Token-matched PPDB sample: {match['matched']['ppdb']['pairs']:,} pairs "
            f"({match['matched']['ppdb']['tokens']:,} tokens) against SimpWiki's "
            f"{match['full']['simpwiki']['tokens']:,}.")
    if keep:
        kept = ", ".join(f"{k} {v}" for k, v in keep.items())
        deviations.append(f"Tuning grids thinned for this profile to {len(sel.runs)} of the paper's "
                          f"{full_grid_size(config):,} runs, keeping only: {kept}. Every table row is still "
                          "selected from real training runs, but over far fewer settings than the paper's.")
    deviations += [
        "Tokenisation: NLTK Punkt + Treebank (PTB-style) tokenizer and lower-casing instead of Stanford CoreNLP; "
        "SimpWiki and PPDB ship tokenised and are only split on whitespace (PTB escapes such as -LRB- are "
        "mapped back to characters); a leading # is stripped from hashtags.",
        "GRAN epochs are not given in the paper; GRAN models are trained for as many epochs as the LSTM (3).",
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
    doc.para(f"Vocabulary: {vocab['words']:,} words with a pretrained vector (plus <pad>, <unk>, <s>, </s>). "
             "Coverage: " + "; ".join(f"{name} {100 * c['token_coverage']:.1f}% of tokens, "
                                      f"{100 * c['type_coverage']:.1f}% of types"
                                      for name, c in vocab["coverage"].items()) + ".")

    table1 = config["report"]["table1"]
    if table1:
        doc.heading("Table 1: training data (STS 2016 model selection, 22-set mean)")
        paper1 = paper_table(config, "wieting2017_table1")
        rows = []
        for data_name, cols in table1.items():
            row = {"training data": data_name}
            for model, row_id in cols.items():
                row[f"{model} (ours)"] = sel.shown(row_id)
                found = paper_rows(paper1, training_data=data_name)
                row[f"{model} (paper)"] = math.nan if found is None or model not in found else float(found[model])
            rows.append(row)
        doc.table(pd.DataFrame(rows))

    if config["report"].get("table2"):
        doc.heading("Table 2: regularization (22-set mean)")
        doc.table(grid_table(sel, config["report"]["table2"], paper_table(config, "wieting2017_table2"),
                             with_regularization=True))
    if config["report"].get("table3"):
        doc.heading("Table 3: GRAN variants (22-set mean)")
        doc.table(grid_table(sel, config["report"]["table3"], paper_table(config, "wieting2017_table3"),
                             with_regularization=False))

    table4 = config["report"]["table4"]
    reference_metrics = {}
    if table4:
        doc.heading("Table 4: per-dataset results (STS 2016 model selection)")
        results = {row: sel.as_results(row) for row in table4.values()}
        results["baseline"] = baseline_results
        columns = {f"{m} (ours)": row for m, row in table4.items()}
        columns["initial vectors (ours)"] = "baseline"
        paper4 = paper_table(config, "wieting2017_table4")
        doc.table(per_dataset_table(results, columns, paper4, {f"{m} (paper)": m for m in table4}))
        doc.heading("Table 4, Spearman's ρ × 100", 3)
        doc.table(per_dataset_table(results, columns, None, {}, metric="spearman"))
        reference_metrics = reference_section(doc, data_dir)

    doc.heading("Model selection per row")
    rows = []
    for row, choice in sel.chosen.items():
        (test_run, test_epochs), (oracle_run, oracle_epochs) = choice["test"], choice["oracle"]
        rows.append({"row": row, "runs": len(sel.rows[row]), "seeds": len(test_epochs), "test run": test_run,
                     "epoch": ",".join(str(e["epoch"]) for _, e in sorted(test_epochs.items())),
                     "STS16": float(np.mean(sel.scores(row, "test", "selection_pearson"))),
                     "22-set (test)": sel.shown(row, "test"), "oracle run": oracle_run,
                     "oracle epoch": ",".join(str(e["epoch"]) for _, e in sorted(oracle_epochs.items())),
                     "22-set (oracle)": sel.shown(row, "oracle")})
    doc.para("With several seeds a run is scored by its seeds' mean (each seed at its own selected epoch; "
             "`epoch` lists them by seed) and shown as mean ± sample sd.")
    doc.table(pd.DataFrame(rows))
    replicated = [row for row in sel.rows if len(sel.scores(row)) > 1]
    if replicated:
        doc.heading("Seed variation (rows trained with several seeds)")
        doc.table(pd.DataFrame([{"row": row, "run": sel.chosen[row]["test"][0], "seeds": len(sel.scores(row)),
                                 "22-set per seed": ", ".join(f"{v:.1f}" for v in sel.scores(row)),
                                 "mean": sel.score(row), "sd": sel.sd(row),
                                 "range": max(sel.scores(row)) - min(sel.scores(row))} for row in replicated]))

    doc.heading("Training runs and wall time per job")
    run_rows = []
    for row, names in sel.rows.items():
        for name in names:
            settings = sel.runs[name]
            for seed in sel.seeds[name]:
                info = sel.trains[(name, seed)]
                run_rows.append({"run": name, "seed": seed, "row": row, "model": settings["model"],
                                 "train set": settings["train_set"],
                                 "settings": ", ".join(f"{k}={v}" for k, v in sorted(settings.items())
                                                       if k not in ("model", "train_set", "epochs", "seeds")),
                                 "epochs": settings["epochs"], "train s": info["train_seconds_total"],
                                 "job s": info["wall_seconds_this_call"], "device": info["device"]})
    runs_frame = pd.DataFrame(run_rows)
    write_text(out_dir / "runs.csv", runs_frame.to_csv(index=False))
    doc.para(f"{len(run_rows)} jobs, {runs_frame['job s'].sum() / 60:.1f} min of job wall time in all "
             "(`job s`: the training job's wall time including per-epoch evaluation; `train s`: the "
             "training passes alone). The manifest of runs and settings is `runs.csv` beside this report.")
    doc.table(runs_frame)

    plot = out_dir / "learning_curves.png"
    shown = {}
    for row in dict.fromkeys([*table4.values(), *(r for c in table1.values() for r in c.values())]):
        run, seed, _ = sel.first_seed(row)
        epochs = [{k: v for k, v in h.items() if not k.startswith("per_dataset")}
                  for h in sel.histories[(run, seed)]]
        shown[row] = pd.DataFrame(epochs)
    learning_curves(shown, plot)
    doc.heading("Learning curves (the STS-2016-selected run of each row in Tables 1 and 4; its first seed)")
    doc.image(plot, "loss, STS 2016 and 22-set mean per epoch")

    gate_section(doc, config, data_dir, out_dir)

    from paraphrastic.report.supervised import error_section, supervised_section

    supervised = SupervisedSelection(config, data_dir)
    supervised_metrics = supervised_section(doc, config, data_dir, supervised)
    error_section(doc, config, data_dir)

    from paraphrastic.report.seed_systems import pwim_section, siamese_section

    seed_system_metrics = {"siamese_cbow": siamese_section(doc, config, data_dir),
                           "pwim": pwim_section(doc, config, data_dir, sel, supervised)}

    doc.heading("Findings from this run")
    doc.bullets(findings(config, sel, baseline))

    markdown = doc.markdown(out_dir)
    write_text(out_dir / "report.md", markdown)
    write_text(out_dir / "report.html", doc.html("Paraphrastic sentence embeddings report"))
    metrics = {}
    for row in sel.rows:
        metrics[row] = {"test": sel.score(row, "test"), "oracle": sel.score(row, "oracle")}
        if len(sel.scores(row)) > 1:
            metrics[row].update(test_sd=sel.sd(row, "test"), oracle_sd=sel.sd(row, "oracle"),
                                seeds=len(sel.scores(row)))
    metrics["baseline"] = {"test": baseline, "oracle": baseline}
    metrics["supervised"] = supervised_metrics
    if reference_metrics:
        metrics["reference_encoder"] = reference_metrics
    metrics.update(seed_system_metrics)
    write_json(out_dir / "metrics.json", metrics)
    return out_dir / "report.md"
